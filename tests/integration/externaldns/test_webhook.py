"""The webhook protocol call by call, as ExternalDNS's Go client sends each request, against a
real ``serve`` (every role; the webhook on because ``[service:externaldns] project_id`` is set).
"""

from __future__ import annotations

import json

import httpx
import pytest

from support.externaldns import MEDIA_TYPE, PROJECT, Ep, GoWebhookClient, Webhook, go_json, start
from support.server import ServerError

pytestmark = pytest.mark.integration


def test_negotiation_answers_the_domain_filter_in_externaldns_shape(webhook):
    response = webhook.go.negotiate()
    assert response.status == 200
    assert response.headers["content-type"] == MEDIA_TYPE  # compared verbatim by the client
    assert response.json() == {"include": ["pending.example", "xdns.example"]}


def test_records_lists_the_project_zones_as_endpoints(webhook):
    zone = webhook.zone("list.xdns.example.")
    outside = webhook.zone("outside-filter.example.")
    for name, rtype, records, ttl in [
            ("list.xdns.example.", "MX", ["5 mx.list.xdns.example."], None),
            ("www.list.xdns.example.", "A", ["192.0.2.2", "192.0.2.1"], 120),
            ("sub.list.xdns.example.", "NS", ["ns1.elsewhere.example."], None),
            ("list.xdns.example.", "CAA", ['0 issue letsencrypt.org'], None),
            ("c.list.xdns.example.", "CNAME", ["www.list.xdns.example."], None)]:
        created = webhook.api.post(f"/v2/zones/{zone['id']}/recordsets", json={
            "name": name, "type": rtype, "records": records, **({"ttl": ttl} if ttl else {})})
        assert created.status_code in (201, 202), created.text
    webhook.api.post(f"/v2/zones/{outside['id']}/recordsets", json={
        "name": "x.outside-filter.example.", "type": "A", "records": ["192.0.2.7"]})
    response = webhook.go.records()
    assert response.status == 200 and response.headers["content-type"] == MEDIA_TYPE
    mine = {(e["dnsName"], e["recordType"]): e for e in response.json()
            if e["dnsName"].endswith("list.xdns.example")}
    assert mine == {
        ("list.xdns.example", "MX"): {"dnsName": "list.xdns.example", "recordType": "MX",
                                      "targets": ["5 mx.list.xdns.example"], "recordTTL": 3600},
        ("www.list.xdns.example", "A"): {"dnsName": "www.list.xdns.example", "recordType": "A",
                                         "targets": ["192.0.2.1", "192.0.2.2"],
                                         "recordTTL": 120},
        ("sub.list.xdns.example", "NS"): {"dnsName": "sub.list.xdns.example",
                                          "recordType": "NS", "recordTTL": 3600,
                                          "targets": ["ns1.elsewhere.example"]},
        ("list.xdns.example", "CAA"): {"dnsName": "list.xdns.example", "recordType": "CAA",
                                       "targets": ["0 issue letsencrypt.org"],
                                       "recordTTL": 3600},
        ("c.list.xdns.example", "CNAME"): {"dnsName": "c.list.xdns.example",
                                           "recordType": "CNAME", "recordTTL": 3600,
                                           "targets": ["www.list.xdns.example"]},
    }  # no SOA, no apex NS
    assert not [e for e in response.json() if "outside-filter" in e["dnsName"]]


def test_adjust_endpoints_answers_what_records_will_read_back(webhook):
    sent = [Ep("a.xdns.example", "CNAME", ["b.xdns.example."], 60, {"owner": "o"}, "blue",
               [{"name": "alias", "value": "false"}]),
            Ep("_x._tcp.xdns.example", "SRV", ["1 2 3 t.xdns.example"]),
            Ep("t.xdns.example", "TXT", ["v=spf1 -all", '"heritage=external-dns"']),
            Ep("d.xdns.example", "DNAME", ["e.xdns.example"])]
    response = webhook.go.adjust(sent)
    assert response.status == 200 and response.headers["content-type"] == MEDIA_TYPE
    assert response.json() == [
        {"dnsName": "a.xdns.example", "targets": ["b.xdns.example"], "recordType": "CNAME",
         "recordTTL": 60, "labels": {"owner": "o"}},
        {"dnsName": "_x._tcp.xdns.example", "targets": ["1 2 3 t.xdns.example."],
         "recordType": "SRV"},
        {"dnsName": "t.xdns.example", "targets": ['"v=spf1 -all"', '"heritage=external-dns"'],
         "recordType": "TXT"},
    ]  # DNAME is not a supported type here: dropped; set identifier and properties dropped


