"""Zone imports over the v2 API on every database engine (lifecycle.md §8)."""

from __future__ import annotations

import json
import time

import pytest

from conftest import project
from support.api_errors import assert_error, assert_forbidden
from openkeel_designate.storage import zonetasks
from openkeel_designate.storage.models import ZoneTask, new_id, utcnow

A = project("imp-a")
B = project("imp-b")
URL = "/v2/zones/tasks/imports"
ZONEFILE = """$ORIGIN imported.example.
$TTL 3600
imported.example. IN SOA ns1.example.org. host\\.master.example.org. 2024010101 7200 600 86400 3600
imported.example. IN NS ns1.example.org.
www 300 IN A 192.0.2.10
www IN AAAA 2001:db8::10
mail IN A 192.0.2.25
imported.example. IN MX 10 mail
txt IN TXT "hello world"
sub IN NS ns.elsewhere.example.
"""


@pytest.fixture(autouse=True)
async def _settle(task_runner):
    yield
    await task_runner.drain()


async def post_file(client, text: str, headers=A):
    return await client.post(URL, content=text.encode(),
                             headers={**headers, "Content-Type": "text/dns"})


@pytest.fixture
def finished(task_runner):
    """Waits for the imports started so far, then reads the task of ``response``."""
    async def read(client, response, headers=A) -> dict:
        await task_runner.drain()
        return (await client.get(response.json()["links"]["self"], headers=headers)).json()
    return read


async def test_import_creates_the_zone_and_its_recordsets(client, finished):
    response = await post_file(client, ZONEFILE)
    assert response.status_code == 202
    task = response.json()
    assert list(task) == ["id", "status", "message", "zone_id", "project_id", "created_at",
                          "updated_at", "version", "links"]
    assert task["status"] == "PENDING" and task["zone_id"] is None
    assert response.headers["location"] == task["links"]["self"]
    done = await finished(client, response)
    assert done["status"] == "COMPLETE" and done["message"] == "imported.example. imported"
    assert done["links"]["zone"].endswith(f"/v2/zones/{done['zone_id']}")
    zone = (await client.get(f"/v2/zones/{done['zone_id']}", headers=A)).json()
    assert (zone["name"], zone["email"], zone["ttl"], zone["type"]) == (
        "imported.example.", "host.master@example.org", 3600, "PRIMARY")
    listing = (await client.get(f"/v2/zones/{zone['id']}/recordsets?sort_key=name",
                                headers=A)).json()
    found = {(r["name"], r["type"]): (r["ttl"], r["records"]) for r in listing["recordsets"]}
    assert listing["metadata"]["total_count"] == 8
    assert found[("imported.example.", "NS")] == (None, ["ns1.example.net."])
    assert found[("imported.example.", "MX")] == (3600, ["10 mail.imported.example."])
    assert found[("www.imported.example.", "A")] == (300, ["192.0.2.10"])
    assert found[("txt.imported.example.", "TXT")] == (3600, ['"hello world"'])
    assert found[("sub.imported.example.", "NS")] == (3600, ["ns.elsewhere.example."])
    soa = found[("imported.example.", "SOA")][1][0].split()
    assert soa[:5] == ["ns1.example.net.", "host\\.master.example.org.", "2024010101", "7200",
                       "600"]


async def test_json_import_with_attributes(client, finished):
    response = await client.post(URL, json={"zonefile": ZONEFILE.replace("imported.", "json."),
                                            "attributes": {}}, headers=A)
    assert response.status_code == 202
    assert (await finished(client, response))["status"] == "COMPLETE"


