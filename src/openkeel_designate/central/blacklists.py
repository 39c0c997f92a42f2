"""Blacklists: regular expressions that zone names may not match (unless policy allows)."""

from __future__ import annotations

from openkeel_designate.central.crud import Kind
from openkeel_designate.domain import errors
from openkeel_designate.storage.models import Blacklist

KIND = Kind(model=Blacklist, label="Blacklist", rule="blacklist", unique="pattern",
            not_found=errors.BlacklistNotFound, duplicate=errors.DuplicateBlacklist,
            fields=("pattern", "description"))
