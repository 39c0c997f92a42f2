"""TLDs: when at least one exists, zones must sit under one (see ``zones._check_name``)."""

from __future__ import annotations

from openkeel_designate.central.crud import Kind
from openkeel_designate.domain import errors
from openkeel_designate.storage.models import Tld

KIND = Kind(model=Tld, label="Tld", rule="tld", unique="name", not_found=errors.TldNotFound,
            duplicate=errors.DuplicateTld, fields=("name", "description"))
