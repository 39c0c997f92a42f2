"""How large a DNS answer may be, and rendering one within that size.

Why one place: mdns and the built-in nameserver both answer UDP on the open network, and a UDP
answer larger than the question is what makes a server an amplifier.  So a UDP answer never
exceeds what both sides agreed on — the client's EDNS payload (RFC 6891 §6.2.5: below 512 counts
as 512), capped by the payload we advertise ourselves (1232 by default, the DNS Flag Day 2020
value that avoids IP fragmentation) — and 512 bytes without EDNS (RFC 1035 §4.2.1).  What does not
fit is sent truncated with TC=1 and the question kept, so the client retries over TCP, where the
whole 64 KiB message is available (RFC 7766).
"""

from __future__ import annotations

import dns.exception
import dns.flags
import dns.message
import dns.rcode

UDP_WITHOUT_EDNS = 512
DEFAULT_UDP_PAYLOAD = 1232
MAX_MESSAGE = 65535
SUPPORTED_EDNS_VERSION = 0


def udp_limit(request_payload: int, has_edns: bool, our_payload: int) -> int:
    """Bytes a UDP answer may take: 512 without EDNS, else min(client's, ours), at least 512."""
    if not has_edns:
        return UDP_WITHOUT_EDNS
    return max(UDP_WITHOUT_EDNS, min(request_payload, our_payload, MAX_MESSAGE))


def limit_for(response: dns.message.Message, tcp: bool, our_payload: int,
              tcp_max: int = MAX_MESSAGE) -> int:
    """The size bound of ``response`` (made by ``make_response``) on its transport."""
    if tcp:
        return min(tcp_max, MAX_MESSAGE)
    return udp_limit(response.request_payload, response.edns >= 0, our_payload)


def render(response: dns.message.Message, tcp: bool, our_payload: int,
           tcp_max: int = MAX_MESSAGE) -> bytes:
    """The wire form of ``response`` within its transport's limit.

    Too large: TC=1 and only the whole RRsets that fit (question, OPT and TSIG always kept).  TC
    is set even when only the additional section is cut, because what our nameserver puts there
    is referral glue, which a resolver needs (RFC 9471)."""
    limit = limit_for(response, tcp, our_payload, tcp_max)
    try:
        return response.to_wire(max_size=limit)
    except dns.exception.TooBig:
        response.flags |= dns.flags.TC
        return response.to_wire(max_size=limit, prefer_truncation=True)


def unsupported_edns(query: dns.message.Message) -> bool:
    """Whether the query uses an EDNS version we do not implement (answered BADVERS)."""
    return query.edns > SUPPORTED_EDNS_VERSION


def badvers(query: dns.message.Message, our_payload: int) -> dns.message.Message:
    """RFC 6891 §6.1.3: extended RCODE 16 with an OPT of the version we do speak (0)."""
    response = dns.message.make_response(query, our_payload=our_payload)
    response.set_rcode(dns.rcode.BADVERS)
    return response
