"""``openkeel-designate``: one entry point.

  serve  [--config-file F] [--roles api,worker,mdns,producer,nameserver]
  manage [--config-file F] database sync
  manage [--config-file F] pool update --file pools.yaml [--delete]
  manage [--config-file F] pool show-config
  manage [--config-file F] zone errors
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

import yaml

from openkeel_designate import config
from openkeel_designate.domain.errors import DesignateError
from openkeel_designate.runtime import ALL_ROLES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="openkeel-designate")
    parser.add_argument("--config-file", action="append", default=[],
                        help="designate.conf-style file (repeatable)")
    parser.add_argument("--debug", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the service")
    serve.add_argument("--config-file", action="append", dest="serve_config", default=[])
    serve.add_argument("--roles", default=",".join(ALL_ROLES),
                       help=f"comma-separated subset of {','.join(ALL_ROLES)}")

    manage = sub.add_parser("manage", help="operator commands (like designate-manage)")
    manage.add_argument("--config-file", action="append", dest="manage_config", default=[])
    manage_sub = manage.add_subparsers(dest="area", required=True)
    database = manage_sub.add_parser("database")
    database.add_argument("action", choices=["sync"])
    pool = manage_sub.add_parser("pool")
    pool.add_argument("action", choices=["update", "show-config", "show_config"])
    pool.add_argument("--file", help="pools.yaml")
    pool.add_argument("--delete", action="store_true", help="remove pools absent from the file")
    zone = manage_sub.add_parser("zone")
    zone.add_argument("action", choices=["errors"], help="zones in ERROR and why")

    args = parser.parse_args(argv)
    files = args.config_file + getattr(args, "serve_config", []) + getattr(args, "manage_config", [])
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    conf = config.load(files)
    if args.command == "serve":
        roles = [r.strip() for r in args.roles.split(",") if r.strip()]
        unknown = sorted(set(roles) - set(ALL_ROLES))
        if unknown:
            parser.error(f"unknown roles: {', '.join(unknown)}")
        from openkeel_designate.runtime import serve as run_serve

        _use_fast_event_loop()
        asyncio.run(run_serve(conf, roles))
        return 0
    return _manage(conf, args)


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
        migrate.upgrade(url)
        print("database is at the latest schema")
        return 0
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
