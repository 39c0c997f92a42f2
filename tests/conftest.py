"""Suite-wide setup: ``tests/`` on sys.path so tests import ``support.*`` helpers."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# Before any test module imports oslo.messaging: the package switches eventlet's greendns off
# (see openkeel_designate/__init__.py), which must happen before eventlet is first imported.
import openkeel_designate  # noqa: E402,F401

