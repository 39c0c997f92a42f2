"""TSIG keys as mdns and the built-in nameserver see them: a key plus the scope it opens
(spec/async.md §4).  Pure dnspython, so both services and storage's keyring share it.

A key of scope POOL lets its holder see that pool's zones, a key of scope ZONE one zone.  The
keyring is looked up while a message is parsed (dnspython calls ``lookup``), so an unknown key or
a bad signature fails the parse and the message is dropped without an answer.
"""

from __future__ import annotations

import base64
import binascii
import logging
from dataclasses import dataclass
from typing import Protocol

import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.tsig

log = logging.getLogger(__name__)

ALGORITHMS = {
    "hmac-md5": dns.tsig.HMAC_MD5,
    "hmac-sha1": dns.tsig.HMAC_SHA1,
    "hmac-sha224": dns.tsig.HMAC_SHA224,
    "hmac-sha256": dns.tsig.HMAC_SHA256,
    "hmac-sha384": dns.tsig.HMAC_SHA384,
    "hmac-sha512": dns.tsig.HMAC_SHA512,
}


@dataclass(frozen=True, slots=True)
class Scope:
    """What a query may see: the zones of ``pool_id`` (None: any pool), or only ``zone_id``."""

    pool_id: str | None
    zone_id: str | None = None


@dataclass(frozen=True, slots=True)
class KeyEntry:
    key: dns.tsig.Key
    scope: str  # POOL or ZONE
    resource_id: str

    def as_scope(self) -> Scope | None:
        if self.scope == "POOL":
            return Scope(pool_id=self.resource_id)
        if self.scope == "ZONE":
            return Scope(pool_id=None, zone_id=self.resource_id)
        return None


def make_entry(name: str, algorithm: str, secret: str, scope: str,
               resource_id: str) -> KeyEntry | None:
    """A keyring entry from a tsigkeys row; None (logged) for an unusable one."""
    try:
        key = dns.tsig.Key(dns.name.from_text(name), base64.b64decode(secret),
                           ALGORITHMS[algorithm.lower()])
    except (KeyError, ValueError, binascii.Error, dns.exception.DNSException) as exc:
        log.warning("TSIG key %s (%s) unusable, ignored: %r", name, algorithm, exc)
        return None
    return KeyEntry(key, scope.upper(), resource_id)


class Keyring(Protocol):
    """Name → entry, refreshed from its store by ``refresh`` (cheap when nothing is due)."""

    def lookup(self, name: dns.name.Name) -> KeyEntry | None: ...

    async def refresh(self, force: bool = False) -> None: ...


class StaticKeyring:
    """A fixed keyring (tests, or keys from configuration)."""

    def __init__(self, entries: list[KeyEntry]):
        self.entries = {entry.key.name: entry for entry in entries}

    def lookup(self, name: dns.name.Name) -> KeyEntry | None:
        return self.entries.get(name)

    async def refresh(self, force: bool = False) -> None:
        return None


async def parse_query(wire: bytes, keyring: Keyring | None) -> dns.message.Message | None:
    """The query in ``wire``, or None for anything malformed, unverifiable (TSIG) or not a query.

    Shared by mdns and the built-in nameserver, so both treat signatures alike.  Only a signed
    message touches the key store: the keyring is refreshed when due (at once, rate-limited,
    when the key was unknown or the signature failed, so a key created a moment ago works) and
    the message parsed again against it.  Unsigned queries never wait for the database, which
    keeps the built-in nameserver answering while it is down.  Without a keyring every signed
    message is dropped."""
    signed = False

    def key_of(_message: dns.message.Message, name: dns.name.Name) -> dns.tsig.Key | None:
        nonlocal signed
        signed = True
        entry = keyring.lookup(name) if keyring is not None else None
        return entry.key if entry is not None else None

    def parse() -> dns.message.Message | None:
        try:
            return dns.message.from_wire(wire, keyring=key_of)
        except Exception:
            return None

    message = parse()
    if signed:
        if keyring is None:
            return None
        await keyring.refresh(force=message is None)
        message = parse()
    if message is None or message.flags & dns.flags.QR:
        return None
    return message
