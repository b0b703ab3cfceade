#!/usr/bin/env python3
"""Write a deterministic pi v3 transcript of about SIZE_MB megabytes (streaming).

    python3 bench/gen_transcript.py [SIZE_MB=100] OUT.jsonl [--seed N]

Realistic turns: user prompt; assistant with thinking + text + toolCall (read / write /
edit / bash) and usage; toolResult with long output; assistant answer. One early
compaction entry (after turn 40) keeps the tail of the early history. Written line by
line, never held in memory. Same arguments -> same bytes.
"""
import datetime
import hashlib
import json
import os
import random
import sys

args = [a for a in sys.argv[1:]]
seed = 20260227
if "--seed" in args:
    i = args.index("--seed")
    seed = int(args[i + 1])
    del args[i:i + 2]
if len(args) == 1:
    size_mb, out = 100.0, args[0]
elif len(args) == 2:
    size_mb, out = float(args[0]), args[1]
else:
    sys.exit("usage: gen_transcript.py [SIZE_MB] OUT.jsonl [--seed N]")

TARGET = int(size_mb * 1024 * 1024)
rng = random.Random(seed)
T0 = 1771920000000  # 2026-02-24T08:00:00Z

WORDS = ("the config loader merges defaults then the yaml file then environment overrides and the exporter "
         "retries uploads with backoff while the ledger cursor is committed once per page so a crash never "
         "duplicates rows but the nightly job must finish before reconciliation starts at four").split()
PATHS = ["src/export/invoice.ts", "src/export/csv.ts", "src/config/load.ts", "src/util/retry.ts", "test/invoice.test.ts",
         "README.md", "docs/ops/runbook.md", "k8s/api/deployment.yaml", "src/ledger/cursor.ts", "package.json"]


def iso(ms):
    d = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def sentence(n_words):
    return " ".join(rng.choice(WORDS) for _ in range(n_words)).capitalize() + "."


def text(n_chars):
    parts, size = [], 0
    while size < n_chars:
        s = sentence(rng.randint(8, 22))
        parts.append(s)
        size += len(s) + 1
    return " ".join(parts)[:n_chars]


# Pre-built blocks of "file content" and "command output" that are sliced per result,
# so long outputs are cheap to produce yet differ between turns.
CODE = "".join(f"{i + 1:>5}\texport function step{i}(ctx: Ctx): number {{ return ctx.page * {i % 97} + {i % 13}; }}\n"
               for i in range(4000))
LOG = "".join(f"2026-02-24T0{i % 10}:{i % 60:02d}:{(i * 7) % 60:02d}.{i % 1000:03d}Z {'INFO WARN ERROR'.split()[i % 3]:<5} "
              f"exporter page={i} rows={(i * 37) % 200} elapsed_ms={(i * 53) % 9000} bucket=billing-exports\n"
              for i in range(6000))


def slice_of(block, n):
    start = rng.randrange(0, max(1, len(block) - n))
    return block[start:start + n]


n_ids = 0
leaf = None
t = T0
written = 0


def new_id():
    global n_ids
    n_ids += 1
    return hashlib.sha256(f"{seed}/{n_ids}".encode()).hexdigest()[:8]


def usage(inp, out, cr):
    return {"input": inp, "output": out, "cacheRead": cr, "cacheWrite": 0, "totalTokens": inp + out + cr,
            "cost": {"input": round(inp * 3e-6, 6), "output": round(out * 15e-6, 6), "cacheRead": round(cr * 3e-7, 6),
                     "cacheWrite": 0, "total": round(inp * 3e-6 + out * 15e-6 + cr * 3e-7, 6)}}


os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
f = open(out, "w", encoding="utf-8", newline="\n")


def emit(obj):
    global written
    line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
    f.write(line)
    written += len(line.encode("utf-8"))


def entry(typ, fields, dt):
    global leaf, t
    t += dt
    eid = new_id()
    e = {"type": typ, "id": eid, "parentId": leaf, "timestamp": iso(t)}
    e.update(fields)
    emit(e)
    leaf = eid
    return eid


emit({"type": "session", "version": 3, "id": hashlib.sha256(f"session/{seed}".encode()).hexdigest()[:8] + "-7c1e-4a2b-9d3f-"
      + hashlib.sha256(f"s/{seed}".encode()).hexdigest()[:12], "timestamp": iso(t), "cwd": "/home/dev/projects/billing-export"})
