"""CNAME: corpus verdicts (rr-cname, recordsets), the one-record limit, alone at its name."""

import pytest

from openkeel_designate.domain import rrtypes

CNAME = rrtypes.get("CNAME")


@pytest.mark.parametrize(
    "data",
    ["www.rs.example.", "target.example.org.", "other.example.org.", "elsewhere.example.org.",
     "_svc.example.org.", "a-b.example.org."],
)
def test_accepts_and_renders(data):
    assert CNAME.is_valid(data)
    assert CNAME.render(data).to_text() == data


@pytest.mark.parametrize(
    "data",
    ["192.0.2.1", "bad_target!.example.org.", "target.example.org", "*.example.org.",
     "-a.example.org.", "a..example.org.", ".", "x" * 64 + ".org.", "a." * 127 + "b.", 5, None],
)
def test_rejects(data):
    assert not CNAME.is_valid(data)


def test_a_cname_recordset_holds_one_record():
    assert CNAME.max_records == 1
    assert rrtypes.get("A").max_records is None


def test_a_cname_is_alone_at_its_name():
    assert CNAME.exclusive
    assert not rrtypes.get("A").exclusive
