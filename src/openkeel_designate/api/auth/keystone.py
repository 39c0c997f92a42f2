"""``auth_strategy = keystone``: keystonemiddleware's ``auth_token``, ASGI-native and async.

Per ``/v2`` and ``/admin`` request: identity headers sent by the client are dropped (they are
only trusted when set here), the ``X-Auth-Token`` is validated (cache first, then Keystone), and
on success the caller goes into the request scope and into the usual ``X-User-Id``/``X-Roles``/…
headers, as the middleware sets them for the application behind it.  No or bad token → 401 with
``WWW-Authenticate``; Keystone unreachable → 503.  Validations in flight for the same token are
shared, so a burst of requests with a new token costs one Keystone call.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import logging
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from openkeel_designate.api.auth import responses
from openkeel_designate.api.auth.base import Identity
from openkeel_designate.api.auth.cache import TokenCache, Validation, token_key
from openkeel_designate.api.auth.identity_client import (
    IdentityClient,
    KeystoneUnavailable,
    expires_at,
)
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext

LOG = logging.getLogger(__name__)

# Headers only the auth layer may set; a client sending them is ignored (user and service forms).
_IDENTITY_HEADERS = {
    "x-identity-status", "x-service-identity-status", "x-roles", "x-service-roles",
    "x-user-id", "x-user-name", "x-user-domain-id", "x-user-domain-name",
    "x-project-id", "x-project-name", "x-project-domain-id", "x-project-domain-name",
    "x-domain-id", "x-domain-name", "x-tenant-id", "x-tenant-name", "x-tenant", "x-user",
    "x-role", "x-service-catalog", "x-is-admin-project", "openstack-system-scope",
    "x-service-user-id", "x-service-user-name", "x-service-user-domain-id",
    "x-service-user-domain-name", "x-service-project-id", "x-service-project-name",
    "x-service-project-domain-id", "x-service-project-domain-name",
}
_STATE_KEY = "keystone_identity"


class KeystoneAuth:
    """Validates tokens against Keystone; built once per application from ``[keystone_authtoken]``."""

    empty_flag_refusal = True

    def __init__(self, opts: Any):
        self._opts = opts
        self.client = IdentityClient(opts)
        self.www_authenticate_uri = (opts.www_authenticate_uri or self.client.base).rstrip("/")
        self.cache = TokenCache(ttl=float(opts.token_cache_time), max_entries=opts.token_cache_size)
        self._inflight: dict[str, asyncio.Future[Validation]] = {}
        if not opts.service_token_roles_required:
            LOG.info("[keystone_authtoken] service_token_roles_required is False: any valid "
                     "X-Service-Token is accepted as a service token")

    async def aclose(self) -> None:
        await self.client.aclose()

    async def project_exists(self, ctx: RequestContext, project_id: str) -> bool:
        """Keystone's ``GET /v3/projects/{id}`` with the caller's own token, as Designate asks.

        The identity endpoint comes from the caller's catalog (504 when it has none); only a
        404 means "no such project": a caller not allowed to look (403) or a failing Keystone
        leaves the project accepted.
        """
        found = ctx.endpoints("identity")
        if not found:
            raise errors.KeystoneCommunicationFailure("KeystoneV3 endpoint not found")
        return await self.client.project_exists(found[0][1], ctx.auth_token or "", project_id)

    async def authenticate(self, scope: Scope) -> Response | None:
        headers = [(k, v) for k, v in scope["headers"] if k.decode("latin-1").lower()
                   not in _IDENTITY_HEADERS]
        scope["headers"] = headers
        found = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in headers}
        token = found.get("x-auth-token") or found.get("x-storage-token")
        if not token:
            return responses.unauthorized(self.www_authenticate_uri)
        try:
            user = await self.validation(token)
            service = None
            if found.get("x-service-token"):
                service = await self.validation(found["x-service-token"])
        except KeystoneUnavailable:
            return responses.unavailable(found.get("accept"))
        if user is None or (found.get("x-service-token") and not self._service_ok(service)):
            return responses.unauthorized(self.www_authenticate_uri)
        if not self._access_rules_allow(user, scope, service is not None):
            return responses.unauthorized(self.www_authenticate_uri)
        identity = _identity(user, token, self._opts.include_service_catalog)
        scope.setdefault("state", {})[_STATE_KEY] = identity
        headers.extend((k.encode("latin-1"), v.encode("utf-8")) for k, v in _user_headers(
            user, identity, self._opts.include_service_catalog))
        return None

    def identity(self, request: Request) -> Identity:
        return request.scope["state"][_STATE_KEY]

    async def validation(self, token: str) -> Validation:
        """The token body, or None when invalid or expired; from the cache when remembered."""
        key = token_key(token)
        found, value = self.cache.get(key)
        if not found:
            pending = self._inflight.get(key)
            if pending is None:
                pending = asyncio.ensure_future(self._fetch(key, token))
                self._inflight[key] = pending
                pending.add_done_callback(lambda _f: self._inflight.pop(key, None))
            value = await asyncio.shield(pending)
        if value is not None and (expires_at(value) or float("inf")) <= time.time():
            return None
        return value

    async def _fetch(self, key: str, token: str) -> Validation:
        value = await self.client.validate(token)
        ttl = None
        if value is not None:
            expiry = expires_at(value)
            ttl = None if expiry is None else max(0.0, expiry - time.time())
        self.cache.put(key, value, ttl)
        return value

    def _service_ok(self, service: Validation) -> bool:
        if service is None:
            return False
        wanted = set(self._opts.service_token_roles or [])
        if wanted & {r.get("name") for r in service.get("roles", [])}:
            return True
        LOG.warning("a service token lacks every role of [keystone_authtoken] service_token_roles")
        return not self._opts.service_token_roles_required

    def _access_rules_allow(self, token: dict[str, Any], scope: Scope, has_service: bool) -> bool:
        """Application credentials may restrict a token to some API calls of some services."""
        rules = (token.get("application_credential") or {}).get("access_rules")
        if not rules:
            return True
        my_type = self._opts.service_type
        if not my_type:
            LOG.warning("a token with access rules was refused: set [keystone_authtoken] "
                        "service_type to validate them")
            return False
        if not any(s.get("type") == my_type for s in token.get("catalog", [])):
            return False
        if has_service:
            return True
        method, path = scope["method"], scope["path"]
        return any(r.get("method") == method and r.get("service") == my_type
                   and _path_matches(path, r.get("path", "")) for r in rules)


def _path_matches(path: str, template: str) -> bool:
    """Access-rule paths: ``*`` is one segment, ``**`` any number, ``{x}`` one segment."""
    want, have = template.strip("/").split("/"), path.strip("/").split("/")
    if "**" in want:
        head = want[: want.index("**")]
        return len(have) >= len(head) and all(
            fnmatch.fnmatchcase(h, _seg(w)) for h, w in zip(have, head))
    return len(want) == len(have) and all(
        fnmatch.fnmatchcase(h, _seg(w)) for h, w in zip(have, want))


def _seg(part: str) -> str:
    return "*" if part.startswith("{") and part.endswith("}") else part


def _identity(token: dict[str, Any], auth_token: str, with_catalog: bool) -> Identity:
    project = token.get("project") or {}
    return Identity(
        user_id=(token.get("user") or {}).get("id"),
        project_id=project.get("id"),
        roles=[r["name"] for r in token.get("roles", []) if r.get("name")],
        auth_token=auth_token,
        system_scope="all" if (token.get("system") or {}).get("all") else None,
        service_catalog=v2_catalog(token.get("catalog", [])) if with_catalog else [],
    )


def v2_catalog(catalog: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The token's v3 catalog in the v2 shape Designate keeps on its context (Neutron lookups):
    one endpoint entry per region carrying ``publicURL``/``internalURL``/``adminURL``."""
    services = []
    for service in catalog:
        by_region: dict[str | None, dict[str, Any]] = {}
        for endpoint in service.get("endpoints", []):
            region = endpoint.get("region_id") or endpoint.get("region")
            entry = by_region.setdefault(region, {"region": region})
            entry[f"{endpoint.get('interface')}URL"] = endpoint.get("url")
        services.append({"type": service.get("type"), "name": service.get("name"),
                         "endpoints": list(by_region.values())})
    return services


def _user_headers(token: dict[str, Any], identity: Identity,
                  with_catalog: bool) -> list[tuple[str, str]]:
    """What keystonemiddleware tells the application behind it about the caller."""
    user = token.get("user") or {}
    project = token.get("project") or {}
    out = [("x-identity-status", "Confirmed"), ("x-user-id", identity.user_id or ""),
           ("x-user-name", user.get("name", "")),
           ("x-user-domain-id", (user.get("domain") or {}).get("id", "")),
           ("x-user-domain-name", (user.get("domain") or {}).get("name", "")),
           ("x-roles", ",".join(identity.roles))]
    if identity.project_id:
        out += [("x-project-id", identity.project_id), ("x-tenant-id", identity.project_id),
                ("x-project-name", project.get("name", "")),
                ("x-project-domain-id", (project.get("domain") or {}).get("id", "")),
                ("x-project-domain-name", (project.get("domain") or {}).get("name", ""))]
    if identity.system_scope:
        out.append(("openstack-system-scope", identity.system_scope))
    if with_catalog:
        out.append(("x-service-catalog", json.dumps(identity.service_catalog)))
    return out
