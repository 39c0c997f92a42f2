"""The scenarios: one story per resource, each with valid and near-valid requests.

Near-valid inputs are one mutation away from a valid one: a bad port, a string where a list
goes, a duplicate, one character too many; roles and context headers vary within each story.
"""

from __future__ import annotations

from collections.abc import Callable

from .builder import DEAD_MASTER, DEFAULT_POOL, ZONE_FILE_TYPES, Builder, headers
from .model import NO_BODY, Step
from .rdata import OWNER_PREFIX, RECORD_TYPES, rdata

def zones(b: Builder) -> None:
    """Zone create (valid, near-valid, length edges), read, update, filters, sort, paging, delete."""
    name = b.zone("zone")
    b.add("create-duplicate", "POST", "/v2/zones", body={"name": name.upper(), "email": "a@example.net"})
    for length in (b.rng.choice((253, 254)), 255, 256):
        b.add(f"create-length-{length}", "POST", "/v2/zones",
              body={"name": b.long_name(length), "email": "a@example.net"})
    long_label = "a" * 64 + f"-{b.suffix}.test."
    near = [({"name": long_label, "email": "a@example.net"}, "label-64"),
            ({"name": name.rstrip("."), "email": "a@example.net"}, "no-trailing-dot"),
            ({"name": b.zone_name(), "email": "not-an-email"}, "bad-email"),
            ({"name": b.zone_name(), "email": "a@example.net", "ttl": -1}, "ttl-negative"),
            ({"name": b.zone_name(), "email": "a@example.net", "ttl": 2147483648}, "ttl-too-big"),
            ({"name": b.zone_name(), "email": "a@example.net", "ttl": "300"}, "ttl-string"),
            ({"name": b.zone_name(), "email": "a@example.net", "colour": "blue"}, "unknown-field"),
            ({"name": b.zone_name()}, "no-email"),
            ({"email": "a@example.net"}, "no-name"),
            ({"name": b.zone_name(), "email": "a@example.net", "description": "d" * 161}, "description-161"),
            ({"name": b.zone_name(), "email": "a@example.net", "type": "primary"}, "type-lowercase"),
            ({"name": "*." + b.zone_name(), "email": "a@example.net"}, "wildcard"),
            ({"name": b.zone_name(), "email": "a@example.net", "attributes": {"k": 1}}, "attribute-int"),
            ({"name": "com.", "email": "a@example.net"}, "tld-itself"),
            ({"name": b.zone_name(), "email": "a@example.net", "masters": ["192.0.2.1"]}, "primary-masters")]
    for body, label in b.rng.sample(near, 9):
        b.add(f"create-{label}", "POST", "/v2/zones", body=body)
    b.add("get", path="/v2/zones/<<zone>>")
    b.add("get-reader", path="/v2/zones/<<zone>>", hdrs=headers(b.owner, "reader"))
    b.add("get-other-project", path="/v2/zones/<<zone>>", hdrs=headers(b.other, "member"))
    b.add("get-unknown", path="/v2/zones/7a1d4b71-5c2f-4e8e-9f6f-0a0b0c0d0e0f")
    b.add("get-not-uuid", path="/v2/zones/not-a-uuid")
    b.add("nameservers", path="/v2/zones/<<zone>>/nameservers")
    patches = [({"ttl": b.rng.randint(60, 86400)}, "ttl"), ({"description": "changed"}, "description"),
               ({"email": "other@example.net"}, "email"), ({"ttl": -5}, "ttl-negative"),
               ({"name": "renamed.test."}, "name"), ({"type": "SECONDARY"}, "type"),
               ({"masters": ["192.0.2.1"]}, "masters"), ({"email": ""}, "email-empty"),
               ({"pool_id": DEFAULT_POOL}, "pool-id"), ({}, "empty"), ({"serial": 5}, "serial")]
    for body, label in b.rng.sample(patches, 6):
        b.add(f"patch-{label}", "PATCH", "/v2/zones/<<zone>>", body=body)
    b.add("patch-reader", "PATCH", "/v2/zones/<<zone>>", hdrs=headers(b.owner, "reader"),
          body={"ttl": 600})
    b.zone("zone2")
    b.zone("zone3")
    needle = f"*{b.suffix}-{b.index}-*"
    b.add("list-name-wild", path=f"/v2/zones?name={needle}")
    b.add("list-sort-name", path=f"/v2/zones?name={needle}&sort_key=name&sort_dir="
          + b.rng.choice(("asc", "desc")), ordered=True)
    b.add("list-page-1", path=f"/v2/zones?name={needle}&sort_key=name&limit=1", ordered=True,
          capture={"page1": "zones.0.id"})
    b.add("list-page-2", path=f"/v2/zones?name={needle}&sort_key=name&limit=1&marker=<<page1>>",
          ordered=True)
    filters = ["ttl=3600", "email=hostmaster*", "description=changed", "limit=0", "limit=abc",
               "limit=1001", "sort_key=bogus", "sort_dir=sideways", "marker=not-a-uuid",
               "marker=7a1d4b71-5c2f-4e8e-9f6f-0a0b0c0d0e0f", "type=PRIMARY", "status=bogus",
               "name=" + name.lower(), "name=" + name.upper(), "unknown=1"]
    for query in b.rng.sample(filters, 8):
        b.add(f"list-{query.split('=')[0]}", path=f"/v2/zones?{query}&name={needle}"
              if not query.startswith("name=") else f"/v2/zones?{query}")
    b.add("list-all-projects-admin", path=f"/v2/zones?name={needle}",
          hdrs=headers(b.other, "admin", all_projects="True"))
    b.add("list-all-projects-member", path=f"/v2/zones?name={needle}",
          hdrs=headers(b.owner, "member", all_projects="True"))
    b.add("delete-reader", "DELETE", "/v2/zones/<<zone2>>", hdrs=headers(b.owner, "reader"))
    b.add("delete-member-hard", "DELETE", "/v2/zones/<<zone2>>",
          hdrs=headers(b.owner, "member", hard_delete="true"))
    b.add("delete", "DELETE", "/v2/zones/<<zone3>>")
    b.add("abandon-member", "POST", "/v2/zones/<<zone>>/tasks/abandon", hdrs=headers(b.owner, "member"))
    b.add("abandon", "POST", "/v2/zones/<<zone>>/tasks/abandon")
    b.add("get-abandoned", path="/v2/zones/<<zone>>")


