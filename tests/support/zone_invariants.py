"""One checker of what a settled zone must be, used by every test that brings a zone to ACTIVE.

Why one checker: "the zone is right" means the same thing after a recordset create, an import,
a transfer between projects or a burst of random operations, so it is written once here and each
test calls it instead of asserting a few records of its own. Once a zone is ACTIVE:

* what mdns transfers (AXFR over TCP) is exactly what the API lists: the same RRsets (owner
  names compared case-insensitively, type, TTL = the recordset's or else the zone's, the same
  set of rdata once both sides are parsed by dnspython), and every recordset is ACTIVE;
* it is a valid zone: one SOA, at the apex; NS at the apex; no two RRsets with the same owner
  and type (neither in the API nor in the transfer); one TTL per RRset; no CNAME beside other
  data (nor two CNAME records); below a delegation nothing but glue; every owner inside the zone;
* BIND 9's ``named-checkzone`` and Knot's ``kzonecheck`` both accept the transferred zone.

A record the API shows but mdns does not transfer (mdns skips what it cannot render, so that one
bad record never breaks a transfer) is reported as a violation: the API accepted something the
DNS cannot serve. The one exception is ``DESIGNATE_ACCEPTS``: forms Designate 23.0.0's own rules
accept (so the API accepts them too, clients may send them) that are no DNS data. They must be
left out of the transfer — one such record must not make secondaries refuse the whole zone —
and are reported as notes, not violations.

The transfer is read one RR at a time (``one_rr_per_rrset``) rather than through ``dns.zone``,
because dnspython merges owner names that differ only in case — exactly the duplicates this
checker must see.

    violations = check_zone(fetch_api_zone(client, zone_id), axfr(mdns_port, zone_name))
    assert_zone_valid(client, zone_id, mdns_port)   # the same, raising with every violation
"""

from __future__ import annotations

import shutil
import socket
import struct
import subprocess
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dns.exception
import dns.message
import dns.name
import dns.rcode
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.rrset

# Types that may sit at a delegation point or below it (glue) without being occluded data.
_AT_DELEGATION = {dns.rdatatype.NS, dns.rdatatype.DS, dns.rdatatype.A, dns.rdatatype.AAAA}
_GLUE = {dns.rdatatype.A, dns.rdatatype.AAAA}
# Types that may share an owner with a CNAME (RFC 4035 §2.5).
_BESIDE_CNAME = {dns.rdatatype.CNAME, dns.rdatatype.RRSIG, dns.rdatatype.NSEC}
_TOOL_TIMEOUT = 60.0
# Record types for which Designate's rules accept text that is no DNS data, and why.
DESIGNATE_ACCEPTS = {
    "SSHFP": "Designate does not tie the fingerprint's length to its type (RFC 4255 and 6594 do)",
    "SPF": "Designate checks an SPF string's quotes, not its escapes (a trailing backslash)",
}


@dataclass
class ApiZone:
    """What the API shows of one zone: its name, default TTL, status and every recordset."""

    id: str
    name: str
    ttl: int
    status: str
    recordsets: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Transfer:
    """One AXFR as received: every RR on its own (owner case kept), or why it failed."""

    zone_name: str
    records: list[dns.rrset.RRset] = field(default_factory=list)
    error: str | None = None


# ------------------------------------------------------------------------------ collecting
def fetch_api_zone(client: Any, zone_id: str) -> ApiZone:
    """The zone and all pages of its recordsets through the API (``client``: an httpx.Client
    with base_url and headers set)."""
    response = client.get(f"/v2/zones/{zone_id}")
    if response.status_code != 200:
        raise AssertionError(f"GET /v2/zones/{zone_id} answered {response.status_code}: {response.text}")
    zone = response.json()
    recordsets: list[dict[str, Any]] = []
    url: str | None = f"/v2/zones/{zone_id}/recordsets?limit=100"
    pages = 0
    while url:
        pages += 1
        if pages > 1000:
            raise AssertionError(f"recordset pages of zone {zone_id} never end")
        response = client.get(url)
        if response.status_code != 200:
            raise AssertionError(f"GET {url} answered {response.status_code}: {response.text}")
        body = response.json()
        recordsets.extend(body["recordsets"])
        url = body.get("links", {}).get("next")
    return ApiZone(id=zone["id"], name=zone["name"], ttl=zone["ttl"], status=zone["status"],
                   recordsets=recordsets)


