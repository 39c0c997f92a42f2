"""Talking to Keystone: the service token, and validation of user tokens with it.

Keystone only validates a token for a caller allowed to (``identity:validate_token``), so the
API first authenticates as its service user (``[keystone_authtoken]`` password options) and
sends that token as ``X-Auth-Token`` with the user's as ``X-Subject-Token``.  The service token
is renewed shortly before it expires, and once more whenever Keystone rejects it (revoked,
keys rotated).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timezone
from typing import Any

import httpx

from openkeel_designate.api.auth.base import AuthConfigError

LOG = logging.getLogger(__name__)

#: Renew the service token this long before it expires (keystoneauth uses the same margin).
_RENEW_MARGIN = 120.0


class KeystoneUnavailable(Exception):
    """Keystone cannot tell whether a token is valid: unreachable, failing, or refusing us."""


def expires_at(token: dict[str, Any]) -> float | None:
    """The token's expiry as a UNIX time, None when absent or unreadable."""
    value = token.get("expires_at")
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.timestamp()


def identity_base(auth_url: str) -> str:
    """``http://ks:5000``, ``http://ks:5000/`` and ``http://ks:5000/v3`` all mean the same root."""
    base = auth_url.rstrip("/")
    for suffix in ("/v3", "/v3.0", "/v2.0"):
        if base.endswith(suffix):
            return base[: -len(suffix)]
    return base


class IdentityClient:
    """Async Keystone v3 client for exactly what token validation needs."""

    def __init__(self, opts: Any):
        if not opts.auth_url:
            raise AuthConfigError("[keystone_authtoken] auth_url is required with "
                                  "auth_strategy = keystone")
        self.base = identity_base(opts.auth_url)
        self._opts = opts
        self._retries = max(0, opts.http_request_max_retries or 0)
        verify: bool | str = False if opts.insecure else (opts.cafile or True)
        timeout = httpx.Timeout(30.0, connect=float(opts.http_connect_timeout or 5))
        self._http = httpx.AsyncClient(timeout=timeout, verify=verify)
        self._service_token: str | None = None
        self._service_expiry = 0.0
        self._lock = asyncio.Lock()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def validate(self, token: str) -> dict[str, Any] | None:
        """The token body when Keystone accepts ``token``, None when it says it is invalid."""
        params = None if self._opts.include_service_catalog else {"nocatalog": "1"}
        for attempt in range(2):
            service = await self._service_token_value(renew=attempt > 0)
            resp = await self._send("GET", "/v3/auth/tokens", params=params,
                                    headers={"X-Auth-Token": service, "X-Subject-Token": token})
            if resp.status_code == 200:
                return resp.json().get("token") or None
            if resp.status_code in (400, 404):
                return None
            if resp.status_code == 401 and attempt == 0:
                continue
            break
        LOG.error("Keystone refused to validate a token: HTTP %s %s", resp.status_code,
                  resp.text[:200])
        raise KeystoneUnavailable(f"validation answered HTTP {resp.status_code}")

    async def project_exists(self, endpoint: str, token: str, project_id: str) -> bool:
        """False only when Keystone at ``endpoint`` answers 404 for the project."""
        url = f"{identity_base(endpoint)}/v3/projects/{project_id}"
        try:
            resp = await self._http.get(url, headers={"X-Auth-Token": token})
        except httpx.HTTPError as exc:
            LOG.info("could not verify project %s with Keystone: %s", project_id, exc)
            return True
        if resp.status_code not in (200, 403, 404):
            LOG.warning("Keystone answered HTTP %s verifying project %s; accepted",
                        resp.status_code, project_id)
        return resp.status_code != 404

    async def _service_token_value(self, renew: bool) -> str:
        async with self._lock:
            now = datetime.now(timezone.utc).timestamp()
            if renew or self._service_token is None or self._service_expiry - now < _RENEW_MARGIN:
                await self._authenticate()
            assert self._service_token is not None
            return self._service_token

    async def _authenticate(self) -> None:
        resp = await self._send("POST", "/v3/auth/tokens", json={"auth": self._auth_body()})
        if resp.status_code != 201 or "X-Subject-Token" not in resp.headers:
            LOG.error("Keystone refused the service credentials of [keystone_authtoken]: "
                      "HTTP %s %s", resp.status_code, resp.text[:200])
            raise KeystoneUnavailable(f"service authentication answered HTTP {resp.status_code}")
        self._service_token = resp.headers["X-Subject-Token"]
        self._service_expiry = expires_at(resp.json().get("token", {})) or 0.0

    def _auth_body(self) -> dict[str, Any]:
        opts = self._opts
        user: dict[str, Any] = {"password": opts.password or ""}
        if opts.user_id:
            user["id"] = opts.user_id
        else:
            user["name"] = opts.username
            user["domain"] = _domain(opts.user_domain_id, opts.user_domain_name)
        body: dict[str, Any] = {"identity": {"methods": ["password"], "password": {"user": user}}}
        if opts.system_scope:
            body["scope"] = {"system": {opts.system_scope: True}}
        elif opts.project_id:
            body["scope"] = {"project": {"id": opts.project_id}}
        elif opts.project_name:
            body["scope"] = {"project": {
                "name": opts.project_name,
                "domain": _domain(opts.project_domain_id, opts.project_domain_name)}}
        return body

    async def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One request, retried on connection failures; 5xx or no answer → KeystoneUnavailable."""
        delay = 0.1
        for attempt in range(self._retries + 1):
            try:
                resp = await self._http.request(method, self.base + path, **kwargs)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                if attempt == self._retries:
                    LOG.critical("Unable to reach Keystone at %s: %s", self.base, exc)
                    raise KeystoneUnavailable(str(exc)) from exc
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
                continue
            except httpx.HTTPError as exc:
                LOG.critical("Keystone at %s failed: %s", self.base, exc)
                raise KeystoneUnavailable(str(exc)) from exc
            if resp.status_code >= 500:
                LOG.critical("Keystone at %s answered HTTP %s", self.base, resp.status_code)
                raise KeystoneUnavailable(f"HTTP {resp.status_code}")
            return resp
        raise KeystoneUnavailable("unreachable")


def _domain(domain_id: str | None, domain_name: str | None) -> dict[str, str]:
    if domain_id:
        return {"id": domain_id}
    return {"name": domain_name or "Default"}
