"""Random sequences of API operations keep every zone valid (hypothesis stateful test).

One real server process per engine (API, worker, mdns, built-in nameserver; SQLite, PostgreSQL,
MariaDB). A ``RuleBasedStateMachine`` creates zones, creates / updates / deletes recordsets of
every creatable type under names of random case, imports zone files, shares and unshares zones,
transfers them to another project, abandons and deletes them. After every step each live zone
must become ACTIVE (ERROR fails, with the zone), then pass ``support.zone_invariants``: what
mdns transfers is what the API shows, and it is a valid zone BIND and Knot accept. A zone that
was deleted or abandoned must no longer be transferred by mdns.

An answer the API refuses is fine when it is a proper Designate error (JSON code / type /
message / request_id) and listed as expected for that operation; a 5xx is a violation.

Violations are collected across the whole run (de-duplicated once ids and zone names are
replaced by placeholders) and the test fails at the end listing each with the steps that led
to its first occurrence, so one run reports every distinct defect instead of the first only.

Settings: derandomized (the same sequences on every run), ``OKD_STATEFUL_EXAMPLES`` sequences
of ``OKD_STATEFUL_STEPS`` steps per engine (defaults 8 x 25, about a minute per engine here);
``OKD_STATEFUL_ENGINES`` (comma list) restricts the engines.
"""

from __future__ import annotations

import base64
import itertools
import os
import re
import string
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import httpx
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from support.server import ServerProcess, builtin_pool
from support.zone_invariants import axfr, check_zone_text, missing_tools, zone_violations

pytestmark = pytest.mark.integration

EXAMPLES = int(os.environ.get("OKD_STATEFUL_EXAMPLES", "8"))
STEPS = int(os.environ.get("OKD_STATEFUL_STEPS", "25"))
ENGINES = [e for e in os.environ.get("OKD_STATEFUL_ENGINES", "sqlite,postgresql,mysql").split(",") if e]
WAIT = 30.0  # seconds a zone may take to settle (the worker's poll_timeout)
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

# ------------------------------------------------------------------------------ generators
HOSTS = ["ns1.example.org.", "Target.Example.NET.", "mail.example.com.", "x.example."]
DATA_LABELS = ["www", "mail", "host", "a.b", "*", "_x"]      # never at or under a delegation
DELEGATIONS = ["sub", "dept"]
SRV_LABELS = ["_sip._tcp", "_xmpp._udp"]
TLSA_LABELS = ["_443._tcp", "_25._tcp"]
APEX_TYPES = {"A", "AAAA", "MX", "TXT", "SPF", "CAA", "HTTPS", "SVCB", "SSHFP", "NAPTR", "CERT"}
TYPES = ["A", "AAAA", "CNAME", "MX", "TXT", "SPF", "NS", "PTR", "SRV", "SSHFP", "NAPTR", "CAA",
         "CERT", "HTTPS", "SVCB", "TLSA"]


def random_case(text: str) -> st.SearchStrategy[str]:
    """``text`` with each letter upper or lower case, e.g. ``WwW``."""
    return st.lists(st.booleans(), min_size=len(text), max_size=len(text)).map(
        lambda flips: "".join(c.upper() if f else c.lower() for c, f in zip(text, flips)))


def hexes(length: int) -> st.SearchStrategy[str]:
    return st.text("0123456789abcdefABCDEF", min_size=length, max_size=length)


def host(zone: str) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(HOSTS), random_case("www").map(lambda w: f"{w}.{zone}"))


_TXT_CHARS = string.ascii_letters + string.digits + " =:-._"
EDGE_TXT = ['v=spf1 -all"', "v=spf1\\", "devwild", '"say \\"hi\\""', '"a" "b"', '"tab\there"',
            '"' + "x" * 255 + '"', '"' + "y" * 300 + '"']


