#!/usr/bin/env bash
# One command on a fresh machine: set up, then run every role on the embedded default
# (SQLite under ./state, noauth, API :9001, mdns :5354, built-in nameserver :5300).
# Extra arguments go to `openkeel-designate serve` (e.g. --config-file etc/openkeel-designate.conf).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/openkeel-designate serve "$@"
