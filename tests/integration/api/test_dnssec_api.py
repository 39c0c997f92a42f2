"""``PUT`` / ``GET /v2/zones/{id}/dnssec`` in-process on each database: enabling makes keys and
a DS, leaves the zone body alone and bumps the zone; another project gets 404; a reader may not
change it; bad input is one 400; private keys never appear in any answer."""

from __future__ import annotations

import base64
import os
import stat

import dns.dnssec
import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype

from openkeel_designate.storage import dnssec as dnssec_store
from openkeel_designate.storage import dnssec_kek

OWNER = {"X-Auth-Project-ID": "owner", "X-Roles": "member,reader"}
OTHER = {"X-Auth-Project-ID": "other", "X-Roles": "member,reader"}
READER = {"X-Auth-Project-ID": "owner", "X-Roles": "reader"}


async def make_zone(client, name="sec.example.org.") -> dict:
    created = await client.post("/v2/zones", headers=OWNER,
                                json={"name": name, "email": "a@example.org"})
    assert created.status_code == 202, created.text
    return created.json()


def no_private_material(text: str) -> None:
    assert "PRIVATE" not in text and "private" not in text.lower()


async def test_enable_makes_keys_and_ds_and_a_zone_update(client, conf):
    zone = await make_zone(client)
    path = f"/v2/zones/{zone['id']}/dnssec"
    before = (await client.get(path, headers=OWNER)).json()
    assert before["enabled"] is False and before["keys"] == [] and before["ds"] == []
    version = (await client.get(f"/v2/zones/{zone['id']}", headers=OWNER)).json()["version"]

    response = await client.put(path, headers=OWNER, json={"enabled": True})
    assert response.status_code == 202, response.text
    no_private_material(response.text)
    body = response.json()
    assert body["enabled"] is True and body["status"] == "PENDING"
    assert body["algorithm"] == "ECDSAP256SHA256" and body["nsec"] == "NSEC"
    assert body["links"]["self"].endswith(path)
    assert sorted(k["flags"] for k in body["keys"]) == [256, 257]
    ksk = next(k for k in body["keys"] if k["flags"] == 257)
    assert ksk["algorithm"] == 13 and ksk["state"] == "ACTIVE"
    dnskey = dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.DNSKEY, ksk["dnskey"])
    assert dns.dnssec.key_id(dnskey) == ksk["key_tag"]
    assert base64.b64decode(ksk["public_key"]) == dnskey.key
    [ds] = body["ds"]
    expected = dns.dnssec.make_ds(dns.name.from_text(zone["name"]), dnskey, "SHA256")
    assert ds == expected.to_text()

    after = (await client.get(f"/v2/zones/{zone['id']}", headers=OWNER)).json()
    assert after["status"] == "PENDING" and after["version"] > version
    assert "dnssec" not in after  # the v2 body is untouched
    shown = await client.get(path, headers=OWNER)
    assert shown.status_code == 200 and shown.json()["keys"] == body["keys"]
    no_private_material(shown.text)
    kek_file = os.path.join(conf.state_path, dnssec_kek.FILE_NAME)
    assert stat.S_IMODE(os.stat(kek_file).st_mode) == 0o600


async def test_ed25519_nsec3_then_disable(client, services):
    zone = await make_zone(client, "ed.example.org.")
    path = f"/v2/zones/{zone['id']}/dnssec"
    body = (await client.put(path, headers=OWNER, json={
        "enabled": True, "algorithm": "ED25519", "nsec": "NSEC3"})).json()
    assert body["algorithm"] == "ED25519" and body["nsec"] == "NSEC3"
    assert {k["algorithm"] for k in body["keys"]} == {15}
    tags = {k["key_tag"] for k in body["keys"]}
    same = (await client.put(path, headers=OWNER, json={
        "enabled": True, "algorithm": "ED25519", "nsec": "NSEC"})).json()
    assert {k["key_tag"] for k in same["keys"]} == tags  # same algorithm: the keys stay
    assert same["state"] == "SIGNED"
    # turning it off is two asks (RFC 8078 §4): the first keeps the zone signed, publishing the
    # delete CDS/CDNSKEY; the second, once the parent dropped the DS, drops the keys
    first = await client.put(path, headers=OWNER, json={"enabled": False})
    assert first.status_code == 202
    assert first.json()["state"] == "DISABLING" and first.json()["enabled"] is True
    assert {k["key_tag"] for k in first.json()["keys"]} == tags
    # what mdns reads on every transfer (one statement: the setting with its keys)
    read = await dnssec_store.signing(services.db, zone["id"])
    assert (read.enabled, read.disabling, read.nsec) == (True, True, "NSEC")
    assert sorted(k.flags for k in read.keys) == [256, 257] and {
        k.algorithm for k in read.keys} == {15} and all(k.sealed for k in read.keys)
    refused = await client.post(f"{path}/rollover", headers=OWNER)
    assert refused.status_code == 400 and "disabled" in refused.json()["message"]
    off = await client.put(path, headers=OWNER, json={"enabled": False})
    assert off.status_code == 202
    assert off.json()["enabled"] is False and off.json()["keys"] == [] and off.json()["ds"] == []
    assert off.json()["state"] == "UNSIGNED"
    read = await dnssec_store.signing(services.db, zone["id"])  # the setting, no key left
    assert (read.enabled, read.keys) == (False, ())


