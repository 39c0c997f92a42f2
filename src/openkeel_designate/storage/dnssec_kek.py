"""The key-encryption key that seals DNSSEC private keys at rest.

Taken from ``[dnssec] key_encryption_key`` (base64 of 16, 24 or 32 random bytes).  Unset, the
embedded default still works: a key is generated once into the state directory (mode 0600) and
re-read from there — fine for one host; processes on several hosts sharing a database must all
be given the same key in their configuration.
"""

from __future__ import annotations

import base64
import logging
import os

from oslo_config import cfg

from openkeel_designate.domain.dnssec import keys as dnssec_keys

log = logging.getLogger(__name__)

FILE_NAME = "dnssec-kek"
_loaded: dict[str, bytes] = {}


def load(conf: cfg.ConfigOpts) -> bytes:
    """The configured key, else the state directory's (created on first use)."""
    configured = conf.dnssec.key_encryption_key
    if configured:
        return dnssec_keys.parse_kek(configured)
    path = os.path.join(os.path.abspath(conf.state_path), FILE_NAME)
    kek = _loaded.get(path)
    if kek is None:
        kek = _loaded[path] = _read_or_create(path)
    return kek


def _read_or_create(path: str) -> bytes:
    """Written whole under a temporary name, then linked into place: two processes starting
    together never read a half-written key, and the first one's key wins."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if not os.path.exists(path):
        kek = dnssec_keys.new_kek()
        temporary = f"{path}.{os.getpid()}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(base64.b64encode(kek).decode() + "\n")
        try:
            os.link(temporary, path)
            _warn_generated(path)
        except FileExistsError:
            pass
        finally:
            os.unlink(temporary)
    with open(path, encoding="ascii") as handle:
        return dnssec_keys.parse_kek(handle.read().strip())


def _warn_generated(path: str) -> None:
    log.warning("[dnssec] key_encryption_key is not set: generated one into %s (mode 0600); "
                "set it in the configuration of every process sharing this database", path)