entry("model_change", {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}, 5)
entry("thinking_level_change", {"thinkingLevel": "medium"}, 0)

ctx = 9000
turn = 0
turn_users = []
while written < TARGET:
    turn += 1
    u = entry("message", {"message": {"role": "user", "content": [{"type": "text", "text": f"Turn {turn}: " + text(rng.randint(80, 900))}],
                                       "timestamp": t + 30_000}}, 30_000)
    turn_users.append(u)
    for step in range(rng.randint(1, 4)):
        tool = rng.choice(["read", "read", "bash", "bash", "edit", "write"])
        path = rng.choice(PATHS)
        if tool == "read":
            a, out_text = {"path": path}, slice_of(CODE, rng.randint(3000, 40000))
        elif tool == "bash":
            a, out_text = ({"command": f"npm test -- {path.split('/')[-1]} 2>&1 | tail -{rng.randint(50, 400)}", "timeout": 120},
                           slice_of(LOG, rng.randint(2000, 30000)))
        elif tool == "edit":
            a = {"path": path, "oldText": slice_of(CODE, rng.randint(60, 400)), "newText": slice_of(CODE, rng.randint(60, 500))}
            out_text = f"Successfully replaced text in {path}."
        else:
            a = {"path": path, "content": slice_of(CODE, rng.randint(500, 6000))}
            out_text = f"Wrote {len(a['content'])} bytes to {path}"
        call_id = "toolu_01" + hashlib.sha256(f"{seed}/call/{n_ids}".encode()).hexdigest()[:22]
        blocks = []
        if rng.random() < 0.6:
            blocks.append({"type": "thinking", "thinking": text(rng.randint(100, 1500)),
                           "thinkingSignature": "ErUBCkYIBhgCIkD" + hashlib.sha256(f"sig/{n_ids}".encode()).hexdigest()})
        if rng.random() < 0.5:
            blocks.append({"type": "text", "text": text(rng.randint(40, 300))})
        blocks.append({"type": "toolCall", "id": call_id, "name": tool, "arguments": a})
        ctx = min(ctx + rng.randint(500, 9000), 180000)
        entry("message", {"message": {"role": "assistant", "content": blocks, "api": "anthropic-messages", "provider": "anthropic",
                                      "model": "claude-sonnet-4-5", "usage": usage(rng.randint(200, 3000), rng.randint(40, 900), ctx),
                                      "stopReason": "toolUse", "timestamp": t + 6_000}}, 6_000)
        entry("message", {"message": {"role": "toolResult", "toolCallId": call_id, "toolName": tool,
                                      "content": [{"type": "text", "text": out_text}], "isError": rng.random() < 0.05,
                                      "timestamp": t + 1_500}}, 1_500)
    entry("message", {"message": {"role": "assistant", "content": [{"type": "text", "text": text(rng.randint(200, 2500))}],
                                  "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
                                  "usage": usage(rng.randint(200, 3000), rng.randint(100, 1200), ctx), "stopReason": "stop",
                                  "timestamp": t + 8_000}}, 8_000)
    if turn == 40:
        entry("compaction", {"summary": "## Goal\nHarden the billing exporter.\n\n## Constraints & Preferences\n- (none)\n\n"
                                        "## Progress\n### Done\n- [x] Retry wrapper\n\n### In Progress\n- [ ] Tests\n\n### Blocked\n- (none)\n\n"
                                        "## Key Decisions\n- **Retry uploads only**: cursor commit is not idempotent\n\n"
                                        "## Next Steps\n1. Finish the tests\n\n## Critical Context\n- (none)\n\n"
                                        "<read-files>\nREADME.md\n</read-files>\n\n<modified-files>\nsrc/util/retry.ts\n</modified-files>",
                             "firstKeptEntryId": turn_users[-5], "tokensBefore": ctx,
                             "details": {"readFiles": ["README.md"], "modifiedFiles": ["src/util/retry.ts"]}, "fromHook": False},
              20_000)
        ctx = 30000
f.close()
print(f"{out}: {written / 1048576:.1f} MB, {turn} turns, {n_ids} entries", file=sys.stderr)
