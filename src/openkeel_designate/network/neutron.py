"""Neutron's floating IPs, asked with the caller's own token.

Designate never keeps a copy of Neutron's data: every reverse-DNS read or write lists the
caller's floating IPs again, so ownership is always Neutron's current answer.  Endpoints come
from ``[network_api:neutron] endpoints`` (``region|url``) or, failing that, from the ``network``
entries of the caller's service catalog.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from oslo_config import cfg

from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext

if TYPE_CHECKING:
    import httpx

LOG = logging.getLogger(__name__)
GROUP = "network_api:neutron"


class NetworkEndpointNotFound(errors.DesignateError):
    """The catalog has no ``network`` endpoint (for the asked region)."""

    code, type = 403, "no_endpoint"


@dataclass(frozen=True)
class FloatingIP:
    region: str
    id: str
    address: str


def endpoints(conf: cfg.ConfigOpts, ctx: RequestContext,
              region: str | None = None) -> list[tuple[str, str]]:
    """``(region, url)`` pairs to ask; configured ones win over the caller's catalog."""
    opts = conf[GROUP]
    if opts.endpoints:
        found = [_configured(entry) for entry in opts.endpoints]
    else:
        if not ctx.service_catalog:
            raise errors.ConfigurationError("No service_catalog and no configured endpoints")
        found = ctx.endpoints("network", opts.endpoint_type)
    if region is not None:
        found = [(r, url) for r, url in found if r == region]
    if not found:
        raise NetworkEndpointNotFound()
    return found


def _configured(entry: str) -> tuple[str, str]:
    region, sep, url = entry.partition("|")
    if not sep or not url:
        raise errors.ConfigurationError(f"Invalid Neutron endpoint {entry!r}: expected region|url")
    return region.strip(), url.strip()


async def list_floatingips(conf: cfg.ConfigOpts, ctx: RequestContext,
                           region: str | None = None) -> dict[tuple[str, str], FloatingIP]:
    """The caller's floating IPs on every endpoint, keyed by ``(region, id)``, in Neutron's order.

    Any endpoint failing fails the whole listing (504): a partial answer would make PTRs of the
    missing region look unowned and get them invalidated.
    """
    targets = endpoints(conf, ctx, region)
    async with _client(conf) as http:
        answers = await asyncio.gather(*(_list_one(http, ctx, r, url) for r, url in targets))
    return {(fip.region, fip.id): fip for answer in answers for fip in answer}


def _client(conf: cfg.ConfigOpts) -> httpx.AsyncClient:
    """httpx is imported here, on the first Neutron call: it brings ~6 MB of modules (and rich,
    when installed) that an embedded server without Neutron never needs."""
    import httpx

    opts = conf[GROUP]
    verify: bool | str = not opts.insecure
    if verify and opts.ca_certificates_file:
        verify = opts.ca_certificates_file
    return httpx.AsyncClient(timeout=opts.timeout, verify=verify,
                             cert=opts.client_certificate_file or None)


async def _list_one(http: httpx.AsyncClient, ctx: RequestContext, region: str,
                    url: str) -> list[FloatingIP]:
    import httpx  # loaded by _client already

    headers = {"Accept": "application/json"}
    if ctx.auth_token:
        headers["X-Auth-Token"] = ctx.auth_token
    next_url: str | None = f"{url.rstrip('/')}/v2.0/floatingips"
    params: dict[str, str] | None = {"project_id": ctx.project_id or ""}
    found: list[FloatingIP] = []
    while next_url:
        try:
            response = await http.get(next_url, params=params, headers=headers)
            response.raise_for_status()
            body = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            LOG.warning("Neutron floating IP listing failed in %s (%s): %s", region, url, exc)
            raise errors.NeutronCommunicationFailure(
                f"Failed to reach Neutron in {region}: {exc}") from exc
        found += [FloatingIP(region, fip["id"], fip["floating_ip_address"])
                  for fip in body.get("floatingips", []) if _owned(fip, ctx.project_id)]
        next_url, params = _next_link(body), None
    return found


def _owned(fip: dict[str, Any], project_id: str | None) -> bool:
    """Neutron already filters on ``project_id``; an admin token that ignores the filter must
    still not hand another project's floating IP to the caller."""
    owner = fip.get("project_id", fip.get("tenant_id"))
    return owner is None or owner == project_id


def _next_link(body: dict[str, Any]) -> str | None:
    for link in body.get("floatingips_links", []):
        if link.get("rel") == "next":
            return link.get("href")
    return None