@pytest.mark.parametrize("body,message", [
    (b"$ORIGIN x.example.\n", "Invalid JSON body"),
    (b'{"zone": "x"}', 'The "zonefile" field is required when using application/json content '
                       "type"),
])
async def test_json_body_errors(client, body, message):
    response = await client.post(URL, content=body,
                                 headers={**A, "Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json()["type"] == "bad_request" and response.json()["message"] == message


async def test_other_content_type_is_415(client):
    response = await client.post(URL, content=b"x", headers={**A, "Content-Type": "text/plain"})
    assert response.status_code == 415
    assert response.json()["message"] == "Content-type must be text/dns or application/json"


async def test_unknown_pool_attributes_fail_at_once(client, conf):
    conf.set_override("scheduler_filters", ["attribute"], group="service:central")
    response = await client.post(URL, json={"zonefile": ZONEFILE, "attributes": {"x": "y"}},
                                 headers=A)
    assert response.status_code == 404 and response.json()["type"] == "no_valid_pool_found"


@pytest.mark.parametrize("text,message", [
    ("$ORIGIN broken.example.\nthis is not a zone file\n", "Malformed zonefile."),
    ("$ORIGIN nosoa.example.\n$TTL 300\nwww IN A 192.0.2.1\n", "An SOA record is required."),
    ("", "An SOA record is required."),
    ("$TTL 300\nwww IN A 192.0.2.1\n",
     "The $ORIGIN statement is required and must be the first statement in the zonefile."),
])
async def test_bad_files_end_in_error(client, text, message, finished):
    response = await post_file(client, text)
    assert response.status_code == 202
    done = await finished(client, response)
    assert (done["status"], done["message"], done["zone_id"]) == ("ERROR", message, None)
    assert "zone" not in done["links"]


async def test_unsupported_type_is_an_undefined_error(client, finished):
    done = await finished(client, await post_file(
        client, ZONEFILE.replace("txt IN TXT", "key IN DNSKEY 256 3 8 AwEAAa== ;")))
    assert done["status"] == "ERROR"
    assert done["message"].startswith("An undefined error occurred. ")


async def test_duplicate_quota_and_ttl_errors(client, conf, finished):
    assert (await finished(client, await post_file(client, ZONEFILE)))["status"] == "COMPLETE"
    again = await finished(client, await post_file(client, ZONEFILE))
    assert again["message"] == "Duplicate zone."
    conf.set_override("quota_zone_recordsets", 3)
    over = await finished(client, await post_file(client, ZONEFILE.replace("imported.", "q.")))
    assert over["message"] == "Quota exceeded during zone import."
    conf.clear_override("quota_zone_recordsets")
    conf.set_override("min_ttl", 7200, group="service:central")
    low = await finished(client, await post_file(client, ZONEFILE.replace("imported.", "t.")))
    assert low["message"] == "TTL is below the minimum: 7200"
    listing = (await client.get("/v2/zones", headers=A)).json()
    assert [z["name"] for z in listing["zones"]] == ["imported.example."]


async def test_list_get_delete_and_visibility(client, task_runner):
    ok = await post_file(client, ZONEFILE)
    bad = await post_file(client, "")
    await task_runner.drain()
    listing = (await client.get(URL, headers=A)).json()
    assert listing["metadata"]["total_count"] == 2 and listing["links"]["self"].endswith(URL)
    errors = (await client.get(URL + "?status=error", headers=A)).json()["imports"]
    assert [t["id"] for t in errors] == [bad.json()["id"]]
    assert (await client.get(URL, headers=B)).json()["imports"] == []
    other = await client.get(ok.json()["links"]["self"], headers=B)
    assert other.status_code == 404 and other.json() == {
        "code": 404, "type": "zone_import_not_found", "message": "Could not find ZoneImport",
        "request_id": other.json()["request_id"]}
    assert_error(await client.delete(ok.json()["links"]["self"], headers=B), 404,
                 "zone_import_not_found", "Could not find ZoneImport")
    assert (await client.delete(ok.json()["links"]["self"], headers=A)).status_code == 204
    assert_error(await client.get(ok.json()["links"]["self"], headers=A), 404,
                 "zone_import_not_found", "Could not find ZoneImport")
    bad_id = await client.get(URL + "/nope", headers=A)
    assert bad_id.status_code == 400 and bad_id.json()["type"] == "invalid_uuid"


async def test_reader_cannot_import(client):
    assert_forbidden(await post_file(client, ZONEFILE, headers=project("imp-a", "reader")))


async def test_pending_import_left_by_a_crash_is_resumed(client, services, task_runner):
    task_id = new_id()

    async def orphan(session):
        session.add(ZoneTask(
            id=task_id, version=1, tenant_id="imp-a", task_type=zonetasks.IMPORT,
            status="PENDING", created_at=utcnow(), payload=(
                '{"zonefile": %s, "attributes": {}, "context": {"user_id": "u", '
                '"project_id": "imp-a", "roles": ["member", "reader"]}}'
                % json.dumps(ZONEFILE))))

    await services.db.transaction(orphan)
    assert await task_runner.resume() == 1
    await task_runner.drain()
    done = (await client.get(f"{URL}/{task_id}", headers=A)).json()
    assert done["status"] == "COMPLETE"
    assert await task_runner.resume() == 0


async def test_five_thousand_records_import_quickly(client, conf, finished):
    conf.set_override("quota_zone_recordsets", -1)
    conf.set_override("quota_zone_records", -1)
    conf.set_override("max_request_body_size", 1 << 20, group="oslo_middleware")  # ~130 KB file
    lines = ["$ORIGIN big.example.", "$TTL 300",
             "@ IN SOA ns1.big.example. hostmaster.big.example. 1 3600 600 86400 300"]
    lines += [f"host{i} IN A 10.0.{i // 256}.{i % 256}" for i in range(5000)]
    started = time.monotonic()
    done = await finished(client, await post_file(client, "\n".join(lines) + "\n"))
    elapsed = time.monotonic() - started
    assert done["status"] == "COMPLETE", done
    listing = (await client.get(f"/v2/zones/{done['zone_id']}/recordsets?limit=1",
                                headers=A)).json()
    assert listing["metadata"]["total_count"] == 5002
    assert elapsed < 30, f"5,000 records took {elapsed:.1f} s"


# --- refused imports: validated as the API validates, bounded, and nothing left behind ----------
def soa_file(zone: str, body: str = "", mail: str = "hostmaster.example.org.",
             soa_ttl: str = "") -> str:
    return (f"$ORIGIN {zone}\n$TTL 300\n"
            f"@ {soa_ttl} IN SOA ns1.example.org. {mail} 1 3600 600 86400 300\n"
            f"@ IN NS ns1.example.org.\n{body}")


async def rows_named(services, suffix: str) -> tuple[int, int]:
    """(zones, recordsets) in the database whose name ends with ``suffix``, deleted or not."""
    from sqlalchemy import func, select

    from openkeel_designate.storage.models import RecordSet, Zone

    async with services.db.read() as session:
        zones = await session.scalar(select(func.count()).select_from(Zone)
                                     .where(Zone.name.like(f"%{suffix}")))
        sets = await session.scalar(select(func.count()).select_from(RecordSet)
                                    .where(RecordSet.name.like(f"%{suffix}")))
    return zones, sets


async def assert_refused(client, services, finished, text: str, message: str,
                         suffix: str) -> None:
    response = await post_file(client, text)
    assert response.status_code == 202
    done = await finished(client, response)
    assert (done["status"], done["message"], done["zone_id"]) == ("ERROR", message, None)
    assert await rows_named(services, suffix) == (0, 0)


UNDEF = "An undefined error occurred. "
LONG_NAME = ".".join(["a" * 60] * 4)


@pytest.mark.parametrize("text,message", [
    # Designate 23.0.0 ends each of these imports ERROR with exactly this message.
    (soa_file("v1.example.", mail="h."), UNDEF + "h is not an email"),
    (soa_file("v1.example.", mail="."), UNDEF + " is not an email"),
    (soa_file("v1.example.", mail="a\\@b.example.org."), UNDEF + "a\\@b@example.org is not an email"),
    (soa_file("v1.example.", "a\\000b IN A 192.0.2.1\n"),
     UNDEF + "Host name a\\000b.v1.example. is invalid"),
    (soa_file("v1.example.", "a\\032b IN A 192.0.2.1\n"),
     UNDEF + "Host name a\\032b.v1.example. is invalid"),
    (soa_file("v1.example.", "a.*.b IN A 192.0.2.1\n"), UNDEF + "Host name a.*.b.v1.example. is invalid"),
    (soa_file("v1.example.", LONG_NAME + " IN A 192.0.2.1\n"),
     UNDEF + "A DNS name is > 255 octets long."),
    (soa_file("v1.example.", "a" * 64 + " IN A 192.0.2.1\n"), "Malformed zonefile."),
    (soa_file("v1.example.", "www 4294967295 IN A 192.0.2.1\n"), UNDEF + "Value too high for ttl"),
    (soa_file("v1.example.", "www 2147483648 IN A 192.0.2.1\n"), UNDEF + "Value too high for ttl"),
    (soa_file("v1.example.", soa_ttl="4294967295"), UNDEF + "Value too high for ttl"),
    (soa_file("v1.example.").replace("3600 600", "4294967295 600"),
     UNDEF + "Value too high for refresh"),
    (soa_file("v1."), UNDEF + "More than one label is required"),
    (soa_file("a\\032b.v1.example."), UNDEF + "Domain a\\032b.v1.example. is invalid"),
    (soa_file("v1.example.", "".join(f"m IN A 192.0.2.{i}\n" for i in range(1, 22))),
     "Quota exceeded during zone import."),  # recordset_records 20
    (soa_file("v1.example.", "".join(f"h{i} IN A 192.0.2.1\n" for i in range(499))),
     "Quota exceeded during zone import."),  # zone_recordsets 500 with SOA and NS
    (soa_file("v1.example.", "$GENERATE 1-100000 host$ IN A 192.0.2.1\n"),
     "Quota exceeded during zone import."),
    (soa_file("v1.example.", "@ IN CNAME other.example.\n"),
     UNDEF + "CNAME rdataset is not compatible with a regular data node"),
    # The first problem is reported: zone fields before records, records in file order.
    (soa_file("v1.example.", "a\\032b IN A 192.0.2.1\n", mail="h."), UNDEF + "h is not an email"),
    (soa_file("v1.example.", "b 4294967295 IN A 192.0.2.1\na\\032b IN A 192.0.2.1\n"),
     UNDEF + "Value too high for ttl"),
], ids=lambda value: value[:40] if isinstance(value, str) and "\n" not in value else None)
async def test_refused_imports_leave_nothing(client, services, text, message, finished):
    await assert_refused(client, services, finished, text, message, "v1.example.")


@pytest.mark.parametrize("line,name,rtype,stored", [
    ("sub IN NS a\\000b.example.", "sub", "NS", "a\\000b.example."),
    ('@ IN CAA 0 issue "a b c"', "", "CAA", '0 issue "a b c"'),
    ("@ IN CAA 128 issue ca.example.net", "", "CAA", '128 issue "ca.example.net"'),
    ("t IN TXT \"" + "a" * 255 + "\"", "t", "TXT", '"' + "a" * 255 + '"'),
    ("srv IN SRV 10 10 80 t.example.", "srv", "SRV", "10 10 80 t.example."),
    ("s IN SVCB 1 . alpn=h2,h3 port=443", "s", "SVCB", '1 . alpn="h2,h3" port="443"'),
])
async def test_records_are_imported_as_dnspython_reads_them(client, line, name, rtype, stored,
                                                           finished):
    """Designate 23.0.0 imports these (checked against it), though its API refuses each typed
    in: the records of a zone file are DNS data already, only names, TTLs and types are held
    to the API's rules."""
    text = soa_file("v3.example.", line + "\n")
    done = await finished(client, await post_file(client, text))
    assert done["status"] == "COMPLETE", done
    owner = f"{name}.v3.example." if name else "v3.example."
    listing = (await client.get(f"/v2/zones/{done['zone_id']}/recordsets?type={rtype}",
                                headers=A)).json()
    assert [r["records"] for r in listing["recordsets"] if r["name"] == owner] == [[stored]]


async def test_record_ttl_below_the_minimum(client, services, conf, finished):
    conf.set_override("min_ttl", 600, group="service:central")
    text = soa_file("v1.example.", "www 60 IN A 192.0.2.1\n").replace("$TTL 300", "$TTL 900")
    response = await post_file(client, text, headers=project("imp-a", "member"))
    done = await finished(client, response)
    assert (done["status"], done["message"]) == ("ERROR", "TTL is below the minimum: 600")
    assert await rows_named(services, "v1.example.") == (0, 0)


async def test_invalid_utf8_is_refused_not_replaced(client, services):
    """Designate answers 500 (its decode fails); here a 400, and no task or zone is made."""
    text = soa_file("v1.example.", 't IN TXT "a\xffb"\n').encode("latin-1")
    response = await client.post(URL, content=text, headers={**A, "Content-Type": "text/dns"})
    assert response.status_code == 400
    assert response.json()["message"] == "The zonefile is not valid UTF-8"
    assert (await client.get(URL, headers=A)).json()["imports"] == []
    assert await rows_named(services, "v1.example.") == (0, 0)


async def test_escaped_bytes_and_case_are_kept_as_one_rrset(client, finished):
    text = soa_file("v2.example.", 't IN TXT "a\\255b"\nWWW IN A 192.0.2.1\nwww IN A 192.0.2.2\n')
    done = await finished(client, await post_file(client, text))
    assert done["status"] == "COMPLETE", done
    listing = (await client.get(f"/v2/zones/{done['zone_id']}/recordsets", headers=A)).json()
    found = {(r["name"], r["type"]): sorted(r["records"]) for r in listing["recordsets"]}
    assert found[("t.v2.example.", "TXT")] == ['"a\\255b"']
    assert found[("WWW.v2.example.", "A")] == ["192.0.2.1", "192.0.2.2"]
    assert listing["metadata"]["total_count"] == 4


async def test_json_zonefile_with_a_lone_surrogate_is_malformed(client, services, finished):
    """JSON can carry what UTF-8 cannot (``\\udcff``); Designate ends it "Malformed zonefile."."""
    text = soa_file("v1.example.", 't IN TXT "a\udcffb"\n')
    response = await client.post(URL, content=json.dumps({"zonefile": text}).encode(),
                                 headers={**A, "Content-Type": "application/json"})
    assert response.status_code == 202
    done = await finished(client, response)
    assert (done["status"], done["message"]) == ("ERROR", "Malformed zonefile.")
    assert await rows_named(services, "v1.example.") == (0, 0)
