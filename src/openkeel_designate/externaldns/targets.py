"""Names and record data between ExternalDNS's form and Designate's.

ExternalDNS writes host names without the final dot (``endpoint.NewEndpoint`` trims it from
CNAME, MX, NS… targets) except in SRV targets, which it requires to end with one; Designate
wants every host name absolute.  ``to_designate`` adds the dots, ``to_externaldns`` takes them
off again, and ``to_externaldns(to_designate(x))`` is what a target reads back after a write:
``POST /adjustendpoints`` answers exactly that, so ExternalDNS's plan compares like with like
and a second sync finds nothing to do.  TXT values pass unchanged (ExternalDNS's registry
records are written quoted and read back byte for byte); only a value Designate would refuse
unquoted (spaces, over 255 characters) is quoted, split into strings of at most 255.
"""

from __future__ import annotations

import re

#: types whose whole value is one host name
HOST_TYPES = {"CNAME", "NS", "PTR", "DNAME", "ANAME", "ALIAS"}
#: the host name's position in types with several fields: MX (pref host), SRV (prio w port host)
FIELD_HOSTS = {"MX": (2, 1), "SRV": (4, 3)}
TEXT_TYPES = {"TXT", "SPF"}
_PIECE = 250  # characters of text per quoted string (255 with quotes and escapes to spare)


def fqdn(dns_name: str) -> str:
    """An ExternalDNS name as Designate writes it: absolute, international labels as IDNA."""
    name = dns_name.strip().rstrip(".")
    if not name.isascii():
        name = ".".join(_ascii_label(label) for label in name.split("."))
    return name + "."


def _ascii_label(label: str) -> str:
    if label.isascii():
        return label
    try:
        return label.encode("idna").decode("ascii")
    except UnicodeError:
        return label  # left as it is: the name rule refuses it with its own message


def relative(name: str) -> str:
    """A Designate name as ExternalDNS writes one: no final dot."""
    return name[:-1] if name.endswith(".") else name


def to_designate(record_type: str, target: str) -> str:
    """One ExternalDNS target as Designate record data (host names absolute, text quoted)."""
    if record_type in HOST_TYPES:
        return _absolute(target.strip())
    if record_type in FIELD_HOSTS:
        count, position = FIELD_HOSTS[record_type]
        fields = target.split()
        if len(fields) == count:
            fields[position] = _absolute(fields[position])
            return " ".join(fields)
        return target  # not of the type's shape: the record rules answer why
    if record_type in TEXT_TYPES:
        return _text(target)
    return target


def to_externaldns(record_type: str, data: str) -> str:
    """Designate record data as ExternalDNS writes that target (SRV keeps its final dot)."""
    if record_type in HOST_TYPES:
        return relative(data)
    if record_type == "MX":
        fields = data.split()
        if len(fields) == 2:
            return f"{fields[0]} {relative(fields[1])}"
    return data


def _absolute(host: str) -> str:
    return host if host.endswith(".") or not host else host + "."


def _text(value: str) -> str:
    """Quoted only when Designate would refuse it bare: whitespace, or longer than one string."""
    quoted = len(value) >= 2 and value.startswith('"') and value.endswith('"')
    if quoted or not (re.search(r"\s", value) or len(value) > 255):
        return value
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    pieces, start = [], 0
    while start < len(escaped):
        end = min(start + _PIECE, len(escaped))
        if escaped[end - 1] == "\\" and not _escaped_at(escaped, end - 1):
            end -= 1  # never split a backslash from the character it escapes
        pieces.append(escaped[start:end])
        start = end
    return " ".join(f'"{piece}"' for piece in pieces)


def _escaped_at(text: str, index: int) -> bool:
    """Whether the character at ``index`` is itself escaped (an odd run of backslashes before)."""
    run = 0
    while index - run - 1 >= 0 and text[index - run - 1] == "\\":
        run += 1
    return run % 2 == 1


def in_filter(filters: list[str], dns_name: str) -> bool:
    """ExternalDNS's domain filter match: no filter matches all; ``example.org`` matches itself
    and every name below it; ``.example.org`` only the names below it."""
    if not filters:
        return True
    name = dns_name.lower().rstrip(".")
    for entry in filters:
        wanted = entry.strip().lower().rstrip(".")
        if not wanted:
            continue
        if wanted.startswith(".") and name.endswith(wanted):
            return True
        if name == wanted or name.endswith("." + wanted):
            return True
    return False