def recordsets(b: Builder) -> None:
    """All 17 types with generated rdata; near-valid bodies; PUT; filters; managed records."""
    zone = b.zone("zone")
    types = list(RECORD_TYPES)
    b.rng.shuffle(types)
    for i, rtype in enumerate(types[:b.rng.randint(8, 12)]):
        valid, near = rdata(b.rng, rtype)
        owner = b.mixed(OWNER_PREFIX.get(rtype, "") + f"{b.word()}{i}.") + zone
        records = b.rng.sample(valid, b.rng.randint(1, len(valid)))
        b.add(f"create-{rtype}", "POST", "/v2/zones/<<zone>>/recordsets",
              body={"name": owner, "type": rtype, "records": records, "ttl": b.rng.choice((300, 3600))},
              capture={f"rs{i}": "id"})
        for bad in b.rng.sample(near, min(2, len(near))):
            b.add(f"create-{rtype}-near-valid", "POST", "/v2/zones/<<zone>>/recordsets",
                  body={"name": f"bad{b.word()}.{zone}", "type": rtype, "records": [bad]})
        if i < 4:
            b.add(f"get-{rtype}", path=f"/v2/zones/<<zone>>/recordsets/<<rs{i}>>")
            b.add(f"put-{rtype}", "PUT", f"/v2/zones/<<zone>>/recordsets/<<rs{i}>>",
                  body=b.rng.choice(({"records": valid[:1]}, {"ttl": 120}, {"description": "x"},
                                     {"records": []}, {"ttl": None}, {"type": "A"},
                                     {"records": [near[0]]})))
    shapes = [({"name": f"x.{zone}", "records": ["192.0.2.1"]}, "no-type"),
              ({"name": f"x.{zone}", "type": "a", "records": ["192.0.2.1"]}, "type-lowercase"),
              ({"name": f"x.{zone}", "type": "XYZ", "records": ["1"]}, "type-unknown"),
              ({"name": f"x.{zone}", "type": "A", "records": "192.0.2.1"}, "records-string"),
              ({"name": f"x.{zone}", "type": "A", "records": []}, "records-empty"),
              ({"name": f"x.{zone}", "type": "A", "records": ["192.0.2.1", "192.0.2.1"]}, "records-duplicate"),
              ({"name": f"x.{zone}".rstrip("."), "type": "A", "records": ["192.0.2.1"]}, "name-no-dot"),
              ({"name": "x.elsewhere.test.", "type": "A", "records": ["192.0.2.1"]}, "name-outside"),
              ({"name": f"x.{zone}", "type": "A", "records": ["192.0.2.1"], "ttl": -1}, "ttl-negative"),
              ({"name": f"x.{zone}", "type": "A", "records": ["192.0.2.1"], "extra": 1}, "unknown-field"),
              ({"name": "a" * 64 + f".{zone}", "type": "A", "records": ["192.0.2.1"]}, "label-64"),
              ({"name": f"{zone}", "type": "CNAME", "records": ["x.example.net."]}, "cname-apex"),
              ({"name": f"*.{zone}", "type": "A", "records": ["192.0.2.7"]}, "wildcard"),
              ({"name": f"x.{zone}", "type": "A", "records": ["192.0.2.1"], "description": "d" * 161}, "description-161")]
    for body, label in b.rng.sample(shapes, 8):
        b.add(f"create-{label}", "POST", "/v2/zones/<<zone>>/recordsets", body=body)
    b.add("create-reader", "POST", "/v2/zones/<<zone>>/recordsets", hdrs=headers(b.owner, "reader"),
          body={"name": f"r.{zone}", "type": "A", "records": ["192.0.2.1"]})
    # the apex NS by name: a delegation NS made above may list first (ties in whole seconds)
    b.add("list-ns", path=f"/v2/zones/<<zone>>/recordsets?type=NS&name={zone}",
          capture={"ns": "recordsets.0.id"})
    b.add("list-soa", path="/v2/zones/<<zone>>/recordsets?type=SOA", capture={"soa": "recordsets.0.id"})
    b.add("put-ns-managed", "PUT", "/v2/zones/<<zone>>/recordsets/<<ns>>", body={"ttl": 600})
    b.add("put-ns-edit-managed", "PUT", "/v2/zones/<<zone>>/recordsets/<<ns>>",
          hdrs=headers(b.owner, edit_managed="true"), body={"ttl": 600})
    b.add("delete-soa", "DELETE", "/v2/zones/<<zone>>/recordsets/<<soa>>")
    queries = ["type=A", "type=a", f"name={zone.lower()}", "name=*" + zone[-12:].lower(), "ttl=300",
               "data=192.0.2.*", "sort_key=name", "sort_key=type&sort_dir=desc", "limit=2&sort_key=name",
               "sort_key=records", "limit=-1", "description=x"]
    for query in b.rng.sample(queries, 7):
        b.add(f"list-{query.split('=')[0]}", path=f"/v2/zones/<<zone>>/recordsets?{query}",
              ordered=query.startswith(("sort_key=name", "limit=2&sort_key=name", "sort_key=type")))
    b.add("list-cross-zone", path=f"/v2/recordsets?name=*{b.suffix}-{b.index}-*&type=A")
    b.add("get-other-project", path="/v2/zones/<<zone>>/recordsets/<<rs0>>", hdrs=headers(b.other, "member"))
    b.add("get-wrong-zone", path="/v2/zones/7a1d4b71-5c2f-4e8e-9f6f-0a0b0c0d0e0f/recordsets/<<rs0>>")
    b.add("delete", "DELETE", "/v2/zones/<<zone>>/recordsets/<<rs1>>")
    b.add("delete-again", "DELETE", "/v2/zones/<<zone>>/recordsets/<<rs1>>")
    b.add("create-case-differs", "POST", "/v2/zones/<<zone>>/recordsets",
          body={"name": f"case.{zone.swapcase()}", "type": "A", "records": ["192.0.2.1"]})


