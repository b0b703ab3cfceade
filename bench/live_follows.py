#!/usr/bin/env python3
"""Issue 31's live target says the row follows each turn: the TUI open on the Sessions screen
of a SQLite host (a copy: this writes into it), filtered to SESSION_KEY, while that session
gets a turn; within 1.5 s of each turn (the TUI polls its files once a second, and the
reload takes the rest) the screen, drawn by pyte (from PyPI), must show the turn's context
figure in the session's row.

    PYTHONPATH=bench/data/py bench/live_follows.py CLAWTOP STATE_DIR AGENT.sqlite SESSION_KEY [TURNS]

Prints each turn's row and `row follows each turn: yes (N of N)` (or `NO`); exits 1 on NO.
"""
import fcntl
import json
import os
import pty
import select
import signal
import sqlite3
import struct
import sys
import termios
import time

import pyte

COLS, ROWS = 160, 50


def main():
    binary, state, db, key = sys.argv[1:5]
    turns = int(sys.argv[5]) if len(sys.argv) > 5 else 5
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.execv(binary, [binary, "--state-dir", state, "--no-live"])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)

    def pump(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try:
                    stream.feed(os.read(fd, 65536))
                except OSError:
                    return

    short = key.rsplit(":", 1)[-1]
    pump(5)
    os.write(fd, f"/{short}\r".encode())
    pump(1)
    c = sqlite3.connect(db, timeout=5)
    # The schema's CHECKs call octet_length (SQLite 3.43); older builds get it from here.
    c.create_function("octet_length", 1, lambda v: None if v is None else len(v.encode() if isinstance(v, str) else v),
                      deterministic=True)
    sid = c.execute("SELECT current_session_id FROM session_nodes WHERE session_key = ?", (key,)).fetchone()[0]
    followed = 0
    for turn in range(turns):
        seq = c.execute("SELECT coalesce(max(seq), -1) FROM transcript_events WHERE session_id = ?", (sid,)).fetchone()[0]
        now = int(time.time() * 1000)
        prompt = 50_000 + turn * 20_000
        u = {"type": "message", "id": f"follow-u{turn}", "parentId": f"follow-a{turn - 1}" if turn else None,
             "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
             "message": {"role": "user", "content": f"turn {turn}", "timestamp": now}}
        a = {"type": "message", "id": f"follow-a{turn}", "parentId": f"follow-u{turn}", "timestamp": u["timestamp"],
             "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "provider": "p", "model": "m",
                         "usage": {"input": prompt, "output": 5, "cacheRead": 0, "cacheWrite": 0,
                                   "totalTokens": prompt + 5}, "stopReason": "stop", "timestamp": now}}
        for k, e in enumerate((u, a)):
            c.execute("INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)",
                      (sid, seq + 1 + k, json.dumps(e), now))
        c.execute("UPDATE session_nodes SET updated_at = ? WHERE session_key = ?", (now, key))
        c.commit()
        pump(1.5)
        row = next((line.rstrip() for line in screen.display if f" {short} " in line), "")
        ok = f" {prompt // 1000}k/" in row
        followed += ok
        print(f"turn {turn}: {'ok' if ok else 'MISSING'} {prompt // 1000}k: {row}")
    try:
        os.write(fd, b"q")
        time.sleep(0.3)
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    os.waitpid(pid, 0)
    verdict = "yes" if followed == turns else "NO"
    print(f"row follows each turn: {verdict} ({followed} of {turns})")
    sys.exit(0 if followed == turns else 1)


if __name__ == "__main__":
    main()
