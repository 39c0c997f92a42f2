"""What one push saw of each server, kept for ``zone_propagation`` and the metrics.

The worker's string states (``_states``) explain a timeout in one line; this keeps the same
answers structured, so the propagation view can tell IN_SYNC from BEHIND from UNREACHABLE per
nameserver, and is written once when the push ends.
"""

from __future__ import annotations

import logging
import time
from datetime import timezone

from openkeel_designate.backends.base import Target
from openkeel_designate.central.propagation import seen_from_soa
from openkeel_designate.dnswire.client import SoaResult
from openkeel_designate.observability import metrics
from openkeel_designate.storage import propagation as propagation_store
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.workqueue import ClaimedZone

LOG = logging.getLogger(__name__)


class PushObservations:
    """Answers of one push: the last SOA result per nameserver, the outcome per target."""

    def __init__(self, claimed: ClaimedZone):
        self.claimed = claimed
        self.nameservers: dict[tuple[str, int], SoaResult] = {}
        self.targets: dict[tuple[str, str, int], str | None] = {}

    def soa(self, host: str, port: int, result: SoaResult) -> None:
        self.nameservers[(host, port)] = result

    def target(self, target: Target, error: Exception | None,
               permanent: bool = False) -> None:
        self.targets[(target.type, target.notify_host, target.notify_port)] = (
            None if error is None else str(error) or type(error).__name__)
        if error is not None:
            kind = "permanent" if permanent else "transient"
            metrics.BACKEND_ERRORS.labels(target.type, kind).inc()

    def seen(self) -> list[propagation_store.Seen]:
        delete = self.claimed.action == "DELETE"
        out = [seen_from_soa(host, port, result, self.claimed.serial, delete)
               for (host, port), result in self.nameservers.items()]
        for (kind, host, port), error in self.targets.items():
            out.append(propagation_store.Seen(propagation_store.TARGET, host, port,
                                              "FAILED" if error else "OK", None, error, kind))
        return out


async def save(db: Database, pushes: list[PushObservations]) -> list[None]:
    """What ``pushes`` saw, in one short write (the worker batches the pushes that end
    together, ``batches``); losing it never fails a push (the view refreshes)."""
    seen = [(push.claimed, push.seen()) for push in pushes]
    seen = [(claimed, rows) for claimed, rows in seen if rows]
    if seen:
        try:
            await propagation_store.record_many(
                db, [(claimed.id, rows) for claimed, rows in seen],
                ahead=all(claimed.action == "CREATE" for claimed, _ in seen))
        except Exception as exc:  # noqa: BLE001 - an observation is never worth a failed push
            LOG.info("propagation of %d zones (%s, ...) not recorded: %r", len(seen),
                     seen[0][0].name, exc)
    return [None] * len(pushes)


def finished(claimed: ClaimedZone, pool_id: str, outcome: str) -> None:
    """Count the push; a served change also observes its propagation time."""
    metrics.WORKER_PUSHES.labels(claimed.action, outcome).inc()
    if claimed.taken_over:
        metrics.LEASE_TAKEOVERS.inc()
    if outcome == "done" and claimed.pending_since is not None:
        elapsed = time.time() - claimed.pending_since.replace(tzinfo=timezone.utc).timestamp()
        metrics.PROPAGATION.labels(pool_id, claimed.action).observe(max(0.0, elapsed))