async def test_other_projects_get_404_and_readers_403(client):
    zone = await make_zone(client, "iso.example.org.")
    path = f"/v2/zones/{zone['id']}/dnssec"
    for method, kwargs in (("GET", {}), ("PUT", {"json": {"enabled": True}})):
        denied = await client.request(method, path, headers=OTHER, **kwargs)
        assert denied.status_code == 404 and denied.json()["type"] == "zone_not_found"
    forbidden = await client.put(path, headers=READER, json={"enabled": True})
    assert forbidden.status_code == 403 and forbidden.json()["type"] == "forbidden"
    assert (await client.get(path, headers=READER)).status_code == 200
    bad = await client.get("/v2/zones/not-a-uuid/dnssec", headers=OWNER)
    assert bad.status_code == 400 and bad.json()["type"] == "invalid_uuid"


async def test_bad_bodies_are_one_400_listing_every_problem(client):
    zone = await make_zone(client, "bad.example.org.")
    path = f"/v2/zones/{zone['id']}/dnssec"
    response = await client.put(path, headers=OWNER, json={
        "enabled": "yes", "algorithm": "RSASHA1", "nsec": "NSEC5", "salt": "ab"})
    assert response.status_code == 400
    body = response.json()
    assert body["type"] == "invalid_object" and body["code"] == 400
    paths = sorted(tuple(e["path"]) for e in body["errors"]["errors"])
    assert paths == [("algorithm",), ("enabled",), ("nsec",), ("salt",)]
    for wrong in ([1, 2], {"algorithm": "ED25519"}):
        again = await client.put(path, headers=OWNER, json=wrong)
        assert again.status_code == 400 and again.json()["type"] == "invalid_object"
    still = (await client.get(path, headers=OWNER)).json()
    assert still["enabled"] is False


async def test_producer_refresh_gives_signed_zones_a_new_serial(client, services):
    from openkeel_designate.central import dnssec as central_dnssec

    signed = await make_zone(client, "old.example.org.")
    unsigned = await make_zone(client, "plain.example.org.")
    await client.put(f"/v2/zones/{signed['id']}/dnssec", headers=OWNER, json={"enabled": True})
    assert await central_dnssec.refresh_signatures(services, age=3600) == 0  # just signed
    version = (await client.get(f"/v2/zones/{signed['id']}", headers=OWNER)).json()["version"]
    plain = (await client.get(f"/v2/zones/{unsigned['id']}", headers=OWNER)).json()["version"]
    assert await central_dnssec.refresh_signatures(services, age=0, batch=1) == 1
    after = (await client.get(f"/v2/zones/{signed['id']}", headers=OWNER)).json()
    assert after["version"] == version + 1 and after["status"] == "PENDING"
    assert (await client.get(f"/v2/zones/{unsigned['id']}",
                             headers=OWNER)).json()["version"] == plain
    assert await central_dnssec.refresh_signatures(services, age=3600) == 0


async def test_the_signing_epoch_moves_with_the_serial_that_starts_it(client, services):
    """The epoch signatures are made from changes in the claim that gives the zone its new
    serial (never between two serials): at enabling, at the producer's refresh, and not at an
    ordinary change of records."""
    from openkeel_designate.central import dnssec as central_dnssec
    from openkeel_designate.storage import workqueue

    zone = await make_zone(client, "epoch.example.org.")

    async def claimed_serial() -> int:
        claimed = await workqueue.claim(services.db, "epoch-test", 0, 100)
        return next(c.serial for c in claimed if c.id == zone["id"])

    await claimed_serial()  # the creation
    await client.put(f"/v2/zones/{zone['id']}/dnssec", headers=OWNER, json={"enabled": True})
    assert (await dnssec_store.signing(services.db, zone["id"])).epoch is None  # not before
    serial = await claimed_serial()
    first = await dnssec_store.signing(services.db, zone["id"])
    assert first.epoch is not None and first.epoch_serial == serial

    created = await client.post(f"/v2/zones/{zone['id']}/recordsets", headers=OWNER,
                                json={"name": "www.epoch.example.org.", "type": "A",
                                      "records": ["192.0.2.1"]})
    assert created.status_code == 202, created.text
    await claimed_serial()
    assert await dnssec_store.signing(services.db, zone["id"]) == first  # same epoch

    assert await central_dnssec.refresh_signatures(services, age=0) >= 1
    assert await dnssec_store.signing(services.db, zone["id"]) == first  # until the serial
    serial = await claimed_serial()
    refreshed = await dnssec_store.signing(services.db, zone["id"])
    assert refreshed.epoch > first.epoch and refreshed.epoch_serial == serial


