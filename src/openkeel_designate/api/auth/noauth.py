"""``auth_strategy = noauth``: the caller is whatever the headers say (trusted proxy or tests)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from openkeel_designate.api.auth.base import Identity
from openkeel_designate.domain.context import RequestContext


class NoAuth:
    """Designate's ``noauthcontext``: defaults make a header-less caller an admin of one project."""

    empty_flag_refusal = False

    async def authenticate(self, scope: Scope) -> Response | None:
        return None

    def identity(self, request: Request) -> Identity:
        headers = request.headers
        roles_header = headers.get("x-roles")
        roles = ["admin"] if roles_header is None else [
            r.strip() for r in roles_header.split(",") if r.strip()]
        return Identity(
            user_id=headers.get("x-auth-user-id", "noauth-user"),
            project_id=headers.get("x-auth-project-id", "noauth-project"),
            roles=roles,
            auth_token=headers.get("x-auth-token"),
        )

    async def project_exists(self, ctx: RequestContext, project_id: str) -> bool:
        return True  # no identity service to ask

    async def aclose(self) -> None:
        return None
