"""Backend for target type ``pdns4``: a PowerDNS 4 Authoritative Server, through its HTTP API.

The zone is created on PowerDNS as a *slave* zone whose masters are our mdns; PowerDNS then
pulls the content by AXFR after the worker's NOTIFY.  The calls are exactly Designate's, so an
operator can point an existing pools.yaml at this project: create = GET (and DELETE a leftover)
then POST; delete = GET then DELETE; update = nothing (the NOTIFY does the work).

Target options: ``api_endpoint`` (only scheme and host:port are used), ``api_token`` (sent as
``X-API-Key``), ``tsigkey_name`` (becomes ``slave_tsig_key_ids``), ``api_ca_cert`` (a CA file
for https; unset, ``changeme`` or a missing file disables verification, as in Designate), and
ours: ``api_timeout`` (seconds per HTTP request, default 10) and ``axfr_retrieve`` (default
true).  PowerDNS acts on a NOTIFY only when its secondary loop next wakes, which it does once a
second, so a change would take about a second to be served; so create and update also call
``PUT .../zones/{zone}/axfr-retrieve``, which starts the transfer at once (zone POST -> ACTIVE
about 0.1 s instead of 1 s, see bench/README.md).  It is best effort: the NOTIFY still follows.
``axfr_retrieve: false`` gives back Designate's exact calls (an update then calls nothing), for
an operator whose PowerDNS API token may not start transfers.

Signed zones (DNSSEC on): PowerDNS serves the RRSIGs and NSEC/NSEC3 records it transferred only
when it keeps the zone as *presigned*.  Its API refuses to set that (HTTP 422 for a secondary),
but PowerDNS sets the zone's ``PRESIGNED`` metadata itself when an AXFR brings signatures —
provided its backend stores DNSSEC data (``gsqlite3-dnssec=yes``, ``gmysql-dnssec=yes``, …).
Without it PowerDNS silently drops them and serves the zone unsigned, which validators behind a
DS take for bogus; so once the new serial is served, ``check_served`` reads that metadata and
fails the target permanently when it is missing.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import ssl
from urllib.parse import quote, urlsplit

import httpx

from openkeel_designate.backends.base import (
    Backend,
    BackendError,
    PermanentBackendError,
    Target,
    TransientBackendError,
    ZoneRef,
)
from openkeel_designate.domain.serial import serial_ge

LOG = logging.getLogger(__name__)
DEFAULT_TIMEOUT = 10.0
ZONES_PATH = "/api/v1/servers/localhost/zones"


def master_address(host: str, port: int) -> str:
    """PowerDNS wants ``ip:port``, with IPv6 addresses in brackets."""
    try:
        if ipaddress.ip_address(host).version == 6:
            return f"[{host}]:{port}"
    except ValueError:
        pass
    return f"{host}:{port}"


def _flag(value: object) -> bool:
    """Options come from YAML or the database as bools or strings."""
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def _verify(ca_cert: object) -> ssl.SSLContext | bool:
    """Designate verifies TLS only when a real CA file is configured; keep that behaviour."""
    path = str(ca_cert or "")
    if not path or path == "changeme" or not os.path.isfile(path):
        return False
    return ssl.create_default_context(cafile=path)


class Pdns4Backend(Backend):
    """Slave zones on PowerDNS via ``/api/v1/servers/localhost/zones``."""

    needs_signing = True

    def __init__(self, target: Target):
        super().__init__(target)
        options = target.options
        endpoint = urlsplit(str(options.get("api_endpoint") or "http://127.0.0.1:8081"))
        if endpoint.scheme not in ("http", "https") or not endpoint.netloc:
            raise PermanentBackendError(
                f"pdns4 api_endpoint {options.get('api_endpoint')!r} is not an http(s) URL")
        self.base_url = f"{endpoint.scheme}://{endpoint.netloc}"
        self.token = str(options.get("api_token") or "")
        self.tsigkey_name = options.get("tsigkey_name") or None
        self.timeout = float(options.get("api_timeout") or DEFAULT_TIMEOUT)
        self.verify = _verify(options.get("api_ca_cert"))
        self.axfr_retrieve = _flag(options.get("axfr_retrieve", True))

    async def create_zone(self, zone: ZoneRef) -> None:
        async with self._client() as client:
            if await self._exists(client, zone):
                await self._delete(client, zone)
            body: dict[str, object] = {
                "name": zone.name,
                "kind": "slave",
                "masters": [master_address(h, p) for h, p in self.target.masters],
            }
            if self.tsigkey_name:
                body["slave_tsig_key_ids"] = [str(self.tsigkey_name)]
            try:
                await self._call(client, "POST", ZONES_PATH, json=body)
            except BackendError as exc:
                if not isinstance(exc.__cause__, httpx.TransportError):
                    await self._remove_half_made(client, zone)
                raise
            await self._retrieve_now(client, zone)

    async def restore_zone(self, zone: ZoneRef) -> None:
        """Create the zone only when PowerDNS has none: ``create_zone`` replaces an existing
        one, which would throw away a transfer in progress (the NOTIFY that follows suffices)."""
        async with self._client() as client:
            if await self._exists(client, zone):
                return
        await self.create_zone(zone)

    async def update_zone(self, zone: ZoneRef) -> None:
        """Only the immediate transfer: the worker's NOTIFY alone would wait for PowerDNS's loop."""
        if self.axfr_retrieve:
            async with self._client() as client:
                await self._retrieve_now(client, zone)

    async def delete_zone(self, zone: ZoneRef, hard_delete: bool = False) -> None:
        async with self._client() as client:
            if await self._exists(client, zone):
                await self._delete(client, zone)

    async def check_served(self, zone: ZoneRef) -> None:
        """A signed zone must be presigned on PowerDNS once it holds the zone's serial."""
        if not zone.signed:
            return
        async with self._client() as client:
            found = await self._call(client, "GET", f"{self._zone_path(zone)}?rrsets=false",
                                     missing_ok=True)
            serial = int(found.json().get("serial") or 0) if found is not None else None
            if serial is None or not serial_ge(serial, zone.serial):
                raise TransientBackendError(
                    f"PowerDNS {self.base_url} has {zone.name} at serial {serial}, "
                    f"not yet {zone.serial}")
            metadata = await self._call(
                client, "GET", f"{self._zone_path(zone)}/metadata/PRESIGNED", missing_ok=True)
        values = metadata.json().get("metadata", []) if metadata is not None else []
        if "1" not in values:
            raise PermanentBackendError(
                f"PowerDNS {self.base_url} serves the signed zone {zone.name} without its "
                "signatures (not PRESIGNED after the transfer): turn DNSSEC on in its backend, "
                "e.g. gsqlite3-dnssec=yes or gmysql-dnssec=yes")

    # --- HTTP -----------------------------------------------------------------------------
    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.base_url, timeout=self.timeout, verify=self.verify,
                                 headers={"X-API-Key": self.token, "Accept": "application/json"})

    @staticmethod
    def _zone_path(zone: ZoneRef) -> str:
        return f"{ZONES_PATH}/{quote(zone.name, safe='.')}"

    async def _exists(self, client: httpx.AsyncClient, zone: ZoneRef) -> bool:
        response = await self._call(client, "GET", self._zone_path(zone), missing_ok=True)
        return response is not None

    async def _delete(self, client: httpx.AsyncClient, zone: ZoneRef) -> None:
        await self._call(client, "DELETE", self._zone_path(zone), missing_ok=True)

    async def _retrieve_now(self, client: httpx.AsyncClient, zone: ZoneRef) -> None:
        """Ask for the transfer without waiting for PowerDNS's secondary loop (unless opted out)."""
        if not self.axfr_retrieve:
            return
        try:
            await self._call(client, "PUT", f"{self._zone_path(zone)}/axfr-retrieve")
        except BackendError as exc:
            LOG.warning("axfr-retrieve of %s ignored, the NOTIFY will do: %s", zone.name, exc)

    async def _remove_half_made(self, client: httpx.AsyncClient, zone: ZoneRef) -> None:
        """A rejected POST may still have left a zone behind; do not let it linger."""
        try:
            if await self._exists(client, zone):
                await self._delete(client, zone)
        except Exception:  # noqa: BLE001 - the original error is the one to report
            LOG.warning("could not clean up zone %s on %s after a failed create",
                        zone.name, self.base_url, exc_info=True)

    async def _call(self, client: httpx.AsyncClient, method: str, path: str, *,
                    missing_ok: bool = False, json: object = None) -> httpx.Response | None:
        """One request; None for a 404 when ``missing_ok``, else an error by retry-worthiness."""
        what = f"{method} {self.base_url}{path}"
        try:
            response = await client.request(method, path, json=json)
        except httpx.HTTPError as exc:
            raise TransientBackendError(f"{what}: {exc!r}") from exc
        if response.status_code == 404 and missing_ok:
            return None
        if response.status_code >= 500:
            raise TransientBackendError(f"{what}: HTTP {response.status_code} {_reason(response)}")
        if response.status_code >= 400:
            raise PermanentBackendError(f"{what}: HTTP {response.status_code} {_reason(response)}")
        return response


def _reason(response: httpx.Response) -> str:
    """PowerDNS puts the reason in ``{"error": ...}``; fall back to the body's start."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    return str(body.get("error", "")) if isinstance(body, dict) else str(body)[:200]


BACKEND = Pdns4Backend
