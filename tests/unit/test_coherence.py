"""Served records made coherent: one RRset per folded owner name and type, no CNAME beside data."""

from __future__ import annotations

from openkeel_designate.dnswire.coherence import coherent
from openkeel_designate.dnswire.zonedata import ServedRecord as R


def test_records_without_collisions_are_unchanged():
    records = [R("x.", "SOA", 60, "ns. h. 1 2 3 4 5"), R("www.x.", "A", 60, "192.0.2.1"),
               R("www.x.", "A", 60, "192.0.2.2"), R("Mail.x.", "MX", 30, "10 mx.x."),
               R("alias.x.", "CNAME", 60, "www.x.")]
    assert coherent(records) == records


def test_one_rrset_per_owner_name_in_any_case():
    records = [R("mixed.x.", "A", 300, "192.0.2.2"), R("MiXeD.x.", "A", 60, "192.0.2.1"),
               R("MIXED.x.", "A", 60, "192.0.2.1"), R("mixed.x.", "TXT", 5, '"t"')]
    assert coherent(records) == [R("MIXED.x.", "A", 60, "192.0.2.2"),
                                 R("MIXED.x.", "A", 60, "192.0.2.1"),
                                 R("mixed.x.", "TXT", 5, '"t"')]
    again = coherent(list(reversed(records)))  # the same choice on every read
    assert {(r.name, r.ttl) for r in again if r.type == "A"} == {("MIXED.x.", 60)}


def test_a_cname_beside_other_data_in_another_case_is_left_out(caplog):
    records = [R("Cn.x.", "CNAME", 60, "t.example."), R("cn.x.", "A", 60, "192.0.2.1"),
               R("other.x.", "CNAME", 60, "t.example.")]
    assert coherent(records, "x.") == [R("cn.x.", "A", 60, "192.0.2.1"),
                                       R("other.x.", "CNAME", 60, "t.example.")]
    assert "CNAME Cn.x. beside other data" in caplog.text


def test_the_same_data_written_differently_is_served_once():
    records = [R("p.x.", "PTR", 60, "x.example."), R("p.x.", "PTR", 60, "wwW.x."),
               R("p.x.", "PTR", 60, "WWW.x."), R("v6.x.", "AAAA", 60, "2001:DB8::1"),
               R("v6.x.", "AAAA", 60, "2001:db8:0::1"), R("t.x.", "TXT", 60, '"A"'),
               R("t.x.", "TXT", 60, '"a"')]
    assert coherent(records) == [R("p.x.", "PTR", 60, "x.example."),
                                 R("p.x.", "PTR", 60, "wwW.x."),
                                 R("v6.x.", "AAAA", 60, "2001:DB8::1"),
                                 R("t.x.", "TXT", 60, '"A"'), R("t.x.", "TXT", 60, '"a"')]