def rdata(rtype: str, zone: str) -> st.SearchStrategy[str]:
    """Record strings of ``rtype``, mostly valid, some on the edge of what Designate accepts."""
    ints = st.integers
    if rtype == "A":
        return st.ip_addresses(v=4).map(str)
    if rtype == "AAAA":
        return st.ip_addresses(v=6).map(str)
    if rtype in ("CNAME", "NS", "PTR"):
        return host(zone) if rtype != "NS" else st.sampled_from(HOSTS)
    if rtype == "MX":
        return st.builds(lambda p, h: f"{p} {h}", ints(0, 65535), host(zone))
    if rtype in ("TXT", "SPF"):
        quoted = st.text(_TXT_CHARS, min_size=1, max_size=60).map(lambda t: f'"{t}"')
        bare = st.text(string.ascii_letters + string.digits + "=:-", min_size=1, max_size=30)
        return st.one_of(quoted, bare, st.sampled_from(EDGE_TXT))
    if rtype == "SRV":
        return st.builds(lambda p, w, port, h: f"{p} {w} {port} {h}", ints(0, 65535), ints(0, 65535),
                         ints(0, 65535), host(zone))
    if rtype == "SSHFP":
        return st.builds(lambda a, t, f: f"{a} {t} {f}", ints(1, 4), st.sampled_from([1, 2]),
                         st.sampled_from([40, 64]).flatmap(hexes))
    if rtype == "NAPTR":
        return st.builds(
            lambda o, p, flags, service, regexp, h: f'{o} {p} "{flags}" "{service}" "{regexp}" {h}',
            ints(0, 65535), ints(0, 65535), st.sampled_from(["U", "S", "A", ""]),
            st.sampled_from(["E2U+sip", "SIP+D2U", ""]), st.sampled_from(["", "!^.*$!sip:info@example.org!"]),
            host(zone))
    if rtype == "CAA":
        return st.sampled_from(["0 issue letsencrypt.org", "0 issuewild ca.example.net",
                                "128 issue ca.example.net", "1 issue ca.example.net",
                                "0 iodef mailto:security@example.org",
                                "0 iodef https://example.org/caa/report"])
    if rtype == "CERT":
        return st.builds(lambda t, tag, alg, blob: f"{t} {tag} {alg} {base64.b64encode(blob).decode()}",
                         st.sampled_from(["PKIX", "PGP", "URI", "1"]), ints(0, 65535),
                         st.sampled_from(["RSASHA256", "8", "ECDSAP256SHA256"]),
                         st.binary(min_size=1, max_size=40))
    if rtype in ("HTTPS", "SVCB"):
        service = st.builds(lambda p, h, params: f"{p} {h}{params}", ints(1, 65535), host(zone),
                            st.sampled_from(["", " alpn=h2,h3", " alpn=h2 ipv4hint=192.0.2.1",
                                             " port=8443", " ipv6hint=2001:db8::1"]))
        alias = host(zone).map(lambda h: f"0 {h}")
        return st.one_of(service, alias)
    if rtype == "TLSA":
        return st.tuples(ints(0, 3), ints(0, 1), st.sampled_from([1, 2])).flatmap(
            lambda f: hexes(64 if f[2] == 1 else 128).map(lambda h: f"{f[0]} {f[1]} {f[2]} {h}"))
    raise ValueError(rtype)


def owner(rtype: str, zone: str) -> st.SearchStrategy[str]:
    """A recordset name of ``rtype`` in ``zone``, in random case (the apex only where allowed)."""
    if rtype == "NS":
        labels = st.sampled_from(DELEGATIONS)
    elif rtype == "SRV":
        labels = st.sampled_from(SRV_LABELS)
    elif rtype == "TLSA":
        labels = st.sampled_from(TLSA_LABELS)
    elif rtype in APEX_TYPES:
        labels = st.sampled_from(DATA_LABELS + [""])
    else:
        labels = st.sampled_from(DATA_LABELS)
    return labels.flatmap(random_case).map(lambda label: f"{label}.{zone}" if label else zone)