def _read_exactly(sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise EOFError(f"connection closed after {len(data)} of {count} bytes")
        data += chunk
    return data


def axfr(port: int, zone_name: str, host: str = "127.0.0.1", timeout: float = 10.0,
         max_messages: int = 10000) -> Transfer:
    """AXFR ``zone_name`` from mdns over TCP, keeping each RR (and its owner's case) apart.

    The transfer ends at the second SOA; a refusal, an error rcode, a closed connection or a
    malformed message ends it too, with ``error`` saying which.
    """
    transfer = Transfer(zone_name=zone_name)
    query = dns.message.make_query(zone_name, dns.rdatatype.AXFR)
    wire = query.to_wire()
    soa_seen = 0
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(struct.pack("!H", len(wire)) + wire)
            for _ in range(max_messages):
                (length,) = struct.unpack("!H", _read_exactly(sock, 2))
                message = dns.message.from_wire(_read_exactly(sock, length), one_rr_per_rrset=True)
                if message.id != query.id:
                    transfer.error = f"answer id {message.id} is not the query's {query.id}"
                    return transfer
                if message.rcode() != dns.rcode.NOERROR:
                    transfer.error = f"AXFR answered {dns.rcode.to_text(message.rcode())}"
                    return transfer
                for rrset in message.answer:
                    if rrset.rdtype == dns.rdatatype.SOA:
                        soa_seen += 1
                        if soa_seen == 2:
                            return transfer
                    transfer.records.append(rrset)
                if not message.answer:
                    transfer.error = "an AXFR message with an empty answer section"
                    return transfer
            transfer.error = f"no closing SOA after {max_messages} messages"
    except (OSError, EOFError, dns.exception.DNSException) as exc:
        transfer.error = f"AXFR of {zone_name} from {host}:{port} failed: {exc!r}"
    return transfer


# ------------------------------------------------------------------------------ checking
def _lower(name: str) -> str:
    return name.lower() if name.endswith(".") else name.lower() + "."


def _parse_api_record(rtype: str, text: str) -> dns.rdata.Rdata:
    """An API record string as dnspython reads it; for the few Designate forms dnspython refuses
    (CERT mnemonics it lacks, TLSA with parentheses ...) the project's own parser decides."""
    try:
        return dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.from_text(rtype), text,
                                   origin=dns.name.root, relativize=False)
    except Exception:  # noqa: BLE001 - dnspython raises several types for text it cannot read
        from openkeel_designate.domain import rrtypes

        record_type = rrtypes.get(rtype.upper())
        if record_type is None:
            raise
        return record_type.render(text)


def _rdata_texts(rdatas: Any) -> list[str]:
    return sorted(r.to_text() for r in rdatas)


def _api_rrsets(zone: ApiZone, violations: list[str],
                notes: list[str]) -> dict[tuple[str, int], dict[str, Any]]:
    """Recordsets by (lower-case owner, type), noting duplicates, bad status and unparsable data
    (a note for the forms in ``DESIGNATE_ACCEPTS``, a violation otherwise)."""
    by_key: dict[tuple[str, int], dict[str, Any]] = {}
    for recordset in zone.recordsets:
        name, rtype = recordset["name"], recordset["type"]
        label = f"API recordset {name} {rtype} ({recordset.get('id')})"
        if recordset.get("status") != "ACTIVE":
            violations.append(f"{label} is {recordset.get('status')}/{recordset.get('action')} "
                              f"in a zone that is {zone.status}")
        try:
            rdtype = dns.rdatatype.from_text(rtype)
        except Exception:  # noqa: BLE001
            violations.append(f"{label}: unknown type")
            continue
        key = (_lower(name), rdtype)
        rdatas = set()
        texts = []
        for text in recordset.get("records", []):
            try:
                rdatas.add(_parse_api_record(rtype, text))
            except Exception as exc:  # noqa: BLE001
                if rtype in DESIGNATE_ACCEPTS:
                    notes.append(f"{label}: record {text!r} is not served ({exc}): "
                                 f"{DESIGNATE_ACCEPTS[rtype]}")
                    continue
                violations.append(f"{label}: record {text!r} is not valid DNS data: {exc}")
            texts.append(text)
        if not texts:  # nothing of it is DNS data: nothing of it may be transferred
            continue
        ttl = recordset.get("ttl")
        entry = {"name": name, "ttl": zone.ttl if ttl is None else ttl, "rdatas": rdatas,
                 "label": label, "texts": sorted(texts)}
        if key in by_key:
            violations.append(f"duplicate RRset in the API: {by_key[key]['label']} and {label} "
                              "(same owner compared case-insensitively, same type)")
            by_key[key]["rdatas"] |= rdatas
            continue
        by_key[key] = entry
    return by_key


