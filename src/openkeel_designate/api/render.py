"""JSON rendering of resources exactly as Designate emits them (key order, formats, links)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
from starlette.responses import Response

from openkeel_designate.central.floatingips import FloatingIPView
from openkeel_designate.central.pools import PoolView
from openkeel_designate.central.views import RecordSetView, ZoneView


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(body), status_code=status, headers=headers,
                    media_type="application/json")


def timestamp(value: datetime | None) -> str | None:
    return value.strftime("%Y-%m-%dT%H:%M:%S.%f") if value is not None else None


def master_text(host: str, port: int) -> str:
    return host if port == 53 else f"{host}:{port}"


def zone(view: ZoneView, base: str) -> dict[str, Any]:
    z = view.zone
    return {
        "id": z.id, "pool_id": z.pool_id, "project_id": z.tenant_id, "name": z.name,
        "email": z.email, "description": z.description, "ttl": z.ttl, "serial": z.serial,
        "shared": view.shared, "status": z.status, "action": z.action, "version": z.version,
        "attributes": view.attributes, "type": z.type,
        "masters": [master_text(h, p) for h, p in view.masters],
        "created_at": timestamp(z.created_at), "updated_at": timestamp(z.updated_at),
        "transferred_at": timestamp(z.transferred_at),
        "links": {"self": f"{base}/v2/zones/{z.id}"},
    }


def recordset(view: RecordSetView, base: str) -> dict[str, Any]:
    r = view.recordset
    return {
        "id": r.id, "zone_id": r.zone_id, "project_id": r.tenant_id, "name": r.name,
        "zone_name": view.zone_name, "type": r.type,
        "records": sorted(rec.data for rec in view.records), "description": r.description,
        "ttl": r.ttl, "status": view.status, "action": view.action, "version": r.version,
        "created_at": timestamp(r.created_at), "updated_at": timestamp(r.updated_at),
        "links": {"self": f"{base}/v2/zones/{r.zone_id}/recordsets/{r.id}"},
    }


def pool(view: PoolView, base: str) -> dict[str, Any]:
    p = view.pool
    return {
        "id": p.id, "project_id": p.tenant_id, "name": p.name, "description": p.description,
        "attributes": view.attributes,
        "ns_records": [{"priority": prio, "hostname": host} for prio, host in view.ns_records],
        "created_at": timestamp(p.created_at), "updated_at": timestamp(p.updated_at),
        "links": {"self": f"{base}/v2/pools/{p.id}"},
    }


def service_status(row: Any, base: str, collection: str) -> dict[str, Any]:
    return {
        "id": row.id, "hostname": row.hostname, "service_name": row.service_name,
        "status": row.status, "stats": orjson.loads(row.stats or "{}"),
        "capabilities": orjson.loads(row.capabilities or "{}"),
        "heartbeated_at": timestamp(row.heartbeated_at), "created_at": timestamp(row.created_at),
        "updated_at": timestamp(row.updated_at),
        "links": {"self": f"{base}/v2/{collection}/{row.id}"},
    }


def floatingip(view: FloatingIPView, base: str) -> dict[str, Any]:
    key = f"{view.fip.region}:{view.fip.id}"
    return {
        "id": key, "description": view.description, "address": view.fip.address,
        "ptrdname": view.ptrdname, "ttl": view.ttl, "action": view.action, "status": view.status,
        "links": {"self": f"{base}/v2/reverse/floatingips/{key}"},
    }
