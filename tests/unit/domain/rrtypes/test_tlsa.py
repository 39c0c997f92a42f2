"""TLSA: corpus verdicts (rr-tlsa), records.md, and the API-level name rule and its messages."""

import pytest

from openkeel_designate.domain import rrtypes
from openkeel_designate.domain.rrtypes.tlsa import NAME_FORMAT_MESSAGE

TLSA = rrtypes.get("TLSA")

SHA256 = "ab" * 32
SHA512 = "cd" * 64


@pytest.mark.parametrize(
    "data",
    [
        f"3 1 1 {SHA256}", f"2 0 1 {'cd' * 32}", f"3 1 2 {SHA512}", "3 1 0 aabbccdd",
        f"3 1 1 ( {SHA256[:32]} {SHA256[32:]} )", f"3 1 1 ({SHA256})", f"3 1 1 {SHA256})",
        f"3 1 1 {SHA256.upper()}", f"255 255 1 {SHA256}", "0 0 7 00",
        f"3\t1\t1\n{SHA256}",
    ],
)
def test_accepts_and_renders(data):
    assert TLSA.is_valid(data)
    rdata = TLSA.render(data)
    assert rdata.cert == bytes.fromhex("".join(data.replace("(", " ").replace(")", " ").split()[3:]))


@pytest.mark.parametrize(
    "data",
    [
        f"256 1 1 {SHA256}", "3 1 1", "a b c d", f"3 1 1 {SHA256}ab", f"3 1 2 {SHA256}",
        "3 1 0 abc", "3 1 0 zz", f"3 x 1 {SHA256}", f"-1 1 1 {SHA256}", "3 1 0 ()", "", None,
    ],
)
def test_rejects(data):
    assert not TLSA.is_valid(data)


@pytest.mark.parametrize(
    "name",
    ["_443._tcp.example.com.", "_25._udp.example.com.", "_0._tcp.example.com.",
     "_65535._tcp.example.com.", "_443._tcp.tlsa.rr.example."],
)
def test_name_rule_accepts(name):
    assert TLSA.name_error(name) is None


@pytest.mark.parametrize(
    "name",
    ["example.com.", "443._tcp.example.com.", "_443.tcp.example.com.", "_abc._tcp.example.com.",
     "_inv-usage-range._tcp.tlsa.rr.example.", "_123456._tcp.example.com.", "_443._t1.example."],
)
def test_name_rule_format_message(name):
    assert TLSA.name_error(name) == NAME_FORMAT_MESSAGE


@pytest.mark.parametrize("port", [65536, 99999])
def test_name_rule_port_message(port):
    assert TLSA.name_error(f"_{port}._tcp.example.com.") == (
        f"TLSA recordset name contains invalid port {port}: port must be in range 0-65535")


def test_generic_host_name_rule_still_applies():
    assert TLSA.is_valid_name("_443._tcp.example.com.")
    assert not TLSA.is_valid_name("_443._tcp.example.com")
