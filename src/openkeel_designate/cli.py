"""``openkeel-designate``: one entry point.

  serve  [--config-file F] [--roles api,worker,mdns,producer,nameserver]
  manage [--config-file F] database sync [--backup FILE | --no-backup]
  manage [--config-file F] database downgrade-to-designate | forget-designate
  manage [--config-file F] config check
  manage [--config-file F] pool update --file pools.yaml [--delete]
  manage [--config-file F] pool show-config
  manage [--config-file F] zone errors
  manage [--config-file F] zone status ZONE
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

import yaml

from openkeel_designate import api_workers, config
from openkeel_designate.domain.errors import DesignateError
from openkeel_designate.observability import logs


def main(argv: list[str] | None = None) -> int:
    # Here and not at the top: a ``spawn`` worker of ``offload`` imports this module (the console
    # script's main) before its job, and the runtime would drag the whole server in with it.
    from openkeel_designate.runtime import ALL_ROLES

    parser = argparse.ArgumentParser(prog="openkeel-designate")
    parser.add_argument("--config-file", action="append", default=[],
                        help="designate.conf-style file (repeatable)")
    parser.add_argument("--debug", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the service")
    serve.add_argument("--config-file", action="append", dest="serve_config", default=[])
    serve.add_argument("--roles", default=",".join(ALL_ROLES),
                       help=f"comma-separated subset of {','.join(ALL_ROLES)}")
    # Internal: set by the parent of [service:api] workers on each API child it starts.
    serve.add_argument(api_workers.CHILD_OPTION, type=int, dest="api_child_pipe",
                       help=argparse.SUPPRESS)
    serve.add_argument(api_workers.METRICS_OPTION, dest="api_child_metrics",
                       help=argparse.SUPPRESS)

    manage = sub.add_parser("manage", help="operator commands (like designate-manage)")
    manage.add_argument("--config-file", action="append", dest="manage_config", default=[])
    manage_sub = manage.add_subparsers(dest="area", required=True)
    database = manage_sub.add_parser("database")
    database.add_argument("action", choices=["sync", "downgrade-to-designate",
                                             "forget-designate"])
    database.add_argument("--backup", metavar="FILE",
                          help="taking over a Designate database: dump it to FILE first")
    database.add_argument("--no-backup", action="store_true",
                          help="taking over a Designate database: you took the backup yourself")
    pool = manage_sub.add_parser("pool")
    pool.add_argument("action", choices=["update", "show-config", "show_config"])
    pool.add_argument("--file", help="pools.yaml")
    pool.add_argument("--delete", action="store_true", help="remove pools absent from the file")
    config_cmd = manage_sub.add_parser("config")
    config_cmd.add_argument("action", choices=["check"],
                            help="options of the files that nothing here uses, and what they did")
    zone = manage_sub.add_parser("zone")
    zone.add_argument("action", choices=["errors", "status"],
                      help="errors: zones in ERROR and why; status ZONE: where it is served")
    zone.add_argument("zone", nargs="?", help="zone name or id (status)")

    args = parser.parse_args(argv)
    files = args.config_file + getattr(args, "serve_config", []) + getattr(args, "manage_config", [])
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    conf = config.load(files)
    logs.configure(debug=args.debug or conf.debug, use_json=conf.use_json)
    if args.command == "serve":
        roles = [r.strip() for r in args.roles.split(",") if r.strip()]
        unknown = sorted(set(roles) - set(ALL_ROLES))
        if unknown:
            parser.error(f"unknown roles: {', '.join(unknown)}")
        from openkeel_designate.runtime import serve as run_serve

        if args.api_child_pipe is None:  # the parent of API processes said it already
            _report_unused_options(files)

        _use_fast_event_loop()
        asyncio.run(run_serve(conf, roles, config_files=files, debug=args.debug,
                              api_child_pipe=args.api_child_pipe,
                              api_child_metrics=args.api_child_metrics))
        return 0
    if args.area == "config":
        return _config_check(files)
    return _manage(conf, args)


def _report_unused_options(files: list[str]) -> None:
    """Once at start: oslo.config would ignore these silently.

    Only a file with options not ours needs the libraries' option lists; that check runs in a
    child so that oslo.messaging and what it imports do not stay in the serving process."""
    from openkeel_designate import config_check

    if config_check.acts_here(files):
        return
    line = config_check.report_from_child(files)
    if line:
        logging.getLogger("openkeel_designate.config").warning(line)


def _config_check(files: list[str]) -> int:
    from openkeel_designate import config_check

    unused = config_check.unused(files)
    for item in unused:
        print(f"[{item.group}] {item.name}: not used here; in Designate: {item.meaning}")
    if not unused:
        print("every option set in " + (", ".join(files) or "(no file)") + " is used")
    return 0


def _use_fast_event_loop() -> None:
    """uvloop when installed: every role (HTTP, DNS, database drivers) runs on one loop."""
    try:
        import uvloop
    except ImportError:
        return
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


def _manage(conf, args) -> int:
    from openkeel_designate.storage import migrate

    url = config.database_url(conf)
    if args.area == "database":
        return _database(url, args)
    if args.area == "zone" and args.action == "status":
        return _zone_status(conf, args.zone)
    if args.area == "zone":
        for name, zone_id, action, reason in asyncio.run(_zone_errors(conf)):
            print(f"{name} {zone_id} {action}: {reason}")
        return 0
    if args.action == "update":
        if not args.file:
            print("pool update needs --file", file=sys.stderr)
            return 2
        with open(args.file, encoding="utf-8") as handle:
            definitions = yaml.safe_load(handle) or []
        migrate.upgrade(url)
        try:
            ids = asyncio.run(_pool_update(conf, definitions, args.delete))
        except DesignateError as exc:
            print(f"pool update refused: {exc.message}", file=sys.stderr)
            return 1
        print(f"updated {len(ids)} pool(s): {', '.join(ids)}")
        return 0
    print(yaml.safe_dump(asyncio.run(_pool_show(conf)), sort_keys=False), end="")
    return 0


def _database(url: str, args) -> int:
    from openkeel_designate.storage.takeover import downgrade, procedure, undo

    try:
        if args.action == "downgrade-to-designate":
            downgrade.downgrade(url)
            print("the database is Designate 23.0.0's again, with our rows written back")
            return 0
        if args.action == "forget-designate":
            dropped = undo.forget(url)
            print("dropped Designate's leftover " + ", ".join(dropped))
            return 0
        result = procedure.sync(url, backup_file=args.backup, no_backup=args.no_backup)
    except procedure.Refused as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if result.took_over:
        print(f"took over the Designate database in {result.seconds:.1f} s; its tables stay "
              "aside until 'manage database forget-designate'")
    print("database is at the latest schema")
    return 0


def _zone_status(conf, zone: str | None) -> int:
    from openkeel_designate.zone_status import zone_status

    if not zone:
        print("zone status needs a zone name or id", file=sys.stderr)
        return 2
    try:
        print(asyncio.run(zone_status(conf, zone)))
    except DesignateError as exc:
        print(f"zone status: {exc.message}", file=sys.stderr)
        return 1
    return 0


async def _pool_update(conf, definitions, delete_missing: bool) -> list[str]:
    from openkeel_designate.central import pools
    from openkeel_designate.central.policy import Policy
    from openkeel_designate.central.services import Services
    from openkeel_designate.runtime import open_database

    db = open_database(conf)
    try:
        svc = Services(conf=conf, db=db, policy=Policy(conf))
        return await pools.update_from_definitions(svc, definitions, delete_missing)
    finally:
        await db.dispose()


async def _zone_errors(conf) -> list[tuple[str, str, str, str]]:
    from openkeel_designate.runtime import open_database
    from openkeel_designate.storage import zones as zone_store

    db = open_database(conf)
    try:
        async with db.read() as session:
            return await zone_store.in_error(session)
    finally:
        await db.dispose()


async def _pool_show(conf) -> list[dict]:
    from openkeel_designate.runtime import open_database
    from openkeel_designate.storage import pools as pool_store

    db = open_database(conf)
    try:
        async with db.read() as session:
            result = []
            for pool in await pool_store.all_pools(session):
                detail = await pool_store.detail(session, pool.id)
                result.append({
                    "id": pool.id, "name": pool.name, "description": pool.description,
                    "attributes": detail.attributes,
                    "ns_records": [{"hostname": n.hostname, "priority": n.priority}
                                   for n in detail.ns_records],
                    "nameservers": [{"host": n.host, "port": n.port} for n in detail.nameservers],
                    "targets": [{"type": t.type, "description": t.description,
                                 "masters": [{"host": m.host, "port": m.port} for m in masters],
                                 "options": options}
                                for t, options, masters in detail.targets],
                    "also_notifies": [{"host": a.host, "port": a.port}
                                      for a in detail.also_notifies],
                })
            return result
    finally:
        await db.dispose()


if __name__ == "__main__":
    sys.exit(main())