class Recorder:
    """Stands in for the oslo.messaging notifier: keeps what would be sent."""

    enabled = True

    def __init__(self):
        self.sent = []

    def emit(self, result, *event_types):
        from openkeel_designate.central.notifications import payload

        self.sent.extend((event_type, payload(result)) for event_type in event_types)


async def test_changing_the_setting_notifies_dns_zone_dnssec(client, services):
    services.notifier = Recorder()
    zone = await make_zone(client, "note.example.org.")
    await client.put(f"/v2/zones/{zone['id']}/dnssec", headers=OWNER, json={"enabled": True})
    [(event_type, body)] = [s for s in services.notifier.sent if s[0] == "dns.zone.dnssec"]
    assert body["zone_id"] == zone["id"] and body["enabled"] is True and len(body["keys"]) == 2
    no_private_material(repr(body))


async def test_zsk_rollover_double_signs_then_the_old_key_is_removed(client, services):
    from datetime import datetime, timedelta

    from openkeel_designate.central import dnssec as central_dnssec

    zone = await make_zone(client, "roll.example.org.")
    path = f"/v2/zones/{zone['id']}/dnssec"
    refused = await client.post(f"{path}/rollover", headers=OWNER)
    assert refused.status_code == 400 and refused.json()["type"] == "bad_request"
    first = (await client.put(path, headers=OWNER, json={"enabled": True})).json()
    old_zsk = next(k for k in first["keys"] if k["flags"] == 256)
    other = await client.post(f"{path}/rollover", headers=OTHER)
    assert other.status_code == 404
    rolled = await client.post(f"{path}/rollover", headers=OWNER)
    assert rolled.status_code == 202, rolled.text
    no_private_material(rolled.text)
    states = {(k["flags"], k["key_tag"]): k["state"] for k in rolled.json()["keys"]}
    assert states[(256, old_zsk["key_tag"])] == "RETIRING"
    assert sorted(states.values()) == ["ACTIVE", "ACTIVE", "RETIRING"]
    retiring = next(k for k in rolled.json()["keys"] if k["state"] == "RETIRING")
    assert retiring["retire_at"] and all(k["retire_at"] is None for k in rolled.json()["keys"]
                                         if k["state"] == "ACTIVE")
    assert rolled.json()["ds"] == first["ds"]  # the KSK stays
    assert await central_dnssec.retire_keys(services) == 0  # not before the DNSKEY TTL
    later = datetime.utcnow() + timedelta(days=2)
    assert await central_dnssec.retire_keys(services, now=later) == 1
    keys = (await client.get(path, headers=OWNER)).json()["keys"]
    assert len(keys) == 2 and old_zsk["key_tag"] not in {k["key_tag"] for k in keys
                                                         if k["flags"] == 256}


async def test_a_project_the_zone_is_shared_with_may_read_not_change(client):
    zone = await make_zone(client, "shared.example.org.")
    path = f"/v2/zones/{zone['id']}/dnssec"
    await client.put(path, headers=OWNER, json={"enabled": True})
    shared = await client.post(f"/v2/zones/{zone['id']}/shares", headers=OWNER,
                               json={"target_project_id": "other"})
    assert shared.status_code == 201, shared.text
    seen = await client.get(path, headers=OTHER)
    assert seen.status_code == 200 and seen.json()["enabled"] is True
    changed = await client.put(path, headers=OTHER, json={"enabled": False})
    assert changed.status_code == 403


