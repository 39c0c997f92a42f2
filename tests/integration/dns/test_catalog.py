"""RFC 9432 catalog zone of a pool, served by mdns from the live member zones."""

from __future__ import annotations

import base64
import time

import dns.message
import dns.name
import dns.query
import dns.rdatatype
import dns.xfr
import dns.tsig
import dns.zone
import httpx
import pytest

from support.server import ServerProcess, builtin_pool

pytestmark = pytest.mark.integration

CATALOG = "catalog.example."
SECRET = base64.b64encode(b"catalog-secret-catalog-secret-32").decode()


def pools_with_catalog(server: ServerProcess) -> str:
    return builtin_pool(server) + f"""  catalog_zone:
    catalog_zone_fqdn: {CATALOG}
    catalog_zone_refresh: 60
    catalog_zone_tsig_key: {SECRET}
    catalog_zone_tsig_algorithm: hmac-sha256
"""


def transfer(server: ServerProcess, key: dns.tsig.Key | None = None) -> dns.zone.Zone:
    zone = dns.zone.Zone(CATALOG, relativize=False)
    query = dns.message.make_query(CATALOG, "AXFR")
    if key is not None:
        query.use_tsig(key)
    dns.query.inbound_xfr("127.0.0.1", zone, query, port=server.mdns_port, timeout=5)
    return zone


def members(zone: dns.zone.Zone) -> dict[str, str]:
    """RFC 9432 §4.1 member entries: ``<unique-N>.zones.<catalog> PTR <member zone>``."""
    suffix = dns.name.from_text("zones." + CATALOG)
    found = {}
    for name, _ttl, rdata in zone.iterate_rdatas("PTR"):
        assert name.parent() == suffix, name
        found[rdata.target.to_text()] = name.labels[0].decode()
    return found


def test_catalog_zone_lists_members_and_moves_its_serial() -> None:
    with ServerProcess(pools=pools_with_catalog) as server, httpx.Client(
            base_url=server.api_url, headers=server.headers(), timeout=10) as http:
        ids = {}
        for name in ("one.example.", "two.example."):
            ids[name] = http.post("/v2/zones", json={"name": name, "email": "h@" + name[:-1]}
                                  ).json()["id"]
        catalog = transfer(server)
        # RFC 9432 §4: SOA, NS invalid., version TXT "2", one PTR per member
        soa = catalog.get_rdataset(CATALOG, "SOA")[0]
        assert [r.target.to_text() for r in catalog.get_rdataset(CATALOG, "NS")] == ["invalid."]
        version = catalog.get_rdataset("version." + CATALOG, "TXT")
        assert [b"".join(r.strings) for r in version] == [b"2"]
        assert members(catalog) == {name: zone_id for name, zone_id in ids.items()}
        # reading it again without a change keeps the serial
        assert transfer(server).get_rdataset(CATALOG, "SOA")[0].serial == soa.serial

        http.delete(f"/v2/zones/{ids['two.example.']}")
        deadline = time.monotonic() + 10
        while "two.example." in members(later := transfer(server)):
            assert time.monotonic() < deadline, "deleted member still listed"
            time.sleep(0.05)
        assert later.get_rdataset(CATALOG, "SOA")[0].serial > soa.serial
        assert members(later) == {"one.example.": ids["one.example."]}

        # SOA query, and the catalog's own TSIG key (named after the catalog) opens it
        answer = dns.query.udp(dns.message.make_query(CATALOG, "SOA"), "127.0.0.1",
                               port=server.mdns_port, timeout=2)
        assert answer.answer[0].rdtype == dns.rdatatype.SOA
        ixfr = dns.zone.Zone(CATALOG, relativize=False)  # IXFR on a catalog: answered as AXFR
        query, _ = dns.xfr.make_query(ixfr, serial=1)
        dns.query.inbound_xfr("127.0.0.1", ixfr, query, port=server.mdns_port, timeout=5)
        assert members(ixfr) == {"one.example.": ids["one.example."]}
        key = dns.tsig.Key(CATALOG, SECRET, dns.tsig.HMAC_SHA256)
        assert members(transfer(server, key)) == {"one.example.": ids["one.example."]}
