"""The zone invariant checker (tests/support/zone_invariants.py) catches each kind of bad zone.

A checker that never fails proves nothing, so each invariant is broken here once, on a zone
built by hand, and the checker must name it; a good zone must pass, BIND and Knot included.
"""

from __future__ import annotations

import copy

import dns.rrset
import pytest

from support.zone_invariants import ApiZone, Transfer, check_zone, external_checks, missing_tools

ZONE = "inv.example."
GOOD = [
    "inv.example. 3600 IN SOA ns1.example.net. h.inv.example. 7 3600 600 86400 3600",
    "inv.example. 3600 IN NS ns1.example.net.",
    "inv.example. 3600 IN MX 10 mail.inv.example.",
    "mail.inv.example. 3600 IN A 192.0.2.1",
    "www.inv.example. 300 IN A 192.0.2.2",
    "www.inv.example. 300 IN A 192.0.2.3",
    "alias.inv.example. 3600 IN CNAME www.inv.example.",
    "txt.inv.example. 3600 IN TXT \"hello world\"",
    "sub.inv.example. 3600 IN NS ns.sub.inv.example.",
    "ns.sub.inv.example. 3600 IN A 192.0.2.53",
]


def transfer_of(lines: list[str]) -> Transfer:
    return Transfer(zone_name=ZONE, records=[dns.rrset.from_text(*_split(line)) for line in lines])


def _split(line: str) -> tuple:
    owner, ttl, rdclass, rtype, data = line.split(None, 4)
    return owner, int(ttl), rdclass, rtype, data


def api_of(lines: list[str]) -> ApiZone:
    """The API view of the same records: one recordset per (owner as written, type)."""
    sets: dict[tuple[str, str], dict] = {}
    for line in lines:
        owner, ttl, _, rtype, data = _split(line)
        entry = sets.setdefault((owner, rtype), {"id": f"id-{len(sets)}", "name": owner, "type": rtype,
                                                 "ttl": None if ttl == 3600 else ttl,
                                                 "records": [], "status": "ACTIVE", "action": "NONE"})
        entry["records"].append(data)
    return ApiZone(id="z", name=ZONE, ttl=3600, status="ACTIVE", recordsets=list(sets.values()))


def violations(api_lines: list[str], served_lines: list[str] | None = None, external: bool = False) -> list[str]:
    return check_zone(api_of(api_lines), transfer_of(GOOD if served_lines is None else served_lines),
                      external=external)


def one(found: list[str], *words: str) -> None:
    assert any(all(w in v for w in words) for v in found), f"no violation with {words}: {found}"


def test_a_good_zone_passes() -> None:
    assert violations(GOOD) == []


@pytest.mark.skipif(bool(missing_tools()), reason=f"not installed: {missing_tools()}")
def test_a_good_zone_passes_bind_and_knot() -> None:
    assert violations(GOOD, external=True) == []


def test_api_record_not_transferred() -> None:
    lines = GOOD + ["extra.inv.example. 3600 IN A 192.0.2.9"]
    one(violations(lines), "extra.inv.example.", "not transferred")


def test_transferred_record_not_in_api() -> None:
    lines = GOOD + ["extra.inv.example. 3600 IN A 192.0.2.9"]
    one(violations(GOOD, lines), "extra.inv.example.", "does not show")


def test_rdata_differs() -> None:
    served = [line.replace("192.0.2.3", "192.0.2.4") for line in GOOD]
    one(violations(GOOD, served), "www.inv.example.", "records")


def test_ttl_differs() -> None:
    served = [line.replace("www.inv.example. 300", "www.inv.example. 301") for line in GOOD]
    one(violations(GOOD, served), "TTL 300")


def test_null_ttl_means_the_zone_ttl() -> None:
    api = api_of(GOOD)
    api.ttl = 600
    one(check_zone(api, transfer_of(GOOD), external=False), "TTL 600")


def test_rdata_compared_after_parsing() -> None:
    api = api_of(GOOD)
    for rs in api.recordsets:
        if rs["type"] == "MX":
            rs["records"] = ["10   MAIL.inv.example."]
    assert check_zone(api, transfer_of(GOOD), external=False) == []


def test_duplicate_rrset_names_differing_in_case() -> None:
    lines = GOOD + ["WwW.inv.example. 300 IN A 192.0.2.7"]
    found = violations(lines, lines)
    one(found, "duplicate RRset in the API", "WwW.inv.example.")
    one(found, "duplicate RRset in the transfer", "WwW.inv.example.", "www.inv.example.")


def test_two_ttls_in_one_rrset() -> None:
    served = GOOD + ["www.inv.example. 60 IN A 192.0.2.8"]
    one(violations(GOOD, served), "several TTLs")


def test_record_transferred_twice() -> None:
    served = GOOD + ["www.inv.example. 300 IN A 192.0.2.2"]
    one(violations(GOOD, served), "a record twice")


def test_no_soa() -> None:
    lines = GOOD[1:]
    one(violations(lines, lines), "one SOA")


def test_two_soa_records() -> None:
    lines = GOOD + ["inv.example. 3600 IN SOA ns2.example.net. h.inv.example. 8 3600 600 86400 3600"]
    one(violations(lines, lines), "SOA RRset holds 2")