# ------------------------------------------------------------------------------ bookkeeping
@dataclass
class Findings:
    """Everything one engine's run observed: steps, API answers, violations (first occurrence)."""

    steps: int = 0
    examples: int = 0
    answers: Counter = field(default_factory=Counter)
    violations: dict[str, str] = field(default_factory=dict)
    counts: Counter = field(default_factory=Counter)
    notes: Counter = field(default_factory=Counter)  # import task errors, by message
    refusals: Counter = field(default_factory=Counter)  # expected API errors, by message
    unserved: Counter = field(default_factory=Counter)  # Designate-accepted non-DNS records

    def add(self, text: str, history: list[str], zone_name: str = "") -> None:
        key = UUID_RE.sub("<id>", text.split("\n", 1)[0])
        key = re.sub(r":\d+:", ":<line>:", key)
        if zone_name:
            key = re.sub(re.escape(zone_name.rstrip(".")), "<zone>", key, flags=re.IGNORECASE)
        key = re.sub(r"\b\d{9,10}\b", "<serial>", key)
        key = re.sub(r"'[^']*'|\[[^\]]*\]", "<data>", key)  # one finding, whatever the records
        key = re.sub(r"\b(recordset|RRset|at) \S+", r"\1 <name>", key)
        self.counts[key] += 1
        if key not in self.violations:
            self.violations[key] = text + "\n  after steps:\n    " + "\n    ".join(history[-12:])

    def report(self, engine: str) -> str:
        lines = [f"[{engine}] {self.examples} sequences, {self.steps} steps; API answers: "
                 + ", ".join(f"{k} x{v}" for k, v in sorted(self.answers.items()))]
        lines += [f"refused x{n}: {message}" for message, n in self.refusals.most_common()]
        lines += [f"import ERROR x{n}: {message}" for message, n in self.notes.most_common()]
        lines += [f"not served x{n}: {reason}" for reason, n in self.unserved.most_common()]
        for key, first in self.violations.items():
            lines.append(f"--- seen {self.counts[key]} time(s):\n{first}")
        return "\n".join(lines)


@dataclass
class Zone:
    id: str
    name: str
    owner: str
    shares: dict[str, str] = field(default_factory=dict)  # project -> share id


_RUNS = itertools.count()
OPERATIONS = (["create_recordset"] * 8 + ["update_recordset"] * 3 + ["delete_recordset"] * 2
              + ["create_zone", "import_zone", "share", "unshare", "transfer", "abandon", "delete_zone"])
# Errors each operation may answer (a proper Designate error body is required too).
EXPECTED_ERRORS = {
    "create_zone": {400, 409},
    "create_recordset": {400, 409},
    "update_recordset": {400, 409},
    "delete_recordset": {400, 404},
    "share": {400, 409},
    "unshare": {400, 409},
    "transfer_request": {400, 409},
    "transfer_accept": {400, 409},
    "abandon": {400, 409},
    "delete_zone": {400, 409},
    "import": {400, 409},
}