SVCB_PARAMS = (
    "alpn=h2", "alpn=h2,h3", 'alpn="h2,h3"', "port=443", "port=0", "port=65535", "port=65536",
    "port=", "ipv4hint=192.0.2.1,192.0.2.2", "ipv4hint=", "ipv6hint=2001:db8::1",
    "ipv6hint=192.0.2.1", "ech=AEn+DQBFKwAgACABWIHUGj4u", "mandatory=alpn,port alpn=h2 port=443",
    "mandatory=key1 alpn=h2", "port=443 mandatory=port", "key1=h2", "key7=val", "key65534=x",
    "key65535=x", "key65536=x", "dohpath=/dns-query{?dns}", "no-default-alpn alpn=h2",
    "no-default-alpn", "ALPN=h2", "alpn=h2 port=443 alpn=h3", "alpn=h2\\,h3", "alpn=",
    "mandatory=", "port=443 port=443", "ipv4hint=1.2.3.4 ipv6hint=::1 alpn=h3 port=8443")


def rdata_rules(b: Builder) -> None:
    """One record per request, so each rule of each type is judged on its own: every valid and
    near-valid rdata of the 17 types, and the SVCB/HTTPS parameters one by one."""
    zone = b.zone("zone")
    cases: list[tuple[str, str, str]] = []
    for rtype in RECORD_TYPES:
        valid, near = rdata(b.rng, rtype)
        cases += [(rtype, "valid", data) for data in valid] + [(rtype, "near", d) for d in near]
    for rtype in ("HTTPS", "SVCB"):
        for params in SVCB_PARAMS:
            cases.append((rtype, "param", f"{b.rng.choice((1, 2, 16))} . {params}"))
            cases.append((rtype, "alias-param", f"0 t.example.net. {params}"))
    cases.append(("SVCB", "dns-alpn", "1 . alpn=h2"))
    for n, (rtype, kind, data) in enumerate(b.rng.sample(cases, 40)):
        prefix = "_dns." if kind == "dns-alpn" else OWNER_PREFIX.get(rtype, "")
        b.add(f"{rtype}-{kind}", "POST", "/v2/zones/<<zone>>/recordsets",
              body={"name": f"{prefix}r{n}.{zone}", "type": rtype, "records": [data]})
    b.add("list", path="/v2/zones/<<zone>>/recordsets?sort_key=name&limit=100", ordered=True)


