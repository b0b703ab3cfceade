#!/usr/bin/env bash
# Installs Debian's openssh-server when /usr/sbin/sshd is missing: tests/fleet/sshd.rs starts a
# real sshd on loopback (its own throwaway keys and config; nothing of the system's sshd setup
# is used or started). Idempotent; needs root or sudo for apt-get.
set -euo pipefail
if [[ -x /usr/sbin/sshd ]]; then
  echo "sshd present: $(/usr/sbin/sshd -V 2>&1 | head -1 || true)"
  exit 0
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends openssh-server
[[ -x /usr/sbin/sshd ]]