def test_records_go_to_the_longest_zone_while_it_is_pending():
    """The worker is not running: every zone stays PENDING, and the child zone's names still
    land in the child, never in its parent (the ExternalDNS + Designate sidecar bug)."""
    server, listen, health = start(roles="api,mdns,producer,externaldns",
                                   domain_filter=["pending.example", "nozone.example"])
    try:
        hook = Webhook(server, listen, health)
        parent, child = hook.zone("pending.example."), hook.zone("kid.pending.example.")
        assert hook.api.get(f"/v2/zones/{child['id']}").json()["status"] == "PENDING"
        response = hook.go.apply({"create": [
            Ep("web.kid.pending.example", "A", ["192.0.2.5"]),
            Ep("kid.pending.example", "TXT", ['"apex of the child"']),
            Ep("web.pending.example", "A", ["192.0.2.6"]),
            Ep("a.nozone.example", "A", ["192.0.2.7"]),  # under no zone: skipped
            Ep("elsewhere.example", "A", ["192.0.2.8"])]})  # outside the filter: skipped
        assert response.status == 204, response.body
        assert hook.recordsets(child["id"], type="A") == {
            ("web.kid.pending.example.", "A"): ["192.0.2.5"]}
        assert hook.recordsets(child["id"], type="TXT") == {
            ("kid.pending.example.", "TXT"): ['"apex of the child"']}
        assert hook.recordsets(parent["id"], type="A") == {
            ("web.pending.example.", "A"): ["192.0.2.6"]}
        assert hook.api.get(f"/v2/zones/{child['id']}").json()["status"] == "PENDING"
        log = server.log_tail(200)
        assert "a.nozone.example. skipped: under no zone of the project" in log
        assert "elsewhere.example. skipped: outside the domain filter" in log
        health_answer = httpx.get(f"{hook.health_url}/healthz")
        assert (health_answer.status_code, health_answer.text) == (200, "ok\n")
    finally:
        server.stop()


def test_one_zone_batch_is_all_or_nothing_and_errors_point_into_the_plan(webhook):
    zone = webhook.zone("atomic.xdns.example.")
    response = webhook.go.apply({"create": [
        Ep("ok.atomic.xdns.example", "A", ["192.0.2.1"]),
        Ep("bad.atomic.xdns.example", "A", ["192.0.2.300"])]})
    assert response.status == 400
    body = response.json()
    assert (body["code"], body["type"]) == (400, "invalid_object")
    assert body["request_id"].startswith("req-")
    assert "zone atomic.xdns.example.: " in body["message"]
    assert [e["path"] for e in body["errors"]["errors"]] == [["create", 1, "targets", 0]]
    assert "192.0.2.300" in body["errors"]["errors"][0]["message"]
    assert webhook.recordsets(zone["id"], type="A") == {}


def test_update_keeps_values_externaldns_does_not_own(webhook):
    """updateOld/updateNew add the new values and remove only the old ones: a value written
    by someone else in the same recordset survives, and the recordset keeps its id."""
    zone = webhook.zone("merge.xdns.example.")
    name = "_acme-challenge.merge.xdns.example"
    created = webhook.api.post(f"/v2/zones/{zone['id']}/recordsets", json={
        "name": name + ".", "type": "TXT", "records": ['"old"', '"someone-else"']})
    assert created.status_code in (201, 202)
    response = webhook.go.apply({"updateOld": [Ep(name, "TXT", ['"old"'])],
                                 "updateNew": [Ep(name, "TXT", ['"new"'], 90)]})
    assert response.status == 204, response.body
    after = webhook.api.get(f"/v2/zones/{zone['id']}/recordsets/{created.json()['id']}").json()
    assert sorted(after["records"]) == ['"new"', '"someone-else"'] and after["ttl"] == 90
    again = webhook.go.apply({"delete": [Ep(name, "TXT", ['"new"'])],
                              "create": [Ep(name, "TXT", ['"someone-else"'])]})
    assert again.status == 204, again.body  # create on an existing recordset: merged, no 409
    assert webhook.recordsets(zone["id"], type="TXT") == {(name + ".", "TXT"): ['"someone-else"']}
    retried = webhook.go.apply({"delete": [Ep(name, "TXT", ['"new"'])]})
    assert retried.status == 204  # deleting what is already gone: a retried plan is harmless


