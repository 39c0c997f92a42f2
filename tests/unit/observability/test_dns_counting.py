"""The DNS counters read type and rcode off the wire the way dnspython writes them."""

from __future__ import annotations

import dns.message
import dns.opcode
import dns.rcode
import dns.rdatatype

from openkeel_designate.observability import dns as dns_metrics
from openkeel_designate.observability import metrics


def _value(name: str, **labels: str) -> float:
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0


def test_qtype_and_rcode_of_real_messages():
    for rtype in ("A", "SOA", "AXFR", "IXFR", "HTTPS", "CAA"):
        query = dns.message.make_query("www.example.org.", rtype)
        assert dns_metrics.qtype_of(query.to_wire()) == rtype
    unusual = dns.message.make_query("example.org.", 4242)
    assert dns_metrics.qtype_of(unusual.to_wire()) == "OTHER"
    notify = dns.message.make_query("example.org.", "SOA")
    notify.set_opcode(dns.opcode.NOTIFY)
    assert dns_metrics.qtype_of(notify.to_wire()) == "NOTIFY"
    response = dns.message.make_response(dns.message.make_query("x.example.", "A"))
    response.set_rcode(dns.rcode.NXDOMAIN)
    assert dns_metrics.rcode_of(response.to_wire()) == "NXDOMAIN"
    assert dns_metrics.qtype_of(b"\x00\x01") == "?"


def test_observe_counts_queries_and_transfer_bytes():
    query = dns.message.make_query("example.org.", "AXFR")
    answers = [dns.message.make_response(query).to_wire() for _ in range(3)]
    before = _value("designate_dns_queries_total", server="t", qtype="AXFR", rcode="NOERROR")
    bytes_before = _value("designate_dns_transfer_bytes_total", server="t", qtype="AXFR")
    dns_metrics.observe("t", query.to_wire(), answers)
    assert _value("designate_dns_queries_total", server="t", qtype="AXFR",
                  rcode="NOERROR") == before + 1
    assert _value("designate_dns_transfer_bytes_total", server="t",
                  qtype="AXFR") == bytes_before + sum(map(len, answers))
    dns_metrics.observe("t", query.to_wire(), [])
    assert _value("designate_dns_queries_total", server="t", qtype="AXFR",
                  rcode="DROPPED") >= 1
