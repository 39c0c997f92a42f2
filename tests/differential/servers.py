"""The two servers compared: the real Designate 23.0.0 and ours, configured alike.

The reference is used where it already answers (http://127.0.0.1:9101 unless ``REF_API``);
otherwise it is set up and started with /work/shared/ref's scripts on the moved ports (bench's
``Ref``, which stops only what it started). Ours is a fresh ``openkeel-designate serve`` with the
reference's settings as the conformance corpus records them (shared/conformance/server.conf:
quotas, admin API with quotas/reports/zones) and its default pool (id, name, NS record).
"""

from __future__ import annotations

import configparser
import contextlib
import os
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tests"))

from support.server import ServerProcess  # noqa: E402

REF_SCRIPTS = Path(os.environ.get("REF_SCRIPTS", SHARED / "ref"))
REF_DIR = Path(os.environ.get("REF_DIR", "/tmp/ref"))


class ReferenceUnavailable(RuntimeError):
    """The reference neither answers nor could be started; the message names what is missing."""


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/", timeout=5) as resp:
            return resp.status == 200
    except OSError:
        return False


@contextlib.contextmanager
def reference() -> Iterator[str]:
    """The reference's API URL for the duration of the block."""
    from targets import Ref, RefUnavailable, ref_ports  # bench/targets.py

    ports = ref_ports()
    url = os.environ.get("REF_API", f"http://127.0.0.1:{ports['API_PORT']}")
    if answers(url):
        yield url
        return
    if not REF_SCRIPTS.is_dir():
        raise ReferenceUnavailable(f"reference Designate not running at {url} and {REF_SCRIPTS} missing")
    ref = Ref(REF_SCRIPTS, REF_DIR, ports)
    try:
        ref.start()
    except RefUnavailable as exc:
        raise ReferenceUnavailable(f"reference Designate could not be started: {exc}") from exc
    try:
        yield ref.api_url
    finally:
        ref.stop()


def options() -> dict:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(SHARED / "conformance" / "server.conf")
    return {section: dict(parser[section]) for section in parser.sections()} | {
        "DEFAULT": dict(parser.defaults())}


def pools(server: ServerProcess) -> str:
    """The reference's default pool, its target our built-in nameserver."""
    loaded = yaml.safe_load((SHARED / "conformance" / "pools.yaml").read_text())
    for pool in loaded:
        pool["nameservers"] = [{"host": "127.0.0.1", "port": server.ns_port}]
        for target in pool["targets"]:
            target["masters"] = [{"host": "127.0.0.1", "port": server.mdns_port}]
            target["options"] = {"host": "127.0.0.1", "port": server.ns_port}
    return yaml.safe_dump(loaded)


@contextlib.contextmanager
def ours(database: str = "sqlite") -> Iterator[str]:
    with ServerProcess(options=options(), pools=pools, database=database) as server:
        yield server.api_url
