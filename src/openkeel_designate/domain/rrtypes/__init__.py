"""The record-type registry: one module per type, registered by name.

Adding a type is one module with a ``RecordType`` subclass listed in ``_MODULES`` plus its test.
"""

from __future__ import annotations

import importlib

from openkeel_designate.domain.rrtypes.base import RecordType

_MODULES = (
    "a", "aaaa", "cname", "mx", "txt", "spf", "ns", "ptr", "srv", "sshfp", "naptr", "caa",
    "cert", "https", "svcb", "tlsa", "soa",
)

REGISTRY: dict[str, RecordType] = {}


def _load() -> None:
    for module_name in _MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{module_name}")
        except ModuleNotFoundError as exc:  # a type not written yet is simply not registered
            if exc.name != f"{__name__}.{module_name}":
                raise
            continue
        record_type: RecordType = module.TYPE
        REGISTRY[record_type.name] = record_type


def get(type_name: str) -> RecordType | None:
    """The record type called ``type_name`` (upper case), or None when unknown."""
    return REGISTRY.get(type_name)


_load()
