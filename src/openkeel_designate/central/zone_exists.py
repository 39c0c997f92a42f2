"""The periodic ``exists`` audit (Designate's producer task ``periodic_exists``).

Billing and metering systems (Ceilometer) count zones from ``dns.zone.exists`` and
``dns.domain.exists``: one pair per live zone per interval, each payload the zone plus the
audit period it covers.  Published as ``producer.<host>``.
"""

from __future__ import annotations

from datetime import timedelta

from openkeel_designate.central.notifications import payload
from openkeel_designate.central.services import Services
from openkeel_designate.central.zones import views
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.models import utcnow

EVENTS = ("dns.domain.exists", "dns.zone.exists")


async def announce_existing(svc: Services, interval: int, per_page: int) -> int:
    """Emit the events for every live zone, ``per_page`` zones per read; returns the count.

    Nothing is read when no notification driver is configured: the audit exists only for
    consumers of the notifications.
    """
    notifier = svc.notifier
    if notifier is None or not notifier.enabled:
        return 0
    ending = utcnow()
    period = {"audit_period_beginning": (ending - timedelta(seconds=interval)).isoformat(),
              "audit_period_ending": ending.isoformat()}
    count, after = 0, None
    while True:
        async with svc.db.read() as session:
            zones = await zone_store.live_after(session, after, per_page)
            shared = await zone_store.shared_ids(session, [zone.id for zone in zones])
            page = await views(session, [(zone, zone.id in shared) for zone in zones])
        for view in page:
            body = {**payload(view), **period}
            for event_type in EVENTS:
                notifier.info(event_type, body, publisher="producer")
        count += len(zones)
        if len(zones) < per_page:
            return count
        after = zones[-1].id

