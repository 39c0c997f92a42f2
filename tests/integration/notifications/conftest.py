"""A notification topic of each test's own, its queues deleted afterwards."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from support.broker import delete_queues


@pytest.fixture
def topic() -> Iterator[str]:
    name = f"okd_notify_{secrets.token_hex(4)}"
    yield name
    delete_queues(name)
