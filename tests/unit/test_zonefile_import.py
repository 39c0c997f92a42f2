"""The zone file reader alone (no I/O): quotas bound it before ``$GENERATE`` expands and while
it reads; what it returns and refuses (the API-level cases are in
tests/integration/api/test_zone_imports.py).
"""

from __future__ import annotations

import pickle

import dns.name
import dns.zonefile
import pytest

from openkeel_designate.central import zonefile_import as zi

HEAD = ("$ORIGIN bound.example.\n$TTL 300\n"
        "@ IN SOA ns1.example.org. hostmaster.example.org. 1 3600 600 86400 300\n"
        "@ IN NS ns1.example.org.\n@ IN NS ns2.example.org.\n")
TYPES = ("A", "AAAA", "TXT", "NS", "MX", "SOA")


def rules(records: int = 500, recordsets: int = 500, per_set: int = 20) -> zi.Rules:
    return zi.Rules(min_ttl=0, supported_types=TYPES,
                    limits=zi.Limits(zone_records=records, zone_recordsets=recordsets,
                                     recordset_records=per_set))


@pytest.fixture
def expansions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every ``$GENERATE`` line dnspython expands (its template substitution, called twice a line)."""
    seen: list[str] = []
    original = dns.zonefile._generate_text

    def spy(template: str, counter: int) -> str:
        seen.append(template)
        return original(template, counter)

    monkeypatch.setattr(dns.zonefile, "_generate_text", spy)
    return seen


def test_generate_beyond_the_quota_is_refused_before_expanding(expansions: list[str]) -> None:
    with pytest.raises(zi.ZoneFileError) as refused:
        zi.parse(HEAD + "$GENERATE 1-100000 host$ IN A 192.0.2.1\n", rules())
    assert str(refused.value) == zi.OVER_QUOTA
    assert expansions == []


def test_generate_within_the_quota_expands(expansions: list[str]) -> None:
    parsed = zi.parse(HEAD + "$GENERATE 1-10 host$ IN A 192.0.2.$\n", rules(records=10))
    assert [rs.name for rs in parsed.recordsets] == [f"host{i}.bound.example." for i in range(1, 11)]
    assert parsed.recordsets[2].records == ["192.0.2.3"]
    assert len(expansions) == 20


def test_generate_step_counts_only_its_steps() -> None:
    parsed = zi.parse(HEAD + "$GENERATE 0-1000/100 h$ IN A 192.0.2.1\n", rules(records=11))
    assert len(parsed.recordsets) == 11


def test_max_records_bounds_unlimited_quotas(expansions: list[str]) -> None:
    text = HEAD + f"$GENERATE 1-{zi.MAX_RECORDS + 1} h$ IN A 192.0.2.1\n"
    with pytest.raises(zi.ZoneFileError) as refused:
        zi.parse(text, rules(-1, -1, -1))
    assert str(refused.value) == zi.TOO_MANY
    assert expansions == []


def test_reading_stops_at_the_first_record_beyond_the_quota(
        monkeypatch: pytest.MonkeyPatch) -> None:
    stored: list[int] = []
    original = zi._Budget.put

    def counting(self: zi._Budget, new_set: bool, added: int, size: int) -> None:
        stored.append(size)
        original(self, new_set, added, size)

    monkeypatch.setattr(zi._Budget, "put", counting)
    lines = "".join(f"h{i} IN A 192.0.2.1\n" for i in range(5000))
    with pytest.raises(zi.ZoneFileError, match="Quota exceeded during zone import."):
        zi.parse(HEAD + lines, rules(records=100, recordsets=-1))
    assert len(stored) == 101  # the apex SOA and NS are not counted; the 101st record stops it


@pytest.mark.parametrize("limits,body", [
    ((-1, 5, -1), "".join(f"h{i} IN A 192.0.2.1\n" for i in range(4))),  # 4 + SOA + NS > 5
    ((-1, -1, 3), "".join(f"m IN A 192.0.2.{i}\n" for i in range(1, 5))),
    ((3, -1, -1), "a IN A 192.0.2.1\na IN A 192.0.2.2\nb IN TXT x\nc IN TXT y\n"),
])
def test_each_quota_refuses(limits: tuple[int, int, int], body: str) -> None:
    with pytest.raises(zi.ZoneFileError, match="Quota exceeded"):
        zi.parse(HEAD + body, rules(*limits))


def test_duplicates_and_case_count_once() -> None:
    body = "WWW IN A 192.0.2.1\nwww IN A 192.0.2.1\nwww IN A 192.0.2.2\nWww IN A 192.0.2.2\n"
    parsed = zi.parse(HEAD + body, rules(records=2, recordsets=3, per_set=2))
    assert parsed.recordsets == [zi.ParsedRecordSet("WWW.bound.example.", "A", 300,
                                                    ["192.0.2.1", "192.0.2.2"])]


def test_result_and_errors_survive_pickling() -> None:
    """They cross from the worker process to the server."""
    parsed = zi.parse(HEAD + "www IN A 192.0.2.1\n", rules())
    assert pickle.loads(pickle.dumps(parsed)) == parsed
    error = pickle.loads(pickle.dumps(zi.ZoneFileError(zi.MALFORMED)))
    assert isinstance(error, zi.ZoneFileError) and str(error) == zi.MALFORMED


@pytest.mark.parametrize("rname,email", [
    ("host\\.master.example.org.", "host.master@example.org"),
    ("hostmaster.example.org.", "hostmaster@example.org"),
    ("h.", "h"),
    ("a\\032b.example.org.", "a\\032b@example.org"),
])
def test_mailbox_to_email(rname: str, email: str) -> None:
    assert zi.mailbox_to_email(dns.name.from_text(rname).to_text(omit_final_dot=True)) == email


DS_LINE = "IN DS 12345 13 2 " + "ab" * 32 + "\n"


@pytest.mark.parametrize(("body", "problem"), [
    ("sub IN NS ns.elsewhere.example.\nSUB " + DS_LINE, None),
    ("www " + DS_LINE, "DS recordsets may only be created at a delegation point"),
    ("@ " + DS_LINE, "DS recordsets may not be created at the zone apex"),
])
def test_ds_stands_only_at_delegation_points(body: str, problem: str | None) -> None:
    listed = zi.Rules(min_ttl=0, supported_types=(*TYPES, "DS"))
    if problem is None:
        parsed = zi.parse(HEAD + body, listed)
        assert [(r.name.lower(), r.type) for r in parsed.recordsets if r.type == "DS"] == [
            ("sub.bound.example.", "DS")]
    else:
        with pytest.raises(zi.ZoneFileError, match=problem):
            zi.parse(HEAD + body, listed)
    with pytest.raises(zi.ZoneFileError, match="An undefined error occurred"):
        zi.parse(HEAD + body, rules())  # DS unlisted: an unknown type, as in Designate
