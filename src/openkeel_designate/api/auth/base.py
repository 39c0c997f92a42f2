"""The contract between an auth strategy and the rest of the API."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from openkeel_designate.domain.context import RequestContext


@dataclass
class Identity:
    """The caller as established by the strategy, before any request flag is applied."""

    user_id: str | None
    project_id: str | None
    roles: list[str]
    auth_token: str | None = None
    system_scope: str | None = None
    service_catalog: list[dict[str, Any]] = field(default_factory=list)


class Authenticator(Protocol):
    """One per application; ``authenticate`` runs once per ``/v2`` or ``/admin`` request."""

    #: Designate's keystonecontext answers a refused flag with an empty 403, noauth with JSON.
    empty_flag_refusal: bool

    async def authenticate(self, scope: Scope) -> Response | None:
        """None lets the request through; a response (401, 503) ends it."""

    def identity(self, request: Request) -> Identity:
        """The caller of a request that ``authenticate`` let through."""

    async def project_exists(self, ctx: RequestContext, project_id: str) -> bool:
        """False only when the identity service says there is no such project.

        Asked before a zone is shared with a project and, with ``quotas_verify_project_id``,
        before a project's quotas are set; anything short of a clear "no" counts as yes.
        """

    async def aclose(self) -> None:
        """Release connections (Keystone mode keeps a pool)."""


class AuthConfigError(ValueError):
    """The auth strategy cannot work with this configuration; the API must not start."""


class FlagRefused(Exception):
    """A request flag was refused by policy in keystone mode: 403 with an empty body."""
