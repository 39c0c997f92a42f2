"""Secondary zones: NOTIFY from a master, the xfr task and periodic refresh all just ask the
worker to check the masters; the worker transfers only when the master's serial is newer."""

from __future__ import annotations

import dns.rcode

from openkeel_designate.central.services import Services
from openkeel_designate.storage import secondary as store
from openkeel_designate.storage.models import utcnow


async def on_notify(svc: Services, zone_name: str, sender_ip: str) -> int:
    """mdns received a NOTIFY: accepted only from one of the zone's masters (spec §4)."""
    async def work(session) -> int:
        candidates = await store.by_name(session, zone_name)
        if not candidates:
            return dns.rcode.NOTAUTH
        for zone, masters in candidates:
            if any(host == sender_ip for host, _ in masters):
                await store.mark_refresh(session, zone.id)
                return dns.rcode.NOERROR
        return dns.rcode.REFUSED

    rcode = await svc.db.transaction(work)
    if rcode == dns.rcode.NOERROR:
        svc.wake_worker()
    return rcode


async def refresh_due(svc: Services, limit: int = 100) -> int:
    """Producer job: secondaries whose SOA refresh interval has passed are checked again."""
    async def work(session) -> int:
        zones = await store.due_for_refresh(session, utcnow(), limit)
        for zone in zones:
            await store.mark_refresh(session, zone.id)
        return len(zones)

    count = await svc.db.transaction(work)
    if count:
        svc.wake_worker()
    return count
