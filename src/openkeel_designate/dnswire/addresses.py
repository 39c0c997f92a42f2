"""Client addresses as the DNS listeners judge them: ACLs, rate-limit exemptions.

One place for two details every such check needs: an operator's list is read strictly (a typo
stops the server at start instead of silently matching nobody), and a peer address is compared
as the host it is (an IPv6 zone index dropped, an IPv4-mapped IPv6 address seen as IPv4, as
dual-stack sockets report IPv4 clients).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(entries: Iterable[str], option: str) -> list[Network]:
    """Addresses or networks (``192.0.2.10``, ``10.0.0.0/8``) as networks; ValueError names
    ``option`` and the bad entry."""
    out = []
    for entry in entries:
        text = entry.strip()
        if not text:
            continue
        try:
            out.append(ipaddress.ip_network(text, strict=False))
        except ValueError as exc:
            raise ValueError(f"{option}: {text!r} is not an IP address or network") from exc
    return out


def parse(peer: str) -> Address | None:
    """The host address of a peer as a socket reports it; None when it is not one."""
    try:
        address = ipaddress.ip_address(peer.split("%")[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def within(peer: str, nets: Iterable[Network]) -> bool:
    """Whether the peer address is in one of ``nets``."""
    address = parse(peer)
    return address is not None and any(address in net for net in nets)


def host_networks(hosts: Iterable[str]) -> list[Network]:
    """Configured host addresses (pools.yaml, listen options) as single-address networks.

    A wildcard (0.0.0.0, ::) stands for this host, which reaches itself over loopback; host
    names are skipped, as resolving them would put DNS lookups on the event loop."""
    found: list[Network] = []
    for host in hosts:
        address = parse(host)
        if address is None:
            continue
        if address.is_unspecified:
            address = ipaddress.ip_address("127.0.0.1" if address.version == 4 else "::1")
        found.append(ipaddress.ip_network(address))
    return found
