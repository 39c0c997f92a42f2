"""Configuration: oslo.config with Designate's option names, defaults for the embedded mode.

Operators keep their ``designate.conf``; options that only this project has (the built-in
nameserver, the worker's fast polling) live in their own groups or carry a clear name.
Each ``load()`` builds a fresh ``ConfigOpts`` so several instances (tests) can coexist.
"""

from __future__ import annotations

import os
import socket

from oslo_config import cfg

from openkeel_designate.domain import rrtypes

DEFAULT_POOL_ID = "794ccc2c-d751-44fe-b57f-8894c9f5c842"

_DEFAULT = [
    cfg.StrOpt("host", default=socket.gethostname(), help="Node name in heartbeats."),
    cfg.StrOpt("state_path", default="./state", help="Directory for SQLite and nameserver data."),
    cfg.IntOpt("default_ttl", default=3600),
    cfg.IntOpt("default_soa_refresh_min", default=3500),
    cfg.IntOpt("default_soa_refresh_max", default=3600),
    cfg.IntOpt("default_soa_retry", default=600),
    cfg.IntOpt("default_soa_expire", default=86400),
    cfg.IntOpt("default_soa_minimum", default=3600),
    cfg.ListOpt("supported_record_type", default=rrtypes.default_supported()),
    cfg.StrOpt("quota_driver", default="storage", choices=["storage", "noop"]),
    cfg.IntOpt("quota_zones", default=10),
    cfg.IntOpt("quota_zone_recordsets", default=500),
    cfg.IntOpt("quota_zone_records", default=500),
    cfg.IntOpt("quota_recordset_records", default=20),
    cfg.IntOpt("quota_api_export_size", default=1000),
    cfg.BoolOpt("notify_api_faults", default=False,
                help="Emit dns.api.fault (priority ERROR) for every API error response."),
    # oslo.log's names for what the process logs.
    cfg.BoolOpt("debug", default=False, help="Log at DEBUG (also: serve --debug)."),
    cfg.BoolOpt("use_json", default=False,
                help="One JSON object per log line (oslo.log's JSONFormatter keys)."),
]

# Ours (issue 16): the metrics and probe listener of each process (observability/listener.py).
_METRICS = [
    cfg.ListOpt("listen", default=None,
                help="host:port serving /metrics, /livez and /readyz from a thread of this "
                     "process. Unset: 127.0.0.1:9102 when serve runs every role (the embedded "
                     "mode), off when --roles picks some; empty (listen =): off. Give each "
                     "process of a scale-out its own port."),
]

# oslo.middleware's healthcheck option that the API's /healthcheck honours.
_HEALTHCHECK = [
    cfg.BoolOpt("detailed", default=False,
                help="Give everyone the detailed JSON form of /healthcheck (admins always get "
                     "it)."),
]

