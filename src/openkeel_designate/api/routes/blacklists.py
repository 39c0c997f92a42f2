"""``/v2/blacklists``: regular expressions zone names may not match (admin only)."""

from __future__ import annotations

from openkeel_designate.api import listing, render_admin
from openkeel_designate.api.routes.admin_rows import RowApi, build
from openkeel_designate.api.schemas import admin as schemas
from openkeel_designate.central import blacklists as central

router = build(RowApi(
    collection="blacklists", param="blacklist_id", kind=central.KIND,
    create=schemas.BLACKLIST_CREATE, update=schemas.BLACKLIST_UPDATE, render=render_admin.blacklist,
    spec=listing.ListSpec(filters=("pattern",),
                          sort_keys=("created_at", "id", "updated_at", "pattern")),
))
