"""ExternalDNS's JSON, the target forms and the plan → change batches mapping, without I/O."""

from __future__ import annotations

import pytest

from openkeel_designate.externaldns import wire
from openkeel_designate.externaldns.batches import Planner, Zone
from openkeel_designate.externaldns.targets import (fqdn, in_filter, to_designate,
                                                     to_externaldns)
from openkeel_designate.externaldns.wire import Changes, Endpoint


@pytest.mark.parametrize("rtype, target, data", [
    ("CNAME", "www.example.org", "www.example.org."),
    ("CNAME", "www.example.org.", "www.example.org."),
    ("NS", "ns1.example.net", "ns1.example.net."),
    ("MX", "10 mx.example.org", "10 mx.example.org."),
    ("SRV", "0 50 443 t.example.org", "0 50 443 t.example.org."),
    ("SRV", "0 50 443 t.example.org.", "0 50 443 t.example.org."),
    ("TXT", '"heritage=external-dns,external-dns/owner=x"',
     '"heritage=external-dns,external-dns/owner=x"'),
    ("TXT", "token-without-spaces", "token-without-spaces"),
    ("TXT", "v=spf1 include:x -all", '"v=spf1 include:x -all"'),
    ("TXT", 'say "hi" now', '"say \\"hi\\" now"'),
    ("A", "192.0.2.1", "192.0.2.1"),
    ("MX", "not an mx", "not an mx"),
])
def test_targets_become_designate_data_and_read_back_as_externaldns_writes_them(rtype, target,
                                                                               data):
    assert to_designate(rtype, target) == data
    back = to_externaldns(rtype, data)
    assert to_designate(rtype, back) == data  # a second round trip changes nothing
    if rtype in ("CNAME", "NS", "MX"):
        assert not back.endswith(".")
    if rtype == "SRV":
        assert back.endswith(".")


def test_long_text_is_split_into_strings_of_at_most_255():
    data = to_designate("TXT", "k=" + "a b" * 200)
    pieces = data.split('" "')
    assert len(pieces) == 3 and all(len(piece) <= 253 for piece in pieces)
    assert data.startswith('"') and data.endswith('"')


def test_names_and_filters():
    assert fqdn("www.Example.org") == "www.Example.org."
    assert fqdn("bücher.example") == "xn--bcher-kva.example."
    assert in_filter([], "anything.example")
    assert in_filter(["example.org"], "example.org.") and in_filter(["example.org"], "a.example.org")
    assert not in_filter(["example.org"], "badexample.org")
    assert in_filter([".example.org"], "a.example.org") and not in_filter([".example.org"],
                                                                          "example.org")


def test_both_casings_and_gos_case_insensitive_keys_are_read():
    old = wire.read_changes({"Create": [{"dnsName": "a.example.org", "recordType": "A",
                                         "targets": ["192.0.2.1"], "recordTTL": 60}],
                             "UpdateOld": None, "UpdateNew": None, "Delete": None})
    new = wire.read_changes({"create": [{"DNSNAME": "a.example.org", "RecordType": "A",
                                         "targets": ["192.0.2.1"], "recordttl": 60}],
                             "unknown": 1})
    assert old == new and old.create[0].ttl == 60
    assert wire.read_changes(None) == Changes()


def test_written_endpoints_leave_empty_fields_out():
    assert wire.write_endpoint(Endpoint("a.example.org", "A", ["192.0.2.1"])) == {
        "dnsName": "a.example.org", "targets": ["192.0.2.1"], "recordType": "A"}
    assert wire.domain_filter([]) == {}
    assert wire.domain_filter(["B.example.", "a.example", ""]) == {
        "include": ["a.example", "b.example"]}


ZONES = [Zone("p", "example.org.", True), Zone("c", "kid.example.org.", True),
         Zone("s", "sec.example.org.", False)]


def plan(**sections: list[Endpoint]):
    return Planner(ZONES, []).plan(Changes(**sections))


def test_each_endpoint_goes_to_its_longest_zone_and_others_are_skipped():
    batches, skipped = plan(create=[
        Endpoint("a.kid.example.org", "A", ["192.0.2.1"]),
        Endpoint("a.example.org", "A", ["192.0.2.2"]),
        Endpoint("a.sec.example.org", "A", ["192.0.2.3"]),
        Endpoint("a.example.net", "A", ["192.0.2.4"])])
    assert [(b.zone.id, [c["name"] for c in b.changes]) for b in batches] == [
        ("p", ["a.example.org."]), ("c", ["a.kid.example.org."])]
    assert [(s.index, s.reason.split(",")[0]) for s in skipped] == [
        (2, "in zone sec.example.org."), (3, "under no zone of the project")]


def test_actions_merge_and_come_in_order_deletes_updates_creates():
    [batch], _ = plan(
        create=[Endpoint("n.example.org", "A", ["192.0.2.9"], 60),
                Endpoint("c.example.org", "CNAME", ["t.example.org"])],
        updateOld=[Endpoint("u.example.org", "A", ["192.0.2.1", "192.0.2.2"])],
        updateNew=[Endpoint("u.example.org", "A", ["192.0.2.2", "192.0.2.3"], 30)],
        delete=[Endpoint("d.example.org", "TXT", ['"x"'])])
    assert [(c["action"], c["name"], c["records"], c.get("ttl")) for c in batch.changes] == [
        ("REMOVE_RECORDS", "d.example.org.", ['"x"'], None),
        ("ADD_RECORDS", "u.example.org.", ["192.0.2.2", "192.0.2.3"], 30),
        ("REMOVE_RECORDS", "u.example.org.", ["192.0.2.1"], None),
        ("ADD_RECORDS", "n.example.org.", ["192.0.2.9"], 60),
        ("UPSERT", "c.example.org.", ["t.example.org."], None)]
    assert batch.origins == [("delete", 0), ("updateNew", 0), ("updateNew", 0), ("create", 0),
                             ("create", 1)]


def test_bad_endpoint_fields_are_all_listed():
    with pytest.raises(wire.WireError) as caught:
        wire.read_changes({"create": [{"dnsName": 1, "recordType": "A"},
                                      {"dnsName": "a", "recordType": "A", "recordTTL": True}],
                           "delete": {}})
    paths = [p["path"] for p in caught.value.problems]
    assert paths == [["create", 0, "dnsName"], ["create", 1, "recordTTL"], ["delete"]]