_API = [
    cfg.ListOpt("listen", default=["127.0.0.1:9001"]),
    cfg.IntOpt("workers", default=1, min=1,
               help="API processes on the listen addresses (each its own SO_REUSEPORT socket); "
                    "above 1 they are children of serve, which keeps the other roles. "
                    "Designate's default is one per CPU; here 1."),
    cfg.StrOpt("auth_strategy", default="noauth", choices=["noauth", "keystone"]),
    cfg.BoolOpt("enable_host_header", default=True),
    cfg.StrOpt("api_base_uri", default="http://127.0.0.1:9001/"),
    cfg.BoolOpt("enable_api_v2", default=True),
    cfg.BoolOpt("enable_api_admin", default=False),
    cfg.ListOpt("enabled_extensions_admin", default=[]),
    cfg.IntOpt("default_limit_v2", default=20),
    cfg.IntOpt("max_limit_v2", default=1000),
    cfg.IntOpt("default_limit_admin", default=20),
    cfg.IntOpt("max_limit_admin", default=1000),
    cfg.BoolOpt("maintenance_mode", default=False),
    cfg.StrOpt("maintenance_mode_role", default="admin"),
    cfg.BoolOpt("allow_empty_secrets_for_tsig", default=True),
    cfg.BoolOpt("quotas_verify_project_id", default=False),
    # Ours: the HTTP listener's connection limits (api/listener.py); Designate leaves them to
    # its WSGI server.
    cfg.FloatOpt("header_timeout", default=20.0, min=0,
                 help="Seconds a connection may take to send a request's line and headers "
                      "(from its opening, or a keep-alive request's first byte); then 408 and "
                      "close. 0 disables."),
    cfg.FloatOpt("body_timeout", default=60.0, min=0,
                 help="Seconds a request body may take once the headers are in; then 408 (or "
                      "a bare close once the response has started). 0 disables."),
    cfg.FloatOpt("keep_alive_timeout", default=5.0, min=0.1,
                 help="Seconds an idle keep-alive connection stays open between requests "
                      "(uvicorn's timeout_keep_alive)."),
    cfg.IntOpt("max_header_size", default=65536, min=1024,
               help="Bytes allowed for a request line plus headers; above, 431 and close."),
    cfg.IntOpt("max_connections", default=1000, min=0,
               help="Open API connections per listen address; one more is answered 503 and "
                    "closed. 0 = unlimited."),
    cfg.FloatOpt("propagation_refresh", default=5.0, min=0,
                 help="Ours: GET /v2/zones/{id}/propagation asks the nameservers again when "
                      "what the worker last saw of them is older than this many seconds."),
]

_CENTRAL = [
    cfg.IntOpt("max_zone_name_len", default=255),
    cfg.IntOpt("max_recordset_name_len", default=255),
    cfg.StrOpt("managed_resource_email", default="hostmaster@example.com"),
    cfg.StrOpt("managed_resource_tenant_id", default="00000000-0000-0000-0000-000000000000"),
    cfg.IntOpt("min_ttl", default=0),
    cfg.StrOpt("default_pool_id", default=DEFAULT_POOL_ID),
    cfg.ListOpt("scheduler_filters", default=["default_pool"]),
]

