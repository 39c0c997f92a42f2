"""One differential run: generate from the seed, send to both servers, sort the results.

Shared by the CI test (fixed seed, bounded count) and ``bench/differential.py`` (any seed and
count), so both judge the same way.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field

import httpx

from .deviations import allowed
from .generator import generate
from .runner import Result, run_all

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


@dataclass
class Summary:
    compared: int = 0
    differ: list[Result] = field(default_factory=list)
    kept: list[tuple[Result, str]] = field(default_factory=list)

    def lines(self, verbose: bool = False) -> list[str]:
        out = [r.describe() + (_bodies(r) if verbose else "") for r in self.differ]
        out += [f"(documented) {r.describe()}\n    reason: {why}" for r, why in self.kept]
        out.append(f"{self.compared} compared, {len(self.differ)} differ"
                   + (f" ({len(self.kept)} more are documented deviations)" if self.kept else ""))
        return out


def _bodies(result: Result) -> str:
    """Both answers as received (for --verbose), shortened."""
    def one(answer) -> str:
        body = answer.body if answer.body is not None else answer.text
        return json.dumps(body)[:1500]
    return f"\n    ref  {result.ref.status} {one(result.ref)}\n    ours {result.ours.status} {one(result.ours)}"


# Our extensions (README): Designate 23.0.0 has no such route, so there is nothing to compare.
EXTENSIONS = ("/livez", "/readyz", "/console", "/v2/zones/{zone_id}/history",
              "/v2/zones/{zone_id}/propagation", "/v2/zones/{zone_id}/changes",
              "/v2/zones/{zone_id}/dnssec")


def routes(ours_url: str) -> list[tuple[str, str]]:
    """Every (method, path) of our OpenAPI document but the extensions, in a stable order."""
    doc = httpx.get(ours_url + "/openapi.json", timeout=30).json()
    found = [(method.upper(), path) for path, item in doc["paths"].items()
             for method in item if method.upper() in METHODS
             and not path.startswith(EXTENSIONS)]
    return sorted(found)


def run(seed: int, count: int, ref_url: str, ours_url: str, run_id: str | None = None,
        jobs: int = 4) -> Summary:
    sequences = list(generate(seed, count, run_id or secrets.token_hex(4), routes(ours_url)))
    summary = Summary()
    for result in run_all(sequences, ref_url, ours_url, jobs):
        if result.method != "WAIT":
            summary.compared += 1
        if not result.diffs:
            continue
        reason = allowed(result.label)
        if reason:
            summary.kept.append((result, reason))
        else:
            summary.differ.append(result)
    return summary
