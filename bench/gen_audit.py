#!/usr/bin/env python3
"""Write the audit benchmark's transcript (the same bytes as `generate_audit_transcript` in
benches/read_side.rs): a linear pi v3 transcript of about SIZE_MB megabytes with identifiers
in every message (paths, URLs, hashes, ticket ids, host:port) and a compaction every 2,000
entries that keeps the 40 entries before it.

    python3 bench/gen_audit.py [SIZE_MB=100] OUT.jsonl
"""
import sys

args = sys.argv[1:]
if len(args) == 1:
    mb, out = 100, args[0]
elif len(args) == 2:
    mb, out = int(args[0]), args[1]
else:
    sys.exit("usage: gen_audit.py [SIZE_MB] OUT.jsonl")

filler = "the exporter retries uploads with backoff while the cursor is committed " * 20
limit = mb << 20
with open(out, "w", encoding="utf-8", newline="\n") as w:
    w.write('{"type":"session","version":3,"id":"audit","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/srv"}\n')
    written, n, parent = 0, 0, "null"
    while written < limit:
        id_ = f"{n:08x}"
        if n % 2000 == 1999:
            kept = f"{n - 40:08x}"
            line = (
                f'{{"type":"compaction","id":"{id_}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z",'
                f'"summary":"## Decisions\\n- deploy /srv/app/mod{n % 97}/main.rs to db{n % 13}.internal:5432\\n'
                f'## Open TODOs\\n- PR https://git.example.com/o/r/pull/{n // 3}\\n## Constraints/Rules\\n'
                f'## Pending user asks\\n## Exact identifiers\\nDEADBEEF{n - 7:08X}",'
                f'"firstKeptEntryId":"{kept}","tokensBefore":90000}}'
            )
        else:
            role = "user" if n % 2 == 0 else "assistant"
            line = (
                f'{{"type":"message","id":"{id_}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z",'
                f'"message":{{"role":"{role}","content":[{{"type":"text","text":"step {n}: see /srv/app/mod{n % 97}/main.rs, '
                f'https://git.example.com/o/r/pull/{n // 3} and db{n % 13}.internal:5432; commit deadbeef{n:08x}, '
                f'ticket OPS-{n % 1000000:06}. {filler}"}}],"timestamp":1}}}}'
            )
        written += len(line.encode()) + 1
        w.write(line + "\n")
        parent = f'"{id_}"'
        n += 1
