"""Send each sequence to the reference and to ours, step by step, and compare the answers.

Each side keeps its own captures (``<<name>>`` in later steps becomes that side's value) and its
own uuid-to-token map, so an id is judged by which earlier answer it came from. Sequences run in
a few threads at once: the reference answers in tens of milliseconds but needs seconds to
settle, and independent sequences hide each other's waits. Within a sequence the order is strict.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx

from .compare import Answer, differences
from .model import NO_BODY, Sequence, Step, Wait
from .normalise import UUID_RE

PLACEHOLDER = re.compile(r"<<([A-Za-z0-9_.-]+)>>")
ADMIN_HEADERS = {"X-Roles": "admin"}


class MissingCapture(Exception):
    """A step needs an id this side never received (an earlier step already differed)."""


@dataclass
class Result:
    """One compared step; ``diffs`` empty when both sides agreed."""

    sequence: str
    index: int
    step: int
    label: str
    method: str
    path: str
    diffs: list[str]
    ref: Answer
    ours: Answer

    def describe(self) -> str:
        head = f"[{self.sequence}#{self.index} step {self.step}] {self.label}: {self.method} {self.path}"
        return "\n    ".join([head, *self.diffs])


class Side:
    """One server: its client, the captures made from its answers and its uuid tokens."""

    def __init__(self, name: str, base_url: str, poll: float):
        self.name = name
        self.client = httpx.Client(base_url=base_url, timeout=60.0)
        self.poll = poll
        self.captures: dict[str, Any] = {}
        self.tokens: dict[str, str] = {}

    def close(self) -> None:
        self.client.close()

    # ------------------------------------------------------------------ substitution
    def resolve(self, value: Any) -> Any:
        if isinstance(value, str):
            return PLACEHOLDER.sub(lambda m: str(self._capture(m.group(1))), value)
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if isinstance(value, dict):
            return {self.resolve(k): self.resolve(v) for k, v in value.items()}
        return value

    def _capture(self, name: str) -> Any:
        if name not in self.captures:
            raise MissingCapture(f"no capture {name!r}")
        return self.captures[name]

    # ------------------------------------------------------------------ requests
    def send(self, step: Step, position: int) -> Answer:
        try:
            path = self.resolve(step.path)
            headers = self.resolve(step.headers)
            kwargs: dict[str, Any] = {"headers": headers}
            if step.raw is not None:
                kwargs["content"] = self.resolve(step.raw).encode()
            elif step.body is not NO_BODY:
                kwargs["content"] = json.dumps(self.resolve(step.body)).encode()
                headers.setdefault("Content-Type", "application/json")
        except MissingCapture as exc:
            return Answer(skipped=str(exc))
        try:
            resp = self.client.request(step.method, path, **kwargs)
        except httpx.HTTPError as exc:
            return Answer(error=f"{type(exc).__name__}: {exc}")
        answer = decode(resp)
        self._remember(step, position, answer)
        answer.tokens = dict(self.tokens)
        return answer

    def _remember(self, step: Step, position: int, answer: Answer) -> None:
        body = answer.body
        if not isinstance(body, dict) or answer.status >= 300:
            return
        for name, where in step.capture.items():
            value = dig(body, where)
            if value is not None:
                self.captures[name] = value
                if isinstance(value, str) and UUID_RE.fullmatch(value):
                    self.tokens.setdefault(value.lower(), f"<{name}>")
        new_id = body.get("id")
        if step.method == "POST" and isinstance(new_id, str) and UUID_RE.fullmatch(new_id):
            self.tokens.setdefault(new_id.lower(), f"<new@{position}>")

    def wait(self, wait: Wait, headers: dict[str, str]) -> str:
        """Poll until the condition holds; the text says what was seen last (for a timeout)."""
        try:
            path, headers = self.resolve(wait.path), self.resolve(headers)
        except MissingCapture as exc:
            return str(exc)
        deadline = time.monotonic() + wait.timeout
        seen = ""
        while time.monotonic() < deadline:
            try:
                resp = self.client.get(path, headers=headers)
            except httpx.HTTPError as exc:
                seen = str(exc)
            else:
                seen = f"{resp.status_code}"
                if wait.until == "gone" and resp.status_code == 404:
                    return ""
                if wait.until == "settled":
                    status = _json(resp).get("status") if resp.status_code == 200 else None
                    seen += f" {status}"
                    if resp.status_code != 200 or status not in ("PENDING", None):
                        return ""
            time.sleep(self.poll)
        return f"timeout after {wait.timeout:.0f}s waiting {wait.until} on {path}: last {seen}"


def decode(resp: httpx.Response) -> Answer:
    content_type = resp.headers.get("content-type", "").split(";")[0].strip().lower()
    answer = Answer(status=resp.status_code, content_type=content_type)
    if not resp.content:
        return answer
    if "json" in content_type:
        try:
            answer.body = resp.json()
            return answer
        except ValueError:
            pass
    answer.text = resp.text
    return answer


def _json(resp: httpx.Response) -> dict[str, Any]:
    try:
        body = resp.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def dig(body: Any, where: str) -> Any:
    """``recordsets.0.id`` style lookup; None when absent."""
    for part in where.split("."):
        if isinstance(body, list) and part.isdigit() and int(part) < len(body):
            body = body[int(part)]
        elif isinstance(body, dict) and part in body:
            body = body[part]
        else:
            return None
    return body


# ---------------------------------------------------------------------------------- sequences
def run_sequence(seq: Sequence, ref_url: str, ours_url: str) -> list[Result]:
    ref, ours = Side("ref", ref_url, poll=0.5), Side("ours", ours_url, poll=0.05)
    results: list[Result] = []
    try:
        for position, step in enumerate(seq.steps):
            if step.wait is not None:
                late = [f"{side.name}: {msg}" for side in (ref, ours)
                        if (msg := side.wait(step.wait, step.headers))]
                if len(late) == 2 and all("no capture" in m for m in late):
                    continue  # nothing to wait for on either side (both refused the create)
                if late:
                    results.append(Result(seq.name, seq.index, position, step.label, "WAIT",
                                          step.wait.path, late, Answer(), Answer()))
                continue
            a, b = ref.send(step, position), ours.send(step, position)
            diffs = differences(a, b, step.ordered, step.shape_only, step.secondary,
                                tie_key=_sort_key(step.path))
            results.append(Result(seq.name, seq.index, position, step.label, step.method,
                                  step.path, diffs, a, b))
    finally:
        for side in (ref, ours):
            cleanup(side, seq)
            side.close()
    return results


def cleanup(side: Side, seq: Sequence) -> None:
    """Hard-delete every zone of the sequence's projects, then its own cleanup steps."""
    for step in seq.cleanup:
        try:
            side.send(step, -1)
        except Exception:  # noqa: BLE001 - cleanup must go on
            pass
    for project in seq.projects:
        headers = {**ADMIN_HEADERS, "X-Auth-Project-ID": project}
        try:
            zones = side.client.get("/v2/zones?limit=1000", headers=headers).json().get("zones", [])
            for zone in zones:
                side.client.delete(f"/v2/zones/{zone['id']}",
                                   headers={**headers, "X-Designate-Hard-Delete": "true",
                                            "X-Designate-Delete-Shares": "true"})
        except (httpx.HTTPError, ValueError, AttributeError, KeyError):
            continue


def run_all(sequences: Iterable[Sequence], ref_url: str, ours_url: str, jobs: int = 4) -> list[Result]:
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        batches = list(pool.map(lambda s: run_sequence(s, ref_url, ours_url), sequences))
    return [result for batch in batches for result in batch]


def _sort_key(path: str) -> str:
    """The ``sort_key`` a list step asks for (``name`` when none): what its ties share."""
    found = re.search(r"[?&]sort_key=([a-z_]+)", path)
    return found.group(1) if found else "name"
