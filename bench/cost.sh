#!/usr/bin/env bash
# bench/cost.sh — issue 32's budget: cost adds at most 10 % to `list --json` on the 2,000-session
# benchmark hosts (examples/cost_overhead.rs says how it is measured).
#
#   bench/cost.sh            # generates what is missing under bench/data (as bench/run.sh does)
#
# Hosts: the SQLite host of examples/gen_sqlite_host.rs (2,000 sessions with real-sized
# 10-row transcripts and one BENCH_TRANSCRIPT_MB session, OpenClaw 2026.9.6's index tables) and
# the file-backed store of bench/gen_store.py, and that store with 1,800 entries whose
# transcripts are gone (bench/run.sh's names, so both scripts share the data).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=bench/data
MB=${BENCH_TRANSCRIPT_MB:-20}
STORE=$DATA/store
STORE_MISSING=$DATA/store-missing
SQLITE_HOST=$DATA/sqlite-host-${MB}mb
mkdir -p "$DATA"
cargo build --release --locked --example cost_overhead >&2
if [[ ! -f $STORE/agents/main/sessions/sessions.json ]]; then
  rm -rf "$STORE.tmp" && python3 bench/gen_store.py "$STORE.tmp" && mv "$STORE.tmp" "$STORE"
fi
if [[ ! -f $STORE_MISSING/agents/main/sessions/sessions.json ]]; then
  rm -rf "$STORE_MISSING.tmp" && python3 bench/gen_store.py "$STORE_MISSING.tmp" --missing 1800 \
    && mv "$STORE_MISSING.tmp" "$STORE_MISSING"
fi
if [[ ! -f $SQLITE_HOST/state/agents/main/agent/openclaw-agent.sqlite ]]; then
  rm -rf "$SQLITE_HOST.tmp"
  cargo run --release --locked --example gen_sqlite_host -- "$SQLITE_HOST.tmp" --sessions 2000 --transcript-mb "$MB" >&2
  mv "$SQLITE_HOST.tmp" "$SQLITE_HOST"
fi
for host in "$SQLITE_HOST/state" "$STORE" "$STORE_MISSING"; do
  printf '%-34s ' "$host"
  target/release/examples/cost_overhead "$host"
done