_MDNS = [
    cfg.ListOpt("listen", default=["127.0.0.1:5354"]),
    cfg.FloatOpt("tcp_recv_timeout", default=0.5),
    cfg.IntOpt("max_message_size", default=65535),
    cfg.BoolOpt("query_enforce_tsig", default=False),
    cfg.IntOpt("max_udp_payload", default=1232, min=512, max=65535,
               help="EDNS payload mdns advertises; no UDP answer exceeds the smaller of it and "
                    "the client's (512 without EDNS): larger ones are truncated (TC) so the "
                    "client retries over TCP. Ours; bounds UDP amplification."),
    # Ours, from here on: what one client (or a flood) may make mdns do (issue 11).
    cfg.IntOpt("max_udp_in_flight", default=100, min=1,
               help="UDP queries mdns answers at once, over all its listen addresses; a "
                    "datagram arriving while this many are in flight is dropped unanswered "
                    "(counted, logged at most every 10 s) rather than queued, so a flood never "
                    "becomes a backlog. Applies to rate-limit-exempt clients too. TCP is "
                    "bounded by tcp_recv_timeout instead."),
    cfg.IntOpt("udp_rate_limit", default=20, min=0,
               help="UDP queries per second one client may send (an IPv4 address, an IPv6 "
                    "/64), with a burst of one second's worth but at most a quarter of "
                    "max_udp_in_flight; queries over it are dropped unanswered before they are "
                    "parsed. 0 = no limit. Low because mdns answers from the database and its "
                    "clients are the pools' nameservers, which are exempt: never applied to "
                    "the addresses of the pools' nameservers and also-notifies and of the "
                    "secondary zones' masters (re-read every 30 s) nor of "
                    "udp_rate_limit_exempt, so the servers that talk to mdns are never "
                    "starved; never applied to TCP either (a limited client still gets "
                    "answers there)."),
    cfg.ListOpt("udp_rate_limit_exempt", default=[],
                help="Addresses or networks (e.g. 192.0.2.10, 10.0.0.0/8) never rate limited "
                     "by mdns, besides the pools' nameservers and also-notifies and the "
                     "secondary zones' masters: e.g. nameservers whose queries come from "
                     "another address than the one in pools.yaml (or named there), or "
                     "monitoring."),
    cfg.FloatOpt("zone_cache_ttl", default=1.0, min=0,
                 help="Seconds mdns remembers which zone a name belongs to (found or not), so "
                      "a query flood does not become a flood of SQL. Records and SOA serials "
                      "are never cached. Zones created or deleted by this process are seen at "
                      "once; by another process, within this time. 0 = every query reads the "
                      "database."),
    cfg.IntOpt("transfer_cache_size", default=16, min=0,
               help="MiB of rendered zone transfers (AXFR, IXFR) mdns keeps, least recently "
                    "used out first, so that the nameservers of a pool pulling the same serial "
                    "of a zone cost one database read and one rendering, not one each. Keyed "
                    "by the zone's SOA as read for each transfer: a new serial is never served "
                    "from an older one. A 100,000-record zone takes about 2.5 MiB. 0 = "
                    "none."),
    cfg.IntOpt("large_transfer_size", default=256, min=0,
               help="MiB up to which a transfer too large for transfer_cache_size (a large "
                    "signed zone: ~40 MiB for 100,000 records) is still kept, alone, for the "
                    "burst of nameservers pulling it. 0 = such transfers are never kept."),
    cfg.IntOpt("large_transfer_seconds", default=300, min=0,
               help="Seconds the large transfer is kept after it was last asked for; then its "
                    "memory is let go (an idle process stays small). 0 = not kept."),
]

_NAMESERVER = [
    cfg.ListOpt("listen", default=["127.0.0.1:5300"],
                help="Address of the built-in authoritative nameserver (default pool target)."),
    cfg.IntOpt("max_udp_payload", default=1232, min=512, max=65535,
               help="EDNS payload the built-in nameserver advertises; no UDP answer exceeds the "
                    "smaller of it and the client's (512 without EDNS): larger ones are "
                    "truncated (TC) so the client retries over TCP."),
    cfg.ListOpt("allow_transfer", default=[],
                help="Addresses or networks (e.g. 192.0.2.10, 10.0.0.0/8) that may AXFR/IXFR "
                     "from the built-in nameserver; a query signed with a TSIG key of "
                     "/v2/tsigkeys may too. Default: nobody (REFUSED)."),
    cfg.IntOpt("max_udp_in_flight", default=100, min=1,
               help="UDP queries the built-in nameserver answers at once, over all its listen "
                    "addresses; a datagram arriving while this many are in flight is dropped "
                    "unanswered (counted, logged at most every 10 s) rather than queued. "
                    "Applies to rate-limit-exempt clients too."),
    cfg.IntOpt("udp_rate_limit", default=100, min=0,
               help="UDP queries per second one client may send (an IPv4 address, an IPv6 "
                    "/64), with a burst of one second's worth but at most a quarter of "
                    "max_udp_in_flight; queries over it are dropped unanswered before they are "
                    "parsed. 0 = no limit. Higher than mdns's: resolvers are its clients, and "
                    "its answers come from memory. Never applied to TCP, to the masters (the "
                    "[service:mdns] listen addresses, from which the worker of the same host "
                    "also polls; a wildcard one stands for 127.0.0.1 and ::1) nor to "
                    "udp_rate_limit_exempt."),
    cfg.ListOpt("udp_rate_limit_exempt", default=[],
                help="Addresses or networks never rate limited by the built-in nameserver, "
                     "besides its masters. List the hosts of workers that run elsewhere: their "
                     "SOA polls (hundreds a second while many zones change) must not be "
                     "dropped."),
]

