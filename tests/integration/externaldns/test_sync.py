"""ExternalDNS's sync loop against a real ``serve``: desired endpoints → plan → ``POST /records``
→ ``GET /records`` equals the desired state, and the next sync finds nothing to do.

The loop is ``support.externaldns.MiniExternalDNS`` (the TXT registry, AdjustEndpoints, the plan
and its owner checks as ExternalDNS runs them), over the webhook client's exact requests, in both
casings of the plan that ExternalDNS versions have sent.
"""

from __future__ import annotations

import pytest

from support.externaldns import Ep, MiniExternalDNS, parse_labels, same_targets

pytestmark = pytest.mark.integration


def desired(zone: str) -> list[Ep]:
    """What ExternalDNS's sources would emit: names and CNAME/MX targets without final dots."""
    res = {"resource": "service/default/web"}
    return [
        Ep(f"www.{zone}", "A", ["192.0.2.10", "192.0.2.11"], 300, dict(res)),
        Ep(f"v6.{zone}", "AAAA", ["2001:db8::1"], 0, dict(res)),
        Ep(f"api.{zone}", "CNAME", [f"www.{zone}"], 0, {"resource": "ingress/default/api"}),
        Ep(f"_sip._tcp.{zone}", "SRV", [f"10 60 5060 sip.{zone}."], 600, dict(res)),
        Ep(f"mail.{zone}", "MX", [f"10 mx1.{zone}", f"20 mx2.{zone}"], 0, dict(res)),
        Ep(f"note.{zone}", "TXT", ["hello world"], 0, dict(res)),
        Ep(f"app.child.{zone}", "A", ["192.0.2.20"], 0, dict(res)),
    ]


def state(mini: MiniExternalDNS, zone: str) -> dict[tuple[str, str], Ep]:
    """The endpoints of one test's zone as ExternalDNS's plan sees them (other tests share the
    server and the project)."""
    return {(e.name, e.type): e for e in mini.registry_records()
            if mini._in_plan(e) and e.name.endswith(zone)}


def assert_converged(mini: MiniExternalDNS, zone: str, wanted: list[Ep],
                     foreign: set[tuple[str, str]]) -> None:
    """GET /records holds exactly the wanted endpoints (as adjusted), owned by this instance,
    plus the records nobody gave it; TTLs as set where set."""
    adjusted = {(e["dnsName"], e["recordType"]): e for e in mini.client.adjust(wanted).json()}
    have = state(mini, zone)
    assert set(have) - foreign == set(adjusted)
    for key, want in adjusted.items():
        got = have[key]
        assert same_targets(got.targets, want["targets"]), (key, got.targets, want)
        assert got.labels.get("owner") == mini.owner
        if want.get("recordTTL"):
            assert got.ttl == want["recordTTL"]


@pytest.mark.parametrize("casing", ["new", "old"])
def test_sync_converges_and_a_second_sync_changes_nothing(webhook, casing):
    zone = f"{casing}.xdns.example"
    parent = webhook.zone(f"{zone}.")
    child = webhook.zone(f"child.{zone}.")
    legacy = webhook.api.post(f"/v2/zones/{parent['id']}/recordsets", json={
        "name": f"legacy.{zone}.", "type": "A", "records": ["192.0.2.99"]})
    assert legacy.status_code in (201, 202)
    mini = MiniExternalDNS(webhook.go, owner=f"cluster-{casing}", casing=casing)
    foreign = {(f"legacy.{zone}", "A")}

    applied = mini.sync(desired(zone))
    assert applied is not None and len(applied["create"]) == 2 * len(desired(zone))
    assert_converged(mini, zone, desired(zone), foreign)
    assert mini.sync(desired(zone)) is None  # second sync: empty plan, nothing posted

    # The child zone got its own record; the parent has none of it.
    assert webhook.recordsets(child["id"], type="A") == {
        (f"app.child.{zone}.", "A"): ["192.0.2.20"]}
    assert (f"app.child.{zone}.", "A") not in webhook.recordsets(parent["id"])
    # Designate's data: absolute host names, quoted text, the registry's TXT as written.
    sets = webhook.recordsets(parent["id"])
    assert sets[(f"api.{zone}.", "CNAME")] == [f"www.{zone}."]
    assert sets[(f"mail.{zone}.", "MX")] == [f"10 mx1.{zone}.", f"20 mx2.{zone}."]
    assert sets[(f"_sip._tcp.{zone}.", "SRV")] == [f"10 60 5060 sip.{zone}."]
    assert sets[(f"note.{zone}.", "TXT")] == ['"hello world"']
    owner_txt = sets[(f"a-www.{zone}.", "TXT")]
    assert owner_txt == [f'"heritage=external-dns,external-dns/owner=cluster-{casing},'
                         f'external-dns/resource=service/default/web"']

    # Change the world: new targets, a new TTL, a CNAME moved, the MX gone.
    changed = [e for e in desired(zone) if e.type != "MX"]
    for endpoint in changed:
        if endpoint.type == "A" and endpoint.name.startswith("www."):
            endpoint.targets = ["192.0.2.10", "192.0.2.12"]
        if endpoint.type == "SRV":
            endpoint.ttl = 900
        if endpoint.type == "CNAME":
            endpoint.targets = [f"v6.{zone}"]
    applied = mini.sync(changed)
    assert applied is not None
    assert {(e.name, e.type) for e in applied["delete"]} == {
        (f"mail.{zone}", "MX"), (f"mx-mail.{zone}", "TXT")}
    assert_converged(mini, zone, changed, foreign)
    assert mini.sync(changed) is None
    sets = webhook.recordsets(parent["id"])
    assert (f"mail.{zone}.", "MX") not in sets and (f"mx-mail.{zone}.", "TXT") not in sets
    assert sets[(f"legacy.{zone}.", "A")] == ["192.0.2.99"]  # never ExternalDNS's to delete

    # Everything released: ExternalDNS deletes what it owns, and only that.
    assert mini.sync([]) is not None
    assert set(state(mini, zone)) == foreign
    assert not [key for key in webhook.recordsets(parent["id"]) if key[1] == "TXT"]


def test_two_owners_share_zones_without_touching_each_other(webhook):
    zone = "owners.xdns.example"
    webhook.zone(f"{zone}.")
    blue = MiniExternalDNS(webhook.go, owner="blue")
    green = MiniExternalDNS(webhook.go, owner="green")
    blue_wants = [Ep(f"b.{zone}", "A", ["192.0.2.1"], 60, {"resource": "svc/b"})]
    green_wants = [Ep(f"g.{zone}", "A", ["192.0.2.2"], 60, {"resource": "svc/g"}),
                   Ep(f"b.{zone}", "A", ["192.0.2.3"], 60, {"resource": "svc/stolen"})]
    assert blue.sync(blue_wants) is not None
    green.sync(green_wants)
    have = state(green, zone)
    assert have[(f"b.{zone}", "A")].targets == ["192.0.2.1"]  # green may not take blue's name
    assert have[(f"b.{zone}", "A")].labels["owner"] == "blue"
    assert have[(f"g.{zone}", "A")].labels["owner"] == "green"
    assert blue.sync([]) is not None
    assert (f"b.{zone}", "A") not in state(blue, zone) and (f"g.{zone}", "A") in state(blue, zone)
    labels = [parse_labels(e.targets[0]) for e in map(Ep.from_json, webhook.go.records().json())
              if e.type == "TXT" and e.name.endswith(zone)]
    assert [label["owner"] for label in labels if label] == ["green"]