def test_soa_not_at_apex() -> None:
    lines = [GOOD[0].replace("inv.example. 3600", "low.inv.example. 3600", 1)] + GOOD[1:]
    one(violations(lines, lines), "one SOA", "low.inv.example.")


def test_no_apex_ns() -> None:
    lines = [line for line in GOOD if line != "inv.example. 3600 IN NS ns1.example.net."]
    one(violations(lines, lines), "no NS RRset at the apex")


def test_cname_beside_data() -> None:
    lines = GOOD + ["alias.inv.example. 3600 IN TXT \"x\""]
    one(violations(lines, lines), "CNAME beside other data", "alias.inv.example.", "TXT")


def test_cname_beside_data_spelled_differently() -> None:
    lines = GOOD + ["ALIAS.inv.example. 3600 IN A 192.0.2.5"]
    one(violations(lines, lines), "CNAME beside other data", "alias.inv.example.")


def test_two_cname_records() -> None:
    lines = GOOD + ["alias.inv.example. 3600 IN CNAME mail.inv.example."]
    one(violations(lines, lines), "CNAME RRset at alias.inv.example. holds 2")


def test_data_below_a_delegation() -> None:
    lines = GOOD + ["www.sub.inv.example. 3600 IN A 192.0.2.6"]
    one(violations(lines, lines), "www.sub.inv.example.", "delegation")


def test_non_glue_type_below_a_delegation() -> None:
    lines = GOOD + ["ns.sub.inv.example. 3600 IN TXT \"no\""]
    one(violations(lines, lines), "ns.sub.inv.example.", "TXT", "delegation")


def test_data_at_a_delegation_point() -> None:
    lines = GOOD + ["sub.inv.example. 3600 IN MX 10 mail.inv.example."]
    one(violations(lines, lines), "sub.inv.example.", "MX", "delegation")


def test_name_outside_the_zone() -> None:
    lines = GOOD + ["www.other.example. 3600 IN A 192.0.2.1"]
    one(violations(lines, lines), "outside the zone")


def test_recordset_not_active() -> None:
    api = api_of(GOOD)
    api.recordsets[3]["status"] = "PENDING"
    one(check_zone(api, transfer_of(GOOD), external=False), "PENDING")


def test_zone_not_active() -> None:
    api = api_of(GOOD)
    api.status = "ERROR"
    one(check_zone(api, transfer_of(GOOD), external=False), "ERROR, not ACTIVE")


def test_api_record_dns_cannot_read() -> None:
    api = api_of(GOOD)
    bad = copy.deepcopy(api.recordsets[3])
    bad.update(id="bad", name="bad.inv.example.", records=["not-an-address"])
    api.recordsets.append(bad)
    one(check_zone(api, transfer_of(GOOD), external=False), "not valid DNS data")


def test_designate_accepted_record_left_out_is_a_note() -> None:
    api = api_of(GOOD)
    api.recordsets.append({"id": "fp", "name": "host.inv.example.", "type": "SSHFP", "ttl": None,
                           "records": ["2 2 0123456789abcdef0123456789abcdef01234567"],
                           "status": "ACTIVE", "action": "NONE"})
    notes: list[str] = []
    assert check_zone(api, transfer_of(GOOD), external=False, notes=notes) == []
    one(notes, "SSHFP", "is not served")


def test_designate_accepted_record_transferred_anyway() -> None:
    api = api_of(GOOD)
    api.recordsets.append({"id": "fp", "name": "host.inv.example.", "type": "SSHFP", "ttl": None,
                           "records": ["2 2 0123456789abcdef0123456789abcdef01234567"],
                           "status": "ACTIVE", "action": "NONE"})
    served = transfer_of(GOOD)
    served.records.append(dns.rrset.from_text("host.inv.example.", 3600, "IN", "SSHFP",
                                              "2 1 0123456789abcdef0123456789abcdef01234567"))
    one(check_zone(api, served, external=False), "that the API does not show")


def test_failed_transfer() -> None:
    transfer = Transfer(zone_name=ZONE, error="AXFR answered REFUSED")
    found = check_zone(api_of(GOOD), transfer, external=False)
    one(found, "REFUSED")
    one(found, "not transferred")


@pytest.mark.skipif(bool(missing_tools()), reason=f"not installed: {missing_tools()}")
def test_knot_refuses_missing_glue() -> None:
    """An in-zone NS target of a delegation without its address: kzonecheck refuses it."""
    records = transfer_of([line for line in GOOD if not line.startswith("ns.sub.")]).records
    one(external_checks(ZONE, records), "kzonecheck refuses", "missing glue")


@pytest.mark.skipif(bool(missing_tools()), reason=f"not installed: {missing_tools()}")
def test_bind_and_knot_refuse_cname_beside_data() -> None:
    lines = GOOD + ["alias.inv.example. 3600 IN TXT \"x\""]
    found = external_checks(ZONE, transfer_of(lines).records)
    one(found, "named-checkzone refuses", "CNAME and other data")
    one(found, "kzonecheck refuses")
