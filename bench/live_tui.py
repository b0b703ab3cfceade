#!/usr/bin/env python3
"""The live-TUI figure of issue 31: clawtop's TUI open on the Sessions screen of a host while
one session gets a turn every second. Prints the TUI's CPU time over the measured seconds as
a percentage of one core (goal: <= 2 %).

    python3 bench/live_tui.py CLAWTOP STATE_DIR AGENT.sqlite SESSION_KEY [SECONDS]
    python3 bench/live_tui.py CLAWTOP STATE_DIR sessions.json SESSION_KEY [SECONDS]

The TUI runs in a pseudo-terminal (160x50) whose output is read and dropped. Each second a
user message and an assistant reply with a usage are appended to SESSION_KEY's transcript,
as OpenClaw's writer does: on a SQLite host as plain rows (the next seqs), the session's
updated_at moved; on a file-backed host (a `sessions.json` named) as two JSONL lines, and the
whole store written again (temporary file and rename) with the entry's updatedAt moved, as
OpenClaw 2026.2 saves its store after a turn. The first 5 s (start-up and first load) are not
counted. Writes into STATE_DIR: run it on a copy (the TUI starts 1.5 s after, once the copy's
files are older than the file stamps' settling time).
"""
import json
import os
import pty
import signal
import sqlite3
import sys
import threading
import time


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return int(parts[11]) + int(parts[12])  # utime + stime


def turn_events(turn, now, prompt=None):
    """A user message and the reply to it; the reply's prompt is `prompt` tokens (default:
    1,000 and 100 more each turn)."""
    prompt = 1000 + turn * 100 if prompt is None else prompt
    u = {"type": "message", "id": f"live-u{turn}", "parentId": f"live-a{turn - 1}" if turn else None,
         "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
         "message": {"role": "user", "content": f"turn {turn}", "timestamp": now}}
    a = {"type": "message", "id": f"live-a{turn}", "parentId": f"live-u{turn}", "timestamp": u["timestamp"],
         "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "provider": "p", "model": "m",
                     "usage": {"input": prompt, "output": 5, "cacheRead": 0, "cacheWrite": 0,
                               "totalTokens": prompt + 5}, "stopReason": "stop", "timestamp": now}}
    return u, a


class SqliteTurns:
    def __init__(self, db, key):
        self.c = sqlite3.connect(db, timeout=5)
        # The schema's CHECKs call octet_length (SQLite 3.43); older builds get it from here.
        self.c.create_function("octet_length", 1,
                               lambda v: None if v is None else len(v.encode() if isinstance(v, str) else v),
                               deterministic=True)
        self.key = key
        self.sid = self.c.execute("SELECT current_session_id FROM session_nodes WHERE session_key = ?",
                                  (key,)).fetchone()[0]

    def write(self, turn, prompt=None):
        c = self.c
        seq = c.execute("SELECT coalesce(max(seq), -1) FROM transcript_events WHERE session_id = ?",
                        (self.sid,)).fetchone()[0]
        now = int(time.time() * 1000)
        for k, e in enumerate(turn_events(turn, now, prompt)):
            c.execute("INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)",
                      (self.sid, seq + 1 + k, json.dumps(e), now))
        c.execute("UPDATE session_nodes SET updated_at = ? WHERE session_key = ?", (now, self.key))
        c.commit()


class FileTurns:
    """The store is held as bytes and the entry's `updatedAt` digits replaced in place (same
    length), so writing it costs what OpenClaw's save costs the disk, not a JSON round trip."""

    def __init__(self, store, key):
        self.store = store
        with open(store, "rb") as f:
            self.data = bytearray(f.read())
        entry = json.loads(self.data)[key]
        folder = os.path.dirname(store)
        name = entry.get("sessionFile") or entry["sessionId"] + ".jsonl"
        self.transcript = name if os.path.isabs(name) else os.path.join(folder, name)
        start = self.data.index(json.dumps(key).encode())
        self.at = self.data.index(b'"updatedAt":', start) + len(b'"updatedAt":')
        while self.data[self.at:self.at + 1] == b" ":
            self.at += 1

    def write(self, turn, prompt=None):
        now = int(time.time() * 1000)
        with open(self.transcript, "a") as f:
            for e in turn_events(turn, now, prompt):
                f.write(json.dumps(e) + "\n")
        self.data[self.at:self.at + 13] = str(now).encode()
        tmp = self.store + ".tmp"
        with open(tmp, "wb") as f:
            f.write(self.data)
        os.replace(tmp, self.store)


def main():
    binary, state, db, key = sys.argv[1:5]
    seconds = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    # A copy made just before has every file changed within the last second, which no file
    # stamp trusts (src/source/stamp.rs, SETTLE): the TUI would key none of its rows and read
    # every transcript again at the first turn. A real host's files are older.
    time.sleep(1.5)
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.environ["COLUMNS"], os.environ["LINES"] = "160", "50"
        os.execv(binary, [binary, "--state-dir", state, "--no-live"])
    import fcntl, struct, termios
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
    seen = [0]

    def drain():
        while True:
            try:
                b = os.read(fd, 65536)
            except OSError:
                return
            if not b:
                return
            seen[0] += len(b)

    threading.Thread(target=drain, daemon=True).start()
    time.sleep(5)
    turn_writer = FileTurns(db, key) if db.endswith(".json") else SqliteTurns(db, key)
    hz = os.sysconf("SC_CLK_TCK")
    t0, c0 = time.monotonic(), cpu_ticks(pid)
    before = seen[0]
    for turn in range(seconds):
        turn_writer.write(turn)
        time.sleep(max(0.0, t0 + turn + 1 - time.monotonic()))
    wall, cpu = time.monotonic() - t0, (cpu_ticks(pid) - c0) / hz
    out = seen[0] - before
    try:
        os.write(fd, b"q")
        time.sleep(0.5)
        os.kill(pid, signal.SIGTERM)
    except OSError:
        pass
    os.waitpid(pid, 0)
    print(f"{cpu:.2f} s cpu in {wall:.1f} s: {100 * cpu / wall:.1f} % of one core "
          f"({seconds} turns, {out} bytes drawn)")


if __name__ == "__main__":
    main()
