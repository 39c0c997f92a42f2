"""The provider's three operations on one project's zones, through central in process.

The webhook acts as a member of the configured project (``RequestContext`` with that project
and the member and reader roles): every rule, quota and policy of the v2 API applies to what
ExternalDNS writes, exactly as if it had called the API with a token of that project.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from openkeel_designate.central import changes as central_changes
from openkeel_designate.central import recordsets as central_recordsets
from openkeel_designate.central import zones as central_zones
from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.domain.paging import Page
from openkeel_designate.externaldns import batches
from openkeel_designate.externaldns.targets import in_filter, relative, to_designate, to_externaldns
from openkeel_designate.externaldns.wire import Changes, Endpoint

LOG = logging.getLogger(__name__)
PAGE = 1000


@dataclass
class Applied:
    """What one ``POST /records`` did: the change batch of each zone, and what was skipped."""

    change_ids: list[str]
    skipped: list[batches.Skipped]


class ApplyFailed(Exception):
    """A zone's batch was refused; batches of the zones before it stay applied."""

    def __init__(self, error: errors.DesignateError, batch: batches.Batch, applied: list[str]):
        super().__init__(error.message or error.type)
        self.error, self.batch, self.applied = error, batch, applied


class Provider:
    def __init__(self, svc: Services, project_id: str, filters: list[str]):
        self.svc = svc
        self.project_id = project_id
        self.filters = filters

    def context(self) -> RequestContext:
        return RequestContext(user_id="externaldns", project_id=self.project_id,
                              roles=["member", "reader"], hide_counts=True)

    async def zones(self) -> list[Any]:
        """Every zone the project owns (zones shared with it are not its to manage)."""
        views = await _all(lambda page: central_zones.find_zones(self.svc, self.context(), page),
                           lambda view: view.zone.id)
        return [view.zone for view in views if view.zone.tenant_id == self.project_id]

    async def records(self) -> list[Endpoint]:
        """The project's recordsets inside the filter as endpoints; no SOA, no apex NS."""
        zones = {zone.id: zone for zone in await self.zones()}
        views = await _all(lambda page: central_recordsets.find_recordsets(
            self.svc, self.context(), None, page), lambda view: view.recordset.id)
        found = [_endpoint(view, zones[view.recordset.zone_id]) for view in views
                 if view.recordset.zone_id in zones]
        return [ep for ep in found if ep is not None and in_filter(self.filters, ep.dns_name)]

    async def apply(self, changes: Changes) -> Applied:
        """One change batch per zone, in zone name order, each all or nothing."""
        zones = [batches.Zone(z.id, z.name.lower(), z.type == "PRIMARY" and z.action != "DELETE")
                 for z in await self.zones()]
        planned, skipped = batches.Planner(zones, self.filters).plan(changes)
        for item in skipped:
            LOG.warning("externaldns: %s[%d] %s skipped: %s", item.section, item.index, item.name,
                     item.reason)
        applied: list[str] = []
        for batch in planned:
            try:
                view = await central_changes.apply_changes(self.svc, self.context(),
                                                           batch.zone.id, batch.changes)
            except errors.DesignateError as exc:
                raise ApplyFailed(exc, batch, applied) from exc
            applied.append(view.id)
        return Applied(applied, skipped)

    def adjust(self, endpoints: list[Endpoint]) -> list[Endpoint]:
        """The endpoints as ``GET /records`` will read them back once written.

        Targets take the form a write stores, then reads (``targets``); set identifiers and
        provider-specific properties are dropped (a Designate recordset has neither, and a
        property kept here but never read back would be planned as an update on every sync);
        types this deployment does not serve are dropped, as ExternalDNS providers drop what
        they cannot store.
        """
        supported = set(self.svc.conf.supported_record_type)
        adjusted = []
        for endpoint in endpoints:
            if endpoint.record_type not in supported:
                LOG.info("externaldns: %s %s dropped: type not supported here",
                         endpoint.dns_name, endpoint.record_type)
                continue
            targets: list[str] = []
            for target in endpoint.targets:
                value = to_externaldns(endpoint.record_type,
                                       to_designate(endpoint.record_type, target))
                if value not in targets:
                    targets.append(value)
            adjusted.append(Endpoint(endpoint.dns_name, endpoint.record_type, targets,
                                     endpoint.ttl, "", dict(endpoint.labels), []))
        return adjusted


async def _all(fetch: Callable[[Page], Awaitable[Any]], key: Callable[[Any], str]) -> list[Any]:
    """Every item of a paged central listing.  A page marker deleted meanwhile is a 503 the
    client retries, not a 400: the request itself was fine."""
    items: list[Any] = []
    marker = None
    while True:
        try:
            result = await fetch(Page(limit=PAGE, marker=marker))
        except (errors.MarkerNotFound, errors.InvalidMarker) as exc:
            raise errors.ServiceUnavailable("The listing changed while it was read; retry") \
                from exc
        items.extend(result.items)
        if len(result.items) < PAGE:
            return items
        marker = key(result.items[-1])


def _endpoint(view: Any, zone: Any) -> Endpoint | None:
    recordset = view.recordset
    rtype = recordset.type
    apex = recordset.name.lower() == zone.name.lower()
    if not view.records or rtype == "SOA" or (rtype == "NS" and apex):
        return None
    targets = sorted(to_externaldns(rtype, record.data) for record in view.records)
    return Endpoint(relative(recordset.name), rtype, targets,
                    recordset.ttl if recordset.ttl is not None else zone.ttl)