def secondary(b: Builder) -> None:
    """Secondary zones: masters validation, fields it may not change, xfr, pool move, list by type."""
    name = b.zone_name()
    b.add("create", "POST", "/v2/zones", body={"name": name, "type": "SECONDARY", "masters": [DEAD_MASTER]},
          capture={"sec": "id"})
    primary = b.zone("primary")
    bad_masters = [(["127.0.0.1:99999"], "port-too-big"), (["127.0.0.1:0"], "port-zero"),
                   (["127.0.0.1:abc"], "port-text"), ("127.0.0.1", "string"),
                   (["192.0.2.1", "192.0.2.1"], "duplicate"), (["192.0.2.1:53", "192.0.2.1"], "duplicate-port"),
                   ([], "empty"), ([""], "empty-string"), ([53], "integer"), (["[2001:db8::1]:53"], "ipv6-port"),
                   (["2001:db8::1"], "ipv6"), (["ns.example.net"], "hostname"), (["192.0.2.1:-1"], "port-negative"),
                   ([{"host": "192.0.2.1"}], "object")]
    for masters, label in b.rng.sample(bad_masters, 9):
        b.add(f"create-masters-{label}", "POST", "/v2/zones",
              body={"name": b.zone_name(), "type": "SECONDARY", "masters": masters})
    others = [({"name": b.zone_name(), "type": "SECONDARY"}, "no-masters"),
              ({"name": b.zone_name(), "type": "SECONDARY", "masters": [DEAD_MASTER], "email": "a@example.net"}, "email"),
              ({"name": b.zone_name(), "type": "SECONDARY", "masters": [DEAD_MASTER], "ttl": 600}, "ttl"),
              ({"name": b.zone_name(), "type": "SECONDARY", "masters": None}, "masters-null"),
              ({"name": b.zone_name(), "type": "TERTIARY", "masters": [DEAD_MASTER]}, "type-unknown")]
    for body, label in b.rng.sample(others, 3):
        b.add(f"create-{label}", "POST", "/v2/zones", body=body)
    b.add("get", path="/v2/zones/<<sec>>")
    patches = [({"email": "new@example.net"}, "email"), ({"ttl": 900}, "ttl"),
               ({"masters": ["192.0.2.9"]}, "masters"), ({"masters": "192.0.2.9"}, "masters-string"),
               ({"masters": ["192.0.2.9:70000"]}, "masters-bad-port"),
               ({"masters": ["192.0.2.9", "192.0.2.9"]}, "masters-duplicate"),
               ({"description": "sec"}, "description"), ({"masters": []}, "masters-empty"),
               ({"type": "PRIMARY"}, "type")]
    for body, label in b.rng.sample(patches, 6):
        b.add(f"patch-{label}", "PATCH", "/v2/zones/<<sec>>", body=body)
    b.add("xfr", "POST", "/v2/zones/<<sec>>/tasks/xfr")
    b.add("xfr-body", "POST", "/v2/zones/<<sec>>/tasks/xfr", body={})
    b.add("xfr-member", "POST", "/v2/zones/<<sec>>/tasks/xfr", hdrs=headers(b.owner, "member"))
    b.add("xfr-primary", "POST", "/v2/zones/<<primary>>/tasks/xfr")
    b.add("pool-move-member", "POST", "/v2/zones/<<sec>>/tasks/pool_move", hdrs=headers(b.owner, "member"),
          body={"pool_id": DEFAULT_POOL})
    b.add("pool-move-same-pool", "POST", "/v2/zones/<<primary>>/tasks/pool_move",
          body={"pool_id": DEFAULT_POOL})
    b.add("pool-move-unknown-pool", "POST", "/v2/zones/<<primary>>/tasks/pool_move",
          body={"pool_id": "7a1d4b71-5c2f-4e8e-9f6f-0a0b0c0d0e0f"})
    b.add("pool-move-no-body", "POST", "/v2/zones/<<primary>>/tasks/pool_move")
    needle = f"*{b.suffix}-{b.index}-*"
    for kind in ("SECONDARY", "PRIMARY", "secondary"):
        b.add(f"list-type-{kind}", path=f"/v2/zones?type={kind}&name={needle}")
    b.add("recordsets", path="/v2/zones/<<sec>>/recordsets")
    b.add("create-recordset", "POST", "/v2/zones/<<sec>>/recordsets",
          body={"name": f"www.{name}", "type": "A", "records": ["192.0.2.1"]})
    b.add("delete", "DELETE", "/v2/zones/<<sec>>")
    for step in b.steps:
        step.secondary = True


