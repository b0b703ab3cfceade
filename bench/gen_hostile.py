#!/usr/bin/env python3
"""Write the large and hostile transcripts of issue 12 item 6 (streaming, deterministic).

    python3 bench/gen_hostile.py KIND OUT.jsonl

KIND:
  chain    ~150 MB, 500,000 entries in one parent chain
  fanout   ~213 MB, entries whose parents are spread over many branches
  oneline  a header and one user message whose line is 300 MB, then a short reply
  nul      a sparse 4 GiB file of NUL bytes with no newline
"""
import json
import random
import sys

kind, out = sys.argv[1], sys.argv[2]
rng = random.Random(12)
HEADER = {"type": "session", "version": 3, "id": "hostile-1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/x"}


def msg(i, parent, role, text):
    m = {"role": role, "content": text if role == "user" else [{"type": "text", "text": text}], "timestamp": i}
    if role == "assistant":
        m.update({"provider": "p", "model": "m", "stopReason": "stop",
                  "usage": {"input": 1000 + i, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1010 + i}})
    return {"type": "message", "id": "e%07x" % i, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z",
            "message": m}


with open(out, "w") as f:
    if kind == "nul":
        f.truncate(4 << 30)
        sys.exit(0)
    f.write(json.dumps(HEADER) + "\n")
    if kind == "chain":
        parent = None
        filler = "word " * 20
        for i in range(500_000):
            e = msg(i, parent, "user" if i % 2 == 0 else "assistant", filler + str(i))
            f.write(json.dumps(e, separators=(",", ":")) + "\n")
            parent = e["id"]
    elif kind == "fanout":
        filler = "branch text " * 24
        n = 0
        size = 0
        while size < 213 * 1024 * 1024:
            parent = None if n == 0 else "e%07x" % rng.randrange(max(0, n - 50), n)
            line = json.dumps(msg(n, parent, "user" if n % 2 == 0 else "assistant", filler + str(n)),
                              separators=(",", ":")) + "\n"
            f.write(line)
            size += len(line)
            n += 1
    elif kind == "oneline":
        head = json.dumps(msg(0, None, "user", "X"), separators=(",", ":"))
        pre, post = head.split('"content":"X"')
        f.write(pre + '"content":"')
        chunk = "lorem ipsum " * 87381  # ~1 MiB
        for _ in range(300):
            f.write(chunk)
        f.write('"' + post + "\n")
        f.write(json.dumps(msg(1, "e0000000", "assistant", "short reply"), separators=(",", ":")) + "\n")
    else:
        sys.exit("unknown kind " + kind)
