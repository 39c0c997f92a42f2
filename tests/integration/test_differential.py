"""The differential harness in CI: the real Designate 23.0.0 and ours, the same generated
request sequences, every answer compared (tests/differential/).

Fixed seed and a bounded count (about 400 requests, a minute or two), so every run sends the
same sequences with fresh names. The reference is used where it answers, else started from
/work/shared/ref; the test skips, naming what is missing, only when that fails. Every
difference fails the test unless it is a documented deviation (tests/differential/deviations.py,
mirrored in the README); ``bench/differential.py`` runs longer sequences from any seed.
"""

from __future__ import annotations

import os

import pytest

from differential import servers
from differential.session import run

pytestmark = pytest.mark.integration

SEED = int(os.environ.get("OKD_DIFF_SEED", "20261202"))
COUNT = int(os.environ.get("OKD_DIFF_COUNT", "400"))


@pytest.fixture(scope="module")
def reference_url():
    try:
        with servers.reference() as url:
            yield url
    except servers.ReferenceUnavailable as exc:
        pytest.skip(str(exc))


def test_same_answers_as_designate(reference_url: str) -> None:
    with servers.ours() as ours_url:
        summary = run(SEED, COUNT, reference_url, ours_url)
    lines = summary.lines()
    print("\n".join(lines[-40:]))
    assert summary.compared >= COUNT
    assert not summary.differ, "\n".join(r.describe() for r in summary.differ)
