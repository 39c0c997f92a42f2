"""CAA (RFC 8659): ``flags tag value`` with Designate's narrower reading.

Designate splits off the flags at the first space (0 or 1 only, read with ``int()``), then the
tag at the next space. Only three tags exist for it:

* ``issue`` / ``issuewild``: the value is split on ``;``; the first part is the issuer domain
  (it must pass the zone-name rule once a dot is appended, so the RFC's empty issuer ``";"``
  is refused), every further part must start with whitespace then ``key=value``;
* ``iodef``: a ``mailto:`` address or an ``http(s)://host/...`` URL whose host passes the
  zone-name rule.

Values are written unquoted (``0 issue "ca.org"`` is refused). dnspython would read the ``;``
of ``ca.org; policy=ev`` as the start of a comment and silently drop the parameters, so the
rdata is built from the parsed fields instead of being parsed from the text.
"""

from __future__ import annotations

import re

import dns.rdata
import dns.rdataclass
import dns.rdtypes.ANY.CAA

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

    def is_valid(self, data: str) -> bool:
        if not isinstance(data, str):
            return False
        fields = _split(data)
        if fields is None:
            return False
        flags, tag, value = fields
        if not loose_int(flags, 0, 1):
            return False
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
        return dns.rdtypes.ANY.CAA.CAA(
            dns.rdataclass.IN, self.rdatatype(), int(flags), tag.encode(), value.encode()
        )


TYPE = CAA()
