"""Links point where ``request.url`` says the request came (``listing.base_url``), parsed once
per distinct host: the cached origin must be the scheme and netloc Starlette reads from the
same scope, whatever the Host header holds."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from starlette.requests import Request

from openkeel_designate.api import listing


def request(scheme: str, host: bytes | None, server: tuple[str, int] | list | None) -> Request:
    headers = [] if host is None else [(b"host", host)]
    api = SimpleNamespace(enable_host_header=True, api_base_uri="http://unused/")
    app = SimpleNamespace(state=SimpleNamespace(services=SimpleNamespace(
        conf={"service:api": api})))
    return Request({"type": "http", "scheme": scheme, "server": server, "path": "/v2/zones",
                    "query_string": b"limit=1", "headers": headers, "method": "GET", "app": app})


@pytest.mark.parametrize("scheme,host,server", [
    ("http", b"api.example:9001", ("127.0.0.1", 9001)),
    ("https", b"api.example", ("127.0.0.1", 443)),
    ("http", None, ("127.0.0.1", 9001)),
    ("http", None, ("127.0.0.1", 80)),
    ("https", None, ["::1", 8443]),  # a list, as some servers put it
    ("http", b"[::1]:9001", ("::1", 9001)),
    ("http", b"api:notaport", ("127.0.0.1", 9001)),
    ("http", b"a/b?c#d", ("127.0.0.1", 9001)),
    ("http", b"\xe9t\xe9.example", ("127.0.0.1", 9001)),
    ("http", b"", ("127.0.0.1", 9001)),
])
def test_the_origin_is_the_one_starlette_reads(scheme: str, host: bytes | None, server) -> None:
    url = request(scheme, host, server).url
    assert listing.base_url(request(scheme, host, server)) == f"{url.scheme}://{url.netloc}"


def test_api_base_uri_when_host_headers_are_off() -> None:
    one = request("http", b"api.example", ("127.0.0.1", 80))
    one.app.state.services.conf["service:api"] = SimpleNamespace(
        enable_host_header=False, api_base_uri="https://dns.example/")
    assert listing.base_url(one) == "https://dns.example"