def shares(b: Builder) -> None:
    """Zone shares: create, duplicates, self, bad bodies, what the target project may do, unshare."""
    zone = b.zone("zone")
    b.add("create", "POST", "/v2/zones/<<zone>>/shares", body={"target_project_id": b.other},
          capture={"share": "id"})
    near = [({"target_project_id": b.other}, "duplicate"), ({"target_project_id": b.owner}, "self"),
            ({}, "empty"), ({"target_project_id": ""}, "empty-target"), ({"target_project_id": 5}, "integer"),
            ({"target_project_id": b.project("y"), "extra": 1}, "unknown-field"),
            ({"target_project_id": "p" * 256}, "target-too-long"), ({"target_project_id": None}, "target-null")]
    for body, label in b.rng.sample(near, 5):
        b.add(f"create-{label}", "POST", "/v2/zones/<<zone>>/shares", body=body)
    b.add("create-reader", "POST", "/v2/zones/<<zone>>/shares", hdrs=headers(b.owner, "reader"),
          body={"target_project_id": b.project("z")})
    b.add("create-by-target", "POST", "/v2/zones/<<zone>>/shares", hdrs=headers(b.other, "member"),
          body={"target_project_id": b.project("z")})
    b.add("create-unknown-zone", "POST", "/v2/zones/7a1d4b71-5c2f-4e8e-9f6f-0a0b0c0d0e0f/shares",
          body={"target_project_id": b.other})
    b.add("list", path="/v2/zones/<<zone>>/shares")
    b.add("list-filter", path=f"/v2/zones/<<zone>>/shares?target_project_id={b.other}")
    b.add("get", path="/v2/zones/<<zone>>/shares/<<share>>")
    b.add("get-by-target", path="/v2/zones/<<zone>>/shares/<<share>>", hdrs=headers(b.other, "member"))
    b.add("get-unknown", path="/v2/zones/<<zone>>/shares/7a1d4b71-5c2f-4e8e-9f6f-0a0b0c0d0e0f")
    b.add("target-sees-zone", path="/v2/zones/<<zone>>", hdrs=headers(b.other, "member"))
    b.add("target-lists-zones", path=f"/v2/zones?name=*{b.suffix}-{b.index}-*", hdrs=headers(b.other, "member"))
    b.add("target-creates-recordset", "POST", "/v2/zones/<<zone>>/recordsets", hdrs=headers(b.other, "member"),
          body={"name": f"t.{zone}", "type": "A", "records": ["192.0.2.3"]}, capture={"trs": "id"})
    b.add("target-updates-zone", "PATCH", "/v2/zones/<<zone>>", hdrs=headers(b.other, "member"), body={"ttl": 900})
    b.add("target-deletes-zone", "DELETE", "/v2/zones/<<zone>>", hdrs=headers(b.other, "member"))
    b.add("target-deletes-share", "DELETE", "/v2/zones/<<zone>>/shares/<<share>>", hdrs=headers(b.other, "member"))
    b.add("delete-zone-with-shares", "DELETE", "/v2/zones/<<zone>>")
    b.add("delete", "DELETE", "/v2/zones/<<zone>>/shares/<<share>>")
    b.add("delete-again", "DELETE", "/v2/zones/<<zone>>/shares/<<share>>")
    b.add("target-after-unshare", path="/v2/zones/<<zone>>", hdrs=headers(b.other, "member"))
    b.add("share-again", "POST", "/v2/zones/<<zone>>/shares", body={"target_project_id": b.other})
    b.add("delete-zone-delete-shares", "DELETE", "/v2/zones/<<zone>>", hdrs=headers(b.owner, delete_shares="true"))


def transfers(b: Builder) -> None:
    """Transfer requests and accepts: bodies, visibility by project, wrong key, the accept."""
    b.zone("zone")
    b.add("create", "POST", "/v2/zones/<<zone>>/tasks/transfer_requests",
          body={"target_project_id": b.other, "description": "to other"},
          capture={"treq": "id", "tkey": "key"})
    near = [({}, "empty"), ({"target_project_id": 5}, "target-integer"), ({"description": "d" * 161}, "description-161"),
            ({"key": "abc"}, "key"), ({"target_project_id": b.other, "zone_id": DEFAULT_POOL}, "zone-id")]
    for body, label in b.rng.sample(near, 3):
        b.add(f"create-{label}", "POST", "/v2/zones/<<zone>>/tasks/transfer_requests", body=body)
    b.add("list", path="/v2/zones/tasks/transfer_requests")
    b.add("get", path="/v2/zones/tasks/transfer_requests/<<treq>>")
    b.add("get-by-target", path="/v2/zones/tasks/transfer_requests/<<treq>>", hdrs=headers(b.other, "member"))
    b.add("get-by-third", path="/v2/zones/tasks/transfer_requests/<<treq>>", hdrs=headers(b.project("t"), "member"))
    b.add("patch", "PATCH", "/v2/zones/tasks/transfer_requests/<<treq>>", body={"description": "new"})
    b.add("patch-" + b.rng.choice(("key", "zone", "target")), "PATCH",
          "/v2/zones/tasks/transfer_requests/<<treq>>",
          body=b.rng.choice(({"key": "x"}, {"zone_id": DEFAULT_POOL}, {"target_project_id": 7})))
    b.wait("/v2/zones/<<zone>>")
    b.add("accept-wrong-key", "POST", "/v2/zones/tasks/transfer_accepts", hdrs=headers(b.other, "member"),
          body={"key": "WRONGKEY12345678", "zone_transfer_request_id": "<<treq>>"})
    b.add("accept-no-key", "POST", "/v2/zones/tasks/transfer_accepts", hdrs=headers(b.other, "member"),
          body={"zone_transfer_request_id": "<<treq>>"})
    b.add("accept-by-third", "POST", "/v2/zones/tasks/transfer_accepts", hdrs=headers(b.project("t"), "member"),
          body={"key": "<<tkey>>", "zone_transfer_request_id": "<<treq>>"})
    b.add("accept", "POST", "/v2/zones/tasks/transfer_accepts", hdrs=headers(b.other, "member"),
          body={"key": "<<tkey>>", "zone_transfer_request_id": "<<treq>>"}, capture={"tacc": "id"})
    b.wait("/v2/zones/tasks/transfer_accepts/<<tacc>>", hdrs=headers(b.other, "member"))
    b.add("get-accept", path="/v2/zones/tasks/transfer_accepts/<<tacc>>", hdrs=headers(b.other, "member"))
    b.add("list-accepts", path="/v2/zones/tasks/transfer_accepts", hdrs=headers(b.other, "admin"))
    b.add("zone-now-other", path="/v2/zones/<<zone>>", hdrs=headers(b.other, "member"))
    b.add("zone-gone-for-owner", path="/v2/zones/<<zone>>")
    b.add("accept-again", "POST", "/v2/zones/tasks/transfer_accepts", hdrs=headers(b.other, "member"),
          body={"key": "<<tkey>>", "zone_transfer_request_id": "<<treq>>"})
    b.zone("zone2")
    b.add("create-2", "POST", "/v2/zones/<<zone2>>/tasks/transfer_requests", body={}, capture={"treq2": "id"})
    b.add("delete", "DELETE", "/v2/zones/tasks/transfer_requests/<<treq2>>")
    b.add("delete-again", "DELETE", "/v2/zones/tasks/transfer_requests/<<treq2>>")