async def test_ksk_rollover_keeps_both_ksks_until_the_tenant_completes_it(client):
    """Start: a new KSK beside the old (RETIRING, no time: it waits for the tenant), both DS
    shown; a second start, a completion with none started, or a bad body are refused;
    completion removes the old KSK only."""
    zone = await make_zone(client, "kskroll.example.org.")
    path = f"/v2/zones/{zone['id']}/dnssec"
    first = (await client.put(path, headers=OWNER, json={"enabled": True})).json()
    old_ksk = next(k for k in first["keys"] if k["flags"] == 257)
    zsk = next(k for k in first["keys"] if k["flags"] == 256)
    early = await client.post(f"{path}/rollover", headers=OWNER,
                              json={"key": "KSK", "action": "complete"})
    assert early.status_code == 400 and "No KSK rollover" in early.json()["message"]
    bad = await client.post(f"{path}/rollover", headers=OWNER, json={"key": "DNSKEY"})
    assert bad.status_code == 400 and bad.json()["type"] == "invalid_object"
    version = (await client.get(f"/v2/zones/{zone['id']}", headers=OWNER)).json()["version"]

    started = await client.post(f"{path}/rollover", headers=OWNER, json={"key": "KSK"})
    assert started.status_code == 202, started.text
    no_private_material(started.text)
    body = started.json()
    states = {k["key_tag"]: (k["flags"], k["state"], k["retire_at"]) for k in body["keys"]}
    assert states[old_ksk["key_tag"]] == (257, "RETIRING", None)
    assert states[zsk["key_tag"]] == (256, "ACTIVE", None)
    [new_ksk] = [k for k in body["keys"] if k["flags"] == 257 and k["state"] == "ACTIVE"]
    assert len(body["ds"]) == 2 and first["ds"][0] in body["ds"] and body["state"] == "SIGNED"
    assert (await client.get(f"/v2/zones/{zone['id']}", headers=OWNER)).json()[
        "version"] > version
    again = await client.post(f"{path}/rollover", headers=OWNER, json={"key": "KSK"})
    assert again.status_code == 400 and "already in progress" in again.json()["message"]
    zsk_too = await client.post(f"{path}/rollover", headers=OWNER, json={"key": "ZSK"})
    assert zsk_too.status_code == 202  # a ZSK may roll meanwhile
    other = await client.post(f"{path}/rollover", headers=OTHER,
                              json={"key": "KSK", "action": "complete"})
    assert other.status_code == 404

    done = await client.post(f"{path}/rollover", headers=OWNER,
                             json={"key": "KSK", "action": "complete"})
    assert done.status_code == 202, done.text
    ksks = [k for k in done.json()["keys"] if k["flags"] == 257]
    assert [(k["key_tag"], k["state"]) for k in ksks] == [(new_ksk["key_tag"], "ACTIVE")]
    assert len(done.json()["ds"]) == 1 and done.json()["ds"] != first["ds"]
    assert len([k for k in done.json()["keys"] if k["flags"] == 256]) == 2  # ZSK roll untouched


async def test_producer_rolls_zsks_older_than_the_period(client, services):
    from datetime import datetime, timedelta

    from openkeel_designate.central import dnssec as central_dnssec
    from openkeel_designate.producer.service import Producer

    zone = await make_zone(client, "period.example.org.")
    leaving = await make_zone(client, "leaving.example.org.")
    path = f"/v2/zones/{zone['id']}/dnssec"
    first = (await client.put(path, headers=OWNER, json={"enabled": True})).json()
    await client.put(f"/v2/zones/{leaving['id']}/dnssec", headers=OWNER, json={"enabled": True})
    await client.put(f"/v2/zones/{leaving['id']}/dnssec", headers=OWNER,
                     json={"enabled": False})  # DISABLING: not rolled
    later = datetime.utcnow() + timedelta(days=31)
    await Producer(services, "test", []).refresh_signatures()  # the job, as configured: 30 days
    assert {k["state"] for k in (await client.get(path, headers=OWNER)).json()["keys"]} == {
        "ACTIVE"}  # too young
    assert await central_dnssec.roll_zsks(services, 30) == 0
    assert await central_dnssec.roll_zsks(services, 0, now=later) == 0  # 0: off
    version = (await client.get(f"/v2/zones/{zone['id']}", headers=OWNER)).json()["version"]
    assert await central_dnssec.roll_zsks(services, 30, now=later) == 1
    keys = (await client.get(path, headers=OWNER)).json()["keys"]
    old_zsk = next(k for k in first["keys"] if k["flags"] == 256)
    assert {(k["flags"], k["state"]) for k in keys if k["key_tag"] == old_zsk["key_tag"]} == {
        (256, "RETIRING")}
    assert sorted((k["flags"], k["state"]) for k in keys) == [
        (256, "ACTIVE"), (256, "RETIRING"), (257, "ACTIVE")]
    assert (await client.get(f"/v2/zones/{zone['id']}", headers=OWNER)).json()[
        "version"] > version
    soon = datetime.utcnow() + timedelta(days=29)
    assert await central_dnssec.roll_zsks(services, 30, now=soon) == 0  # the new one is young
