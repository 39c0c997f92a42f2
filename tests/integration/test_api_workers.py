"""``[service:api] workers = 2``: two API processes on one port, the other roles in the parent.

Which process holds a connection is read from /proc (the server side of the TCP connection is a
socket inode that one child has open), so the test knows it exercised both. A write through
either child must reach ACTIVE — the worker that pushes it is the parent's — and SIGTERM to the
parent alone must end every process. The parent's ``/metrics`` counts the requests both children
answered.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from support.server import ServerError, ServerProcess, builtin_pool, wait_status

pytestmark = pytest.mark.integration

CHILD_FLAG = "--api-child-pipe"


def api_children(parent: int) -> list[int]:
    children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
    return [int(pid) for pid in children
            if CHILD_FLAG in Path(f"/proc/{pid}/cmdline").read_text().split("\0")]


def owner_of_connection(local_port: int, pids: list[int]) -> int:
    """The pid whose socket is the server end of our connection from ``local_port``."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        remote_port = int(fields[2].split(":")[1], 16)
        if remote_port == local_port:
            inodes.add(fields[9])
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                return pid
    raise AssertionError(f"no API process holds the connection from port {local_port}")


def request(conn: http.client.HTTPConnection, method: str, path: str, headers: dict,
            body: dict | None = None) -> tuple[int, dict]:
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers=headers)
    response = conn.getresponse()
    return response.status, json.loads(response.read() or b"{}")


def metrics_dir_of(child: int) -> str:
    argv = Path(f"/proc/{child}/cmdline").read_text().split("\0")
    return argv[argv.index("--api-child-metrics") + 1]


def zone_lists_counted(metrics_port: int) -> float:
    """``designate_api_requests_total`` of ``GET /v2/zones`` answered 200, from the parent."""
    text = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).text
    total = 0.0
    for line in text.splitlines():
        if (line.startswith("designate_api_requests_total{") and 'method="GET"' in line
                and 'route="/v2/zones"' in line and 'status="200"' in line):
            total += float(line.rsplit(" ", 1)[1])
    return total


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_two_api_processes_serve_write_and_stop(database: str) -> None:
    server = ServerProcess(database=database, pools=builtin_pool,
                           options={"service:api": {"workers": 2}})
    with server:
        parent = server.pid
        assert parent is not None
        # Started: the parent logged that it serves, which it does once every child listens.
        children = api_children(parent)
        assert len(children) == 2

        # Open connections until each child holds at least one (the kernel spreads them).
        by_child: dict[int, http.client.HTTPConnection] = {}
        opened = []
        for _ in range(64):
            conn = http.client.HTTPConnection("127.0.0.1", server.api_port, timeout=10)
            status, _ = request(conn, "GET", "/v2/zones", server.headers())
            assert status == 200
            opened.append(conn)
            by_child.setdefault(owner_of_connection(conn.sock.getsockname()[1], children), conn)
            if len(by_child) == 2:
                break
        assert sorted(by_child) == sorted(children), "one API process got every connection"

        # A zone created through each child, and a recordset through the other: all go ACTIVE.
        zones = {}
        for index, (pid, conn) in enumerate(sorted(by_child.items())):
            status, zone = request(conn, "POST", "/v2/zones", server.headers(),
                                   {"name": f"w{index}.workers.example.",
                                    "email": "h@workers.example"})
            assert status == 202, zone
            zones[pid] = zone
        pids = sorted(by_child)
        recordsets = []
        for pid, other in ((pids[0], pids[1]), (pids[1], pids[0])):
            zone = zones[other]
            status, rs = request(by_child[pid], "POST", f"/v2/zones/{zone['id']}/recordsets",
                                 server.headers(), {"name": f"www.{zone['name']}", "type": "A",
                                                    "records": ["192.0.2.7"]})
            assert status == 202, rs
            recordsets.append(rs)
        with httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10) as api:
            for zone in zones.values():
                wait_status(api, f"/v2/zones/{zone['id']}", "ACTIVE")
            for rs in recordsets:
                wait_status(api, f"/v2/zones/{rs['zone_id']}/recordsets/{rs['id']}", "ACTIVE")
        for conn in opened:
            conn.close()

        # Every GET /v2/zones above was answered by a child; the parent's /metrics counts them all
        # (each child writes its counts at most a second late).
        listed = len(opened)
        deadline = time.monotonic() + 10
        while True:
            counted = zone_lists_counted(server.metrics_port)
            if counted >= listed or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert counted >= listed, f"/metrics counts {counted} GET /v2/zones, {listed} were answered"
        metrics_dir = Path(metrics_dir_of(children[0]))
        assert sorted(p.name for p in metrics_dir.iterdir()) == sorted(
            f"api-{pid}.json" for pid in children)

        # SIGTERM to the parent only: it stops the children, then itself.
        os.kill(parent, signal.SIGTERM)
        assert server._proc is not None
        assert server._proc.wait(timeout=30) == 0
        leftovers = [pid for pid in children if Path(f"/proc/{pid}").exists()]
        assert leftovers == [], f"API processes left running: {leftovers}"
        assert not metrics_dir.exists(), "the children's metrics directory was left behind"


def test_api_processes_refuse_a_port_another_server_listens_on() -> None:
    """With ``SO_REUSEPORT`` a second ``serve`` with API processes on the port of a running one
    joined it and took part of its connections; it must refuse to start, as one process does."""
    with ServerProcess(options={"service:api": {"workers": 2}}) as first:
        taken = f"127.0.0.1:{first.api_port}"
        second = ServerProcess(options={"service:api": {"listen": taken, "workers": 2}},
                               start_timeout=30)
        with pytest.raises(ServerError, match=f"cannot listen on {taken}"):
            second.start()
        assert not second.is_running()
        assert httpx.get(first.api_url + "/", timeout=10).status_code == 200
