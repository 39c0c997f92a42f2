"""One real Keystone for the whole session (it takes ~20 s to set up), its users and tokens,
and a DNS API server validating tokens against it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from support.keystone import KeystoneProcess
from support.server import ServerProcess

#: Short on purpose: the revocation test waits for it.
TOKEN_CACHE_TIME = 2


@dataclass
class Caller:
    """A Keystone user with a project-scoped token."""

    name: str
    project_id: str
    token: str

    def headers(self, **extra: str) -> dict[str, str]:
        return {"X-Auth-Token": self.token, "Content-Type": "application/json",
                "Accept": "application/json", **extra}


@pytest.fixture(scope="session")
def keystone() -> Iterator[KeystoneProcess]:
    with KeystoneProcess() as ks:
        yield ks


def _caller(ks: KeystoneProcess, name: str, project: str, role: str) -> Caller:
    user = ks.create_user(name, project=project, roles=(role,))
    assert user.project_id is not None
    return Caller(name, user.project_id, ks.token(name, project=project))


@pytest.fixture(scope="session")
def alice(keystone: KeystoneProcess) -> Caller:
    """member of dns-a (Keystone's implication adds reader to the token)."""
    return _caller(keystone, "alice", "dns-a", "member")


@pytest.fixture(scope="session")
def bob(keystone: KeystoneProcess) -> Caller:
    """member of dns-b."""
    return _caller(keystone, "bob", "dns-b", "member")


@pytest.fixture(scope="session")
def rita(keystone: KeystoneProcess) -> Caller:
    """reader only, of dns-a."""
    return _caller(keystone, "rita", "dns-a", "reader")


@pytest.fixture(scope="session")
def adam(keystone: KeystoneProcess) -> Caller:
    """admin of dns-ops."""
    return _caller(keystone, "adam", "dns-ops", "admin")


@pytest.fixture(scope="session")
def token_cache_time() -> int:
    return TOKEN_CACHE_TIME


@pytest.fixture(scope="module")
def server(keystone: KeystoneProcess) -> Iterator[ServerProcess]:
    """The whole ``serve`` with ``auth_strategy = keystone``, as an operator would run it."""
    options = {"service:api": {"auth_strategy": "keystone"},
               "keystone_authtoken": keystone.authtoken_options(token_cache_time=TOKEN_CACHE_TIME)}
    with ServerProcess(options=options) as srv:
        yield srv
