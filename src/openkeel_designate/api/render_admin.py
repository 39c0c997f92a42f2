"""JSON rendering of the administrative resources, keys in Designate's order (api.md §2, §4)."""

from __future__ import annotations

from typing import Any

from openkeel_designate.api.render import timestamp
from openkeel_designate.central.reports import Tenant

ADMIN_QUOTA_ORDER = ("api_export_size", "zones", "zone_records", "zone_recordsets",
                     "recordset_records")


def _stamps_and_link(row: Any, base: str, collection: str) -> dict[str, Any]:
    return {"created_at": timestamp(row.created_at), "updated_at": timestamp(row.updated_at),
            "links": {"self": f"{base}/v2/{collection}/{row.id}"}}


def tld(row: Any, base: str) -> dict[str, Any]:
    return {"id": row.id, "name": row.name, "description": row.description,
            **_stamps_and_link(row, base, "tlds")}


def tsigkey(row: Any, base: str) -> dict[str, Any]:
    return {"id": row.id, "name": row.name, "algorithm": row.algorithm, "secret": row.secret,
            "scope": row.scope, "resource_id": row.resource_id,
            **_stamps_and_link(row, base, "tsigkeys")}


def blacklist(row: Any, base: str) -> dict[str, Any]:
    return {"id": row.id, "pattern": row.pattern, "description": row.description,
            **_stamps_and_link(row, base, "blacklists")}


def admin_quota(values: dict[str, int]) -> dict[str, Any]:
    return {"quota": {key: values[key] for key in ADMIN_QUOTA_ORDER}}


def tenant(item: Tenant, base: str, detail: bool) -> dict[str, Any]:
    link = {"self": f"{base}/v2/reports/tenants/{item.id}"}
    if detail:
        return {"zones_count": item.zone_count, "zones": item.zones or [], "id": item.id,
                "links": link}
    return {"zone_count": item.zone_count, "id": item.id, "links": link}
