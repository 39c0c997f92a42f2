"""The fast reader of plain zone files against dnspython's reader: same RRsets, same order, same
texts, same quota refusals, or it gives up (``Unsure``) and dnspython decides.

Every case is read both ways: by ``zonefile_plain.read`` and by ``read_with_dnspython`` (the
reader imports used before).  When the fast reader answers, the answers must be equal; the cases
marked plain must be answered fast (so the fast path is not silently unused).
"""

from __future__ import annotations

import random

import pytest

from openkeel_designate.central import zonefile_import as zi
from openkeel_designate.central import zonefile_plain as zp

HEAD = ("$ORIGIN plain.example.\n$TTL 300\n"
        "@ IN SOA ns1.example.org. hostmaster.example.org. 7 3600 600 86400 300\n"
        "@ IN NS ns1.example.org.\n")

PLAIN = {
    "a": "www IN A 192.0.2.1\n",
    "ttl first and last": "a 60 IN A 192.0.2.1\nb IN 70 A 192.0.2.2\nc A 192.0.2.3\n",
    "implicit owner": "www IN A 192.0.2.1\n  IN AAAA 2001:db8::1\n\tTXT \"x\"\n",
    "same set": "www A 192.0.2.1\nwww A 192.0.2.2\nwww A 192.0.2.1\n",
    "interleaved sets move last": "x A 192.0.2.1\nx TXT \"t\"\nx A 192.0.2.2\ny MX 10 mx\nx MX 5 mx\n",
    "owner casing kept first": "Www A 192.0.2.1\nwWW A 192.0.2.2\n",
    "aaaa forms": "a AAAA 2001:0DB8:0:0:0:0:0:1\nb AAAA ::\nc AAAA 1::\nd AAAA 0:0:1:0:0:0:1:0\n"
                  "e AAAA fe80:0:0:0:1:0:0:0\nf AAAA ::ffff:192.0.2.1\ng AAAA ::192.0.2.1\n",
    "txt forms": "t TXT \"a b\" c \"\"\nu TXT \"semi;colon\" ; comment\nv TXT x\"y\"\nw TXT \"(paren)\"\n",
    "names": "c CNAME www\nd CNAME www.other.example.\ne NS ns\n_srv._tcp SRV 0 5 443 @\n"
             "m MX 010 @\np PTR host.\n*.w A 192.0.2.9\n",
    "other types": "x CAA 0 issue \"ca.example\"\ny SSHFP 1 1 0123456789abcdef0123456789abcdef01234567\n"
                   "z NAPTR 100 10 \"U\" \"E2U+sip\" \"!^.*$!sip:x@example.com!\" .\n"
                   "s SPF \"v=spf1 -all\"\n",
    "comments and blanks": "; top\n\n   \nwww A 192.0.2.1 ; trailing\n   ; indented comment\n",
    "parenthesised soa": "$ORIGIN p.example.\n@ 3600 IN SOA ns1.example.org. h.example.org. (\n"
                         "  2024 ; serial\n  1h 10m 1w\n  300 )\n@ NS ns1.example.org.\nw A 192.0.2.1\n",
    "no $TTL: last ttl then soa minimum": "$ORIGIN q.example.\na 60 A 192.0.2.1\n"
                                          "@ SOA ns1.example.org. h.example.org. 1 2 3 4 99\n"
                                          "b A 192.0.2.2\n",
    "ttl units in $TTL": "$TTL 1h\nw A 192.0.2.1\n",
    "class before ttl": "w IN 120 A 192.0.2.1\nx in a 192.0.2.2\n",
    "apex records": "@ TXT \"apex\"\n@ MX 10 mx\n@ NS ns2.example.org.\n",
    "zero ttl": "z 0 A 192.0.2.1\n",
    "parens on one line": "w TXT (\"a\") ; c\nx A ( 192.0.2.1 )\n",
}

UNSURE = {
    "escape": "w\\.x A 192.0.2.1\n",
    "generate": "$GENERATE 1-3 h$ A 192.0.2.$\n",
    "second origin": "$ORIGIN sub.plain.example.\nw A 192.0.2.1\n",
    "cname and other": "w CNAME x\nw A 192.0.2.1\n",
    "two cnames": "w CNAME x\nw CNAME y\n",
    "ttls differ in a set": "w 60 A 192.0.2.1\nw 70 A 192.0.2.2\n",
    "names differing in case": "m MX 1 mx.example.\nm MX 1 MX.example.\n",
    "out of zone": "w.elsewhere. A 192.0.2.1\n",
    "leading zero v4": "w A 192.0.2.01\n",
    "bad v4": "w A 192.0.2.256\n",
    "bad v6": "w AAAA 1::2::3\n",
    "ttl units": "w 1h A 192.0.2.1\n",
    "chaos": "w CH A 192.0.2.1\n",
    "unknown type": "w FOO bar\n",
    "missing rdata": "w A\n",
    "extra rdata": "w A 192.0.2.1 192.0.2.2\n",
    "unterminated quote": "w TXT \"abc\n",
    "crlf": "w A 192.0.2.1\r\n",
    "non-ascii": "w TXT \"caf\u00e9\"\n",
    "dname": "w DNAME x\n",
    "nested parens": "w TXT ((\"a\"\n))\n",
    "unbalanced parens": "w A ) 192.0.2.1 (\n",
    "parens to the end": "w A ( 192.0.2.1\n",
    "soa elsewhere": "w SOA a. b. 1 2 3 4 5\n",
    "empty label": "w..x A 192.0.2.1\n",
    "long txt": "w TXT \"" + "x" * 256 + "\"\n",
}


