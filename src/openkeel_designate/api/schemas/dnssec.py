"""A zone's DNSSEC setting on the wire (extension): ``{"enabled", "algorithm"?, "nsec"?}``,
and what to roll: ``{"key"?: "ZSK"|"KSK", "action"?: "start"|"complete"}``."""

from __future__ import annotations

from typing import Any

from openkeel_designate.domain import errors
from openkeel_designate.domain.dnssec.keys import ALGORITHMS, DEFAULT_ALGORITHM

NSEC_MODES = ("NSEC", "NSEC3")
_KEYS = {"enabled", "algorithm", "nsec"}
ROLLOVER_KEYS = ("ZSK", "KSK")
ROLLOVER_ACTIONS = ("start", "complete")


def parse(body: Any) -> dict[str, Any]:
    """``{"enabled", "algorithm", "nsec"}`` with defaults, or one 400 listing every problem."""
    if not isinstance(body, dict):
        raise errors.InvalidDnssecSetting([_problem([], "the body must be an object", "type")])
    problems = [_problem([key], f"'{key}' is not a valid property", "additional")
                for key in sorted(set(body) - _KEYS)]
    if not isinstance(body.get("enabled"), bool):
        problems.append(_problem(["enabled"], "'enabled' is a required boolean", "required"))
    algorithm = body.get("algorithm", DEFAULT_ALGORITHM)
    if algorithm not in ALGORITHMS:
        problems.append(_problem(["algorithm"], f"{algorithm!r} is not one of "
                                 f"{sorted(ALGORITHMS)}", "enum"))
    nsec = body.get("nsec", "NSEC")
    if nsec not in NSEC_MODES:
        problems.append(_problem(["nsec"], f"{nsec!r} is not one of {list(NSEC_MODES)}", "enum"))
    if problems:
        raise errors.InvalidDnssecSetting(problems)
    return {"enabled": body["enabled"], "algorithm": algorithm, "nsec": nsec}


def parse_rollover(body: Any) -> dict[str, Any]:
    """``{"key", "action"}`` with defaults (no body: a ZSK rollover, as before the body
    existed), or one 400 listing every problem.  Only a KSK rollover is completed by hand: a
    ZSK's old key goes by itself."""
    if not isinstance(body, dict):
        raise errors.InvalidDnssecSetting([_problem([], "the body must be an object", "type")])
    problems = [_problem([key], f"'{key}' is not a valid property", "additional")
                for key in sorted(set(body) - {"key", "action"})]
    key = body.get("key", "ZSK")
    if key not in ROLLOVER_KEYS:
        problems.append(_problem(["key"], f"{key!r} is not one of {list(ROLLOVER_KEYS)}",
                                 "enum"))
    action = body.get("action", "start")
    if action not in ROLLOVER_ACTIONS:
        problems.append(_problem(["action"], f"{action!r} is not one of "
                                 f"{list(ROLLOVER_ACTIONS)}", "enum"))
    elif action == "complete" and key == "ZSK":
        problems.append(_problem(["action"], "a ZSK rollover completes by itself; only a KSK "
                                 "rollover is completed", "enum"))
    if problems:
        raise errors.InvalidDnssecSetting(problems)
    return {"key": key, "action": action}


def _problem(path: list[Any], message: str, validator: str) -> dict[str, Any]:
    return {"path": path, "message": message, "validator": validator, "validator_value": None}
