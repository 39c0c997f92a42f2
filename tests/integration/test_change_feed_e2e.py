"""Change batches, the change feed and conditional writes against the real server: its worker
stamps each batch's serial and records what every nameserver serves, the built-in nameserver
answers, and the feed lists what every route did.  Prints the batch-to-ACTIVE time (a figure,
not a limit)."""

from __future__ import annotations

import time

import dns.message
import dns.query
import httpx
import pytest

from support.server import ServerProcess, wait_status

pytestmark = pytest.mark.integration


def test_batch_feed_and_if_match_end_to_end() -> None:
    with ServerProcess() as server, httpx.Client(
            base_url=server.api_url, headers=server.headers(), timeout=10) as client:
        zone = client.post("/v2/zones", json={"name": "feed-e2e.example.",
                                              "email": "h@feed-e2e.example"}).json()
        zone_url = f"/v2/zones/{zone['id']}"
        base = wait_status(client, zone_url, "ACTIVE")["serial"]
        started = time.monotonic()
        batch = client.post(f"{zone_url}/changes", json={"changes": [
            {"action": "UPSERT", "name": "www.feed-e2e.example.", "type": "A",
             "records": ["192.0.2.10"]}]}).json()
        served = wait_status(client, f"{zone_url}/changes/{batch['id']}", "ACTIVE")
        print(f"\nbatch POST to ACTIVE (every nameserver serves it): "
              f"{(time.monotonic() - started) * 1000:.0f} ms")
        answer = dns.query.udp(dns.message.make_query("www.feed-e2e.example.", "A"),
                               "127.0.0.1", port=server.ns_port, timeout=2)
        assert [r.address for r in answer.answer[0]] == ["192.0.2.10"]
        assert served["serial"] > base

        rs_url = f"{zone_url}/recordsets?name=www.feed-e2e.example."
        recordset = client.get(rs_url).json()["recordsets"][0]
        one = f"{zone_url}/recordsets/{recordset['id']}"
        etag = client.get(one).headers["etag"]
        put = client.put(one, json={"records": ["192.0.2.11"]}, headers={"If-Match": etag})
        assert put.status_code == 202
        stale = client.put(one, json={"records": ["192.0.2.12"]}, headers={"If-Match": etag})
        assert (stale.status_code, stale.json()["type"]) == (412, "precondition_failed")
        wait_status(client, one, "ACTIVE")
        assert client.get(f"{zone_url}/changes/{batch['id']}").json()["status"] == "ACTIVE"

        feed = client.get(f"{zone_url}/changes",
                          params={"since_serial": base, "origin": "SERIAL",
                                  "sort_dir": "asc"}).json()
        assert feed["metadata"]["complete"] is True
        steps = [(e["serial"], e["changes"], e["status"]) for e in feed["changes"]]
        assert steps[0][0] == served["serial"]
        assert steps[0][1] == [{"action": "ADD_RECORDS", "name": "www.feed-e2e.example.",
                                "type": "A", "ttl": 3600, "records": ["192.0.2.10"]}]
        assert steps[-1][1] == [
            {"action": "REMOVE_RECORDS", "name": "www.feed-e2e.example.", "type": "A",
             "records": ["192.0.2.10"]},
            {"action": "ADD_RECORDS", "name": "www.feed-e2e.example.", "type": "A",
             "ttl": 3600, "records": ["192.0.2.11"]}]
        assert {status for _, _, status in steps} == {"ACTIVE"}