def _transfer_rrsets(transfer: Transfer, violations: list[str]) -> dict[tuple[str, int], dict[str, Any]]:
    """Transferred RRs grouped into RRsets by (lower-case owner, type); one spelling and one TTL
    per RRset, no record twice."""
    groups: dict[tuple[str, int], dict[str, Any]] = {}
    for rr in transfer.records:
        key = (_lower(rr.name.to_text()), rr.rdtype)
        group = groups.setdefault(key, {"names": set(), "ttls": set(), "rdatas": [], "ttl": rr.ttl})
        group["names"].add(rr.name.to_text())
        group["ttls"].add(rr.ttl)
        group["rdatas"].extend(rr)
    for (owner, rdtype), group in groups.items():
        type_text = dns.rdatatype.to_text(rdtype)
        if len(group["names"]) > 1:
            violations.append(f"duplicate RRset in the transfer: {type_text} at "
                              f"{sorted(group['names'])} (one owner, spelled differently)")
        if len(group["ttls"]) > 1:
            violations.append(f"RRset {owner} {type_text} is transferred with several TTLs "
                              f"{sorted(group['ttls'])}")
        unique = set(group["rdatas"])
        if len(unique) != len(group["rdatas"]):
            violations.append(f"RRset {owner} {type_text} is transferred with a record twice: "
                              f"{_rdata_texts(group['rdatas'])}")
        group["rdatas"] = unique
    return groups


def _check_structure(zone_name: str, rrsets: dict[tuple[str, int], dict[str, Any]],
                     violations: list[str]) -> None:
    """The zone's shape: SOA and NS at the apex, CNAME alone, glue only below delegations,
    every owner inside the zone."""
    apex = dns.name.from_text(zone_name)
    soas = [key for key in rrsets if key[1] == dns.rdatatype.SOA]
    if len(soas) != 1 or soas[0][0] != _lower(zone_name):
        violations.append(f"expected one SOA RRset at the apex {zone_name}, found it at "
                          f"{[owner for owner, _ in soas]}")
    elif len(rrsets[soas[0]]["rdatas"]) != 1:
        violations.append(f"the SOA RRset holds {len(rrsets[soas[0]]['rdatas'])} records")
    if (_lower(zone_name), dns.rdatatype.NS) not in rrsets:
        violations.append(f"no NS RRset at the apex {zone_name}")
    by_owner: dict[str, set[int]] = defaultdict(set)
    for owner, rdtype in rrsets:
        by_owner[owner].add(rdtype)
    delegations = {owner: {r.target for r in rrsets[(owner, dns.rdatatype.NS)]["rdatas"]}
                   for owner, types in by_owner.items()
                   if dns.rdatatype.NS in types and owner != _lower(zone_name)}
    for owner, types in sorted(by_owner.items()):
        name = dns.name.from_text(owner)
        if not name.is_subdomain(apex):
            violations.append(f"{owner} ({_types(types)}) is outside the zone {zone_name}")
            continue
        if dns.rdatatype.CNAME in types:
            others = types - _BESIDE_CNAME
            if others:
                violations.append(f"CNAME beside other data at {owner}: {_types(others)}")
            count = len(rrsets[(owner, dns.rdatatype.CNAME)]["rdatas"])
            if count > 1:
                violations.append(f"CNAME RRset at {owner} holds {count} records")
        for cut, targets in delegations.items():
            cut_name = dns.name.from_text(cut)
            if name == cut_name:
                occluded = types - _AT_DELEGATION
                glue_types = types & _GLUE
            elif name.is_subdomain(cut_name):
                occluded = types - _GLUE
                glue_types = types & _GLUE
            else:
                continue
            if glue_types and name not in targets:
                occluded |= glue_types
            if occluded:
                violations.append(f"{owner} holds {_types(occluded)} at or below the delegation "
                                  f"{cut} (only glue for its NS targets may be there)")


def _types(types: set[int]) -> str:
    return ", ".join(sorted(dns.rdatatype.to_text(t) for t in types))


def _compare(api: dict[tuple[str, int], dict[str, Any]],
             served: dict[tuple[str, int], dict[str, Any]], violations: list[str]) -> None:
    """The API's RRsets against the transferred ones, RRset by RRset."""
    for key in sorted(set(api) | set(served)):
        owner, rdtype = key
        type_text = dns.rdatatype.to_text(rdtype)
        mine, theirs = api.get(key), served.get(key)
        if theirs is None:
            violations.append(f"{mine['label']} {mine['texts']} is shown by the API "
                              "but not transferred by mdns")
            continue
        if mine is None:
            violations.append(f"mdns transfers {owner} {type_text} {_rdata_texts(theirs['rdatas'])} "
                              "that the API does not show")
            continue
        if mine["ttl"] not in theirs["ttls"]:
            violations.append(f"{mine['label']}: TTL {mine['ttl']} in the API, "
                              f"{sorted(theirs['ttls'])} transferred")
        if mine["rdatas"] != theirs["rdatas"]:
            violations.append(f"{mine['label']}: records {mine['texts']} in the API, "
                              f"{_rdata_texts(theirs['rdatas'])} transferred")


