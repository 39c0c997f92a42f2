"""ExternalDNS's side of the webhook protocol, in Python, for tests against a real ``serve``.

Read from kubernetes-sigs/external-dns (``provider/webhook/webhook.go``, ``endpoint/``,
``plan/plan.go``, ``registry/txt/registry.go``, ``registry/mapper/mapper.go``):

* ``GoWebhookClient`` sends the webhook client's requests as Go's ``net/http`` and
  ``encoding/json`` put them on the wire: the same headers (``Accept`` on GETs and on
  ``/adjustendpoints``, ``Content-Type`` on POSTs, Go's User-Agent and ``Accept-Encoding:
  gzip``), compact JSON with HTML characters escaped and a final newline, the plan's keys in the
  casing of either ExternalDNS generation (``Create``… with ``null`` lists before v0.17,
  ``create``… with empty lists left out since).
* ``MiniExternalDNS`` is its controller loop cut to what a provider sees: the TXT registry
  (ownership records ``a-www.example.org TXT "heritage=external-dns,external-dns/owner=…"``),
  ``AdjustEndpoints``, the plan (create / update / delete per name and type, owner checks) and
  ``ApplyChanges``.
"""

from __future__ import annotations

import copy
import http.client
import ipaddress
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from support.server import ServerProcess, free_port

MEDIA_TYPE = "application/external.dns.webhook+json;version=1"
SUPPORTED = ["A", "AAAA", "CNAME", "NS", "MX", "PTR", "SRV", "NAPTR", "TXT", "DNAME"]


