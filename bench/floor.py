#!/usr/bin/env python3
"""The C-backed floor of issue 20's S2: select every row of the largest session of an
OpenClaw 2026.9 agent database in seq order and decompress each (SQLite's C library and
libzstd through the `zstandard` wheel), doing nothing else. clawtop's first screen + plan on
the same session is compared with this.

    python3 bench/floor.py AGENT.sqlite [--export FILE.jsonl]

With --export it also writes the session's rows as a JSONL transcript (one row per line, in
seq order; not timed), for pi to open the same transcript (S2's other baseline).
"""
import sqlite3
import sys
import time

import zstandard  # pip install zstandard (bench/run.sh installs it into bench/data/py)


def main() -> None:
    db = sys.argv[1]
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    sid, rows = c.execute(
        "SELECT session_id, count(*) FROM transcript_events"
        " GROUP BY session_id ORDER BY 2 DESC LIMIT 1"
    ).fetchone()
    t0 = time.process_time()
    d = zstandard.ZstdDecompressor()
    total = 0
    for js, z in c.execute(
        "SELECT event_json, event_zstd FROM transcript_events WHERE session_id = ? ORDER BY seq",
        (sid,),
    ):
        if z is not None:
            total += len(d.decompress(z))
        elif js is not None:
            total += len(js)
    print(f"{rows} rows, {total} bytes decoded, {time.process_time() - t0:.3f} s cpu")
    if len(sys.argv) > 3 and sys.argv[2] == "--export":
        with open(sys.argv[3], "wb") as out:
            for js, z in c.execute(
                "SELECT event_json, event_zstd FROM transcript_events"
                " WHERE session_id = ? ORDER BY seq",
                (sid,),
            ):
                out.write(d.decompress(z) if z is not None else js.encode())
                out.write(b"\n")


if __name__ == "__main__":
    main()
