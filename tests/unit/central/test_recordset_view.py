"""The status and action a recordset shows: folded from its records' (no database)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from openkeel_designate.central.views import RecordSetView


def _view(*pairs: tuple[str, str]) -> RecordSetView:
    records = [SimpleNamespace(status=status, action=action) for status, action in pairs]
    return RecordSetView(SimpleNamespace(), records, "example.org.")


@pytest.mark.parametrize("statuses,expected", [
    ([], "ACTIVE"),
    (["ACTIVE", "ACTIVE"], "ACTIVE"),
    (["ACTIVE", "PENDING"], "PENDING"),
    (["PENDING", "ERROR", "ACTIVE"], "ERROR"),
    (["DELETED"], "DELETED"),
])
def test_status_is_the_worst_of_the_records(statuses, expected):
    assert _view(*[(s, "NONE") for s in statuses]).status == expected


@pytest.mark.parametrize("actions,expected", [
    ([], "NONE"),
    (["CREATE", "CREATE"], "CREATE"),
    (["DELETE", "DELETE"], "DELETE"),
    (["CREATE", "NONE"], "UPDATE"),
    (["NONE", "NONE"], "NONE"),
])
def test_action_is_create_or_delete_only_when_all_records_agree(actions, expected):
    assert _view(*[("PENDING", a) for a in actions]).action == expected
