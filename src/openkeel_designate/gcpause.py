"""Pausing CPython's cyclic garbage collector around work that makes many short-lived objects.

A full collection walks every tracked object the process holds: with a 100,000-record zone
served by the built-in nameserver that is ~750,000 objects and ~320 ms, one stall for every
tenant on the loop, which slicing (``slices.py``) cannot split. CPython starts one whenever the
objects that survived younger collections reach a quarter of the old ones, and a claim of such a
zone reads it whole for its IXFR history: ~200,000 rows, tuples and sets that live through the
claim's slices (~1.5 s), so they survived and set one off on every change, finding nothing to
free. Paused during that work, those objects are freed by reference counting when it ends and
never reach the old generation (``bench/README.md``, "gc.freeze and the claim's pause").

``paused`` nests and may span ``await``s: claims of several zones interleave on the loop, and
the collector resumes when the last one ends, only if it was enabled when the first began.
Cyclic garbage others make meanwhile waits for the next collection after that; a pause lasts
as long as the work, database waits included.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_resume = False  # whether the collector was enabled when the outermost pause began


@contextmanager
def paused() -> Iterator[None]:
    """No automatic collections inside; the collector's state before is restored at the end."""
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()
