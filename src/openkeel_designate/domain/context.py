"""Who is calling and with which request flags: built by the API, read by central."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field


def new_request_id() -> str:
    """A random (version 4) UUID, as Designate's, from ``random`` rather than ``os.urandom``:
    an id needs no secrecy, and the ``getrandom`` call releases the GIL on every request, which
    hands it to a waiting database thread in the middle of the request (seen in py-spy)."""
    return f"req-{uuid.UUID(int=random.getrandbits(128), version=4)}"


@dataclass
class RequestContext:
    """The caller (from Keystone or the noauth headers) and Designate's context flags."""

    user_id: str | None = None
    project_id: str | None = None
    roles: list[str] = field(default_factory=list)
    request_id: str = field(default_factory=new_request_id)
    original_project_id: str | None = None
    all_tenants: bool = False
    edit_managed_records: bool = False
    hard_delete: bool = False
    hide_counts: bool = False
    delete_shares: bool = False
    client_addr: str | None = None
    auth_token: str | None = None
    system_scope: str | None = None
    #: Keystone mode: the token's catalog (v2 shape), for calls to other services (Neutron).
    service_catalog: list[dict] = field(default_factory=list)

    def endpoints(self, service_type: str,
                  interface: str = "publicURL") -> list[tuple[str | None, str]]:
        """``(region, url)`` of each ``service_type`` endpoint in the caller's catalog."""
        return [(endpoint.get("region"), endpoint[interface])
                for service in self.service_catalog if service.get("type") == service_type
                for endpoint in service.get("endpoints", []) if endpoint.get(interface)]

    @property
    def is_admin(self) -> bool:
        return "admin" in self.roles

    def credentials(self) -> dict:
        """What policy checks see of the caller."""
        return {
            "user_id": self.user_id,
            "project_id": self.project_id,
            "roles": self.roles,
            "system_scope": self.system_scope,
            "is_admin": self.is_admin,
        }

    @classmethod
    def internal(cls) -> "RequestContext":
        """The service itself (worker, producer, manage): sees everything."""
        return cls(user_id="openkeel-designate", roles=["admin"], all_tenants=True,
                   edit_managed_records=True)
