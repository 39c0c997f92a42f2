"""Counting DNS messages without parsing them: the type sits after the question name, the rcode
in the header, so a query costs a few byte reads, not a dnspython parse."""

from __future__ import annotations

from openkeel_designate.observability import metrics

# The types worth a label of their own; the rest count as OTHER so a scanner sending every
# number cannot grow the series.
_QTYPES = {1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 15: "MX", 16: "TXT", 28: "AAAA",
           33: "SRV", 35: "NAPTR", 43: "DS", 48: "DNSKEY", 52: "TLSA", 64: "SVCB", 65: "HTTPS",
           99: "SPF", 257: "CAA", 251: "IXFR", 252: "AXFR", 255: "ANY"}
_RCODES = {0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN", 4: "NOTIMP", 5: "REFUSED",
           9: "NOTAUTH"}
_OPCODE_NOTIFY = 4
_TRANSFERS = ("AXFR", "IXFR")


def qtype_of(wire: bytes) -> str:
    """The first question's type as a label (NOTIFY for a NOTIFY message, ? when unreadable)."""
    if len(wire) < 12:
        return "?"
    if (wire[2] >> 3) & 0x0F == _OPCODE_NOTIFY:
        return "NOTIFY"
    offset = 12
    while offset < len(wire):
        length = wire[offset]
        if length == 0:
            break
        if length & 0xC0:  # a pointer cannot start a first question name
            return "?"
        offset += length + 1
    if offset + 3 > len(wire):
        return "?"
    return _QTYPES.get((wire[offset + 1] << 8) | wire[offset + 2], "OTHER")


def rcode_of(wire: bytes) -> str:
    return _RCODES.get(wire[3] & 0x0F, "OTHER") if len(wire) >= 4 else "?"


def observe(server: str, query: bytes, answers: list[bytes]) -> None:
    """One message answered (or dropped when ``answers`` is empty) by ``server``."""
    qtype = qtype_of(query)
    rcode = rcode_of(answers[0]) if answers else "DROPPED"
    metrics.DNS_QUERIES.labels(server, qtype, rcode).inc()
    if qtype in _TRANSFERS and answers:
        metrics.TRANSFERS.labels(server, qtype).inc()
        metrics.TRANSFER_BYTES.labels(server, qtype).inc(sum(len(a) for a in answers))


def dropped(server: str, reason: str) -> None:
    """A UDP query dropped before it was read (rate limit, in-flight bound)."""
    metrics.DNS_DROPPED.labels(server, reason).inc()
