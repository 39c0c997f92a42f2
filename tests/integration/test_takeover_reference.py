"""Taking over the real Designate 23.0.0: same answers before and after the cut-over.

Designate 23.0.0 from PyPI (``support/reference.py``) is filled through its own API (primary and
secondary zones, every record type it accepts, a share, a transfer request, TSIG keys, TLDs, a
blacklist, quotas, an import and an export, a deleted zone, a zone still PENDING); every GET
answer and the AXFR of every zone from designate-mdns are recorded.  Then its services stop,
``openkeel-designate manage --config-file <its designate.conf> database sync --backup`` takes the
database over, ours starts on the same designate.conf, and the same GETs and AXFRs must give the
same ids and values (a zone that was PENDING may have moved on) and the same RRsets, with a
serial never lower.  Skips, naming what is missing, where the reference cannot be installed.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import dns.query
import dns.rdatatype
import httpx
import pytest

from support.reference import ReferenceStack, Unavailable

pytestmark = pytest.mark.skipif(os.environ.get("OKD_SKIP_REFERENCE") == "1",
                                reason="OKD_SKIP_REFERENCE=1")
DEFAULT_POOL = "794ccc2c-d751-44fe-b57f-8894c9f5c842"
OWNER = {"X-Auth-Project-ID": "proj-a", "X-Roles": "admin"}
OTHER = {"X-Auth-Project-ID": "proj-b", "X-Roles": "member"}
SUFFIX = secrets.token_hex(3)
RECORDS = [  # (name below the zone or "@", type, records): one of every type Designate takes
    ("@", "MX", ["10 mail.{zone}"]), ("www", "A", ["192.0.2.1", "192.0.2.2"]),
    ("www", "AAAA", ["2001:db8::1"]), ("alias", "CNAME", ["www.{zone}"]),
    ("_sip._tcp", "SRV", ["10 60 5060 sip.{zone}"]), ("txt", "TXT", ['"hello world"']),
    ("spf", "SPF", ['"v=spf1 -all"']), ("sub", "NS", ["ns1.example.net."]),
    ("1", "PTR", ["host.{zone}"]),
    ("ssh", "SSHFP", ["1 1 0123456789abcdef0123456789abcdef01234567"]),
    ("sip", "NAPTR", ['100 10 "S" "SIP+D2U" "" _sip._udp.{zone}']),
    ("@", "CAA", ['0 issue "letsencrypt.org"']), ("cert", "CERT", ["1 0 0 dGVzdA=="]),
    ("_443._tcp", "TLSA", ["3 1 1 " + "ab" * 32]), ("@", "HTTPS", ['1 . alpn="h2"']),
    ("svc", "SVCB", ['1 svc.{zone} port="8443"']),
]


@pytest.fixture(params=["mysql", "postgresql"])
def stack(request):
    if request.param == "postgresql" and os.environ.get("OKD_TAKEOVER_REF_PG") != "1":
        # Found on every try so far, at ~2 min a try: not worth paying on each CI run.
        pytest.skip("Designate 23.0.0 cannot be filled on PostgreSQL: its own database sync stops "
                    "at b57384b28335 and its API then answers 500 to POST /v2/tlds and GET "
                    "/v2/pools (OKD_TAKEOVER_REF_PG=1 tries again); "
                    "tests/integration/storage/test_takeover.py covers PostgreSQL")
    ref = ReferenceStack(f"okd_ref_{SUFFIX}", request.param)
    try:
        ref.start()
    except Unavailable as exc:
        ref.cleanup()
        pytest.skip(f"reference Designate 23.0.0 unavailable: {exc}")
    yield ref
    ref.cleanup()


def test_a_running_designate_is_taken_over_without_loss(stack: ReferenceStack, tmp_path) -> None:
    client = httpx.Client(base_url=stack.api, timeout=30)
    tld = client.post("/v2/tlds", json={"name": "org", "description": "org TLD"}, headers=OWNER)
    if tld.status_code >= 500 and stack.engine == "postgresql":
        pytest.skip("Designate 23.0.0 on PostgreSQL (left by its own sync at b57384b28335) "
                    f"answers {tld.status_code} to POST /v2/tlds (and to GET /v2/pools) in this "
                    "harness, cause not yet found: it cannot be filled through its API; "
                    "tests/integration/storage/test_takeover.py covers PostgreSQL")
    _ok(tld)
    made = _fill(client)
    _settle(client, made)
    before = _steady_record(client, made)
    primaries = [(z["id"], z["name"]) for z in before[("proj-a", "/v2/zones")][1]["zones"]
                 if z["type"] == "PRIMARY" and z["status"] == "ACTIVE"]
    axfr_before = {name: _axfr(name, stack.ports["MDNS_PORT"]) for _, name in primaries}
    stack.stop()
    ours = _take_over_and_serve(stack, tmp_path)
    try:
        after = _record(client, made)
        axfr_after = {name: _axfr(name, stack.ports["MDNS_PORT"]) for _, name in primaries}
    finally:
        ours.terminate()
        ours.wait(timeout=30)
    pending = {z["id"] for z in before[("proj-a", "/v2/zones")][1]["zones"] if z["status"] != "ACTIVE"}
    compared = [key for key in before if before[key][0] < 500]  # Designate's own 500s aside
    differences = [f"{key}: {_diff(_norm(before[key], pending), _norm(after.get(key), pending))}"
                   for key in compared if _norm(before[key], pending) != _norm(after.get(key), pending)]
    assert not differences, "\n".join(differences)
    for name, (serial, rrsets) in axfr_before.items():
        new_serial, new_rrsets = axfr_after[name]
        assert new_rrsets == rrsets, name
        assert new_serial >= serial, name


def _fill(client: httpx.Client) -> dict:
    made: dict = {"zones": {}, "refused_types": []}
    post = lambda path, body, headers=OWNER: _ok(client.post(path, json=body, headers=headers))  # noqa: E731
    pools = client.get("/v2/pools", headers=OWNER)
    pool_id = pools.json()["pools"][0]["id"] if pools.status_code == 200 else DEFAULT_POOL
    post("/v2/blacklists", {"pattern": "^blocked\\.org\\.$", "description": "no"})
    post("/v2/tsigkeys", {"name": f"key-{SUFFIX}", "algorithm": "hmac-sha256",
                          "secret": "c2VjcmV0c2VjcmV0", "scope": "POOL", "resource_id": pool_id})
    _ok(client.patch("/v2/quotas/proj-a", json={"zones": 77, "zone_records": 900},
                     headers=OWNER))
    for key in ("alpha", "beta", "gamma", "shared"):
        zone = post("/v2/zones", {"name": f"{key}-{SUFFIX}.org.", "email": f"admin@{key}.org",
                                  "ttl": 3000, "description": key})
        made["zones"][key] = zone["id"]
    made["zones"]["secondary"] = post("/v2/zones", {
        "name": f"secondary-{SUFFIX}.org.", "type": "SECONDARY", "masters": ["192.0.2.53"]})["id"]
    zone_name = f"alpha-{SUFFIX}.org."
    _wait_active(client, made["zones"]["alpha"])
    for label, rtype, data in RECORDS:
        name = zone_name if label == "@" else f"{label}.{zone_name}"
        body = {"name": name, "type": rtype, "ttl": 600,
                "records": [d.format(zone=zone_name) for d in data]}
        answer = client.post(f"/v2/zones/{made['zones']['alpha']}/recordsets", json=body,
                             headers=OWNER)
        if answer.status_code not in (201, 202):
            made["refused_types"].append(rtype)
    post(f"/v2/zones/{made['zones']['shared']}/shares", {"target_project_id": "proj-b"})
    made["transfer"] = post(f"/v2/zones/{made['zones']['beta']}/tasks/transfer_requests",
                            {"target_project_id": "proj-c", "description": "to c"})["id"]
    zonefile = (f"$ORIGIN imported-{SUFFIX}.org.\n$TTL 300\n@ IN SOA ns1.example.net. "
                "admin.example.org. 1 3600 600 86400 300\n@ IN NS ns1.example.net.\n"
                "host IN A 192.0.2.9\n")
    made["import"] = _ok(client.post("/v2/zones/tasks/imports", content=zonefile,
                                     headers={**OWNER, "Content-Type": "text/dns"}))["id"]
    made["export"] = post(f"/v2/zones/{made['zones']['alpha']}/tasks/export", {})["id"]
    _ok(client.delete(f"/v2/zones/{made['zones']['gamma']}", headers=OWNER))
    return made


def _ok(answer: httpx.Response):
    assert answer.status_code < 300, f"{answer.request.method} {answer.request.url}: " \
                                     f"{answer.status_code} {answer.text[:500]}"
    return answer.json() if answer.content else None


def _wait_active(client: httpx.Client, zone_id: str, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if client.get(f"/v2/zones/{zone_id}", headers=OWNER).json().get("status") == "ACTIVE":
            return
        time.sleep(0.5)


def _settle(client: httpx.Client, made: dict, limit: float = 90) -> None:
    """Until every primary zone is ACTIVE, the deleted one gone, import and export done."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        zones = client.get("/v2/zones", headers=OWNER).json()["zones"]
        busy = [z for z in zones if z["type"] == "PRIMARY" and z["status"] != "ACTIVE"]
        tasks = [client.get(f"/v2/zones/tasks/{kind}/{made[key]}", headers=OWNER).json()
                 for kind, key in (("imports", "import"), ("exports", "export"))]
        gone = made["zones"]["gamma"] not in {z["id"] for z in zones}
        if not busy and gone and all(t["status"] == "COMPLETE" for t in tasks):
            return
        time.sleep(1)


