"""The SOA poll and NOTIFY written and read by hand (``dnswire.soa_wire``), against dnspython."""

from __future__ import annotations

import random

import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.opcode
import dns.rcode
import dns.rdatatype
import dns.rrset
import pytest

from openkeel_designate.dnswire import soa_wire

ZONE = dns.name.from_text("example.org.")
SOA = "ns1.example.org. hostmaster.example.org. 2024010101 3600 600 86400 60"


def response_to(asked: bytes, *, flags: int = dns.flags.AA, rcode: int = dns.rcode.NOERROR,
                answer: list[dns.rrset.RRset] | None = None) -> dns.message.Message:
    """dnspython's answer to ``asked`` (its question echoed; names compressed on the wire)."""
    query = dns.message.from_wire(asked)
    response = dns.message.make_response(query)
    response.flags = dns.flags.QR | flags | (query.flags & 0x7800)  # the opcode bits
    response.set_rcode(rcode)
    response.answer.extend(answer or [])
    return response


def soa(owner: str = "example.org.", data: str = SOA) -> dns.rrset.RRset:
    return dns.rrset.from_text(owner, 300, "IN", "SOA", data)


@pytest.mark.parametrize("notify", [False, True])
def test_question_is_the_message_dnspython_writes(notify: bool) -> None:
    asked = soa_wire.question(ZONE, 4321, notify=notify)
    parsed = dns.message.from_wire(asked)
    expected = dns.message.make_query(ZONE, dns.rdatatype.SOA)
    expected.id, expected.flags = 4321, 0
    if notify:
        expected.flags = dns.flags.AA
        expected.set_opcode(dns.opcode.NOTIFY)
    assert parsed == expected
    assert asked == expected.to_wire()


def test_answer_reads_the_serial_through_compressed_names() -> None:
    asked = soa_wire.question(ZONE, 7)
    wire = response_to(asked, answer=[soa()]).to_wire()
    assert b"\xc0" in wire[len(asked):]  # the SOA's names point back into the question
    assert soa_wire.answer(wire, asked) == soa_wire.Answer(dns.rcode.NOERROR, dns.flags.QR
                                                           | dns.flags.AA, 2024010101)


def test_names_compare_in_any_case() -> None:
    asked = soa_wire.question(dns.name.from_text("Example.ORG."), 7)
    wire = response_to(asked, answer=[soa("EXAMPLE.org.")]).to_wire()
    assert soa_wire.answer(wire, asked).serial == 2024010101


def test_only_the_zones_own_soa_counts() -> None:
    asked = soa_wire.question(ZONE, 7)
    other = soa("sub.example.org.", SOA.replace("2024010101", "5"))
    cname = dns.rrset.from_text("example.org.", 300, "IN", "CNAME", "elsewhere.example.")
    found = soa_wire.answer(response_to(asked, answer=[cname, other]).to_wire(), asked)
    assert found is not None and found.serial is None
    found = soa_wire.answer(response_to(asked, answer=[cname, other, soa()]).to_wire(), asked)
    assert found is not None and found.serial == 2024010101


def test_rcode_and_flags_come_back_as_sent() -> None:
    asked = soa_wire.question(ZONE, 7)
    wire = response_to(asked, flags=dns.flags.RA, rcode=dns.rcode.NXDOMAIN).to_wire()
    # the flags word as sent, its rcode bits included (as dnspython's ``Message.flags``)
    assert soa_wire.answer(wire, asked) == soa_wire.Answer(
        dns.rcode.NXDOMAIN, dns.flags.QR | dns.flags.RA | dns.rcode.NXDOMAIN, None)


def test_notify_answer_keeps_its_rcode() -> None:
    asked = soa_wire.question(ZONE, 9, notify=True)
    wire = response_to(asked, rcode=dns.rcode.NOTAUTH).to_wire()
    assert soa_wire.answer(wire, asked).rcode == dns.rcode.NOTAUTH


