"""The request context: the caller from the auth strategy (``api/auth``) plus the request flags.

Flags are applied in Designate's order, each policy-checked as soon as it is set.  Query
parameters that are flags (``all_projects``, ``all_tenants``, ``edit_managed_records``) are taken
out of the query, so they never reach filters or links.
"""

from __future__ import annotations

from starlette.requests import Request

from openkeel_designate.api.auth import Authenticator, FlagRefused
from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext

_TRUE = {"1", "t", "true", "on", "y", "yes"}
_FLAG_PARAMS = {"all_projects", "all_tenants", "edit_managed_records"}


def truthy(value: str | None) -> bool:
    return value is not None and value.strip().lower() in _TRUE


def remaining_query(request: Request) -> list[tuple[str, str]]:
    """The query parameters that are not context flags, in request order."""
    return [(k, v) for k, v in request.query_params.multi_items() if k not in _FLAG_PARAMS]


def build_context(request: Request) -> RequestContext:
    """Cached per request; a flag refused by policy raises Forbidden (noauth: JSON 403) or
    ``FlagRefused`` (keystone: empty 403, as Designate's keystonecontext answers)."""
    cached = getattr(request.state, "context", None)
    if cached is not None:
        return cached
    svc: Services = request.app.state.services
    auth: Authenticator = request.app.state.auth
    who = auth.identity(request)
    ctx = RequestContext(
        user_id=who.user_id,
        project_id=who.project_id,
        roles=list(who.roles),
        request_id=request.state.request_id,
        auth_token=who.auth_token,
        system_scope=who.system_scope,
        service_catalog=who.service_catalog,
        client_addr=request.client.host if request.client else None,
    )
    request.state.context = ctx
    try:
        _apply_flags(svc, request, ctx)
    except errors.Forbidden as exc:
        if auth.empty_flag_refusal:
            raise FlagRefused() from exc
        raise
    return ctx


def _apply_flags(svc: Services, request: Request, ctx: RequestContext) -> None:
    headers, query = request.headers, request.query_params
    sudo = headers.get("x-auth-sudo-project-id") or headers.get("x-auth-sudo-tenant-id")
    if sudo:
        svc.policy.check("use_sudo", ctx)
        ctx.original_project_id, ctx.project_id = ctx.project_id, sudo
    all_projects = headers.get("x-auth-all-projects")
    for name in ("all_projects", "all_tenants"):
        if name in query:
            all_projects = query[name]
    if truthy(all_projects):
        ctx.all_tenants = True
        svc.policy.check("all_tenants", ctx)
    edit_managed = query.get("edit_managed_records",
                             headers.get("x-designate-edit-managed-records"))
    if truthy(edit_managed):
        ctx.edit_managed_records = True
        svc.policy.check("edit_managed_records", ctx)
    if truthy(headers.get("x-designate-hard-delete")):
        ctx.hard_delete = True
        svc.policy.check("hard_delete", ctx)
    ctx.hide_counts = truthy(headers.get("openstack-dns-hide-counts"))
    ctx.delete_shares = truthy(headers.get("x-designate-delete-shares"))


async def verify_project(request: Request, ctx: RequestContext, project_id: str | None) -> None:
    """400 ``invalid_project`` when the identity service says ``project_id`` does not exist.

    A missing id is asked about as ``None``, as Designate does (Keystone then answers 404).
    """
    auth: Authenticator = request.app.state.auth
    if not await auth.project_exists(ctx, str(project_id)):
        raise errors.InvalidProject(f"{project_id} is not a valid project ID.")
