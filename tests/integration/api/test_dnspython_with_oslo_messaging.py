"""dnspython keeps its module objects once oslo.messaging (and so eventlet) is imported.

Regression: eventlet's greendns re-imported dnspython, and zone imports in a server process
ended in ERROR "add(): expected an Rdata". A fresh interpreter shows the import order of a
real server, which an in-process test cannot (the suite may have imported eventlet already).
"""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import dns.rdata, dns.zone, sys
import openkeel_designate.central.services
import oslo_messaging, oslo_messaging.server
assert sys.modules["dns.rdata"] is dns.rdata, "dnspython was re-imported"
text = "$ORIGIN z.example.\\n@ 3600 IN SOA ns1.example.net. h.z.example. 1 2 3 4 5\\n"
dns.zone.from_text(text, relativize=False, check_origin=False)
"""


def test_oslo_messaging_import_leaves_dnspython_alone() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
