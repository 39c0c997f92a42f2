"""One reference setup at a time on this machine.

The reference Designate's venv (REF_DIR/venv, shared by the differential harness, the takeover
test and bench/) is created by /work/shared/ref/setup.sh when missing; two processes creating it
at once (two test workers, a bench beside the suite) would both pip-install into one directory.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator

LOCK_FILE = "/tmp/okd-ref-setup.lock"


@contextlib.contextmanager
def setup_lock() -> Iterator[None]:
    """Held while setup.sh runs; waits for another holder (its install takes minutes)."""
    with open(LOCK_FILE, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
