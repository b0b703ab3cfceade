#!/usr/bin/env python3
"""The C-backed floor of issue 20's S2: select every row of the largest session of an
OpenClaw 2026.9 agent database in seq order and decompress each (SQLite's C library and
libzstd through the `zstandard` wheel), doing nothing else. clawtop's first screen + plan on
the same session is compared with this.

    python3 bench/floor.py AGENT.sqlite [--export FILE.jsonl]
    python3 bench/floor.py --all-sessions AGENT.sqlite...   # issue 31: every row of every session
    python3 bench/floor.py --all-sessions --entries AGENT.sqlite...  # and every store entry
    python3 bench/floor.py --all-sessions --entries-parsed AGENT.sqlite...  # each one parsed
    python3 bench/floor.py --parse-all AGENT.sqlite...      # the same, each row and store entry parsed
    python3 bench/floor.py --files STATE_DIR                # issue 31: every transcript of a file store

With --export it also writes the session's rows as a JSONL transcript (one row per line, in
seq order; not timed), for pi to open the same transcript (S2's other baseline).
"""
import sqlite3
import sys
import time

try:
    import zstandard  # pip install zstandard (bench/run.sh installs it into bench/data/py)
except ImportError:  # --files needs none
    zstandard = None


def all_sessions(dbs, entries=None, parse_rows=False) -> None:
    """Every row of every session of each database, selected in (session, seq) order and
    decompressed: the floor of a cold `list` on a SQLite host (issue 31). With `entries`, each
    session's store entry (`session_nodes.entry_json`) is selected too: what a list must read
    besides the rows, and the floor leaves unread. "select" leaves it unparsed; "parse" parses
    it (`json.loads`), as --files parses a file store's sessions.json. With `parse_rows` (and
    the entries parsed: --parse-all), every row is parsed once by C too. That is not a goal's
    floor: bench/run.sh shows it beside the goal, to say how much of a cold list is work the
    floor leaves out."""
    import json
    t0 = time.process_time()
    d = zstandard.ZstdDecompressor()
    sessions = rows = total = 0
    column = "entry_json" if entries else "NULL"
    for db in dbs:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        for sid, entry in c.execute(f"SELECT current_session_id, {column} FROM session_nodes").fetchall():
            sessions += 1
            if entry is not None:
                total += len(entry)
                if entries == "parse":
                    json.loads(entry)
            for js, z in c.execute(
                "SELECT event_json, event_zstd FROM transcript_events WHERE session_id = ? ORDER BY seq",
                (sid,),
            ):
                rows += 1
                text = d.decompress(z) if z is not None else js
                if text is not None:
                    if parse_rows:
                        json.loads(text)
                    total += len(text)
    done = "parsed" if parse_rows else "decoded"
    print(f"{sessions} sessions, {rows} rows, {total} bytes {done}, {time.process_time() - t0:.3f} s cpu")


def files(state_dir) -> None:
    """Each agent's sessions.json parsed (C json) and every entry's transcript file read
    whole: the floor of a cold `list` on a file-backed host (issue 31)."""
    import glob
    import json
    import os
    t0 = time.process_time()
    sessions = read = total = 0
    for store in glob.glob(os.path.join(state_dir, "agents", "*", "sessions", "sessions.json")):
        sdir = os.path.dirname(store)
        with open(store, "rb") as f:
            entries = json.load(f)
        for e in entries.values():
            sessions += 1
            name = os.path.basename(e.get("sessionFile") or f"{e.get('sessionId')}.jsonl")
            try:
                with open(os.path.join(sdir, name), "rb") as f:
                    total += len(f.read())
                    read += 1
            except OSError:
                pass
    print(f"{sessions} sessions, {read} transcripts, {total} bytes read, {time.process_time() - t0:.3f} s cpu")


def main() -> None:
    if sys.argv[1] == "--all-sessions":
        if sys.argv[2:3] == ["--entries"]:
            return all_sessions(sys.argv[3:], entries="select")
        if sys.argv[2:3] == ["--entries-parsed"]:
            return all_sessions(sys.argv[3:], entries="parse")
        return all_sessions(sys.argv[2:])
    if sys.argv[1] == "--parse-all":
        return all_sessions(sys.argv[2:], entries="parse", parse_rows=True)
    if sys.argv[1] == "--files":
        return files(sys.argv[2])
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
