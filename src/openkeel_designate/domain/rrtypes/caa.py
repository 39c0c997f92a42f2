"""CAA (RFC 8659): ``flags tag value`` with Designate's narrower reading.

Designate splits off the flags at the first space (0 or 1 only, read with ``int()``), then the
tag at the next space. Only three tags exist for it:

* ``issue`` / ``issuewild``: the value is split on ``;``; the first part is the issuer domain
  (it must pass the zone-name rule once a dot is appended, so the RFC's empty issuer ``";"``
  is refused), every further part must start with whitespace then ``key=value``;
* ``iodef``: a ``mailto:`` address or an ``http(s)://host/...`` URL whose host passes the
  zone-name rule.

Flags and tag without a value (``0 issue``) fail the whole body, not the one record, as in
Designate (see ``is_valid``). Values are written unquoted (``0 issue "ca.org"`` is refused). dnspython would read the ``;``
of ``ca.org; policy=ev`` as the start of a comment and silently drop the parameters, so the
rdata is built from the parsed fields instead of being parsed from the text. Imported zones
keep dnspython's quoted form (``0 issue "ca.org; policy=ev"``), which is parsed as such.
"""

from __future__ import annotations

import re

import dns.rdata
import dns.rdataclass
import dns.rdtypes.ANY.CAA

from openkeel_designate.domain import errors
from openkeel_designate.domain.rrtypes.base import DOMAIN_RE, RecordType, loose_int

KEY_VALUE_RE = re.compile(r"^\s[A-Za-z0-9]+=[A-Za-z0-9]+")
MAILTO_RE = re.compile(r"^mailto:[A-Za-z0-9_\-]+(\+[A-Za-z0-9_\-]+)?@.*")
HTTP_RE = re.compile(r"^http(s)?://.*/")


def _host_ok(host: str) -> bool:
    return bool(DOMAIN_RE.match(host + "."))


def _issue_ok(value: str) -> bool:
    issuer, *parameters = value.split(";")
    return _host_ok(issuer) and all(KEY_VALUE_RE.match(entry) for entry in parameters)


def _iodef_ok(value: str) -> bool:
    if MAILTO_RE.match(value):
        return _host_ok(value.split("@")[1])
    if HTTP_RE.match(value):
        return _host_ok(value.split("/")[2])
    return False


def _split(data: str) -> tuple[str, str, str] | None:
    flags, first_space, rest = data.partition(" ")
    tag, second_space, value = rest.partition(" ")
    if not first_space or not second_space:
        return None
    return flags, tag, value


class CAA(RecordType):
    name = "CAA"
    rank = 13

    def is_valid(self, data: str) -> bool:
        if not isinstance(data, str):
            return False
        flags, first_space, rest = data.partition(" ")
        if not first_space or not loose_int(flags, 0, 1):
            return False
        tag, second_space, value = rest.partition(" ")
        if not second_space:
            # Designate indexes the value after the tag without checking it is there: the
            # IndexError is not one its record parser collects, so the whole body is refused
            # with that error's text instead of a per-record "is not a 'CAA' Record".
            raise errors.InvalidObject(
                "Provided object is not valid. Got a IndexError error with message "
                "list index out of range")
        if tag in ("issue", "issuewild"):
            return _issue_ok(value)
        if tag == "iodef":
            return _iodef_ok(value)
        return False

    def render(self, data: str) -> dns.rdata.Rdata:
        fields = _split(data)
        if fields is None:
            raise ValueError(f"not a CAA record: {data!r}")
        flags, tag, value = fields
        if value.startswith('"'):  # zone file form, as imports store it: dnspython reads it
            return dns.rdata.from_text(dns.rdataclass.IN, self.rdatatype(), data)
        return dns.rdtypes.ANY.CAA.CAA(
            dns.rdataclass.IN, self.rdatatype(), int(flags), tag.encode(), value.encode()
        )


TYPE = CAA()