# Zone-file records whose imported form Designate keeps as dnspython writes them, though its
# API would refuse several typed in (quoted CAA values, flags 128, SVCB parameters, SRV owners).
IMPORTED_RECORDS = (
    "caa IN CAA 0 issue letsencrypt.org", 'caa IN CAA 0 issue "ca.org; policy=ev"',
    "caa IN CAA 128 issue ca.example.net", 'caa IN CAA 0 iodef "https://example.org/caa"',
    "srv IN SRV 1 2 3 t.example.", "_sip._tcp IN SRV 10 20 5060 t.example.",
    "svc IN SVCB 1 . alpn=h2,h3 port=443", "web IN HTTPS 1 . alpn=h2",
    'nap IN NAPTR 100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .',
    "cert IN CERT PKIX 1 RSASHA256 AAAA", 'multi IN TXT "a b" "c\\"d"',
    "fp IN SSHFP 1 1 0123456789abcdef0123456789abcdef01234567", 'spf IN SPF "v=spf1 -all"',
    "Mixed IN A 192.0.2.7", "ptr IN PTR WWW.Example.NET.",
)


def imports_exports(b: Builder) -> None:
    """A zone file in, the zone out: import, wait, export, and the export's content negotiation."""
    name = b.zone_name().lower()
    zone_file = (f"$ORIGIN {name}\n$TTL 300\n"
                 f"{name} IN SOA ns1.example.net. admin.example.net. 1 3600 600 86400 300\n"
                 f"{name} IN NS ns1.example.net.\n"
                 f"www IN A 192.0.2.{b.rng.randint(1, 250)}\nmail IN MX 10 www\n"
                 f'txt IN TXT "imported {b.word()}"\n'
                 + "".join(line + "\n" for line in b.rng.sample(IMPORTED_RECORDS, 3)))
    b.add("import", "POST", "/v2/zones/tasks/imports", hdrs={**headers(b.owner), "Content-Type": "text/dns"},
          raw=zone_file, capture={"imp": "id"})
    b.wait("/v2/zones/tasks/imports/<<imp>>")
    b.add("import-get", path="/v2/zones/tasks/imports/<<imp>>", capture={"zone": "zone_id"})
    b.add("import-recordsets", path="/v2/zones/<<zone>>/recordsets?sort_key=name&limit=100")
    bad = [("garbage here\n", "text/dns", "garbage"), (zone_file, "application/json", "json-type"),
           ("", "text/dns", "empty"), (zone_file.replace("SOA", "SOA x"), "text/dns", "bad-soa")]
    for text, ctype, label in b.rng.sample(bad, 2):
        # Designate parses in a thread that mutates the very object being answered: a bad
        # file shows ERROR or PENDING in the POST answer depending on which wins. Only the
        # answer's shape is compared there; the settled task is compared below.
        b.add(f"import-{label}", "POST", "/v2/zones/tasks/imports", shape_only=True,
              hdrs={**headers(b.owner), "Content-Type": ctype}, raw=text, capture={f"bad-{label}": "id"})
        b.wait(f"/v2/zones/tasks/imports/<<bad-{label}>>")
        b.add(f"import-{label}-settled", path=f"/v2/zones/tasks/imports/<<bad-{label}>>")
    b.add("import-list", path="/v2/zones/tasks/imports?zone_id=<<zone>>")
    b.wait("/v2/zones/<<zone>>")
    b.add("export", "POST", "/v2/zones/<<zone>>/tasks/export", capture={"exp": "id"})
    b.add("export-other-project", "POST", "/v2/zones/<<zone>>/tasks/export", hdrs=headers(b.other, "member"))
    b.wait("/v2/zones/tasks/exports/<<exp>>")
    b.add("export-get", path="/v2/zones/tasks/exports/<<exp>>")
    for accept in b.rng.sample(ZONE_FILE_TYPES, 4):
        hdrs = {**headers(b.owner), **({"Accept": accept} if accept else {})}
        b.add(f"export-file-accept-{accept or 'none'}", path="/v2/zones/tasks/exports/<<exp>>/export", hdrs=hdrs)
    b.add("export-file-other-project", path="/v2/zones/tasks/exports/<<exp>>/export",
          hdrs=headers(b.other, "member"))
    b.add("export-list", path="/v2/zones/tasks/exports")
    b.add("admin-export", path="/admin/zones/export/<<zone>>",
          hdrs={**headers(b.owner), "Accept": b.rng.choice(("text/dns", "*/*", "application/json"))})
    b.add("export-delete", "DELETE", "/v2/zones/tasks/exports/<<exp>>")
    b.add("export-get-deleted", path="/v2/zones/tasks/exports/<<exp>>")
    b.add("import-delete", "DELETE", "/v2/zones/tasks/imports/<<imp>>")
    b.add("import-delete-reader", "DELETE", "/v2/zones/tasks/imports/<<imp>>", hdrs=headers(b.owner, "reader"))


