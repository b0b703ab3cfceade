#!/usr/bin/env python3
"""The first screen of a session as a user sees it (issue 31): clawtop's TUI started in a pty
whose output a terminal emulator (pyte, from PyPI) draws, timed until the screen shows the
session's transcript with its next cut ("✂ next cut"), the figure an operator opened it for.

    PYTHONPATH=bench/data/py bench/first_screen_tui.py BIN STATE_DIR KEY [RUNS]

Prints one line per run and then `first screen: <wall> s wall <cpu> s cpu` (the best run: the
machine is shared, the slowest runs measure the others). CPU is the TUI process's user +
system time when the screen first shows the cut (/proc/PID/stat), so it counts what the TUI
did before its first useful paint, not the time it then idles. The run ends with `q`.
"""

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

import pyte

COLS, ROWS = 120, 40
MARK = "next cut"
TIMEOUT_S = 120


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # utime and stime are fields 14 and 15 (1-based) of the whole line; after the ")" they
    # are the 12th and 13th.
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def one_run(cmd):
    t0 = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.execvp(cmd[0], cmd)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)
    seen = None
    while time.monotonic() - t0 < TIMEOUT_S:
        r, _, _ = select.select([fd], [], [], 0.01)
        if not r:
            continue
        try:
            data = os.read(fd, 1 << 16)
        except OSError:
            break
        stream.feed(data)
        if any(MARK in line for line in screen.display):
            seen = (time.monotonic() - t0, cpu_seconds(pid))
            break
    try:
        os.write(fd, b"q")
        time.sleep(0.2)
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    os.waitpid(pid, 0)
    os.close(fd)
    if seen is None:
        sys.exit(f"the screen never showed {MARK!r} within {TIMEOUT_S} s:\n" + "\n".join(screen.display))
    return seen


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    binary, state, key = sys.argv[1:4]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    cmd = [binary, "--state-dir", state, "--no-live", key]
    best = None
    for _ in range(runs):
        wall, cpu = one_run(cmd)
        print(f"run: {wall:.3f} s wall {cpu:.3f} s cpu")
        if best is None or cpu < best[1]:
            best = (wall, cpu)
    print(f"first screen: {best[0]:.3f} s wall {best[1]:.3f} s cpu")


if __name__ == "__main__":
    main()
