#!/usr/bin/env bash
# Creates .venv (Python 3.11+) and installs the project into it; idempotent.
#   scripts/setup.sh          runtime only
#   scripts/setup.sh test     plus what the test suite needs (Debian DNS servers, clients)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "test" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  missing=""
  for pkg in bind9-dnsutils pdns-server pdns-backend-sqlite3 bind9 knot knot-dnssecutils; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
  done
  if [ -n "$missing" ]; then
    echo "installing Debian packages:$missing"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null
  fi
  # The console's browser test (Playwright drives Debian's chromium, no browser download);
  # without it that one test skips and says so, so a failure here does not stop the setup.
  if ! dpkg -s chromium >/dev/null 2>&1; then
    echo "installing Debian packages: chromium chromium-driver"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null \
      || echo "chromium could not be installed: the console's browser test will skip"
  fi
fi

PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/pip install -q --upgrade pip wheel >/dev/null
if [ "${1:-}" = "test" ]; then
  .venv/bin/pip install -q -e ".[test]"
else
  .venv/bin/pip install -q -e .
fi