def test_truncated_answer_is_flagged_without_reading_on() -> None:
    asked = soa_wire.question(ZONE, 7)
    wire = bytearray(response_to(asked, flags=dns.flags.AA | dns.flags.TC).to_wire())
    wire[7] = 3  # three answers announced, none there: a truncated message
    found = soa_wire.answer(bytes(wire), asked)
    assert found is not None and found.flags & dns.flags.TC and found.serial is None


def test_datagrams_that_answer_something_else_are_not_answers() -> None:
    asked = soa_wire.question(ZONE, 7)
    good = response_to(asked, answer=[soa()])
    other_id = dns.message.from_wire(good.to_wire())
    other_id.id = 8
    assert soa_wire.answer(other_id.to_wire(), asked) is None
    query_echoed = dns.message.from_wire(asked)  # no QR: a query, not an answer
    assert soa_wire.answer(query_echoed.to_wire(), asked) is None
    notify_answer = response_to(soa_wire.question(ZONE, 7, notify=True))
    assert soa_wire.answer(notify_answer.to_wire(), asked) is None  # another opcode
    other_zone = response_to(soa_wire.question(dns.name.from_text("example.net."), 7))
    assert soa_wire.answer(other_zone.to_wire(), asked) is None
    other_type = dns.message.make_response(dns.message.make_query(ZONE, "NS"))
    other_type.id = 7
    assert soa_wire.answer(other_type.to_wire(), asked) is None


def test_an_error_may_leave_the_question_out() -> None:
    asked = soa_wire.question(ZONE, 7)
    bare = bytes.fromhex("0007") + bytes.fromhex("8005") + bytes(8)  # QR, REFUSED, no sections
    assert soa_wire.answer(bare, asked) == soa_wire.Answer(dns.rcode.REFUSED, 0x8005, None)
    no_error = bytes.fromhex("0007") + bytes.fromhex("8400") + bytes(8)
    assert soa_wire.answer(no_error, asked) is None


@pytest.mark.parametrize("wire", [
    b"\x00\x07\x84",  # shorter than a header
    bytes.fromhex("0007840000010001" "00000000") + b"\x07example",  # the question cut short
    bytes.fromhex("0007840000010000" "00000000") + b"\xc0\x0c\x00\x06\x00\x01",  # pointer loop
    bytes.fromhex("0007840000010000" "00000000") + b"\xc0\xff",  # pointer past the end
    bytes.fromhex("0007840000010000" "00000000") + b"\x80abc",  # an unknown label type
    bytes.fromhex("0007840000010000" "00000000") + b"\x3f" + b"a" * 63 + b"\x3f" + b"b" * 63
    + b"\x3f" + b"c" * 63 + b"\x3f" + b"d" * 63 + b"\x00\x00\x06\x00\x01",  # a name over 255
])
def test_unreadable_answers_raise_form_error(wire: bytes) -> None:
    with pytest.raises(dns.exception.FormError):
        soa_wire.answer(wire, soa_wire.question(ZONE, 7))


def test_record_data_past_the_end_raises_form_error() -> None:
    asked = soa_wire.question(ZONE, 7)
    wire = response_to(asked, answer=[soa()]).to_wire()
    with pytest.raises(dns.exception.FormError):
        soa_wire.answer(wire[:-6], asked)  # the SOA's data cut inside its serial fields


def test_any_damage_is_an_answer_none_or_form_error() -> None:
    """Hostile input: every byte flipped, and random cuts, of a real answer."""
    asked = soa_wire.question(ZONE, 7)
    wire = response_to(asked, answer=[soa(), soa("a.example.org.")]).to_wire()
    rng = random.Random(5)
    damaged = [wire[:cut] for cut in range(len(wire))]
    for _ in range(3000):
        copy = bytearray(wire)
        for _ in range(rng.randint(1, 4)):
            copy[rng.randrange(len(copy))] = rng.randrange(256)
        damaged.append(bytes(copy))
    outcomes = set()
    for candidate in damaged:
        try:
            found = soa_wire.answer(candidate, asked)
        except dns.exception.FormError:
            outcomes.add("form error")
            continue
        outcomes.add("none" if found is None else "answer")
        assert found is None or isinstance(found, soa_wire.Answer)
    assert outcomes == {"form error", "none", "answer"}
