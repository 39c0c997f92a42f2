"""Seeded request sequences: every route, valid and near-valid bodies, every resource.

Why a plain ``random.Random`` and not hypothesis: a sequence is a story (create a zone, share it,
transfer it, export it) whose later steps use the ids of earlier answers from two servers at once;
a seeded generator reproduces the same story from the seed alone, and the run id only changes
the names (so re-runs never collide in the reference's database), never the structure.

Each scenario (``scenarios.py``) builds one ``Sequence`` with its own projects (owner, other project, a reader and
a member of the owner's project through ``X-Roles``). Near-valid inputs are one mutation away
from a valid one: a bad port, a string where a list goes, a duplicate, one character too many.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from .builder import Builder, run_suffix
from .model import Sequence
from .scenarios import SCENARIOS, route_sweep


def generate(seed: int, count: int, run_id: str, routes: list[tuple[str, str]]) -> Iterator[Sequence]:
    """Sequences until ``count`` requests are planned: the route sweep, one of each scenario, then
    scenarios drawn from the seed. The same seed gives the same sequences whatever ``run_id``."""
    suffix = run_suffix(seed, run_id)
    rng = random.Random(seed)
    planned, index = 0, 0
    order = ["route-sweep", *SCENARIOS]
    while planned < count:
        name = order[index] if index < len(order) else rng.choice(list(SCENARIOS))
        builder = Builder(seed, index, suffix, name)
        if name == "route-sweep":
            route_sweep(builder, routes)
        else:
            SCENARIOS[name](builder)
        seq = builder.sequence()
        planned += sum(1 for step in seq.steps if step.wait is None)
        index += 1
        yield seq
