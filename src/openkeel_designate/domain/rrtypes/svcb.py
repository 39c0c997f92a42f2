"""SVCB (RFC 9460, DoH discovery per RFC 9461): ``priority target key=value ...``.

Designate's reading, reproduced because it decides what the API accepts:

* the value is split on single spaces; the priority is read with ``int()`` within 0..65535
  and the target follows the zone-name rule (so the RFC's "same name" ``.`` is refused);
* each parameter but ``no-default-alpn`` needs an ``=``. A parameter with more than one ``=``
  is kept only when it starts with ``ech`` (empty pieces become ``=``, restoring base64
  padding); any other such parameter is silently ignored, unchecked. A repeated key keeps
  its last value;
* allowed keys: ``alpn`` (comma list from h3, h2, h2c, http/1.1, http/1.0), ``ipv4hint`` /
  ``ipv6hint`` (comma lists of addresses), ``port`` (numeric string), ``ech`` (lenient base64,
  no backslash), ``mandatory`` (keys that are present), ``no-default-alpn`` (needs ``alpn``)
  and, for SVCB only, ``dohpath`` (relative, at least 7 characters, containing ``{?dns}``);
* the stored ``key=value`` strings are length-limited: 255 characters, 10 for ``port=...``.

A record of a recordset whose name contains ``_dns`` (case-sensitive) must name its ``alpn``
and carry a ``dohpath`` when it offers h2 or h3 (RFC 9461 §5, as Designate reads it); a
recordset without a name fails every record, since Designate looks for ``_dns`` in the
missing name. HTTPS records are not held to this (``doh_discovery``).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import ClassVar

import dns.exception
import dns.ipv4
import dns.ipv6

from openkeel_designate.domain.rrtypes.base import RecordType, is_domain, loose_int

ALPN_VALUES = frozenset({"h3", "h2", "h2c", "http/1.1", "http/1.0"})
NO_DEFAULT_ALPN = "no-default-alpn"
_MAX_PARAM = 255
_MAX_PORT_PARAM = 10


def _alpn_ok(value: str, params: dict[str, str | bool]) -> bool:
    return all(item in ALPN_VALUES for item in value.split(","))


def _addresses_ok(parse: Callable[[str], bytes]) -> Callable[[str, dict[str, str | bool]], bool]:
    def check(value: str, params: dict[str, str | bool]) -> bool:
        try:
            for item in value.split(","):
                parse(item)
        except (ValueError, dns.exception.SyntaxError):
            return False
        return True

    return check


def _port_ok(value: str, params: dict[str, str | bool]) -> bool:
    return value.isnumeric()


def _ech_ok(value: str, params: dict[str, str | bool]) -> bool:
    if "\\" in value:
        return False
    try:
        base64.b64decode(value)
    except (binascii.Error, ValueError):
        return False
    return True


def _mandatory_ok(value: str, params: dict[str, str | bool]) -> bool:
    keys = value.split(",")
    return set(keys) <= params.keys() and len(keys) <= len(params)


def _dohpath_ok(value: str, params: dict[str, str | bool]) -> bool:
    return value.startswith("/") and len(value) >= 7 and "{?dns}" in value


SVCB_CHECKS: dict[str, Callable[[str, dict[str, str | bool]], bool]] = {
    "alpn": _alpn_ok,
    "ipv4hint": _addresses_ok(dns.ipv4.inet_aton),
    "ipv6hint": _addresses_ok(dns.ipv6.inet_aton),
    "port": _port_ok,
    "ech": _ech_ok,
    "mandatory": _mandatory_ok,
    "dohpath": _dohpath_ok,
}


def parse_params(tokens: list[str]) -> dict[str, str | bool] | None:
    """The parameters as Designate collects them, or None when one lacks its ``=``."""
    params: dict[str, str | bool] = {}
    for token in tokens:
        if token == NO_DEFAULT_ALPN:
            params[token] = True
            continue
        if "=" not in token:
            return None
        key, *values = token.split("=")
        if len(values) == 1:
            params[key] = values[0]
        elif token.startswith("ech"):
            params[key] = "".join(piece or "=" for piece in values)
    return params


class SVCB(RecordType):
    name = "SVCB"
    rank = 16
    checks: ClassVar[dict[str, Callable[[str, dict[str, str | bool]], bool]]] = SVCB_CHECKS
    # Whether records of ``_dns`` names follow RFC 9461's DoH discovery rule (SVCB, not HTTPS).
    doh_discovery: ClassVar[bool] = True

    def is_valid(self, data: str) -> bool:
        if not isinstance(data, str):
            return False
        tokens = data.split(" ")
        if len(tokens) < 2:
            return False
        params = parse_params(tokens[2:])
        if params is None or not all(self._param_ok(k, v, params) for k, v in params.items()):
            return False
        priority, target = tokens[:2]
        return loose_int(priority, 0, 65535) and is_domain(target)

    def _param_ok(self, key: str, value: str | bool, params: dict[str, str | bool]) -> bool:
        if key == NO_DEFAULT_ALPN:
            return "alpn" in params
        check = self.checks.get(key)
        if check is None or not isinstance(value, str) or not check(value, params):
            return False
        limit = _MAX_PORT_PARAM if key == "port" else _MAX_PARAM
        return len(f"{key}={value}") <= limit

    def is_valid_in(self, name: str | None, data: str) -> bool:
        return self.is_valid(data) and not (self.doh_discovery and _breaks_doh_rule(name, data))


def _breaks_doh_rule(name: str | None, data: str) -> bool:
    """A valid record of a ``_dns`` recordset without an alpn, or offering h2 or h3 without a
    dohpath; any record of a recordset with no name at all."""
    if name is None:
        return True
    if "_dns" not in name:
        return False
    params = parse_params(data.split(" ")[2:]) or {}
    alpn = params.get("alpn")
    if not isinstance(alpn, str):
        return True
    return bool({"h2", "h3"} & set(alpn.split(","))) and "dohpath" not in params


TYPE = SVCB()
