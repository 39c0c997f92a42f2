"""``/v2/tsigkeys``: TSIG keys scoped to a pool or a zone (admin only)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from openkeel_designate.api import listing, render_admin
from openkeel_designate.api.routes.admin_rows import RowApi, build
from openkeel_designate.api.schemas import admin as schemas
from openkeel_designate.central import crud
from openkeel_designate.central import tsigkeys as central


def _checks(request: Request, values: dict[str, Any], is_update: bool) -> crud.Check | None:
    """Empty-secret rule at once; the scoped resource's existence inside the transaction."""
    allow_empty = request.app.state.services.conf["service:api"].allow_empty_secrets_for_tsig
    schemas.check_tsig_secret(values, allow_empty)
    if is_update and not {"scope", "resource_id"} & values.keys():
        return None
    return central.check_resource


router = build(RowApi(
    collection="tsigkeys", param="tsigkey_id", kind=central.KIND, create=schemas.TSIGKEY_CREATE,
    update=schemas.TSIGKEY_UPDATE, render=render_admin.tsigkey,
    spec=listing.ListSpec(filters=("name", "algorithm", "scope"),
                          sort_keys=("created_at", "id", "updated_at", "name"),
                          upper_case=()),
    checks=_checks,
))