@pytest.mark.parametrize("body, path", [
    (b"{not json", None),
    (b"[]", []),
    (b'{"create": "www"}', ["create"]),
    (b'{"create": [{"dnsName": "a.xdns.example", "targets": "192.0.2.1", "recordType": "A"}]}',
     ["create", 0, "targets"]),
    (b'{"Delete": [{"dnsName": "a.xdns.example", "recordType": "A", "recordTTL": 1.5}]}',
     ["delete", 0, "recordTTL"]),
    (b'{"updateNew": [{"targets": ["192.0.2.1"], "recordType": "A"}]}',
     ["updateNew", 0, "dnsName"]),
    (b'{"create": [null]}', ["create", 0]),
    (b'{"create": [{"dnsName": "a.xdns.example", "recordType": "A", "labels": [1]}]}',
     ["create", 0, "labels"]),
])
def test_bad_bodies_answer_400_in_designate_format(webhook, body, path):
    response = webhook.go.send("POST", "/records", body, {"Content-Type": MEDIA_TYPE})
    assert response.status == 400, response.body
    error = response.json()
    assert response.headers["content-type"] == "application/json"
    assert error["code"] == 400 and error["message"] and error["request_id"]
    if path is None:
        assert error["type"] == "invalid_json"
    else:
        assert error["type"] == "invalid_object"
        assert path in [entry["path"] for entry in error["errors"]["errors"]]


def test_null_plan_and_empty_plan_apply_nothing(webhook):
    for body in (b"null\n", go_json({}), go_json({"Create": None, "UpdateOld": None,
                                                   "UpdateNew": None, "Delete": None})):
        response = webhook.go.send("POST", "/records", body, {"Content-Type": MEDIA_TYPE})
        assert response.status == 204, response.body


def test_sizes_methods_and_paths(webhook):
    big = go_json({"create": [Ep("x.xdns.example", "TXT", ["y" * 200]).to_json()] * 400})
    assert len(big) > 65536
    too_large = webhook.go.send("POST", "/records", big, {"Content-Type": MEDIA_TYPE})
    assert too_large.status == 413 and too_large.json()["type"] == "request_too_large"
    assert webhook.go.send("PUT", "/records", b"{}").status == 405
    assert webhook.go.send("GET", "/adjustendpoints").status == 405
    missing = webhook.go.send("GET", "/applychanges")
    assert missing.status == 404 and "POST /records" in missing.json()["message"]
    webhook.zone("types.xdns.example.")
    unknown_type = webhook.go.apply({"create": [Ep("t.types.xdns.example", "TYPE65534", ["x"])]})
    assert unknown_type.status == 400
    assert unknown_type.json()["errors"]["errors"][0]["path"][:2] == ["create", 0]


def test_role_needs_a_project_when_asked_for_by_name():
    with pytest.raises(ServerError, match="needs \\[service:externaldns\\] project_id"):
        start(roles="api,externaldns", project_id=None)


def test_dns01_challenges_on_one_name_each_remove_only_their_own(webhook):
    """cert-manager style, on the real server: two solvers add their token to one name at once
    (one change batch each), then each removes only its own."""
    import concurrent.futures

    zone = webhook.zone("acme.xdns.example.")
    name = "_acme-challenge.acme.xdns.example."

    def batch(action: str, token: str) -> int:
        return webhook.api.post(f"/v2/zones/{zone['id']}/changes", json={"changes": [
            {"action": action, "name": name, "type": "TXT", "records": [token]}]}).status_code

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        assert list(pool.map(batch, ["ADD_RECORDS"] * 2, ['"one"', '"two"'])) == [202, 202]
        assert webhook.recordsets(zone["id"], type="TXT") == {(name, "TXT"): ['"one"', '"two"']}
        assert batch("REMOVE_RECORDS", '"one"') == 202
        assert webhook.recordsets(zone["id"], type="TXT") == {(name, "TXT"): ['"two"']}
        assert list(pool.map(batch, ["REMOVE_RECORDS"] * 2, ['"two"', '"one"'])) == [202, 202]
    assert webhook.recordsets(zone["id"], type="TXT") == {}


def test_curl_style_clients_may_send_plain_json(webhook):
    """Only ExternalDNS's answers must carry its media type; requests are read whatever their
    Content-Type (ExternalDNS's own webhook server does not look at it either)."""
    client = GoWebhookClient(webhook.url)
    response = client.send("POST", "/adjustendpoints",
                           json.dumps([{"dnsName": "q.xdns.example", "recordType": "A",
                                        "targets": ["192.0.2.1"]}]).encode(),
                           {"Content-Type": "application/json"})
    assert response.status == 200
    assert response.json() == [{"dnsName": "q.xdns.example", "targets": ["192.0.2.1"],
                                "recordType": "A"}]
    assert PROJECT  # the fixture's project owns every zone created here
