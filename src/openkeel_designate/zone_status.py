"""``manage zone status ZONE``: the propagation view as ``openstack`` prints things.

Tables in cliff's default style (``+---+`` borders), so an operator reading ``openstack zone
show`` output next to it sees one format: the zone's fields first, then one row per nameserver
and one per target.
"""

from __future__ import annotations

from typing import Any

from oslo_config import cfg

NAMESERVER_COLUMNS = ("host", "port", "serial", "status", "since", "last_error")
TARGET_COLUMNS = ("type", "host", "port", "status", "since", "last_error")


def table(headers: tuple[str, ...] | list[str], rows: list[list[Any]]) -> str:
    """A cliff/prettytable-style table; None prints as empty, like ``openstack``."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"

    def line(values: list[str]) -> str:
        return "| " + " | ".join(v.ljust(w) for v, w in zip(values, widths)) + " |"

    return "\n".join([rule, line(list(headers)), rule, *(line(r) for r in cells), rule])


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def render(view: dict[str, Any]) -> str:
    fields = [[key, view[key]] for key in ("zone_id", "zone_name", "status", "action",
                                           "wanted_serial", "pending_since", "served_by")]
    parts = [table(("Field", "Value"), fields),
             table(NAMESERVER_COLUMNS, [[n[c] for c in NAMESERVER_COLUMNS]
                                        for n in view["nameservers"]])]
    if view["targets"]:
        parts.append(table(TARGET_COLUMNS, [[t[c] for c in TARGET_COLUMNS]
                                            for t in view["targets"]]))
    return "\n".join(parts)


async def zone_status(conf: cfg.ConfigOpts, name_or_id: str) -> str:
    from openkeel_designate.central import propagation
    from openkeel_designate.central.policy import Policy
    from openkeel_designate.central.services import Services
    from openkeel_designate.domain.context import RequestContext
    from openkeel_designate.runtime import open_database

    db = open_database(conf)
    try:
        svc = Services(conf=conf, db=db, policy=Policy(conf))
        zone_id = await propagation.resolve_zone(svc, name_or_id)
        return render(await propagation.show(svc, RequestContext.internal(), zone_id))
    finally:
        await db.dispose()