def both(text: str, limits: zi.Limits = zi.Limits()) -> tuple[object, object]:
    """(fast result or 'unsure' or the refusal, dnspython's result or error type and text)."""
    try:
        fast: object = zp.read(text, zi._Budget(limits).put)
    except zp.Unsure:
        fast = "unsure"
    except zi._Refused as exc:
        fast = ("refused", str(exc))
    try:
        slow: object = zi.read_with_dnspython(text, limits)
    except zi._Refused as exc:
        slow = ("refused", str(exc))
    except Exception as exc:  # noqa: BLE001 - compared by type and text
        slow = (type(exc).__name__, str(exc))
    return fast, slow


@pytest.mark.parametrize("case", sorted(PLAIN))
def test_plain_files_read_fast_as_dnspython_reads_them(case: str) -> None:
    text = PLAIN[case] if PLAIN[case].startswith("$ORIGIN") else HEAD + PLAIN[case]
    fast, slow = both(text)
    assert fast != "unsure"
    assert fast == slow


@pytest.mark.parametrize("case", sorted(UNSURE))
def test_other_files_are_left_to_dnspython(case: str) -> None:
    fast, _slow = both(HEAD + UNSURE[case])
    assert fast == "unsure"


@pytest.mark.parametrize("limits", [zi.Limits(zone_records=3), zi.Limits(zone_recordsets=4),
                                    zi.Limits(recordset_records=2)])
def test_quota_refusals_are_the_same(limits: zi.Limits) -> None:
    text = HEAD + "a A 192.0.2.1\na A 192.0.2.2\na A 192.0.2.3\nb A 192.0.2.4\nc A 192.0.2.5\n"
    fast, slow = both(text, limits)
    assert fast == slow == ("refused", zi.OVER_QUOTA)


def test_parse_results_are_the_same_through_either_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = zi.Rules(min_ttl=0, supported_types=("A", "AAAA", "TXT", "NS", "MX", "SOA", "CNAME"))
    text = HEAD + PLAIN["interleaved sets move last"] + PLAIN["aaaa forms"]
    fast = zi.parse(text, rules)

    def unsure(*_args: object) -> None:
        raise zp.Unsure

    monkeypatch.setattr(zp, "read", unsure)
    assert zi.parse(text, rules) == fast


def test_random_plain_files_agree() -> None:
    """Random mixes of owners, TTL positions, classes, types and repeats, read both ways."""
    rng = random.Random(13)
    owners = ["@", "a", "B", "b", "c.d", "x.plain.example.", "*.w", "_s._tcp"]
    rdata = {
        "A": lambda: f"192.0.2.{rng.randrange(4)}",
        "AAAA": lambda: rng.choice(["2001:db8::1", "2001:DB8:0::1", "::", "1:0:0:2::", "0:0:0:0:0:0:0:1"]),
        "TXT": lambda: rng.choice(['"a"', 'a', '"a" "b"', '"A"', 'x"y z"']),
        "MX": lambda: f"{rng.randrange(3)} {rng.choice(['mx', 'mx.example.', '@'])}",
        "NS": lambda: rng.choice(["ns", "ns.example."]),
        "SRV": lambda: f"{rng.randrange(2)} 1 {rng.randrange(2)} t",
    }
    agreed = fast_count = 0
    for _ in range(300):
        lines = []
        for _ in range(rng.randrange(1, 12)):
            rtype = rng.choice(sorted(rdata))
            ttl = rng.choice(["", "60 ", "0 "])
            klass = rng.choice(["", "IN ", "in "])
            head = rng.choice([f"{ttl}{klass}", f"{klass}{ttl}"])
            owner = rng.choice(owners + [""])
            lines.append(f"{owner or ' '} {head}{rtype} {rdata[rtype]()}")
        fast, slow = both(HEAD + "\n".join(lines) + "\n")
        if fast != "unsure":
            fast_count += 1
            assert fast == slow, lines
            agreed += 1
    assert fast_count > 100
