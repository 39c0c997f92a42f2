"""Record names from operator formats: pure, so every rule is unit-tested without a broker.

Designate lets operators write ``formatv4``/``formatv6`` as Python %-formats over the event's
payload plus a few derived keys; we keep that contract exactly (same keys, same IDNA step) so
existing ``designate.conf`` files produce the same names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

DEFAULT_FORMATS = ("%(hostname)s.%(zone)s",)


def address_data(address: str, version: int) -> dict[str, Any]:
    """The keys an address adds: ``ip_version``, dashed ``ip_address`` and ``octetN``.

    For IPv6 the groups are split on ``::`` and ``:`` as written (not expanded), which is what
    Designate does and what operators' formats were written against.
    """
    data: dict[str, Any] = {"ip_version": version}
    if version == 4:
        data["ip_address"] = address.replace(".", "-")
        parts = address.split(".")
    else:
        data["ip_address"] = address.replace(":", "-")
        parts = re.split("::|:", address)
    data.update((f"octet{index}", part) for index, part in enumerate(parts))
    return data


def formats_for(version: int, formatv4: Iterable[str] | None,
                formatv6: Iterable[str] | None) -> tuple[str, ...]:
    """The formats that apply to an address (the deprecated ``format`` is ignored, as upstream)."""
    chosen = formatv4 if version == 4 else formatv6
    return tuple(chosen or DEFAULT_FORMATS)


def render(fmt: str, data: Mapping[str, Any]) -> str:
    """One name: the %-format applied, then IDNA-encoded (an instance named ``café``)."""
    return (fmt % data).encode("idna").decode("ascii")


def record_type(version: int) -> str:
    return "A" if version == 4 else "AAAA"

