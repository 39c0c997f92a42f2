"""Generated record data of the 17 types: valid values and near-valid ones (one mutation away:
a bad octet, a missing field, a port out of range), and the SVCB/HTTPS parameters."""

from __future__ import annotations

import random
import string

def _hex(rng: random.Random, size: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(size))


def rdata(rng: random.Random, rtype: str) -> tuple[list[str], list[str]]:
    """(valid records, near-valid records) of a type, generated."""
    n = rng.randint(1, 250)
    host = f"h{n}.example.net."
    b64 = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(24)) + "=="
    table: dict[str, tuple[list[str], list[str]]] = {
        "A": ([f"192.0.2.{n}", f"198.51.100.{n}"], [f"192.0.2.{n + 256}", "192.0.2", "1.2.3.4.5"]),
        "AAAA": ([f"2001:db8::{n:x}", f"2001:DB8:0:0::{n:x}"], ["2001:db8::g1", "2001:db8:::1", "::ffff:1.2.3"]),
        "CNAME": ([host], ["no-dot.example.net", "a..b.example.net."]),
        "MX": ([f"{n} mail.example.net.", f"0 {host}"], [host, f"70000 {host}", f"-1 {host}"]),
        "SRV": ([f"10 {n} 5060 {host}"], [f"10 20 {host}", f"10 20 70000 {host}", f"a 1 1 {host}"]),
        "TXT": ([f'"hello {n}"', f"v=spf1 -all {n}", '"two" "strings"'], ["a" * 256, '"unterminated', ""]),
        "SPF": ([f'"v=spf1 ip4:192.0.2.{n} -all"'], ["a" * 256, '"half']),
        "NS": ([host, f"ns{n}.example.org."], ["ns-no-dot", "*.example.net."]),
        "PTR": ([host], ["ptr-no-dot", "192.0.2.1"]),
        "SSHFP": ([f"1 1 {_hex(rng, 40)}", f"4 2 {_hex(rng, 64)}"], [f"1 1 zz{_hex(rng, 38)}", "1 1", f"300 1 {_hex(rng, 40)}"]),
        "SOA": ([f"ns1.example.net. admin.example.net. {n} 3600 600 86400 3600"], ["ns1.example.net."]),
        "NAPTR": ([f'100 {n} "S" "SIP+D2U" "" _sip._udp.example.net.'],
                  ['100 10 "S" "SIP+D2U" _sip._udp.example.net.', f'70000 10 "S" "x" "" {host}']),
        "CAA": ([f'0 issue "ca{n}.example.net"', '128 iodef "mailto:security@example.net"',
                 '0 issuewild ";"', f'0 iodef "https://example.net/caa/{n}"'],
                ['0 issue ca.example.net', '256 issue "ca.example.net"', '0 badtag "x"',
                 '0 iodef "ftp://example.net"', '0 issue "bad domain!"', '0 issue',
                 '0 iodef "mailto:"', '0 issue "ca.example.net; key"']),
        "CERT": ([f"PKIX 0 0 {b64}", f"1 {n} 8 {b64}"], ["BADTYPE 0 0 abc=", f"PKIX 0 0 !!{b64}", "PKIX 70000 0 abc="]),
        "HTTPS": ([f'1 . alpn="h2,h3" port={n + 1000}', f"0 {host}", f"2 {host} ipv4hint=192.0.2.{n}",
                   "1 . mandatory=alpn alpn=h2", f"1 . ipv6hint=2001:db8::{n:x}", "1 . no-default-alpn alpn=h3"],
                  ["1 . alpn=h2 alpn=h3", "1 . mandatory=port", f"0 {host} alpn=h2", "1 . port=70000",
                   "1 . key65535=x", "1 . ipv4hint=1.2.3", "1 .", "70000 . alpn=h2", "1 . mandatory=mandatory",
                   "1 . no-default-alpn", "1 . port=", "1 . ech=!!!"]),
        "SVCB": ([f"1 {host} port={n + 1000}", f"0 {host}", f"16 . key{n + 7}=v{n}"],
                 ["1 . alpn=h2 alpn=h2", "1 . port=a", f"0 {host} port=53", "1 . keyabc=1", "1 . mandatory=key999"]),
        "TLSA": ([f"3 1 1 {_hex(rng, 64)}", f"0 0 2 {_hex(rng, 128)}"], [f"3 1 1 {_hex(rng, 63)}z", "3 1", "256 1 1 ab"]),
    }
    return table[rtype]


RECORD_TYPES = ("A", "AAAA", "CNAME", "MX", "SRV", "TXT", "SPF", "NS", "PTR", "SSHFP", "SOA",
                "NAPTR", "CAA", "CERT", "HTTPS", "SVCB", "TLSA")
OWNER_PREFIX = {"SRV": "_sip._tcp.", "TLSA": "_443._tcp.", "SVCB": "_svc.", "NAPTR": "", "HTTPS": ""}

