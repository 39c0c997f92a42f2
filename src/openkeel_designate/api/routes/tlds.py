"""``/v2/tlds``: the top-level domains zones must end with, once any exists (admin only)."""

from __future__ import annotations

from openkeel_designate.api import listing, render_admin
from openkeel_designate.api.routes.admin_rows import RowApi, build
from openkeel_designate.api.schemas import admin as schemas
from openkeel_designate.central import tlds as central

router = build(RowApi(
    collection="tlds", param="tld_id", kind=central.KIND, create=schemas.TLD_CREATE,
    update=schemas.TLD_UPDATE, render=render_admin.tld,
    spec=listing.ListSpec(filters=("name",), sort_keys=("created_at", "id", "updated_at", "name")),
))