_WORKER = [
    cfg.IntOpt("threshold-percentage", default=100, dest="threshold_percentage"),
    cfg.IntOpt("poll_timeout", default=30,
               help="Seconds a change may take to reach every nameserver before ERROR."),
    cfg.IntOpt("poll_retry_interval", default=15,
               help="Upper bound of the growing pause between SOA polls and retries."),
    cfg.IntOpt("poll_max_retries", default=10),
    cfg.IntOpt("poll_delay", default=0,
               help="Seconds before the first SOA poll (Designate waits 5; we poll at once)."),
    cfg.FloatOpt("dns_timeout", default=2.0, help="Timeout of one NOTIFY or SOA query."),
    cfg.BoolOpt("all_tcp", default=False),
    cfg.IntOpt("xfr_timeout", default=10),
    cfg.BoolOpt("export_synchronous", default=True),
    cfg.IntOpt("lease_seconds", default=10,
               help="How long a claimed zone stays owned by a worker that stops renewing it "
                    "(renewed every third of it while the push runs)."),
    cfg.IntOpt("concurrency", default=32, help="Zones pushed in parallel by one worker."),
]

_STORAGE = [
    cfg.StrOpt("connection", default=None, secret=True),
    cfg.IntOpt("max_pool_size", default=5),
    cfg.IntOpt("max_overflow", default=50),
    cfg.IntOpt("pool_timeout", default=None),
    cfg.IntOpt("connection_recycle_time", default=3600),
]

_MIDDLEWARE = [
    cfg.IntOpt("max_request_body_size", default=114688),
    cfg.BoolOpt("enable_proxy_headers_parsing", default=False,
                help="Take the client's address and scheme from X-Forwarded-For/-Proto (set "
                     "behind a proxy that writes them; otherwise a client could forge them)."),
]

# keystonemiddleware's names, so an operator's [keystone_authtoken] section reads unchanged.
_KEYSTONE_AUTHTOKEN = [
    cfg.StrOpt("www_authenticate_uri", deprecated_name="auth_uri",
               help="Public Identity endpoint, sent in WWW-Authenticate on 401."),
    cfg.StrOpt("auth_url", help="Identity endpoint used to obtain the service token and "
                                "validate user tokens."),
    cfg.StrOpt("auth_type", default="password", choices=["password"]),
    cfg.StrOpt("username"),
    cfg.StrOpt("password", secret=True),
    cfg.StrOpt("user_id"),
    cfg.StrOpt("user_domain_name"),
    cfg.StrOpt("user_domain_id"),
    cfg.StrOpt("project_name"),
    cfg.StrOpt("project_id"),
    cfg.StrOpt("project_domain_name"),
    cfg.StrOpt("project_domain_id"),
    cfg.StrOpt("system_scope"),
    cfg.StrOpt("region_name"),
    cfg.ListOpt("memcached_servers", deprecated_name="memcache_servers",
                help="Accepted and ignored: the token cache lives in the API process."),
    cfg.IntOpt("token_cache_time", default=300,
               help="Seconds a validation result (valid or invalid) is reused; -1 disables."),
    cfg.IntOpt("token_cache_size", default=10000,
               help="Ours: most tokens remembered at once (the oldest are dropped)."),
    cfg.IntOpt("http_connect_timeout"),
    cfg.IntOpt("http_request_max_retries", default=3),
    cfg.StrOpt("cafile"),
    cfg.BoolOpt("insecure", default=False),
    cfg.BoolOpt("include_service_catalog", default=True),
    cfg.ListOpt("service_token_roles", default=["service"]),
    cfg.BoolOpt("service_token_roles_required", default=False),
    cfg.StrOpt("service_type", help="This service's catalog type, for tokens with access rules."),
]

