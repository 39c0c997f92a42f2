"""One member project abuses the server; another project must not notice more than a delay.

The embedded default (api, worker, mdns, nameserver in one process on SQLite) shares one event
loop between every tenant and every protocol, so anything one tenant makes it do for long — a
``$GENERATE 1-100000`` import, a 10 MiB body, a header sent a byte at a time, a UDP flood —
would stall everyone. While ``support.noisy.attack`` runs all of that (bounded: a few seconds,
a bounded packet count), the quiet project's probes keep asking: mdns SOA, the nameserver's A
record, an API read, and recordset writes.

Asserted: every probe got a correct answer (DNS probes resend as resolvers do), every write of
the quiet project was accepted, went ACTIVE and is served, the noisy bodies were refused with
413 (or the connection closed), both floods were rate limited per client (the listeners' drop
reports), the server is still up and logged no traceback. The worst stall
of each probe kind is printed, never asserted (``bench/noisy_neighbour.py`` measures it).
"""

from __future__ import annotations

import time

import dns.message
import dns.query
import httpx
import pytest
from support.noisy import (
    POOL_NAMESERVER,
    QUIET,
    RESOLVER,
    Prober,
    QuietWrites,
    api_read,
    attack,
    dns_ask,
    expect_address,
    expect_soa,
    headers,
    import_outcomes,
)
from support.server import ServerProcess

pytestmark = pytest.mark.integration

ATTACK_SECONDS = 6.0
UDP_PACKETS = 20000  # per port
ZONE, HOST, ADDRESS = "quiet.example.", "www.quiet.example.", "192.0.2.80"


def quiet_zone(server: ServerProcess, client: httpx.Client) -> str:
    zone = client.post("/v2/zones", json={"name": ZONE, "email": "h@quiet.example"})
    assert zone.status_code == 202, zone.text
    zone_id = zone.json()["id"]
    rs = client.post(f"/v2/zones/{zone_id}/recordsets",
                     json={"name": HOST, "type": "A", "records": [ADDRESS]})
    assert rs.status_code == 202, rs.text
    deadline = time.monotonic() + 30
    while client.get(f"/v2/zones/{zone_id}").json()["status"] != "ACTIVE":
        assert time.monotonic() < deadline, "the quiet zone never went ACTIVE"
        time.sleep(0.05)
    return zone_id


def test_quiet_project_is_served_while_a_noisy_one_attacks() -> None:
    with ServerProcess(wait_dns=True, project=QUIET) as server, \
            httpx.Client(base_url=server.api_url, headers=headers(QUIET), timeout=30) as client:
        zone_id = quiet_zone(server, client)
        writes = QuietWrites(client, zone_id, ZONE)
        prober = Prober()
        prober.every("mdns SOA", lambda s: dns_ask(server.mdns_port, ZONE, "SOA", s, expect_soa,
                                                    POOL_NAMESERVER))
        prober.every("nameserver A", lambda s: dns_ask(server.ns_port, HOST, "A", s,
                                                        expect_address(ADDRESS), RESOLVER))
        with httpx.Client(base_url=server.api_url, headers=headers(QUIET), timeout=30) as reader:
            prober.every("api GET zone", api_read(reader, f"/v2/zones/{zone_id}"))
            writer_interval = Prober(interval=0.25)
            writer_interval.every("writes", writes.ask)
            try:
                with attack(server, ATTACK_SECONDS, UDP_PACKETS) as log:
                    time.sleep(ATTACK_SECONDS)
            finally:
                writer_interval.stop()
                prober.stop()
        writes.settle()
        imports = import_outcomes(server, log)

        print()
        for stats in [*prober.stats.values(), writes.post_stats, writes.active_stats]:
            print(stats.line())
        print("\n".join(log.lines()))
        print(f"noisy imports ended: {imports}")

        failures = [f"{s.kind}: {f}" for s in [*prober.stats.values(), *writer_interval.stats.values(),
                                                writes.post_stats, writes.active_stats]
                    for f in s.failures]
        assert not failures, "\n".join(failures[:20])
        for stats in prober.stats.values():
            assert stats.times, f"no {stats.kind} probe completed during the attack"
        # How many writes fit in the attack depends on how slow they were (printed above); each
        # that was made must be accepted, ACTIVE and served.
        assert writes.writes, "no quiet write was made during the attack"
        for write in writes.writes:
            answer = dns.query.udp(dns.message.make_query(write.name, "A"), "127.0.0.1",
                                   port=server.ns_port, timeout=5)
            assert [rd.address for rrset in answer.answer for rd in rrset] == [write.address]
        assert log.bodies, "no 10 MiB body was sent"
        assert all(outcome in ("413", "closed") for _, outcome in log.bodies), log.bodies
        assert len(log.imports) == 2 and all(not i.startswith("PENDING") for i in imports), imports
        # The floods were dropped by the per-client limit before anything was spent on them.
        log_text = server.log_path.read_text(errors="replace")
        for listener in ("mdns", "nameserver"):
            assert f"{listener} dropped" in log_text and "over the per-source rate limit" in \
                log_text, f"no {listener} flood rate limited\n{server.log_tail(80)}"
        assert server.is_running(), server.log_tail()
        assert "Traceback" not in server.log_path.read_text(errors="replace"), server.log_tail(80)
