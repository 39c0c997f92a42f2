"""The record-type registry: every module of this package but ``base`` is one record type.

Adding a type is dropping its module here (a ``RecordType`` subclass exported as ``TYPE``) with
its test file: the registry finds it, and its ``rank`` places it in the default of
``[DEFAULT] supported_record_type``, which keeps Designate 23.0.0's order (an ``opt_in`` type,
DS, is left out of that default). No list elsewhere names the types.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Collection

from openkeel_designate.domain.rrtypes.base import RecordType

_HELPERS = frozenset({"base"})
# The rules of a type that has no module (DNSKEY, NSEC ... kept by secondary zones): the defaults.
_UNLISTED = RecordType()


def _discover() -> dict[str, RecordType]:
    """Every type module of this package, keyed by type name, in rank order."""
    found = [importlib.import_module(f"{__name__}.{module.name}").TYPE
             for module in pkgutil.iter_modules(__path__) if module.name not in _HELPERS]
    for attribute in ("name", "rank"):
        values = [getattr(record_type, attribute) for record_type in found]
        if len(set(values)) != len(values):
            raise ValueError(f"two record type modules declare the same {attribute}: {values}")
    return {record_type.name: record_type for record_type in sorted(found, key=lambda t: t.rank)}


REGISTRY: dict[str, RecordType] = _discover()


def get(type_name: str) -> RecordType | None:
    """The record type called ``type_name`` (upper case), or None when unknown."""
    return REGISTRY.get(type_name)


def rules(type_name: str) -> RecordType:
    """What a stored recordset of ``type_name`` follows: its type, else the defaults.

    Recordsets already stored need no validation, only their rules; a secondary zone may hold
    types that have no module here, and those follow the rules every type starts from.
    """
    return REGISTRY.get(type_name, _UNLISTED)


def default_supported() -> list[str]:
    """Designate's default ``[DEFAULT] supported_record_type``: every type but the opt-in
    extensions (DS), by rank."""
    return [name for name, record_type in REGISTRY.items() if not record_type.opt_in]


def enabled(type_name: str, conf_types: Collection[str]) -> RecordType | None:
    """The record type called ``type_name`` as a deployment knows it: None when unknown, or
    when it is an opt-in type the operator did not list (then it is as unknown as before)."""
    record_type = REGISTRY.get(type_name)
    if record_type is None or (record_type.opt_in and type_name not in conf_types):
        return None
    return record_type


def exclusive_among(type_name: str, types_at_name: Collection[str]) -> str | None:
    """The type that must stay alone (CNAME) if ``type_name`` joins ``types_at_name`` at one
    name, or None when they may share it."""
    if types_at_name and rules(type_name).exclusive:
        return type_name
    return next((other for other in types_at_name if rules(other).exclusive), None)


def child_cuts_enabled(conf_types: Collection[str]) -> bool:
    """Whether a parent may hold the zone cut (NS, DS) at the apex name of a child zone it
    has on this service: only once an opt-in zone-cut type (DS) is listed, so a default
    deployment keeps Designate's "RecordSet belongs in a child zone" there."""
    return any(t.opt_in and t.zone_cut and t.name in conf_types for t in REGISTRY.values())