def _record(client: httpx.Client, made: dict) -> dict:
    zones = made["zones"]
    paths = ["/v2/zones", "/v2/tlds", "/v2/blacklists", "/v2/tsigkeys", "/v2/quotas/proj-a",
             "/v2/zones/tasks/imports", "/v2/zones/tasks/exports",
             "/v2/zones/tasks/transfer_requests", f"/v2/zones/{zones['shared']}/shares",
             "/v2/pools", f"/v2/zones/tasks/exports/{made['export']}/export",
             "/v2/zones?all_projects=True"]
    for key, zone_id in zones.items():
        if key != "gamma":
            paths += [f"/v2/zones/{zone_id}", f"/v2/zones/{zone_id}/recordsets?limit=1000"]
    answers = {("proj-a", path): _answer(client.get(path, headers=OWNER)) for path in paths}
    answers[("proj-b", "/v2/zones")] = _answer(client.get("/v2/zones", headers=OTHER))
    return answers


def _steady_record(client: httpx.Client, made: dict, tries: int = 5) -> dict:
    """``_record`` once two readings a producer period apart agree: an ACTIVE zone of
    Designate may still move once after ``_settle`` (CI saw a zone's ``version`` go from 16 to
    17 between the reading and the stop), and what moves after the reading is taken over too."""
    last = _record(client, made)
    for _ in range(tries):
        time.sleep(6)  # longer than the producer's 5 s tasks
        now = _record(client, made)
        if _norm(now, set()) == _norm(last, set()):
            return now
        last = now
    return last


