"""Which record types a recordset may have, and where: rules without a database.

Shared by central's recordset writes and the zone import's parse, which runs in a worker process
(``offload``) that must start fast: importing central's recordsets module there would bring the
storage layer and SQLAlchemy with it.
"""

from __future__ import annotations

from typing import Any

from openkeel_designate.domain import errors, names, rrtypes


def supported_type(conf_types: list[str], name: Any) -> rrtypes.RecordType:
    """The type of a new or changed recordset. An opt-in type (DS) the operator did not list
    is refused as unknown, the answer Designate gives for it."""
    record_type = rrtypes.enabled(name, conf_types) if isinstance(name, str) else None
    if record_type is None:
        raise errors.InvalidObject(errors=[{
            "path": ["recordset", "type"], "message": f"'{name}' is not a valid record type",
            "validator": "value", "validator_value": [name]}])
    if name not in conf_types:
        raise errors.InvalidObject(errors=[{
            "path": ["recordset", "type"], "message": f"'{name}' is not a supported record type",
            "validator": "value", "validator_value": [name]}])
    return record_type


def check_delegation_point(rtype: str, name: str, zone_name: str,
                           types_at_name: list[str]) -> None:
    """A DS recordset stands only at a delegation point: below the apex (the apex's DS is
    the parent's), beside an NS recordset. Shared by the API and zone imports."""
    if not rrtypes.rules(rtype).delegation_only:
        return
    if names.same(name, zone_name):
        raise errors.InvalidRecordSetLocation(
            f"{rtype} recordsets may not be created at the zone apex")
    if "NS" not in types_at_name:
        raise errors.InvalidRecordSetLocation(
            f"{rtype} recordsets may only be created at a delegation point "
            "(a name with an NS recordset)")
