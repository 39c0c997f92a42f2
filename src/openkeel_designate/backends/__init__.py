"""Backend drivers by pool target type: one module each, registered here by name."""

from __future__ import annotations

import importlib

from openkeel_designate.backends.base import Backend, Target

_DRIVERS = {
    "builtin": "openkeel_designate.backends.builtin",
    "fake": "openkeel_designate.backends.fake",
    "pdns4": "openkeel_designate.backends.pdns4",
    "bind9": "openkeel_designate.backends.bind9",
    "knot": "openkeel_designate.backends.knot",
}


def backend_for(target: Target) -> Backend:
    """The driver instance for one pool target (ValueError for an unknown type)."""
    module_name = _DRIVERS.get(target.type)
    if module_name is None:
        raise ValueError(f"unknown backend type {target.type!r}")
    return importlib.import_module(module_name).BACKEND(target)


def needs_signing(target: Target) -> bool:
    """Whether the target's driver wants ``ZoneRef.signed`` (False for an unknown type)."""
    module_name = _DRIVERS.get(target.type)
    if module_name is None:
        return False
    return bool(importlib.import_module(module_name).BACKEND.needs_signing)


def known_types() -> list[str]:
    return sorted(_DRIVERS)
