"""The sink role against the real RabbitMQ: Nova and Neutron events become served A records.

A real ``serve`` process consumes from RabbitMQ; the events are published here the way Nova and
Neutron publish them (oslo.messaging Notifier, ``messagingv2``, each service's exchange).  Every
run uses exchange, topic and pool names of its own, and deletes them afterwards, so parallel
runs on one broker do not see each other's events.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from typing import Any

import dns.message
import dns.query
import dns.rcode
import httpx
import kombu
import oslo_messaging
import pytest
from oslo_config import cfg

from support.server import ServerProcess, free_port

pytestmark = pytest.mark.integration
TRANSPORT_URL = "rabbit://guest:guest@127.0.0.1:5672/"
KOMBU_URL = "amqp://guest:guest@127.0.0.1:5672//"
PRIORITIES = ("audit", "debug", "info", "warn", "error", "critical", "sample")
ZONE = "sink.example."


class Publisher:
    """A Notifier on one exchange, as a Nova or Neutron service would have."""

    def __init__(self, exchange: str, topic: str, publisher_id: str):
        conf = cfg.ConfigOpts()
        conf([])
        # The driver takes its default exchange when the transport is made, so the options
        # are registered by a first transport, set, and a second transport made with them.
        oslo_messaging.get_notification_transport(conf, url=TRANSPORT_URL).cleanup()
        conf.set_override("control_exchange", exchange)
        self.transport = oslo_messaging.get_notification_transport(conf, url=TRANSPORT_URL)
        self.notifier = oslo_messaging.Notifier(self.transport, publisher_id=publisher_id,
                                                driver="messagingv2", topics=[topic])

    def info(self, event_type: str, payload: dict[str, Any]) -> None:
        self.notifier.info({"project_name": "demo", "project_id": "p-demo"}, event_type, payload)

    def close(self) -> None:
        self.transport.cleanup()


def delete_broker_objects(exchanges: list[str], queues: list[str]) -> None:
    with kombu.Connection(KOMBU_URL) as connection:
        channel = connection.channel()
        for queue in queues:
            channel.queue_delete(queue)
        for exchange in exchanges:
            channel.exchange_delete(exchange)


def wait_for(what: str, check: Any, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def ask(server: ServerProcess, name: str, rtype: str) -> dns.message.Message:
    return dns.query.udp(dns.message.make_query(name, rtype), "127.0.0.1", port=server.ns_port,
                         timeout=2)


def addresses(server: ServerProcess, name: str, rtype: str) -> list[str]:
    answer = ask(server, name, rtype)
    return sorted(rr.to_text() for rrset in answer.answer for rr in rrset)


class Sink:
    """The running server, its zone, an HTTP client and the two publishers."""

    def __init__(self, server: ServerProcess, client: httpx.Client, zone_id: str,
                 nova: Publisher, neutron: Publisher):
        self.server, self.client, self.zone_id = server, client, zone_id
        self.nova, self.neutron = nova, neutron

    def recordset(self, name: str, rtype: str) -> dict | None:
        body = self.client.get(f"/v2/zones/{self.zone_id}/recordsets",
                               params={"name": name, "type": rtype}).json()
        found = body["recordsets"]
        return found[0] if found else None

    def wait_active(self, name: str, rtype: str, records: list[str]) -> dict:
        def ready() -> dict | None:
            rs = self.recordset(name, rtype)
            if rs and rs["status"] == "ACTIVE" and sorted(rs["records"]) == sorted(records):
                return rs
            return None
        return wait_for(f"{rtype} {name} = {records}", ready)

    def wait_gone(self, name: str, rtype: str) -> None:
        wait_for(f"{rtype} {name} gone", lambda: self.recordset(name, rtype) is None)
        wait_for(f"{name} no longer served",
                 lambda: ask(self.server, name, rtype).rcode() == dns.rcode.NXDOMAIN)


@pytest.fixture(scope="module")
def sink() -> Iterator[Sink]:
    tag = secrets.token_hex(4)
    nova_exchange, neutron_exchange = f"okd_nova_{tag}", f"okd_neutron_{tag}"
    topic, pool = f"okd_notifications_{tag}", f"okd_sink_{tag}"
    options: dict[str, dict[str, Any]] = {
        "DEFAULT": {"transport_url": TRANSPORT_URL},
        "service:sink": {"enabled_notification_handlers": ["nova_fixed", "neutron_floatingip"],
                         "listener_pool_name": pool},
        "handler:nova_fixed": {"control_exchange": nova_exchange, "notification_topics": [topic]},
        "handler:neutron_floatingip": {"control_exchange": neutron_exchange,
                                       "notification_topics": [topic]},
    }
    nova = Publisher(nova_exchange, topic, "compute.host1")
    neutron = Publisher(neutron_exchange, topic, "network.host1")
    server = ServerProcess(options=options)
    try:
        server.start()
        with httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10) as client:
            zone = client.post("/v2/zones", json={"name": ZONE, "email": "h@sink.example",
                                                  "ttl": 300}).json()
            wait_for("zone ACTIVE", lambda: client.get(
                f"/v2/zones/{zone['id']}").json()["status"] == "ACTIVE")
            # The handlers learn their zone from the config file: restart with it written in.
            options["handler:nova_fixed"]["zone_id"] = zone["id"]
            options["handler:neutron_floatingip"].update(
                zone_id=zone["id"], formatv4=["fip-%(octet3)s.%(zone)s"])
            server.restart()
            wait_for("sink consuming after restart", lambda: server.log_path.read_text(
                errors="replace").count("sink: consuming") >= 2)
            yield Sink(server, client, zone["id"], nova, neutron)
    finally:
        server.stop()
        nova.close()
        neutron.close()
        delete_broker_objects(
            [nova_exchange, neutron_exchange],
            [pool, *(f"{topic}.{p}" for p in PRIORITIES)])


def instance(instance_id: str, hostname: str, *ips: tuple[str, int]) -> dict[str, Any]:
    return {"instance_id": instance_id, "hostname": hostname, "display_name": hostname,
            "tenant_id": "p-demo",
            "fixed_ips": [{"address": a, "version": v, "label": "private"} for a, v in ips]}


def test_nova_instance_records_follow_the_instance(sink: Sink) -> None:
    name = "vm1." + ZONE
    sink.nova.info("compute.instance.create.end",
                   instance("11111111-1111-4111-8111-111111111111", "vm1",
                            ("192.0.2.10", 4), ("2001:db8::10", 6)))
    sink.wait_active(name, "A", ["192.0.2.10"])
    sink.wait_active(name, "AAAA", ["2001:db8::10"])
    assert addresses(sink.server, name, "A") == ["192.0.2.10"]
    assert addresses(sink.server, name, "AAAA") == ["2001:db8::10"]

    # Managed: a user may not remove it without X-Designate-Edit-Managed-Records.
    rs = sink.recordset(name, "A")
    refused = sink.client.delete(f"/v2/zones/{sink.zone_id}/recordsets/{rs['id']}")
    assert refused.status_code == 400, refused.text

    sink.nova.info("compute.instance.delete.start",
                   {"instance_id": "11111111-1111-4111-8111-111111111111"})
    sink.wait_gone(name, "A")
    sink.wait_gone(name, "AAAA")


def test_same_hostname_is_replaced_by_the_newer_instance(sink: Sink) -> None:
    name = "web." + ZONE
    sink.nova.info("compute.instance.create.end",
                   instance("22222222-2222-4222-8222-222222222222", "web", ("192.0.2.20", 4)))
    sink.wait_active(name, "A", ["192.0.2.20"])
    sink.nova.info("compute.instance.create.end",
                   instance("33333333-3333-4333-8333-333333333333", "web", ("192.0.2.30", 4)))
    sink.wait_active(name, "A", ["192.0.2.30"])
    assert addresses(sink.server, name, "A") == ["192.0.2.30"]
    # The first instance owns nothing any more; deleting it leaves the name alone.
    sink.nova.info("compute.instance.delete.start",
                   {"instance_id": "22222222-2222-4222-8222-222222222222"})
    sink.nova.info("compute.instance.delete.start",
                   {"instance_id": "33333333-3333-4333-8333-333333333333"})
    sink.wait_gone(name, "A")


def test_unknown_events_and_other_exchanges_are_ignored(sink: Sink) -> None:
    sink.nova.info("compute.instance.update", instance("44444444-4444-4444-8444-444444444444",
                                                       "quiet", ("192.0.2.40", 4)))
    # A Nova event published on Neutron's exchange still reaches the handler declaring it
    # (Designate's sink dispatches by event type); used here as the barrier for the one above.
    sink.neutron.info("compute.instance.create.end",
                      instance("55555555-5555-4555-8555-555555555555", "loud", ("192.0.2.50", 4)))
    sink.wait_active("loud." + ZONE, "A", ["192.0.2.50"])
    assert sink.recordset("quiet." + ZONE, "A") is None
    sink.nova.info("compute.instance.delete.start",
                   {"instance_id": "55555555-5555-4555-8555-555555555555"})
    sink.wait_gone("loud." + ZONE, "A")


def floatingip(fixed: str | None) -> dict[str, Any]:
    return {"floatingip": {"id": "66666666-6666-4666-8666-666666666666",
                           "floating_ip_address": "198.51.100.7", "fixed_ip_address": fixed,
                           "port_id": "p-1" if fixed else None, "tenant_id": "p-demo"}}


def test_neutron_floating_ip_associate_disassociate_delete(sink: Sink) -> None:
    name = "fip-7." + ZONE
    sink.neutron.info("floatingip.update.end", floatingip("10.0.0.3"))
    sink.wait_active(name, "A", ["198.51.100.7"])
    assert addresses(sink.server, name, "A") == ["198.51.100.7"]

    sink.neutron.info("floatingip.update.end", floatingip(None))
    sink.wait_gone(name, "A")

    sink.neutron.info("floatingip.update.end", floatingip("10.0.0.4"))
    sink.wait_active(name, "A", ["198.51.100.7"])
    sink.neutron.info("floatingip.delete.start",
                      {"floatingip_id": "66666666-6666-4666-8666-666666666666"})
    sink.wait_gone(name, "A")


def test_unreachable_broker_does_not_stop_the_server() -> None:
    closed = free_port()  # nothing listens there
    options = {"DEFAULT": {"transport_url": f"rabbit://guest:guest@127.0.0.1:{closed}/"},
               "service:sink": {"enabled_notification_handlers": ["nova_fixed"]}}
    with ServerProcess(options=options) as server:
        assert httpx.get(server.api_url + "/v2/zones", headers=server.headers()).status_code == 200
        wait_for("broker warning", lambda: "no message broker answers" in server.log_path.read_text(
            errors="replace"), timeout=10)
        started = time.monotonic()
        server.terminate()
        assert time.monotonic() - started < 10
