"""Suite-wide setup: ``tests/`` on sys.path so tests import ``support.*`` helpers."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
