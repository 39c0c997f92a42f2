"""Every metric of the project, defined once, in one registry per process.

Labels are bounded sets (route templates, pool ids, status words, DNS types and rcodes), never
zone names, project ids or request paths: a label per tenant would grow the series without bound
and leak names to whoever can read the metrics.
"""

from __future__ import annotations

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
)

REGISTRY = CollectorRegistry(auto_describe=True)
ProcessCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)
GCCollector(registry=REGISTRY)

# Fast paths are milliseconds here (the reference answers in tens of ms): buckets start low.
_API_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_PROPAGATION_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
                        300.0, 900.0)

API_REQUESTS = Counter(
    "designate_api_requests", "API requests answered, by route template and status.",
    ["method", "route", "status"], registry=REGISTRY)
API_DURATION = Histogram(
    "designate_api_request_duration_seconds", "Time from request to the last byte sent.",
    ["method", "route"], buckets=_API_BUCKETS, registry=REGISTRY)

PROPAGATION = Histogram(
    "designate_propagation_seconds",
    "From the first write left unserved (zones.pending_since) to every polled nameserver "
    "serving it (or, for a delete, none).", ["pool", "action"],
    buckets=_PROPAGATION_BUCKETS, registry=REGISTRY)
ZONES = Gauge("designate_zones", "Live zones by status, read at scrape time.", ["status"],
              registry=REGISTRY)
WORKER_PENDING = Gauge("designate_worker_pending_zones",
                       "Zones PENDING or ERROR: changes not yet served by every nameserver.",
                       registry=REGISTRY)
WORKER_OLDEST_PENDING = Gauge(
    "designate_worker_oldest_pending_seconds",
    "Age of the oldest unserved write (0 when none is pending).", registry=REGISTRY)
WORKER_PUSHES = Counter("designate_worker_pushes", "Pushes finished by this worker, by outcome.",
                        ["action", "outcome"], registry=REGISTRY)
BACKEND_ERRORS = Counter(
    "designate_backend_errors",
    "Backend calls that failed: kind is transient (retried) or permanent (refused).",
    ["target_type", "kind"], registry=REGISTRY)
LEASE_TAKEOVERS = Counter(
    "designate_lease_takeovers",
    "Zones claimed whose lease another worker had let expire (a worker died or stalled).",
    registry=REGISTRY)

DNS_QUERIES = Counter("designate_dns_queries", "DNS messages answered, by listener.",
                      ["server", "qtype", "rcode"], registry=REGISTRY)
DNS_DROPPED = Counter("designate_dns_dropped",
                      "UDP queries dropped unanswered (reason: rate_limited, over_capacity).",
                      ["server", "reason"], registry=REGISTRY)
TRANSFERS = Counter("designate_dns_transfers", "Zone transfers served (AXFR, IXFR).",
                    ["server", "qtype"], registry=REGISTRY)
TRANSFER_BYTES = Counter("designate_dns_transfer_bytes",
                         "Bytes of zone transfer messages sent.", ["server", "qtype"],
                         registry=REGISTRY)
DNSSEC_SIGNATURES = Counter("designate_dnssec_signatures",
                            "RRSIGs made by mdns (those re-used from its cache not counted).",
                            registry=REGISTRY)
DNSSEC_SIGNING = Histogram("designate_dnssec_signing_seconds",
                           "Time mdns took to sign one version of a zone.",
                           buckets=_API_BUCKETS, registry=REGISTRY)

DB_POOL = Gauge("designate_db_pool_connections",
                "Database connections of this process (state: checked_out, idle, overflow, "
                "size).", ["state"], registry=REGISTRY)
DB_PLAIN_RERUN = Gauge("designate_db_plain_transactions_rerun",
                       "Write transactions of this process begun without SQLAlchemy's session "
                       "that ran again in one, since it started (a hot path that reached for "
                       "the ORM pays twice).", registry=REGISTRY)
LOOP_LAG = Gauge("designate_event_loop_lag_seconds",
                 "How late the last event-loop probe woke up (a blocked loop delays every role).",
                 registry=REGISTRY)
LOOP_LAG_MAX = Gauge("designate_event_loop_lag_max_seconds",
                     "Largest event-loop lag seen since the previous scrape.", registry=REGISTRY)
UP = Gauge("designate_up", "1 while this process serves; its roles as labels.", ["roles"],
           registry=REGISTRY)
