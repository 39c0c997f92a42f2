"""What may be asked of ``POST /v2/zones/{id}/dnssec/rollover``: which key, start or complete;
everything else is one 400 listing each problem."""

from __future__ import annotations

import pytest

from openkeel_designate.api.schemas.dnssec import parse_rollover
from openkeel_designate.domain import errors


def test_defaults_are_a_zsk_rollover_as_before_the_body_existed():
    assert parse_rollover({}) == {"key": "ZSK", "action": "start"}
    assert parse_rollover({"key": "KSK"}) == {"key": "KSK", "action": "start"}
    assert parse_rollover({"key": "KSK", "action": "complete"}) == {"key": "KSK",
                                                                    "action": "complete"}


@pytest.mark.parametrize("body, paths", [
    ([], [[]]),
    ({"key": "CSK"}, [["key"]]),
    ({"key": "ksk"}, [["key"]]),
    ({"action": "finish", "extra": 1}, [["extra"], ["action"]]),
    ({"action": "complete"}, [["action"]]),  # a ZSK's old key goes by itself
])
def test_bad_bodies_are_one_400(body, paths):
    with pytest.raises(errors.InvalidDnssecSetting) as caught:
        parse_rollover(body)
    assert caught.value.code == 400
    assert [problem["path"] for problem in caught.value.errors] == paths
