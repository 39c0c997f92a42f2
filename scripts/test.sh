#!/usr/bin/env bash
# One command on a fresh machine: install what the tests need, then run the whole suite
# (unit tests, API tests on SQLite/PostgreSQL/MariaDB, DNS and end-to-end tests, the real
# openstack CLI, the conformance replay). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
# Files tests keep for a post-mortem (the console's screenshots): CI archives this directory.
export OKD_ARTIFACTS="${OKD_ARTIFACTS:-$PWD/test-artifacts}"
# Two workers (OKD_TEST_WORKERS; 0 runs in this process): most tests wait on servers they
# started, so two share a 2-core machine well; each file stays whole on one worker, so its
# module fixtures start once.
exec .venv/bin/pytest -q -rs --durations=30 -n "${OKD_TEST_WORKERS:-2}" --dist loadfile "$@"
