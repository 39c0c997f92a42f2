"""Pool scheduler: which pool a new zone lands in (``[service:central] scheduler_filters``).

Filters run in order on the candidate pools; exactly one must remain.
"""

from __future__ import annotations

import random

from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.storage.pools import Placement


def choose_pool(svc: Services, ctx: RequestContext, attributes: dict[str, str],
                pools: Placement) -> str:
    """The pool's id; ``pools`` is every pool as read (``storage.pools.placement``)."""
    default_id = svc.conf["service:central"].default_pool_id
    candidates = list(pools.names)
    pool_attributes = pools.attributes
    for name in svc.conf["service:central"].scheduler_filters:
        if name == "default_pool":
            candidates = [default_id]
        elif name == "attribute":
            wanted = {k: v for k, v in attributes.items() if k != "pool_id"}
            candidates = [p for p in candidates
                          if all(pool_attributes[p].get(k) == v for k, v in wanted.items())]
        elif name == "pool_id_attribute":
            if "pool_id" in attributes:
                svc.policy.check("zone_create_forced_pool", ctx)
                candidates = [p for p in candidates if p == attributes["pool_id"]]
        elif name == "random":
            candidates = [random.choice(candidates)] if candidates else []
        elif name == "fallback":
            candidates = candidates or [default_id]
        elif name == "in_doubt_default_pool":
            if len(candidates) > 1:
                candidates = [default_id]
    if not candidates:
        raise errors.NoValidPoolFound("There are no pools that matched your request")
    if len(candidates) > 1:
        raise errors.MultiplePoolsFound()
    return candidates[0]