def admin(b: Builder) -> None:
    """Quotas (v2 and admin), limits, reports, pools, service statuses, TSIG keys, blacklists, TLDs."""
    project = b.owner
    b.add("quota-get", path=f"/v2/quotas/{project}")
    quota_bodies = [({"zones": b.rng.randint(1, 500)}, "zones"), ({"zones": -2}, "below-minus-one"),
                    ({"zones": "5"}, "string"), ({"zones": 2147483648}, "too-big"), ({"colour": 1}, "unknown"),
                    ({}, "empty"), ({"zone_records": -1}, "minus-one"), ({"zones": 1.5}, "float"),
                    ({"zones": None}, "null")]
    for body, label in b.rng.sample(quota_bodies, 5):
        b.add(f"quota-patch-{label}", "PATCH", f"/v2/quotas/{project}", body=body)
    b.add("quota-patch-member", "PATCH", f"/v2/quotas/{project}", hdrs=headers(project, "member"),
          body={"zones": 3})
    b.add("quota-get-member-other", path=f"/v2/quotas/{b.other}", hdrs=headers(project, "member"))
    b.add("quota-delete", "DELETE", f"/v2/quotas/{project}")
    b.add("admin-quota-get", path=f"/admin/quotas/{project}")
    admin_bodies = [({"quota": {"zones": 7}}, "zones"), ({"quota": {"zones": -5}}, "negative"),
                    ({"quota": {"zones": "x"}}, "string"), ({"zones": 7}, "unwrapped"), ({"quota": 5}, "not-object"),
                    ({"quota": {"colour": 1}}, "unknown"), ({}, "empty"), ({"quota": {}}, "empty-quota")]
    for body, label in b.rng.sample(admin_bodies, 5):
        b.add(f"admin-quota-patch-{label}", "PATCH", f"/admin/quotas/{project}", body=body)
    b.add("admin-quota-member", path=f"/admin/quotas/{project}", hdrs=headers(project, "member"))
    b.add("admin-quota-delete", "DELETE", f"/admin/quotas/{project}")
    b.add("limits", path="/v2/limits")
    for path in ("/admin/reports/counts", "/admin/reports/counts/zones", "/admin/reports/tenants",
                 "/v2/service_statuses"):
        b.add("shape" + path.replace("/", "-"), path=path, shape_only=True)
    b.add(f"admin-report-tenant", path=f"/admin/reports/tenants/{project}")
    b.add("pools", path="/v2/pools")
    b.add("pool", path=f"/v2/pools/{DEFAULT_POOL}")
    b.add("pool-member", path=f"/v2/pools/{DEFAULT_POOL}", hdrs=headers(project, "member"))
    key = f"dif-{b.suffix}-{b.index}-{b.word()}"
    b.add("tsig-create", "POST", "/v2/tsigkeys", capture={"tsig": "id"},
          body={"name": key, "algorithm": b.rng.choice(("hmac-sha256", "hmac-md5", "hmac-sha512")),
                "secret": "c2VjcmV0", "scope": "POOL", "resource_id": DEFAULT_POOL})
    b.cleanup.append(Step("cleanup", "DELETE", "/v2/tsigkeys/<<tsig>>", headers(project)))
    tsig_near = [({"name": key, "algorithm": "hmac-sha256", "secret": "x", "scope": "POOL",
                   "resource_id": DEFAULT_POOL}, "duplicate"),
                 ({"name": key + "b", "algorithm": "hmac-sha3", "secret": "x", "scope": "POOL",
                   "resource_id": DEFAULT_POOL}, "bad-algorithm"),
                 ({"name": key + "c", "algorithm": "hmac-sha256", "secret": "x", "scope": "ZONES",
                   "resource_id": DEFAULT_POOL}, "bad-scope"),
                 ({"name": key + "d", "algorithm": "hmac-sha256", "secret": "x", "scope": "POOL"}, "no-resource"),
                 ({"name": key + "e", "algorithm": "hmac-sha256", "scope": "POOL",
                   "resource_id": DEFAULT_POOL}, "no-secret")]
    for body, label in b.rng.sample(tsig_near, 3):
        b.add(f"tsig-create-{label}", "POST", "/v2/tsigkeys", body=body)
    b.add("tsig-get", path="/v2/tsigkeys/<<tsig>>")
    b.add("tsig-list", path=f"/v2/tsigkeys?name={key}")
    b.add("tsig-patch", "PATCH", "/v2/tsigkeys/<<tsig>>", body=b.rng.choice(
        ({"secret": "bmV3"}, {"algorithm": "hmac-sha1"}, {"scope": "bad"}, {"name": ""})))
    b.add("tsig-member", path="/v2/tsigkeys/<<tsig>>", hdrs=headers(project, "member"))
    b.add("tsig-delete", "DELETE", "/v2/tsigkeys/<<tsig>>")
    pattern = f"^blk-{b.suffix}-{b.index}\\.test\\.$"
    b.add("blacklist-create", "POST", "/v2/blacklists", body={"pattern": pattern, "description": "diff"},
          capture={"blk": "id"})
    b.cleanup.append(Step("cleanup", "DELETE", "/v2/blacklists/<<blk>>", headers(project)))
    b.add("blacklist-create-invalid", "POST", "/v2/blacklists",
          body=b.rng.choice(({"pattern": "["}, {"pattern": ""}, {}, {"pattern": pattern, "x": 1})))
    b.add("blacklisted-zone-member", "POST", "/v2/zones", hdrs=headers(project, "member"),
          body={"name": f"blk-{b.suffix}-{b.index}.test.", "email": "a@example.net"})
    b.add("blacklist-patch", "PATCH", "/v2/blacklists/<<blk>>", body={"description": "changed"})
    b.add("blacklist-delete", "DELETE", "/v2/blacklists/<<blk>>")
    # TLDs are global and a single one restricts everybody's zones: only refused creates here
    b.add("tlds", path="/v2/tlds")
    b.add("tld-create-invalid", "POST", "/v2/tlds",
          body=b.rng.choice(({"name": "bad..tld"}, {"name": ""}, {}, {"name": "a" * 64}, {"name": "-bad"})))
    b.add("tld-create-member", "POST", "/v2/tlds", hdrs=headers(project, "member"), body={"name": "x" * 64})
    b.add("sudo-create-zone", "POST", "/v2/zones", hdrs=headers(project, "admin", sudo=b.other),
          body={"name": b.zone_name(), "email": "a@example.net"}, capture={"sudo_zone": "id"})
    b.add("sudo-zone-as-other", path="/v2/zones/<<sudo_zone>>", hdrs=headers(b.other, "member"))
    b.add("sudo-member", "POST", "/v2/zones", hdrs=headers(project, "member", sudo=b.other),
          body={"name": b.zone_name(), "email": "a@example.net"})
    for path in ("/", "/v2", "/v2/"):
        b.add("root" + path.replace("/", "-"), path=path)


def route_sweep(b: Builder, routes: list[tuple[str, str]]) -> None:
    """Every route of our OpenAPI document with an unknown id and an empty body, as admin and reader."""
    unknown = "7a1d4b71-5c2f-4e8e-9f6f-0a0b0c0d0e0f"
    for method, path in routes:
        concrete = _fill(path, unknown)
        body = {} if method in ("POST", "PUT", "PATCH") else NO_BODY
        roles = b.rng.choice(("admin", "reader", "member"))
        b.add(f"route-{roles}:{method} {path}", method, concrete, headers(b.owner, roles), body,
              shape_only=path.startswith(("/admin/reports", "/v2/service_status")))


def _fill(path: str, value: str) -> str:
    out, depth, start = [], 0, 0
    for i, ch in enumerate(path):
        if ch == "{":
            out.append(path[start:i])
            depth = 1
        elif ch == "}" and depth:
            out.append(value)
            start, depth = i + 1, 0
    out.append(path[start:])
    return "".join(out)


SCENARIOS: dict[str, Callable[[Builder], None]] = {
    "zones": zones, "recordsets": recordsets, "secondary": secondary, "shares": shares,
    "transfers": transfers, "imports-exports": imports_exports, "admin": admin,
    "rdata-rules": rdata_rules}