# Designate's Neutron client: ``region|url`` endpoints override the caller's service catalog.
_NEUTRON = [
    cfg.ListOpt("endpoints", help="URLs to use for Neutron, as region|url pairs."),
    cfg.StrOpt("endpoint_type", default="publicURL",
               help="Catalog interface used when no endpoint is configured."),
    cfg.IntOpt("timeout", default=30, help="Seconds a Neutron request may take."),
    cfg.BoolOpt("insecure", default=False, help="Skip TLS certificate verification."),
    cfg.StrOpt("ca_certificates_file", help="CA bundle that signs Neutron's certificate."),
    cfg.StrOpt("client_certificate_file", help="Client certificate presented to Neutron."),
]

_SINK = [
    cfg.IntOpt("workers", help="Accepted for designate.conf compatibility; one process here."),
    cfg.IntOpt("threads", default=1000,
               help="Accepted for designate.conf compatibility; oslo.messaging's "
                    "executor_thread_pool_size sizes the listener."),
    cfg.ListOpt("enabled_notification_handlers", default=[],
                help="nova_fixed, neutron_floatingip; none enabled = no sink, no broker needed."),
    cfg.StrOpt("listener_pool_name", help="oslo.messaging listener pool (own queue per pool)."),
]


def _handler_opts(exchange: str) -> list[cfg.Opt]:
    """The options every address handler group carries; only the exchange default differs."""
    return [
        cfg.ListOpt("notification_topics", default=["notifications"]),
        cfg.StrOpt("control_exchange", default=exchange),
        cfg.StrOpt("zone_id", help="Zone receiving the records; unset = handler inactive."),
        cfg.MultiStrOpt("formatv4", default=None),
        cfg.MultiStrOpt("format", default=None, deprecated_for_removal=True,
                        deprecated_reason="Replaced by formatv4/formatv6"),
        cfg.MultiStrOpt("formatv6", default=None),
    ]


# Ours (issue 14): ExternalDNS's webhook provider as a role of serve (externaldns/).
_EXTERNALDNS = [
    cfg.StrOpt("listen", default="127.0.0.1:8888",
               help="host:port of the webhook ExternalDNS calls (--webhook-provider-url). "
                    "Unauthenticated, as ExternalDNS's webhook protocol is: keep it on "
                    "loopback (a sidecar in ExternalDNS's pod) or a network only it reaches."),
    cfg.StrOpt("health_listen", default="127.0.0.1:8080",
               help="host:port serving GET /healthz (200 while the database answers)."),
    cfg.StrOpt("project_id",
               help="The project whose zones the webhook manages. Unset: the role is off in "
                    "the default serve (every role), and serve --roles externaldns refuses "
                    "to start."),
    cfg.ListOpt("domain_filter", default=[],
                help="Zones (or names) the webhook manages, as ExternalDNS's --domain-filter; "
                     "answered to ExternalDNS at negotiation. Empty: every zone of the "
                     "project."),
    cfg.IntOpt("max_body_size", default=16 * 1024 * 1024, min=1024,
               help="Bytes one request body may have (a first sync posts every record at "
                    "once); above, 413."),
]

_HEARTBEAT = [
    cfg.FloatOpt("heartbeat_interval", default=10.0),
    cfg.StrOpt("emitter_type", default="rpc"),
]

_PRODUCER_TASKS = {
    "zone_purge": [cfg.IntOpt("interval", default=3600), cfg.IntOpt("time_threshold", default=604800),
                   cfg.IntOpt("batch_size", default=100)],
    "worker_periodic_recovery": [cfg.IntOpt("interval", default=120)],
    "periodic_check_service_status": [cfg.IntOpt("interval", default=3600),
                                      cfg.IntOpt("time_threshold", default=1800)],
    # Designate checks hourly; each zone's own SOA refresh decides, so check every minute.
    "periodic_secondary_refresh": [cfg.IntOpt("interval", default=60)],
    "periodic_exists": [cfg.IntOpt("interval", default=3600), cfg.IntOpt("per_page", default=100)],
    # DNSSEC (extension): a signed zone gets a new serial when its last is older than
    # refresh_age, so signatures (valid 14 days, renewed with under 7 left) never lapse
    "dnssec_refresh": [cfg.IntOpt("interval", default=3600),
                       cfg.IntOpt("refresh_age", default=3 * 86400, min=60, max=6 * 86400)],
}

