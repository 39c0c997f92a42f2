"""Zone signing keys: generation, their DNSKEY/DS/CDS forms, and encryption at rest.

A private key never leaves the service in clear: it is kept as PKCS#8 PEM sealed with AES-GCM
under the operator's key-encryption key (``[dnssec] key_encryption_key``), the zone id bound as
associated data so a sealed key copied to another zone's row does not open.

``cryptography`` (and ``dns.dnssec``, which imports it) are imported in the functions that use
them: together about 10 MB resident, while every process imports this module for its constants
(the API's schemas, central) and most never sign a zone.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass

import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype

ALGORITHMS = {"ECDSAP256SHA256": 13, "ED25519": 15}
DEFAULT_ALGORITHM = "ECDSAP256SHA256"
SEP_FLAGS = 257  # ZONE + SEP: a key-signing (here: combined signing) key
ZONE_FLAGS = 256
_NONCE = 12


@dataclass(frozen=True, slots=True)
class SigningKey:
    """A usable key: the private half and the DNSKEY it publishes."""

    private_key: object
    dnskey: dns.rdata.Rdata

    @property
    def key_tag(self) -> int:
        import dns.dnssec

        return dns.dnssec.key_id(self.dnskey)

    @property
    def flags(self) -> int:
        return int(self.dnskey.flags)


def generate(algorithm: str) -> object:
    """A fresh private key for the algorithm's mnemonic (``ALGORITHMS``)."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519

    if algorithm == "ED25519":
        return ed25519.Ed25519PrivateKey.generate()
    if algorithm == "ECDSAP256SHA256":
        return ec.generate_private_key(ec.SECP256R1())
    raise ValueError(f"unsupported DNSSEC algorithm {algorithm!r}")


def dnskey_of(private_key: object, algorithm: str, flags: int = SEP_FLAGS) -> dns.rdata.Rdata:
    import dns.dnssec

    return dns.dnssec.make_dnskey(private_key.public_key(),  # type: ignore[attr-defined]
                                  ALGORITHMS[algorithm], flags)


def public_key_b64(dnskey: dns.rdata.Rdata) -> str:
    return base64.b64encode(dnskey.key).decode()


def ds_of(zone: dns.name.Name, dnskey: dns.rdata.Rdata) -> dns.rdata.Rdata:
    """The DS (SHA-256, RFC 4509) the parent publishes for this key."""
    import dns.dnssec

    return dns.dnssec.make_ds(zone, dnskey, "SHA256")


def cds_of(ds: dns.rdata.Rdata) -> dns.rdata.Rdata:
    """The CDS (RFC 7344) twin of a DS: same rdata, another type."""
    return dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.CDS, ds.to_text())


def cdnskey_of(dnskey: dns.rdata.Rdata) -> dns.rdata.Rdata:
    return dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.CDNSKEY, dnskey.to_text())


def seal(kek: bytes, private_key: object, zone_id: str) -> str:
    """The private key as PEM, AES-GCM-sealed under ``kek``, base64 text (nonce first)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    pem = private_key.private_bytes(  # type: ignore[attr-defined]
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption())
    nonce = os.urandom(_NONCE)
    return base64.b64encode(nonce + AESGCM(kek).encrypt(nonce, pem, zone_id.encode())).decode()


def unseal(kek: bytes, sealed: str, zone_id: str) -> object:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    raw = base64.b64decode(sealed)
    pem = AESGCM(kek).decrypt(raw[:_NONCE], raw[_NONCE:], zone_id.encode())
    return serialization.load_pem_private_key(pem, password=None)


def parse_kek(text: str) -> bytes:
    """The key-encryption key from its base64 text: 16, 24 or 32 bytes (AES-128/192/256)."""
    kek = base64.b64decode(text, validate=True)
    if len(kek) not in (16, 24, 32):
        raise ValueError("[dnssec] key_encryption_key must be 16, 24 or 32 bytes in base64")
    return kek


def new_kek() -> bytes:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return AESGCM.generate_key(bit_length=256)


def open_key(kek: bytes, sealed: str, zone_id: str, flags: int, algorithm: int) -> SigningKey:
    """A stored key made usable: unsealed, with the DNSKEY it publishes."""
    import dns.dnssec

    private = unseal(kek, sealed, zone_id)
    return SigningKey(private, dns.dnssec.make_dnskey(
        private.public_key(), algorithm, flags))  # type: ignore[attr-defined]
