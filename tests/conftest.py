"""Suite-wide setup: ``tests/`` on sys.path so tests import ``support.*`` helpers."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# Before any test module imports oslo.messaging: the package switches eventlet's greendns off
# (see openkeel_designate/__init__.py), which must happen before eventlet is first imported.
import openkeel_designate  # noqa: E402,F401


#: Files that must share one xdist worker, so they never run at the same time: both drive the
#: reference Designate (one venv under REF_DIR, installed by whichever runs first), and the
#: auth files share one Keystone (a session fixture started once per worker).
SHARED_WORKER = {
    "tests/integration/test_differential.py": "reference",
    "tests/integration/test_takeover_reference.py": "reference",
    "tests/integration/auth/": "keystone",
}


def pytest_collection_modifyitems(config, items) -> None:
    """Under ``-n`` (scripts/test.sh runs two workers, ``--dist loadgroup``), every test file
    goes whole to one worker, as ``--dist loadfile`` would, so module fixtures start once;
    the files in SHARED_WORKER go together.  Without xdist the marks are inert."""
    import pytest

    for item in items:
        path = item.nodeid.split("::", 1)[0]
        group = next((name for prefix, name in SHARED_WORKER.items() if path.startswith(prefix)),
                     path)
        item.add_marker(pytest.mark.xdist_group(group))