def check_zone(zone: ApiZone, transfer: Transfer, external: bool = True,
               notes: list[str] | None = None) -> list[str]:
    """Every violation of the invariants above, as sentences naming the RRsets involved (empty:
    the zone is right). ``external=False`` skips named-checkzone and kzonecheck; records of
    ``DESIGNATE_ACCEPTS`` left out of the transfer are appended to ``notes``."""
    violations: list[str] = []
    notes = [] if notes is None else notes
    if zone.status != "ACTIVE":
        violations.append(f"zone {zone.name} is {zone.status}, not ACTIVE")
    if _lower(zone.name) != _lower(transfer.zone_name):
        violations.append(f"the transfer is of {transfer.zone_name}, the API zone is {zone.name}")
    if transfer.error:
        violations.append(transfer.error)
    api = _api_rrsets(zone, violations, notes)
    served = _transfer_rrsets(transfer, violations)
    _check_structure(zone.name, served, violations)
    _compare(api, served, violations)
    if external and transfer.records:
        violations.extend(external_checks(zone.name, transfer.records))
    return violations


# ------------------------------------------------------------------------------ BIND and Knot
def zone_file_text(records: list[dns.rrset.RRset]) -> str:
    """A master file of the transferred RRs, absolute names, SOA first, one RR per line."""
    lines = [rr.to_text() for rr in records if rr.rdtype == dns.rdatatype.SOA]
    lines += [rr.to_text() for rr in records if rr.rdtype != dns.rdatatype.SOA]
    return "\n".join(lines) + "\n"


def missing_tools() -> list[str]:
    """Which of the two zone checkers are not installed (Debian: bind9-utils, knot-dnssecutils)."""
    return [tool for tool in ("named-checkzone", "kzonecheck") if shutil.which(tool) is None]


def external_checks(zone_name: str, records: list[dns.rrset.RRset]) -> list[str]:
    """named-checkzone and kzonecheck on the transferred zone (see ``check_zone_text``)."""
    return check_zone_text(zone_name, zone_file_text(records))


def check_zone_text(zone_name: str, text: str) -> list[str]:
    """named-checkzone and kzonecheck on a master file: a violation per refusing tool, with its
    output. ``-i local``: BIND checks in-zone integrity only, never looking names up over the
    network."""
    missing = missing_tools()
    if missing:
        return [f"zone checker(s) not installed: {', '.join(missing)}"]
    violations: list[str] = []
    with tempfile.TemporaryDirectory(prefix="okd-zonecheck-") as tmp:
        path = Path(tmp) / "zone.db"
        path.write_text(text)
        commands = {
            "named-checkzone": ["named-checkzone", "-i", "local", zone_name, str(path)],
            "kzonecheck": ["kzonecheck", "-v", "-o", zone_name, str(path)],
        }
        for tool, command in commands.items():
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=_TOOL_TIMEOUT,
                                      stdin=subprocess.DEVNULL, check=False)
            except subprocess.TimeoutExpired:
                violations.append(f"{tool} did not finish in {_TOOL_TIMEOUT} s")
                continue
            if done.returncode != 0:
                output = (done.stdout + done.stderr).strip()
                violations.append(f"{tool} refuses the zone (exit {done.returncode}): {output}\n"
                                  f"--- zone file ---\n{text}")
    return violations


# ------------------------------------------------------------------------------ for tests
def zone_violations(client: Any, zone_id: str, mdns_port: int, external: bool = True,
                    notes: list[str] | None = None) -> list[str]:
    """Fetch the zone from the API, transfer it from mdns and check it."""
    zone = fetch_api_zone(client, zone_id)
    return check_zone(zone, axfr(mdns_port, zone.name), external=external, notes=notes)


def assert_zone_valid(client: Any, zone_id: str, mdns_port: int, external: bool = True) -> None:
    """Raise AssertionError listing every violation of the zone's invariants."""
    violations = zone_violations(client, zone_id, mdns_port, external=external)
    if violations:
        raise AssertionError(f"zone {zone_id} breaks {len(violations)} invariant(s):\n- "
                             + "\n- ".join(violations))
