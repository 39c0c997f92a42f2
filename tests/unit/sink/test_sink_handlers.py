"""Events → managed-record calls, with central replaced by a recorder (no broker, no database)."""

from __future__ import annotations

from typing import Any

import pytest

from openkeel_designate import config
from openkeel_designate.central import managed
from openkeel_designate.sink import base
from openkeel_designate.sink.neutron_floatingip import NeutronFloatingHandler
from openkeel_designate.sink.nova_fixed import NovaFixedHandler

ZONE_ID = "6d2fdbc1-7b1c-4c39-9b3c-0fb1f5d8bd0e"


class Recorder:
    """Stands in for ``central.managed``: remembers each call."""

    def __init__(self) -> None:
        self.replaced: list[tuple[str, str, list[str], managed.ManagedSource]] = []
        self.deleted: list[tuple[str | None, managed.ManagedSource]] = []

    async def zone_name(self, svc: Any, zone_id: str) -> str:
        assert zone_id == ZONE_ID
        return "example.org."

    async def replace_managed_recordset(self, svc: Any, zone_id: str, name: str, rtype: str,
                                        data: list[str], source: managed.ManagedSource) -> str:
        self.replaced.append((name, rtype, data, source))
        return "rs"

    async def delete_managed_records(self, svc: Any, zone_id: str | None,
                                     source: managed.ManagedSource) -> int:
        self.deleted.append((zone_id, source))
        return 1


@pytest.fixture
def central(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recorder = Recorder()
    for name in ("zone_name", "replace_managed_recordset", "delete_managed_records"):
        monkeypatch.setattr(base.managed, name, getattr(recorder, name))
    return recorder


def make_conf(group: str, **options: Any) -> Any:
    conf = config.load([])
    for key, value in {"zone_id": ZONE_ID, **options}.items():
        conf.set_override(key, value, group=group)
    return conf


NOVA_CREATE = {
    "instance_id": "i-1", "hostname": "vm1", "display_name": "VM one",
    "fixed_ips": [{"address": "192.0.2.5", "version": 4, "label": "private"},
                  {"address": "2001:db8::5", "version": 6, "label": "private"}],
}


async def test_nova_create_writes_a_and_aaaa(central: Recorder) -> None:
    handler = NovaFixedHandler(None, make_conf("handler:nova_fixed"))
    await handler.process({"project_name": "demo"}, "compute.instance.create.end", NOVA_CREATE)
    assert [(n, t, d) for n, t, d, _ in central.replaced] == [
        ("vm1.example.org.", "A", ["192.0.2.5"]), ("vm1.example.org.", "AAAA", ["2001:db8::5"])]
    source = central.replaced[0][3]
    assert (source.plugin_name, source.plugin_type, source.resource_type,
            source.resource_id) == ("nova_fixed", "handler", "instance", "i-1")


async def test_nova_every_format_and_keys(central: Recorder) -> None:
    conf = make_conf("handler:nova_fixed",
                     formatv4=["%(hostname)s.%(project)s.%(zone)s",
                               "%(label)s-%(octet3)s.%(zone)s"],
                     formatv6=["%(ip_address)s.%(zone)s"])
    handler = NovaFixedHandler(None, conf)
    await handler.process({"project_name": "demo"}, "compute.instance.create.end", NOVA_CREATE)
    assert [n for n, *_ in central.replaced] == [
        "vm1.demo.example.org.", "private-5.example.org.", "2001-db8--5.example.org."]


async def test_a_broken_format_skips_only_itself(central: Recorder) -> None:
    conf = make_conf("handler:nova_fixed", formatv4=["%(nope)s.%(zone)s", "%(hostname)s.%(zone)s"])
    await NovaFixedHandler(None, conf).process({}, "compute.instance.create.end", NOVA_CREATE)
    assert [(n, t) for n, t, *_ in central.replaced] == [
        ("vm1.example.org.", "A"), ("vm1.example.org.", "AAAA")]


async def test_nova_delete_by_instance(central: Recorder) -> None:
    handler = NovaFixedHandler(None, make_conf("handler:nova_fixed"))
    await handler.process({}, "compute.instance.delete.start", {"instance_id": "i-1"})
    zone_id, source = central.deleted[0]
    assert zone_id == ZONE_ID
    assert (source.plugin_name, source.resource_type, source.resource_id) == (
        "nova_fixed", "instance", "i-1")


async def test_without_zone_id_nothing_happens(central: Recorder) -> None:
    handler = NovaFixedHandler(None, make_conf("handler:nova_fixed", zone_id=None))
    await handler.process({}, "compute.instance.create.end", NOVA_CREATE)
    await handler.process({}, "compute.instance.delete.start", {"instance_id": "i-1"})
    assert central.replaced == [] and central.deleted == []


async def test_undeclared_event_is_ignored(central: Recorder) -> None:
    handler = NovaFixedHandler(None, make_conf("handler:nova_fixed"))
    await handler.process({}, "compute.instance.update", NOVA_CREATE)
    assert central.replaced == [] and central.deleted == []


def fip(fixed: str | None) -> dict[str, Any]:
    return {"floatingip": {"id": "f-1", "floating_ip_address": "198.51.100.7",
                           "fixed_ip_address": fixed, "port_id": "p-1"}}


async def test_floatingip_associated_creates_a(central: Recorder) -> None:
    conf = make_conf("handler:neutron_floatingip", formatv4=["fip-%(octet3)s.%(zone)s"])
    await NeutronFloatingHandler(None, conf).process({}, "floatingip.update.end", fip("10.0.0.3"))
    name, rtype, data, source = central.replaced[0]
    assert (name, rtype, data) == ("fip-7.example.org.", "A", ["198.51.100.7"])
    assert (source.plugin_name, source.resource_type, source.resource_id) == (
        "neutron_floatingip", "floatingip", "f-1")


async def test_floatingip_disassociated_deletes(central: Recorder) -> None:
    handler = NeutronFloatingHandler(None, make_conf("handler:neutron_floatingip"))
    await handler.process({}, "floatingip.update.end", fip(None))
    await handler.process({}, "floatingip.delete.start", {"floatingip_id": "f-2"})
    assert [(s.resource_type, s.resource_id) for _, s in central.deleted] == [
        ("floatingip", "f-1"), ("floatingip", "f-2")]
    assert central.replaced == []


def test_targets_from_the_handler_group() -> None:
    conf = make_conf("handler:neutron_floatingip", notification_topics=["a", "b"])
    assert NeutronFloatingHandler(None, conf).targets() == [("neutron", "a"), ("neutron", "b")]
    assert NovaFixedHandler(None, make_conf("handler:nova_fixed")).targets() == [
        ("nova", "notifications")]
