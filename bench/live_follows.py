#!/usr/bin/env python3
"""Issue 31's live target says the row follows each turn: the TUI open on the Sessions screen
of a host (a copy: this writes into it), filtered to SESSION_KEY, while that session
gets a turn; within 1.5 s of each turn (the TUI polls its files once a second, and the
reload takes the rest) the screen, drawn by pyte (from PyPI), must show the turn's context
figure in the session's row.

    PYTHONPATH=bench/data/py bench/live_follows.py CLAWTOP STATE_DIR AGENT.sqlite SESSION_KEY [TURNS]
    PYTHONPATH=bench/data/py bench/live_follows.py CLAWTOP STATE_DIR sessions.json SESSION_KEY [TURNS]

The turns are written as bench/live_tui.py writes them (a file-backed host's: the transcript
appended to, the whole store written again).

Prints each turn's row and `row follows each turn: yes (N of N)` (or `NO`); exits 1 on NO.
"""
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

import pyte

from live_tui import FileTurns, SqliteTurns

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
    agent = key.split(":")[1] if key.count(":") >= 2 else ""
    # The row: its agent column, then its key as the list shows it (its last part).
    shown = re.compile(rf"\s{re.escape(agent)}\s+{re.escape(short)}\s")
    pump(5)
    # Filtered by the whole key: a short one ("main") matches every row of agent main.
    os.write(fd, f"/{key}\r".encode())
    pump(1)
    # The turns written as bench/live_tui.py writes them.
    writer = FileTurns(db, key) if db.endswith(".json") else SqliteTurns(db, key)
    followed = 0
    for turn in range(turns):
        prompt = 50_000 + turn * 20_000
        writer.write(turn, prompt)
        pump(1.5)
        row = next((line.rstrip() for line in screen.display if shown.search(line)), "")
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