def _answer(answer: httpx.Response):
    if answer.headers.get("content-type", "").startswith("application/json"):
        return answer.status_code, answer.json()
    return answer.status_code, answer.text


def _norm(value, pending: set[str]):
    """Drop what moves on by itself: ``updated_at``, and the state of zones that were PENDING."""
    if isinstance(value, tuple):
        return tuple(_norm(v, pending) for v in value)
    if isinstance(value, str) and value.startswith("$ORIGIN"):
        # An export: Designate's record order is its database's; it ends with three LFs, ours
        # with two (a known deviation, left to the export's owner).
        return sorted(line for line in value.splitlines() if line)
    if isinstance(value, list):
        return [_norm(v, pending) for v in value]
    if not isinstance(value, dict):
        return value
    moving = value.get("id") in pending or value.get("zone_id") in pending
    skip = {"updated_at", "request_id"} | ({"status", "action", "serial", "version"} if moving else set())
    # The order of a recordset's records is not defined (Designate's is its database's row order,
    # which a table rebuild changes): compared as a set, as the differential harness does.
    return {k: sorted(v) if k == "records" and isinstance(v, list) else _norm(v, pending)
            for k, v in value.items() if k not in skip}


def _diff(before, after) -> str:
    """The first place where the two answers part, not the whole answers."""
    while True:
        if isinstance(before, (list, tuple)) and isinstance(after, (list, tuple)) \
                and len(before) == len(after):
            pairs = [(b, a) for b, a in zip(before, after) if b != a]
        elif isinstance(before, dict) and isinstance(after, dict) and before.keys() == after.keys():
            pairs = [(before[k], after[k]) for k in before if before[k] != after[k]]
        else:
            break
        if not pairs:
            break
        before, after = pairs[0]
    return f"\n  before: {str(before)[:1500]}\n  after:  {str(after)[:1500]}"


def _axfr(name: str, port: int) -> tuple[int, set]:
    """The SOA serial and the other RRsets (name, type, TTL, sorted rdata) of one AXFR."""
    serial, merged = 0, {}
    for message in dns.query.xfr("127.0.0.1", name, port=port, timeout=10, lifetime=30,
                                 relativize=False):
        for rrset in message.answer:
            if rrset.rdtype == dns.rdatatype.SOA:
                serial = rrset[0].serial
                continue
            key = (rrset.name.to_text(), dns.rdatatype.to_text(rrset.rdtype), rrset.ttl)
            merged.setdefault(key, set()).update(r.to_text() for r in rrset)
    return serial, {(*key, tuple(sorted(data))) for key, data in merged.items()}


def _take_over_and_serve(stack: ReferenceStack, tmp_path: Path) -> subprocess.Popen:
    cli = [sys.executable, "-m", "openkeel_designate.cli"]
    sync = subprocess.run([*cli, "manage", "--config-file", str(stack.conf), "database", "sync",
                           "--backup", str(tmp_path / "designate.sql")],
                          capture_output=True, text=True, timeout=300)
    assert sync.returncode == 0, sync.stdout + sync.stderr
    assert "took over" in sync.stdout, sync.stdout
    log = open(tmp_path / "serve.log", "wb")
    proc = subprocess.Popen([*cli, "serve", "--config-file", str(stack.conf),
                             "--roles", "api,worker,mdns,producer"], stdout=log,
                            stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(stack.api + "/", timeout=2).status_code < 500:
                return proc
        except httpx.HTTPError:
            time.sleep(0.5)
    proc.terminate()
    raise AssertionError((tmp_path / "serve.log").read_text()[-3000:])
