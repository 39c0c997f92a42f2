#!/usr/bin/env bash
# One command on a fresh machine: install what the tests need, then run the whole suite
# (unit tests, API tests on SQLite/PostgreSQL/MariaDB, DNS and end-to-end tests, the real
# openstack CLI, the conformance replay). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
# Files tests keep for a post-mortem (the console's screenshots): CI archives this directory.
export OKD_ARTIFACTS="${OKD_ARTIFACTS:-$PWD/test-artifacts}"
exec .venv/bin/pytest -q -rs --durations=30 "$@"
