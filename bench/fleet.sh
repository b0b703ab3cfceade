#!/usr/bin/env bash
# bench/fleet.sh — issue 34's fleet figures through a real OpenSSH server (Debian's sshd on a
# loopback port, as tests/fleet/sshd.rs starts it; interop/sshd/install.sh installs it):
#
#   1. `clawtop list --hosts --json`, first run, over 20 and 50 hosts (each a 2-session copy of
#      host-a read by this clawtop on the far side of ssh): wall time and peak RSS.
#      Targets: 20 hosts <= 3 s and <= 150 MB; 50 hosts <= 6 s.
#   2. An idle `clawtop --hosts` TUI over the 20 hosts under a pty, measured over 65 s (two of
#      its 30 s refreshes): its own CPU (target < 1 %), and its ssh children's apart.
#   3. Issue 33 item 8: a remote printing a valid 64 MiB `list --json` (400,000 sessions) over
#      the same sshd: `list --hosts` (text and --json) peak RSS, one and two such hosts
#      (target <= 256 MB for one).
#
#   bench/fleet.sh                         # uses target/release/clawtop if built, else debug
#   CLAWTOP=path/to/clawtop bench/fleet.sh
#   FLEET_SKIP_TUI=1 FLEET_SKIP_BIG=1      # leave parts out
#
# Nothing of the operator's ssh setup is read: a throwaway host key and client key, and the
# client is /usr/bin/ssh -F a config of this run (a wrapper first on PATH), as in the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
EXE=${CLAWTOP:-}
if [ -z "$EXE" ]; then
  if [ -x target/release/clawtop ]; then EXE=$ROOT/target/release/clawtop; else EXE=$ROOT/target/debug/clawtop; fi