class ZoneMachine(RuleBasedStateMachine):
    """Drives one server through random operations; ``server`` and ``findings`` are set per engine."""

    server: ServerProcess
    findings: Findings

    def __init__(self) -> None:
        super().__init__()
        self.run = next(_RUNS)
        self.projects = [f"h7sm{self.run}-a", f"h7sm{self.run}-b"]
        self.zones: dict[str, Zone] = {}
        self.gone: dict[str, str] = {}          # zone name -> how it went
        self.pending_deletes: dict[str, Zone] = {}
        self.history: list[str] = []
        self.counter = itertools.count()
        self.clients = {p: httpx.Client(base_url=self.server.api_url, headers=self.server.headers(p),
                                        timeout=30) for p in self.projects}
        self.findings.examples += 1

    # -------------------------------------------------------------- helpers
    def call(self, operation: str, project: str, method: str, url: str, ok: set[int],
             **kwargs) -> httpx.Response | None:
        """One API call; returns the response when its status is in ``ok``, else None after
        checking the error is an expected, well-formed Designate error."""
        response = self.clients[project].request(method, url, **kwargs)
        body = kwargs.get("json", kwargs.get("content", ""))
        self.history.append(f"{project} {method} {url} {str(body)[:160]} -> {response.status_code}")
        self.findings.answers[f"{operation}:{response.status_code}"] += 1
        if response.status_code in ok:
            return response
        text = response.text[:400]
        if response.status_code >= 500 or response.status_code not in EXPECTED_ERRORS[operation]:
            self.violation(f"{operation}: unexpected {response.status_code} {text}")
            return None
        try:
            error = response.json()
        except ValueError:
            self.violation(f"{operation}: {response.status_code} without a JSON body: {text}")
            return None
        message = UUID_RE.sub("<id>", str(error.get("message", error.get("errors")))[:100])
        self.findings.refusals[f"{operation} {response.status_code} {error.get('type')}: {message}"] += 1
        if not (error.get("code") == response.status_code and error.get("type") and
                ("message" in error or "errors" in error) and error.get("request_id")):
            self.violation(f"{operation}: {response.status_code} not in Designate's error format: {text}")
        return None

    def violation(self, text: str, zone_name: str = "") -> None:
        self.findings.add(text, self.history, zone_name)

    def step(self, name: str) -> None:
        self.findings.steps += 1
        self.history.append(f"# {name}")

    def pick_zone(self, data: st.DataObject) -> Zone:
        return self.zones[data.draw(st.sampled_from(sorted(self.zones)), label="zone")]

    def writer(self, zone: Zone, data: st.DataObject) -> str:
        """The owner, or a project the zone is shared with."""
        return data.draw(st.sampled_from([zone.owner, *sorted(zone.shares)]), label="as project")

    def other(self, project: str) -> str:
        return next(p for p in self.projects if p != project)

    def editable(self, zone: Zone) -> list[dict]:
        response = self.clients[zone.owner].get(f"/v2/zones/{zone.id}/recordsets?limit=1000")
        if response.status_code != 200:
            return []
        return [rs for rs in response.json()["recordsets"]
                if rs["type"] != "SOA" and not (rs["type"] == "NS" and rs["name"].lower() == zone.name.lower())]

    # -------------------------------------------------------------- rules
    @rule(data=st.data())
    def operate(self, data: st.DataObject) -> None:
        """One operation, drawn with the weights of OPERATIONS (recordset changes are the bulk);
        with no zone yet, a zone is created or imported first."""
        name = data.draw(st.sampled_from(OPERATIONS), label="operation")
        if not self.zones and name not in ("create_zone", "import_zone"):
            name = data.draw(st.sampled_from(["create_zone", "import_zone"]), label="operation")
        if name in ("create_zone", "import_zone") and len(self.zones) >= 3:
            name = "create_recordset"
        self.step(name)
        getattr(self, name)(data)

    # -------------------------------------------------------------- operations
    def create_zone(self, data: st.DataObject) -> None:
        label = data.draw(st.sampled_from(["alpha", "beta", "gamma"]), label="zone")
        project = data.draw(st.sampled_from(self.projects), label="project")
        name = data.draw(random_case(f"{label}{self.run}"), label="zone label") + ".h7.example."
        response = self.call("create_zone", project, "POST", "/v2/zones", {201, 202},
                             json={"name": name, "email": "hostmaster@h7.example", "ttl": 3600})
        if response is not None:
            body = response.json()
            self.zones[body["id"]] = Zone(body["id"], body["name"], project)
            self.gone.pop(body["name"].lower(), None)

    def import_zone(self, data: st.DataObject) -> None:
        name = f"imp{self.run}x{next(self.counter)}.h7.example."
        lines = [f"$ORIGIN {name}", "$TTL 600",
                 f"@ IN SOA ns1.example.org. hostmaster.{name} 1 3600 600 86400 300",
                 "@ IN NS ns1.example.org."]
        for _ in range(data.draw(st.integers(1, 6), label="records")):
            rtype = data.draw(st.sampled_from(["A", "AAAA", "TXT", "MX", "CNAME", "SRV", "NS", "CAA"]))
            rname = data.draw(owner(rtype, name), label="name")
            lines.append(f"{rname} IN {rtype} {data.draw(rdata(rtype, name), label='data')}")
        text = "\n".join(lines) + "\n"
        project = self.projects[0]
        response = self.call("import", project, "POST", "/v2/zones/tasks/imports", {202},
                             content=text, headers={"Content-Type": "text/dns"})
        if response is None:
            return
        task_url = f"/v2/zones/tasks/imports/{response.json()['id']}"
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            task = self.clients[project].get(task_url).json()
            if task.get("status") != "PENDING":
                break
            time.sleep(0.05)
        self.findings.answers[f"import-task:{task.get('status')}"] += 1
        if task.get("status") == "ERROR":
            message = str(task.get("message")).replace(name, "<zone>")
            self.findings.notes[message] += 1
            if not check_zone_text(name, text):
                self.violation(f"import of a zone file BIND and Knot accept ended ERROR: {message}\n"
                               f"{text}", name)
        self.history.append(f"  import task {task.get('status')}: {task.get('message')}")
        if task.get("status") == "COMPLETE" and task.get("zone_id"):
            self.zones[task["zone_id"]] = Zone(task["zone_id"], name, project)
            self.gone.pop(name, None)
        elif task.get("status") == "PENDING":
            self.violation(f"import task still PENDING after {WAIT} s: {task}")

    def create_recordset(self, data: st.DataObject) -> None:
        rtype = data.draw(st.sampled_from(TYPES), label="type")
        zone = self.pick_zone(data)
        body = {"name": data.draw(owner(rtype, zone.name), label="name"), "type": rtype,
                "records": data.draw(st.lists(rdata(rtype, zone.name), min_size=1, max_size=3,
                                              unique=True), label="records")}
        ttl = data.draw(st.one_of(st.none(), st.integers(60, 86400)), label="ttl")
        if ttl is not None:
            body["ttl"] = ttl
        project = self.writer(zone, data)
        self.call("create_recordset", project, "POST", f"/v2/zones/{zone.id}/recordsets",
                  {201, 202}, json=body)

    def update_recordset(self, data: st.DataObject) -> None:
        zone = self.pick_zone(data)
        candidates = self.editable(zone)
        if not candidates:
            return
        rs = data.draw(st.sampled_from(candidates), label="recordset")
        body: dict = {}
        if data.draw(st.booleans(), label="new records"):
            body["records"] = data.draw(st.lists(rdata(rs["type"], zone.name), min_size=1,
                                                 max_size=3, unique=True), label="records")
        body["ttl"] = data.draw(st.one_of(st.none(), st.integers(60, 86400)), label="ttl")
        self.call("update_recordset", zone.owner, "PUT",
                  f"/v2/zones/{zone.id}/recordsets/{rs['id']}", {200, 202}, json=body)

    def delete_recordset(self, data: st.DataObject) -> None:
        zone = self.pick_zone(data)
        candidates = self.editable(zone)
        if candidates:
            rs = data.draw(st.sampled_from(candidates), label="recordset")
            self.call("delete_recordset", zone.owner, "DELETE",
                      f"/v2/zones/{zone.id}/recordsets/{rs['id']}", {202})

    def share(self, data: st.DataObject) -> None:
        zone = self.pick_zone(data)
        target = self.other(zone.owner)
        response = self.call("share", zone.owner, "POST", f"/v2/zones/{zone.id}/shares", {201},
                             json={"target_project_id": target})
        if response is not None:
            zone.shares[target] = response.json()["id"]

    def unshare(self, data: st.DataObject) -> None:
        shared = sorted(z.id for z in self.zones.values() if z.shares)
        if not shared:
            return
        zone = self.zones[data.draw(st.sampled_from(shared), label="zone")]
        target, share_id = sorted(zone.shares.items())[0]
        force = data.draw(st.booleans(), label="delete shared recordsets")
        headers = {"X-Designate-Delete-Shares": "true"} if force else {}
        if self.call("unshare", zone.owner, "DELETE", f"/v2/zones/{zone.id}/shares/{share_id}",
                     {204}, headers=headers) is not None:
            zone.shares.pop(target)

    def transfer(self, data: st.DataObject) -> None:
        zone = self.pick_zone(data)
        target = self.other(zone.owner)
        offer = self.call("transfer_request", zone.owner, "POST",
                          f"/v2/zones/{zone.id}/tasks/transfer_requests", {201},
                          json={"target_project_id": target})
        if offer is None:
            return
        accepted = self.call("transfer_accept", target, "POST", "/v2/zones/tasks/transfer_accepts",
                             {201}, json={"key": offer.json()["key"],
                                          "zone_transfer_request_id": offer.json()["id"]})
        if accepted is not None:
            zone.owner = target
            zone.shares.pop(target, None)

    def abandon(self, data: st.DataObject) -> None:
        zone = self.pick_zone(data)
        if self.call("abandon", zone.owner, "POST", f"/v2/zones/{zone.id}/tasks/abandon", {204},
                     json={}) is not None:
            del self.zones[zone.id]
            self.gone[zone.name.lower()] = "abandoned"

    def delete_zone(self, data: st.DataObject) -> None:
        zone = self.pick_zone(data)
        if self.call("delete_zone", zone.owner, "DELETE", f"/v2/zones/{zone.id}", {202},
                     headers={"X-Designate-Delete-Shares": "true"}) is not None:
            del self.zones[zone.id]
            self.pending_deletes[zone.id] = zone

    # -------------------------------------------------------------- invariants
    @invariant()
    def zones_are_valid(self) -> None:
        self.settle_deletes()
        for zone in list(self.zones.values()):
            client = self.clients[zone.owner]
            state = self.wait_settled(client, zone)
            if state is None:
                continue
            notes: list[str] = []
            try:
                for text in zone_violations(client, zone.id, self.server.mdns_port, notes=notes):
                    self.violation(text, zone.name)
                for note in notes:
                    self.findings.unserved[note.rsplit(": ", 1)[-1]] += 1
            except AssertionError as exc:
                self.violation(str(exc), zone.name)
        live = {z.name.lower() for z in self.zones.values()}
        for name, how in self.gone.items():
            if name in live:
                continue
            transfer = axfr(self.server.mdns_port, name)
            if transfer.error is None or transfer.records:
                self.violation(f"mdns still transfers {how} zone {name}: {len(transfer.records)} RRs",
                               name)

    def wait_settled(self, client: httpx.Client, zone: Zone) -> dict | None:
        deadline = time.monotonic() + WAIT
        while True:
            response = client.get(f"/v2/zones/{zone.id}")
            body = response.json() if response.status_code == 200 else {}
            if body.get("status") == "ACTIVE":
                return body
            if body.get("status") == "ERROR" or response.status_code != 200:
                self.violation(f"zone {zone.name} answered {response.status_code} {body}\n"
                               f"server log:\n{self.server.log_tail(15)}", zone.name)
                return None
            if time.monotonic() > deadline:
                self.violation(f"zone {zone.name} not ACTIVE after {WAIT} s: {body}", zone.name)
                return None
            time.sleep(0.02)

    def settle_deletes(self) -> None:
        for zone_id, zone in list(self.pending_deletes.items()):
            deadline = time.monotonic() + WAIT
            while self.clients[zone.owner].get(f"/v2/zones/{zone_id}").status_code != 404:
                if time.monotonic() > deadline:
                    self.violation(f"deleted zone {zone.name} still shown after {WAIT} s", zone.name)
                    break
                time.sleep(0.02)
            del self.pending_deletes[zone_id]
            self.gone[zone.name.lower()] = "deleted"

    def teardown(self) -> None:
        for zone in list(self.zones.values()) + list(self.pending_deletes.values()):
            self.clients[zone.owner].delete(f"/v2/zones/{zone.id}",
                                            headers={"X-Designate-Delete-Shares": "true"})
        for client in self.clients.values():
            client.close()


@pytest.fixture(scope="module", params=ENGINES)
def engine_server(request: pytest.FixtureRequest):
    engine = request.param
    with ServerProcess(database=engine, pools=None if engine == "sqlite" else builtin_pool,
                       project="h7-stateful", options={"DEFAULT": {"quota_zones": 100000}}) as server:
        yield engine, server


@pytest.mark.skipif(bool(missing_tools()), reason=f"zone checkers not installed: {missing_tools()}")
def test_random_operations_keep_zones_valid(engine_server) -> None:
    engine, server = engine_server
    findings = Findings()
    ZoneMachine.server = server
    ZoneMachine.findings = findings
    started = time.monotonic()
    run_state_machine_as_test(ZoneMachine, settings=settings(
        max_examples=EXAMPLES, stateful_step_count=STEPS, derandomize=True, database=None,
        deadline=None, phases=[Phase.explicit, Phase.generate], print_blob=False,
        suppress_health_check=list(HealthCheck)))
    report = findings.report(engine)
    print(f"\n{report}\n[{engine}] {time.monotonic() - started:.0f} s")
    assert findings.steps > 0
    assert not findings.violations, f"{len(findings.violations)} distinct violation(s):\n{report}"
