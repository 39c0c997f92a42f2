"""Which options of the operator's ``designate.conf`` this project does not use, and what they
meant in Designate.

oslo.config ignores unknown options silently; an operator who brings the file Designate ran on
must not believe a setting still acts when nothing here reads it.  ``serve`` logs the list once at
start, ``manage config check`` prints it with each option's meaning in Designate 23.0.0.

Knowing the options of the libraries means importing oslo.messaging, which stays resident once
imported; ``serve`` therefore asks them only when the file sets an option that is not one of
ours, and then in a short-lived child (``python -m``), like the schema step (``schema_child``).
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

from oslo_config import cfg

from openkeel_designate import config

COMPAT_PREFIX = "Accepted for designate.conf compatibility"
_ONE_PROCESS = ("number of processes (or threads) of this Designate service; here every role "
                "is one asyncio process, scaled by running more of them (serve --roles)")
_ROLES = ("service:api", "service:central", "service:worker", "service:producer",
          "service:mdns", "service:sink")

# What a Designate 23.0.0 option did, for those with no counterpart here (our own words).
MEANINGS: dict[tuple[str, str], str] = {
    **{(group, "workers"): _ONE_PROCESS for group in _ROLES if group != "service:api"},
    **{(group, "threads"): _ONE_PROCESS for group in _ROLES},
    ("DEFAULT", "log_file"): "oslo.log output file; here logs go to stderr (journald, docker)",
    ("DEFAULT", "log_dir"): "oslo.log directory; here logs go to stderr",
    ("DEFAULT", "use_syslog"): "oslo.log to syslog; here logs go to stderr",
    ("DEFAULT", "use_stderr"): "oslo.log to stderr; here always",
    ("DEFAULT", "log_config_append"): "an oslo.log logging config file; not read here",
    ("DEFAULT", "root_helper"): "sudo wrapper for privileged commands; nothing here needs one",
    ("DEFAULT", "network_api"): "the network API driver for reverse DNS (neutron); here neutron "
                                "is the only one ([network_api:neutron])",
    ("DEFAULT", "rpc_response_timeout"): "seconds an RPC call between services waited; there "
                                         "is no RPC here (the API calls central in process)",
    ("DEFAULT", "executor_thread_pool_size"): "oslo.messaging RPC thread pool; no RPC here",
    ("DEFAULT", "pybasedir"): "Designate's install directory",
    ("DEFAULT", "bindir"): "Designate's bin directory",
    ("service:api", "api_paste_config"): "the paste pipeline of the WSGI API; the middleware "
                                         "here is fixed (auth, limits, maintenance)",
    ("service:api", "api_paste_configs"): "as api_paste_config",
    ("service:api", "pecan_debug"): "Pecan's debug pages for the API",
    ("service:api", "enabled_extensions_v2"): "extra v2 API extensions; all of v2 is served here",
    ("service:api", "enable_api_v1"): "the removed v1 API",
    ("service:central", "central_topic"): "RabbitMQ topic of central's RPC; no RPC here",
    ("service:worker", "worker_topic"): "RabbitMQ topic of the worker's RPC; the database is "
                                        "the work queue here",
    ("service:worker", "notify"): "whether the worker sent NOTIFY; here it always does",
    ("service:worker", "notify_delay"): "seconds between NOTIFYs; here NOTIFY goes at once",
    ("service:worker", "xfr_timeout"): "zone transfer timeout of secondary zones",
    ("service:producer", "enabled_tasks"): "which periodic tasks ran; here all run, each under "
                                           "a database lease ([producer_task:*] intervals)",
    ("service:producer", "export_synchronous"): "exports rendered in the API call",
    ("service:producer", "producer_topic"): "RabbitMQ topic of the producer's RPC; no RPC here",
    ("service:mdns", "tcp_backlog"): "listen backlog of mdns' TCP socket",
    ("service:mdns", "storage_driver"): "mdns' storage driver; here the configured database",
    ("service:mdns", "mdns_topic"): "RabbitMQ topic of mdns' RPC; no RPC here",
    ("service:mdns", "all_tcp"): "mdns sent NOTIFY over TCP only",
    ("storage:sqlalchemy", "max_retries"): "oslo.db connection retries at start; here the "
                                           "engine reconnects on use",
    ("storage:sqlalchemy", "retry_interval"): "oslo.db seconds between connection retries",
    ("storage:sqlalchemy", "idle_timeout"): "old name of connection_recycle_time",
    ("storage:sqlalchemy", "connection_debug"): "oslo.db SQL logging level",
    ("storage:sqlalchemy", "mysql_sql_mode"): "oslo.db session sql_mode on MySQL",
    ("storage:sqlalchemy", "db_max_retries"): "oslo.db retries of a failed transaction; here "
                                              "deadlocks are retried by the transaction runner",
    ("oslo_concurrency", "lock_path"): "directory of oslo.concurrency's file locks; locks here "
                                       "are database row locks and leases",
    ("coordination", "backend_url"): "tooz coordination for producer task sharding; here "
                                     "database leases do that",
    ("coordination", "heartbeat_interval"): "tooz heartbeat",
    ("coordination", "run_watchdog"): "tooz watchdog",
}


@dataclass(frozen=True)
class Unused:
    group: str
    name: str
    meaning: str


def read_options(paths: list[str]) -> list[tuple[str, str]]:
    """(group, name) of every option set in the files, in file order, without duplicates."""
    found: list[tuple[str, str]] = []
    for path in paths:
        group = "DEFAULT"
        with open(path, encoding="utf-8") as handle:
            for raw in handle:
                line = raw.strip()
                if not line or line[0] in "#;" or raw[0] in " \t":
                    continue
                if line.startswith("[") and line.endswith("]"):
                    group = line[1:-1].strip()
                    continue
                name = line.split("=", 1)[0].strip()
                if "=" in line and (group, name) not in found:
                    found.append((group, name))
    return found


def unused(paths: list[str]) -> list[Unused]:
    """The options set in ``paths`` that nothing here reads."""
    options = read_options(paths)
    known = _ours()
    if not _all_ours(options, known):
        known.update(_libraries())
    result = []
    for group, name in options:
        key = (group, _norm(name))
        help_text = known.get(key)
        if help_text is None:
            result.append(Unused(group, name, _meaning(group, name)))
        elif help_text.startswith(COMPAT_PREFIX):
            result.append(Unused(group, name, MEANINGS.get((group, _norm(name)), help_text)))
    return result


def acts_here(paths: list[str]) -> bool:
    """True when every option set in ``paths`` is one of ours that acts: nothing to report."""
    return _all_ours(read_options(paths), _ours())


def report_from_child(paths: list[str]) -> str:
    """``report_line`` of the unused options, or "" when none, computed in a child process."""
    done = subprocess.run([sys.executable, "-m", __name__, *paths], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, check=False)
    if done.returncode:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"configuration check failed (exit status {done.returncode}): {tail}")
    return done.stdout.strip()


def _all_ours(options: list[tuple[str, str]], ours: dict[tuple[str, str], str]) -> bool:
    return all(not ours.get((g, _norm(n)), COMPAT_PREFIX).startswith(COMPAT_PREFIX)
               for g, n in options)


def _meaning(group: str, name: str) -> str:
    meaning = MEANINGS.get((group, _norm(name)))
    if meaning:
        return meaning
    if group in config.GROUPS or group in _ROLES or group.startswith(("pool_manager_cache",
                                                                      "backend:", "network_api")):
        return "a Designate option with no counterpart here"
    return "not an option this project knows in that section (a typo, or another service's)"


def _norm(name: str) -> str:
    return name.replace("-", "_")


def _ours() -> dict[tuple[str, str], str]:
    """Every option of this project, by (group, name), with its help text."""
    return _by_name(list(config.GROUPS.items()))


def _libraries() -> dict[tuple[str, str], str]:
    """The options libraries read given our config (oslo.messaging for notifications and the
    sink, oslo.policy for policy files).

    Imported here, on demand: oslo.messaging brings eventlet, oslo.service and kombu (about
    8 MB resident), which the configuration check is the only user of in most processes; a
    library option where ours has the same name takes precedence, as it is the one that acts.
    """
    import oslo_messaging.opts
    import oslo_policy.opts

    groups = [(g or "DEFAULT", list(o)) for g, o in oslo_messaging.opts.list_opts()]
    groups += [(g or "DEFAULT", list(o)) for g, o in oslo_policy.opts.list_opts()]
    return _by_name(groups)


def _by_name(groups: list[tuple[str, list[cfg.Opt]]]) -> dict[tuple[str, str], str]:
    known: dict[tuple[str, str], str] = {}
    for group, opts in groups:
        for opt in opts:
            names = [opt.name, opt.dest] + [d.name for d in opt.deprecated_opts if d.name]
            for name in names:
                known[(group, _norm(name))] = opt.help or ""
    return known


def report_line(items: list[Unused]) -> str:
    """One log line naming every unused option (``serve`` logs it once at start)."""
    return ("options in the configuration that this service does not use (see 'manage config "
            "check'): " + ", ".join(f"[{u.group}] {u.name}" for u in items))


if __name__ == "__main__":
    _items = unused(sys.argv[1:])
    if _items:
        print(report_line(_items))