def go_json(value: Any) -> bytes:
    """``json.NewEncoder(w).Encode(value)``: compact, <>& escaped, a newline at the end."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escape)
    return (text + "\n").encode()


@dataclass
class Ep:
    """``endpoint.Endpoint``."""

    name: str
    type: str
    targets: list[str]
    ttl: int = 0
    labels: dict[str, str] = field(default_factory=dict)
    set_id: str = ""
    provider_specific: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Go's field order with ``omitempty``; map keys sorted as Go sorts them."""
        body: dict[str, Any] = {}
        if self.name:
            body["dnsName"] = self.name
        if self.targets:
            body["targets"] = self.targets
        if self.type:
            body["recordType"] = self.type
        if self.set_id:
            body["setIdentifier"] = self.set_id
        if self.ttl:
            body["recordTTL"] = self.ttl
        if self.labels:
            body["labels"] = dict(sorted(self.labels.items()))
        if self.provider_specific:
            body["providerSpecific"] = self.provider_specific
        return body

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> "Ep":
        return cls(body.get("dnsName", ""), body.get("recordType", ""),
                   list(body.get("targets") or []), body.get("recordTTL", 0),
                   dict(body.get("labels") or {}), body.get("setIdentifier", ""),
                   list(body.get("providerSpecific") or []))


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class GoWebhookClient:
    """``provider/webhook/webhook.go``'s requests, header for header."""

    def __init__(self, url: str):
        self.url = url.rstrip("/")
        parts = urlsplit(self.url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80

    def send(self, method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> Response:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            conn.putrequest(method, path, skip_accept_encoding=True)
            conn.putheader("User-Agent", "Go-http-client/1.1")
            if body is not None:
                conn.putheader("Content-Length", str(len(body)))
            for key, value in sorted((headers or {}).items()):
                conn.putheader(key, value)
            conn.putheader("Accept-Encoding", "gzip")
            conn.endheaders(body)
            answer = conn.getresponse()
            return Response(answer.status, {k.lower(): v for k, v in answer.getheaders()},
                            answer.read())
        finally:
            conn.close()

    def negotiate(self) -> Response:
        """``newProvider``: GET the URL itself with Accept, then the exact Content-Type check."""
        return self.send("GET", "/", headers={"Accept": MEDIA_TYPE})

    def records(self) -> Response:
        return self.send("GET", "/records", headers={"Accept": MEDIA_TYPE})

    def apply(self, changes: dict[str, list[Ep]], casing: str = "new") -> Response:
        return self.send("POST", "/records", go_json(plan_json(changes, casing)),
                         {"Content-Type": MEDIA_TYPE})

    def adjust(self, endpoints: list[Ep]) -> Response:
        return self.send("POST", "/adjustendpoints", go_json([e.to_json() for e in endpoints]),
                         {"Content-Type": MEDIA_TYPE, "Accept": MEDIA_TYPE})


def plan_json(changes: dict[str, list[Ep]], casing: str = "new") -> dict[str, Any]:
    """``plan.Changes``: since v0.17 lower camel case with empty lists left out; before, the Go
    field names with every list present (``null`` when empty)."""
    keys = ("create", "updateOld", "updateNew", "delete")
    if casing == "old":
        return {key[0].upper() + key[1:]: ([e.to_json() for e in changes.get(key, [])] or None)
                for key in keys}
    return {key: [e.to_json() for e in changes[key]] for key in keys if changes.get(key)}


# --- the TXT registry (registry/txt, registry/mapper, endpoint/labels.go) ----------------------
def serialize_labels(labels: dict[str, str]) -> str:
    tokens = ["heritage=external-dns"]
    tokens += [f"external-dns/{key}={labels[key]}" for key in sorted(labels)]
    return '"' + ",".join(tokens) + '"'


def parse_labels(text: str) -> dict[str, str] | None:
    labels, heritage = {}, False
    for token in text.strip('"').split(","):
        key, sep, value = token.partition("=")
        if not sep:
            continue
        if key == "heritage":
            if value != "external-dns":
                return None
            heritage = True
        elif key.startswith("external-dns"):
            labels[key.removeprefix("external-dns/")] = value
    return labels if heritage else None


def txt_name(name: str, record_type: str) -> str:
    first, _, rest = name.partition(".")
    return f"{record_type.lower()}-{first}" + (f".{rest}" if rest else "")


def endpoint_name(txt: str) -> tuple[str, str]:
    name = txt.lower()
    head = name.split("-")[0]
    for known in SUPPORTED:
        if head == known.lower():
            return name.removeprefix(head + "-"), known
    return name, ""


def same_targets(a: list[str], b: list[str]) -> bool:
    """``Targets.Same``: sorted, case-insensitive, IPv6 spellings equal."""
    if len(a) != len(b):
        return False
    for x, y in zip(sorted(a), sorted(b)):
        if x.lower() == y.lower():
            continue
        try:
            if ipaddress.ip_address(x) == ipaddress.ip_address(y):
                continue
        except ValueError:
            pass
        return False
    return True


class MiniExternalDNS:
    """One ExternalDNS instance (``--txt-owner-id``) syncing desired endpoints to the webhook."""

    def __init__(self, client: GoWebhookClient, owner: str,
                 managed: tuple[str, ...] = ("A", "AAAA", "CNAME", "MX", "SRV", "TXT"),
                 casing: str = "new"):
        self.client, self.owner, self.managed, self.casing = client, owner, managed, casing
        negotiated = client.negotiate()
        assert negotiated.status == 200 and negotiated.headers["content-type"] == MEDIA_TYPE
        self.filters = negotiated.json().get("include", [])
        self.existing_txt: set[tuple[str, str]] = set()
        self.posted: list[dict[str, Any]] = []

    # controller.RunOnce
    def sync(self, desired: list[Ep]) -> dict[str, list[Ep]] | None:
        current = self.registry_records()
        adjusted = self.client.adjust(copy.deepcopy(desired))
        assert adjusted.status == 200, adjusted.body
        wanted = [Ep.from_json(item) for item in adjusted.json()]
        changes = self.calculate(current, wanted)
        if not (changes["create"] or changes["delete"]
                or [e.to_json() for e in changes["updateNew"]]
                != [e.to_json() for e in changes["updateOld"]]):
            return None
        applied = self.registry_apply(changes)
        response = self.client.apply(applied, self.casing)
        assert response.status == 204, (response.status, response.body)
        self.posted.append(plan_json(applied, self.casing))
        return applied

    def registry_records(self) -> list[Ep]:
        """``TXTRegistry.Records``: ownership TXT records become the labels of what they own."""
        response = self.client.records()
        assert response.status == 200 and response.headers["content-type"] == MEDIA_TYPE
        records = [Ep.from_json(item) for item in response.json()]
        endpoints, labels_of = [], {}
        self.existing_txt = set()
        for record in records:
            labels = parse_labels(record.targets[0]) if record.type == "TXT" else None
            if labels is None:
                endpoints.append(record)
                continue
            name, rtype = endpoint_name(record.name)
            labels_of[(name, rtype, record.set_id)] = labels
            self.existing_txt.add((record.name, record.set_id))
        for endpoint in endpoints:
            labels = labels_of.get((endpoint.name, endpoint.type, endpoint.set_id))
            if labels is None and endpoint.type != "AAAA":
                labels = labels_of.get((endpoint.name, "", endpoint.set_id))
            endpoint.labels.update(labels or {})
        return endpoints

    def _in_plan(self, endpoint: Ep) -> bool:
        name = endpoint.name.lower().rstrip(".")
        in_filter = not self.filters or any(name == f or name.endswith("." + f)
                                            for f in self.filters)
        return in_filter and endpoint.type in self.managed

    def calculate(self, current: list[Ep], desired: list[Ep]) -> dict[str, list[Ep]]:
        """``Plan.Calculate`` with the owner checks, one candidate per name and type."""
        rows: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        for role, endpoints in (("current", current), ("candidate", desired)):
            for endpoint in filter(self._in_plan, endpoints):
                row = rows.setdefault((endpoint.name.lower(), endpoint.set_id), {})
                row.setdefault(endpoint.type, {"current": None, "candidate": None})[role] = endpoint
        changes: dict[str, list[Ep]] = {"create": [], "updateOld": [], "updateNew": [],
                                        "delete": []}
        for row in rows.values():
            creates = []
            for pair in row.values():
                cur, cand = pair["current"], pair["candidate"]
                if cur is not None and cand is None:
                    changes["delete"].append(cur)
                elif cur is None and cand is not None:
                    creates.append(cand)
                elif cur is not None and cand is not None and self._differs(cand, cur):
                    cand.labels["owner"] = cur.labels.get("owner", "")
                    changes["updateNew"].append(cand)
                    changes["updateOld"].append(cur)
            owned = all(p["current"] is None or p["current"].labels.get("owner") == self.owner
                        for p in row.values())
            if owned:
                changes["create"] += creates
        for key in ("delete", "updateOld", "updateNew"):
            changes[key] = [e for e in changes[key] if e.labels.get("owner") == self.owner]
        return changes

    @staticmethod
    def _differs(desired: Ep, current: Ep) -> bool:
        ttl = desired.ttl > 0 and desired.ttl != current.ttl
        specific = sorted(map(str, desired.provider_specific)) != \
            sorted(map(str, current.provider_specific))
        return ttl or not same_targets(desired.targets, current.targets) or specific

    def registry_apply(self, changes: dict[str, list[Ep]]) -> dict[str, list[Ep]]:
        """``TXTRegistry.ApplyChanges``: each change carries its ownership TXT record along."""
        out = {key: list(value) for key, value in changes.items()}
        for endpoint in changes["create"]:
            endpoint.labels["owner"] = self.owner
            txt = self._txt(endpoint)
            if (txt.name, txt.set_id) not in self.existing_txt:
                out["create"].append(txt)
        for key in ("delete", "updateOld", "updateNew"):
            out[key] += [self._txt(endpoint) for endpoint in changes[key]]
        return out

    @staticmethod
    def _txt(endpoint: Ep) -> Ep:
        return Ep(txt_name(endpoint.name, endpoint.type), "TXT",
                  [serialize_labels(endpoint.labels)], labels={"ownedRecord": endpoint.name},
                  set_id=endpoint.set_id, provider_specific=endpoint.provider_specific)


# --- a serve with the webhook on ---------------------------------------------------------------
PROJECT = "xdns-project"


class Webhook:
    """One server: its webhook (as ExternalDNS's Go client calls it) and its v2 API."""

    def __init__(self, server: ServerProcess, listen: int, health: int):
        self.server = server
        self.url = f"http://127.0.0.1:{listen}"
        self.health_url = f"http://127.0.0.1:{health}"
        self.go = GoWebhookClient(self.url)
        self.api = httpx.Client(base_url=server.api_url, headers=server.headers(PROJECT),
                                timeout=30)

    def zone(self, name: str) -> dict[str, Any]:
        response = self.api.post("/v2/zones", json={"name": name, "email": f"h@{name}"[:-1]})
        assert response.status_code == 202, response.text
        return response.json()

    def recordsets(self, zone_id: str, **criteria: str) -> dict[tuple[str, str], list[str]]:
        listing = self.api.get(f"/v2/zones/{zone_id}/recordsets",
                               params={"limit": 1000, **criteria}).json()["recordsets"]
        return {(rs["name"], rs["type"]): sorted(rs["records"]) for rs in listing}


def start(roles: str | None = None, database: str = "sqlite",
          **externaldns: Any) -> tuple[ServerProcess, int, int]:
    """A started ``serve`` with ``[service:externaldns]`` options (project_id is PROJECT unless
    given), and the webhook's and health listener's ports."""
    listen, health = free_port(), free_port()
    options = {"service:externaldns": {"listen": f"127.0.0.1:{listen}",
                                       "health_listen": f"127.0.0.1:{health}",
                                       "project_id": PROJECT, **externaldns}}
    # None leaves the option out of the file (unset), as an operator who never wrote it would.
    options["service:externaldns"] = {k: v for k, v in options["service:externaldns"].items()
                                      if v is not None}
    server = ServerProcess(options=options, roles=roles, database=database)
    server.start()
    return server, listen, health


