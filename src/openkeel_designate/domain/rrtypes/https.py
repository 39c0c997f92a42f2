"""HTTPS (RFC 9460): the SVCB syntax and rules for HTTP origins, without ``dohpath``.

Designate derives HTTPS from SVCB with the same parsing and parameter checks but drops
``dohpath`` from the allowed keys, so a ``dohpath=`` parameter makes the record invalid, and
holds only SVCB records of ``_dns`` names to the DoH discovery rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from openkeel_designate.domain.rrtypes.svcb import SVCB, SVCB_CHECKS

HTTPS_CHECKS = {key: check for key, check in SVCB_CHECKS.items() if key != "dohpath"}


class HTTPS(SVCB):
    name = "HTTPS"
    rank = 15
    checks: ClassVar[dict[str, Callable[[str, dict[str, str | bool]], bool]]] = HTTPS_CHECKS
    doh_discovery: ClassVar[bool] = False


TYPE = HTTPS()
