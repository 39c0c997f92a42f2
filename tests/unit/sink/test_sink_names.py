"""Record-name formatting of the sink handlers: pure functions, no broker, no database."""

from __future__ import annotations

import pytest

from openkeel_designate.sink import names


def test_ipv4_keys() -> None:
    assert names.address_data("192.0.2.17", 4) == {
        "ip_version": 4, "ip_address": "192-0-2-17",
        "octet0": "192", "octet1": "0", "octet2": "2", "octet3": "17"}


def test_ipv6_keys_follow_the_written_groups() -> None:
    data = names.address_data("2001:db8::5", 6)
    assert data["ip_version"] == 6
    assert data["ip_address"] == "2001-db8--5"
    assert [data[f"octet{i}"] for i in range(3)] == ["2001", "db8", "5"]
    assert "octet3" not in data


def test_default_format_is_hostname_in_zone() -> None:
    assert names.formats_for(4, None, None) == ("%(hostname)s.%(zone)s",)
    assert names.formats_for(6, ["v4.%(zone)s"], None) == ("%(hostname)s.%(zone)s",)


def test_formats_per_version() -> None:
    v4, v6 = ["a.%(zone)s", "b.%(zone)s"], ["six.%(zone)s"]
    assert names.formats_for(4, v4, v6) == tuple(v4)
    assert names.formats_for(6, v4, v6) == tuple(v6)


@pytest.mark.parametrize(("fmt", "expected"), [
    ("%(hostname)s.%(zone)s", "vm1.example.org."),
    ("%(octet0)s-%(octet1)s-%(octet2)s-%(octet3)s.%(zone)s", "192-0-2-17.example.org."),
    ("%(ip_address)s.%(label)s.%(zone)s", "192-0-2-17.private.example.org."),
    ("%(hostname)s.%(project)s.%(zone)s", "vm1.demo.example.org."),
])
def test_render(fmt: str, expected: str) -> None:
    data = {"hostname": "vm1", "zone": "example.org.", "label": "private", "project": "demo",
            **names.address_data("192.0.2.17", 4)}
    assert names.render(fmt, data) == expected


def test_render_is_idna() -> None:
    assert names.render("%(hostname)s.%(zone)s",
                        {"hostname": "café", "zone": "example.org."}) == "xn--caf-dma.example.org."


def test_render_missing_key_raises() -> None:
    with pytest.raises(KeyError):
        names.render("%(display_name)s.%(zone)s", {"zone": "example.org."})


def test_render_empty_label_is_refused() -> None:
    with pytest.raises(UnicodeError):
        names.render("%(hostname)s.%(zone)s", {"hostname": "", "zone": "example.org."})


def test_record_type() -> None:
    assert names.record_type(4) == "A"
    assert names.record_type(6) == "AAAA"