fi
SSHD=/usr/sbin/sshd
[ -x "$SSHD" ] || { echo "bench/fleet.sh: $SSHD missing: run interop/sshd/install.sh" >&2; exit 2; }
T=$(mktemp -d)
SSHD_PID=
cleanup() {
  [ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null || true
  rm -rf "$T"
}
trap cleanup EXIT
echo "clawtop: $EXE"

# The server: a throwaway host key, the client key authorized, a free loopback port.
ssh-keygen -q -t ed25519 -N "" -f "$T/host_key"
ssh-keygen -q -t ed25519 -N "" -f "$T/client_key"
cp "$T/client_key.pub" "$T/authorized_keys"
chmod 600 "$T/authorized_keys"
mkdir -p /run/sshd "$T/remote-env" "$T/bin" "$T/home"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$T/sshd_config" <<CFG
Port $PORT
ListenAddress 127.0.0.1
HostKey $T/host_key
AuthorizedKeysFile $T/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin prohibit-password
StrictModes no
PidFile $T/sshd.pid
LogLevel VERBOSE
MaxStartups 200:30:400
MaxSessions 200
SetEnv XDG_CACHE_HOME=$T/remote-env/cache XDG_STATE_HOME=$T/remote-env/state XDG_CONFIG_HOME=$T/remote-env/config
CFG
"$SSHD" -D -e -f "$T/sshd_config" 2> "$T/sshd.log" &
SSHD_PID=$!
for _ in $(seq 100); do
  python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',$PORT),1)" 2>/dev/null && break
  sleep 0.1
done
echo "[127.0.0.1]:$PORT $(cat "$T/host_key.pub")" > "$T/known_hosts"
cat > "$T/ssh_config" <<CFG
Host *
  HostName 127.0.0.1
  Port $PORT
  User $(id -un)
  IdentityFile $T/client_key
  IdentitiesOnly yes
  UserKnownHostsFile $T/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  ConnectTimeout 10
  LogLevel ERROR
CFG
printf '#!/bin/sh\nexec /usr/bin/ssh -F %s "$@"\n' "$T/ssh_config" > "$T/bin/ssh"
chmod +x "$T/bin/ssh"
export PATH="$T/bin:$PATH" HOME="$T/home" XDG_STATE_HOME="$T/state"

# 50 hosts, each host-a with a second session (the same transcript under a second key).
python3 - "$T" "$ROOT/tests/fixtures/openclaw-2026.2.26/host-a" "$EXE" <<'PY'
import json, shutil, sys
t, src, exe = sys.argv[1:4]
for i in range(50):
    d = f"{t}/hosts/h{i:02d}"
    shutil.copytree(src, d)
    p = f"{d}/agents/main/sessions/sessions.json"
    s = json.load(open(p))
    s["agent:main:second"] = dict(s["agent:main:main"])
    json.dump(s, open(p, "w"))
for n in (20, 50):
    with open(f"{t}/hosts-{n}.toml", "w") as f:
        for i in range(n):
            f.write(f'[[host]]\nname = "h{i:02d}"\nssh = "h{i:02d}"\nclawtop = "{exe}"\n'
                    f'state_dir = "{t}/hosts/h{i:02d}"\n\n')
PY

for n in 20 50; do
  # The floor ssh itself sets on this machine: one login per host, 32 at a time, nothing run.
  /usr/bin/time -f "floor: ssh HOST true to $n hosts at once: %e s wall" \
    sh -c "seq 0 $((n - 1)) | xargs -P 32 -I{} sh -c 'ssh h\$(printf %02d {}) true'"
  /usr/bin/time -f "list --hosts --json ($n hosts × 2 sessions, real sshd): %e s wall, %U s user, %M KB peak RSS" \
    "$EXE" list --hosts "$T/hosts-$n.toml" --json > "$T/out-$n.json" || true
  python3 -c "import json,sys; v=json.load(open('$T/out-$n.json')); print('  sessions', len(v['sessions']), 'errors', len(v['errors']), v['errors'][:1])"
done
echo "  sshd logins so far: $(grep -c 'Accepted publickey' "$T/sshd.log")"

if [ -z "${FLEET_SKIP_TUI:-}" ]; then
python3 - "$EXE" "$T/hosts-20.toml" "$T/sshd.log" <<'PY'
import fcntl, os, pty, select, struct, sys, termios, time
exe, hosts, log = sys.argv[1:4]
logins = lambda: open(log).read().count("Accepted publickey")
pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm-256color"
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    os.execv(exe, [exe, "--hosts", hosts])
def drain(secs):
    end = time.time() + secs
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try: os.read(fd, 65536)
            except OSError: return
def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    tck = os.sysconf("SC_CLK_TCK")
    # utime+stime of the TUI; cutime+cstime of the ssh children it reaped.
    return (int(f[11]) + int(f[12])) / tck, (int(f[13]) + int(f[14])) / tck
drain(5)
l0 = logins()
(c0, k0), t0 = cpu(), time.time()
drain(65)
(c1, k1), t1 = cpu(), time.time()
l1 = logins()
os.write(fd, b"q")
drain(1)
try: os.waitpid(pid, 0)
except ChildProcessError: pass
secs = t1 - t0
print(f"idle fleet TUI (20 hosts, refresh every 30 s): {100 * (c1 - c0) / secs:.2f} % CPU over {secs:.0f} s "
      f"(its ssh children: {100 * (k1 - k0) / secs:.2f} %; {l1 - l0} ssh logins in that time)")
PY
fi

if [ -z "${FLEET_SKIP_BIG:-}" ]; then
  # A remote whose clawtop prints a valid 64 MiB list --json of 400,000 sessions.
  python3 - "$T/big.json" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"stateDir":"/srv/big","era":"file","sessions":[')
    for i in range(400000):
        if i:
            f.write(",")
        f.write('{"sessionKey":"agent:main:big-%07d","sessionId":"%08d-0000-4000-8000-000000000000",'
                '"window":200000,"compactAt":180000,"used":%d,"status":"ok"}' % (i, i, i % 150000))
    f.write('],"errors":[]}\n')
PY
  printf '#!/bin/sh\nexec cat %s\n' "$T/big.json" > "$T/big-clawtop"
  chmod +x "$T/big-clawtop"
  for n in 1 2; do
    : > "$T/big-$n.toml"
    for i in $(seq "$n"); do
      printf '[[host]]\nname = "big%s"\nssh = "big%s"\nclawtop = "%s"\n\n' "$i" "$i" "$T/big-clawtop" >> "$T/big-$n.toml"
    done
    echo "remote list --json of $(du -m "$T/big.json" | cut -f1) MB × $n host(s):"
    for form in text json; do
      flag=(); [ "$form" = json ] && flag=(--json)
      /usr/bin/time -o "$T/big.time" -f "%e %M" \
        "$EXE" list --hosts "$T/big-$n.toml" "${flag[@]}" > "$T/big-$n.$form" || true
      read -r secs kb < "$T/big.time"
      verdict=""
      # Target (issue 33 item 8): <= 256 MB for one such host.
      [ "$n" = 1 ] && { [ "$kb" -le $((256 * 1024)) ] && verdict="  (target <= 256 MB: ok)" || verdict="  (target <= 256 MB: OVER)"; }
      printf '  list --hosts %-6s %s s wall, %s MB peak RSS%s\n' "$form:" "$secs" "$((kb / 1024))" "$verdict"
    done
    echo "  rows printed: $(($(wc -l < "$T/big-$n.text")))"
  done
fi