_DNSSEC = [
    cfg.StrOpt("key_encryption_key", secret=True,
               help="Base64 of 16, 24 or 32 random bytes sealing the zones' DNSSEC private keys "
                    "(AES-GCM). Unset: one is generated into state_path (mode 0600); processes "
                    "on several hosts sharing a database must all be given the same key."),
    cfg.IntOpt("zsk_rollover_period", default=30, min=0,
               help="Days after which a zone's ZSK is rolled over (double signature) by the "
                    "producer's dnssec_refresh job; 0: only on request."),
    cfg.IntOpt("retire_margin", default=3600, min=0,
               help="Seconds beyond the zone's DNSKEY TTL a rolled-over ZSK stays published "
                    "(and signing), for secondaries slow to transfer the new version."),
    cfg.IntOpt("confirm_timeout", default=600, min=0,
               help="Seconds a change of a signed zone may take to reach nameservers that keep "
                    "answering meanwhile (with the older serial): signing a large zone's whole "
                    "version (first signing, or after mdns restarted) and transferring it take "
                    "minutes. A nameserver silent for [service:worker] poll_timeout still makes "
                    "the zone ERROR then. At most poll_timeout: no extension."),
]

GROUPS: dict[str, list[cfg.Opt]] = {
    "DEFAULT": _DEFAULT,
    "service:api": _API,
    "service:central": _CENTRAL,
    "service:mdns": _MDNS,
    "service:nameserver": _NAMESERVER,
    "service:worker": _WORKER,
    "storage:sqlalchemy": _STORAGE,
    "oslo_middleware": _MIDDLEWARE,
    "service:metrics": _METRICS,
    "healthcheck": _HEALTHCHECK,
    "keystone_authtoken": _KEYSTONE_AUTHTOKEN,
    "heartbeat_emitter": _HEARTBEAT,
    "service:sink": _SINK,
    "service:externaldns": _EXTERNALDNS,
    "handler:nova_fixed": _handler_opts("nova"),
    "handler:neutron_floatingip": _handler_opts("neutron"),
    "network_api:neutron": _NEUTRON,
    "dnssec": _DNSSEC,
    **{f"producer_task:{name}": opts for name, opts in _PRODUCER_TASKS.items()},
}


def new_config() -> cfg.ConfigOpts:
    """A config object with every option registered and no file read yet."""
    conf = cfg.ConfigOpts()
    for group, opts in GROUPS.items():
        if group == "DEFAULT":
            conf.register_opts(opts)
        else:
            conf.register_opts(opts, group=group)
    return conf


def load(config_files: list[str] | None = None) -> cfg.ConfigOpts:
    """Read the given files (none: built-in defaults only)."""
    conf = new_config()
    conf([], project="openkeel-designate", default_config_files=config_files or [],
         default_config_dirs=[], validate_default_values=True)
    return conf


def database_url(conf: cfg.ConfigOpts) -> str:
    """The configured database, or an SQLite file under ``state_path``."""
    url = conf["storage:sqlalchemy"].connection
    if url:
        return url
    state = os.path.abspath(conf.state_path)
    os.makedirs(state, exist_ok=True)
    return f"sqlite:///{os.path.join(state, 'designate.sqlite')}"


def parse_hostport(value: str, default_port: int) -> tuple[str, int]:
    """``host:port`` / ``[v6]:port`` / ``host`` into a tuple."""
    value = value.strip()
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        return host, int(rest.lstrip(":") or default_port)
    if value.count(":") == 1:
        host, port = value.split(":")
        return host, int(port)
    return value, default_port
