"""The measurements, written once and run unchanged against any ``Target``.

Propagation samples are taken one at a time (POST, then wait for both ACTIVE and the DNS answer),
with a random pause between samples. The pause matters for the reference: it batches changes on a
5 s producer tick, and back-to-back samples phase-lock with that tick and report a biased figure
(NOTES.md saw 4.8 s instead of 3.4 s). Every wait is bounded, and a series gives up after three
consecutive timeouts so a broken server cannot keep the bench running for hours.
"""

from __future__ import annotations

import asyncio
import random
import re
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import dns.asyncquery
import dns.exception
import dns.message
import dns.rcode
import dns.rdatatype
import httpx

from stats import cpu_seconds, summarize
from targets import Target

SAMPLE_TIMEOUT_S = 60.0
GIVE_UP_AFTER = 3


class Api:
    """A keep-alive HTTP client for one target and one benchmark project."""

    def __init__(self, target: Target, project: str):
        self.target = target
        self.project = project
        self.headers = {"X-Auth-Project-ID": project, "Content-Type": "application/json",
                        "Accept": "application/json"}
        self.client = httpx.AsyncClient(base_url=target.api_url, headers=self.headers, timeout=60,
                                        limits=httpx.Limits(max_connections=32))

    async def close(self) -> None:
        await self.client.aclose()

    async def create_zone(self, name: str) -> dict[str, Any]:
        resp = await self.client.post("/v2/zones", json={"name": name, "email": "bench@example.org"})
        if resp.status_code != 202:
            raise RuntimeError(f"POST /v2/zones {name}: {resp.status_code} {resp.text[:300]}")
        return resp.json()

    async def create_a(self, zone_id: str, name: str, ip: str) -> dict[str, Any]:
        resp = await self.client.post(f"/v2/zones/{zone_id}/recordsets",
                                      json={"name": name, "type": "A", "records": [ip], "ttl": 300})
        if resp.status_code != 202:
            raise RuntimeError(f"POST recordset {name}: {resp.status_code} {resp.text[:300]}")
        return resp.json()

    async def update_a(self, zone_id: str, recordset_id: str, ip: str) -> dict[str, Any]:
        """A PUT of the recordset's records (and TTL), as a tenant or a controller changes one."""
        resp = await self.client.put(f"/v2/zones/{zone_id}/recordsets/{recordset_id}",
                                     json={"records": [ip], "ttl": 600})
        if resp.status_code != 202:
            raise RuntimeError(f"PUT recordset {recordset_id}: {resp.status_code} {resp.text[:300]}")
        return resp.json()

    async def delete_recordset(self, zone_id: str, recordset_id: str) -> None:
        resp = await self.client.delete(f"/v2/zones/{zone_id}/recordsets/{recordset_id}")
        if resp.status_code != 202:
            raise RuntimeError(f"DELETE recordset {recordset_id}: {resp.status_code} "
                               f"{resp.text[:300]}")

    async def status(self, path: str) -> str | None:
        found = await self.resource(path)
        return found.get("status") if found is not None else None

    async def resource(self, path: str) -> dict[str, Any] | None:
        """The body of a GET, None unless 200."""
        resp = await self.client.get(path)
        return resp.json() if resp.status_code == 200 else None

    async def zone_count(self) -> int:
        resp = await self.client.get("/v2/zones", params={"limit": 1})
        resp.raise_for_status()
        return int(resp.json()["metadata"]["total_count"])


async def dns_answers(port: int, name: str, rdtype: str, expect: str | None = None) -> bool:
    """True when 127.0.0.1:port answers ``name``/``rdtype`` with data (containing ``expect``)."""
    query = dns.message.make_query(name, rdtype)
    try:
        resp = await dns.asyncquery.udp(query, "127.0.0.1", port=port, timeout=0.2)
    except (dns.exception.DNSException, OSError):
        return False
    if resp.rcode() != dns.rcode.NOERROR:
        return False
    wanted = dns.rdatatype.from_text(rdtype)
    return any(rrset.rdtype == wanted and (expect is None or any(rd.to_text() == expect for rd in rrset))
               for rrset in resp.answer)


async def poll_until(check: Callable[[], Awaitable[bool]], interval: float,
                     timeout: float = SAMPLE_TIMEOUT_S) -> float | None:
    """perf_counter() when ``check`` first holds, or None after ``timeout``."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if await check():
            return time.perf_counter()
        await asyncio.sleep(interval)
    return None


async def _active(api: Api, path: str, seen: dict[str, Any] | None = None) -> bool:
    """Whether the resource is ACTIVE; its body then goes into ``seen`` (for its timestamps)."""
    found = await api.resource(path)
    status = found.get("status") if found is not None else None
    if status == "ERROR":
        raise RuntimeError(f"{path} went to ERROR")
    if status == "ACTIVE" and found is not None and seen is not None:
        seen.update(found)
    return status == "ACTIVE"


def server_clock(body: dict[str, Any]) -> float | None:
    """Seconds from ``created_at`` to ``updated_at`` of a zone seen ACTIVE: the server's own
    time from the create to the write that made it ACTIVE (its last write), without the
    client's poll interval or its own cost in it. None if a stamp is missing: a recordset's
    ``updated_at`` stays null until it is updated, in Designate as here."""
    created, updated = body.get("created_at"), body.get("updated_at")
    if not created or not updated:
        return None
    return (_stamp(updated) - _stamp(created)).total_seconds()


def _stamp(text: str) -> datetime:
    return datetime.fromisoformat(text.rstrip("Z"))


async def _both(first: Awaitable[float | None], second: Awaitable[float | None]
                ) -> tuple[float | None, float | None]:
    """Await two polls together; if one fails (status ERROR), cancel the other: no stray pollers."""
    tasks = [asyncio.ensure_future(first), asyncio.ensure_future(second)]
    try:
        a, b = await asyncio.gather(*tasks)
        return a, b
    except RuntimeError as exc:
        print(f"  sample failed: {exc}", flush=True)
        return None, None
    finally:
        for task in tasks:
            task.cancel()


async def _timed_sample(api: Api, post: Callable[[], Awaitable[dict[str, Any]]],
                        status_path: Callable[[dict[str, Any]], str],
                        dns_check: Callable[[], Awaitable[bool]]) -> dict[str, float | None]:
    """One POST, then ACTIVE and DNS answer awaited concurrently; times are from before the POST."""
    t = api.target
    t0 = time.perf_counter()
    body = await post()
    t_post = time.perf_counter()
    path = status_path(body)
    seen: dict[str, Any] = {}
    active_at, dns_at = await _both(poll_until(lambda: _active(api, path, seen), t.api_poll_s),
                                    poll_until(dns_check, t.dns_poll_s))
    return {"post_s": t_post - t0,
            "active_s": active_at - t0 if active_at else None,
            "answered_s": dns_at - t0 if dns_at else None,
            "stamped_s": server_clock(seen) if active_at else None}


async def _series(n: int, api: Api, make_sample: Callable[[int], Awaitable[dict[str, float | None]]],
                  label: str) -> dict[str, Any]:
    samples: list[dict[str, float | None]] = []
    misses = 0
    for i in range(n):
        sample = await make_sample(i)
        samples.append(sample)
        misses = misses + 1 if sample["active_s"] is None or sample["answered_s"] is None else 0
        if misses >= GIVE_UP_AFTER:
            print(f"  {label}: {misses} consecutive timeouts, series stopped at {i + 1}/{n}", flush=True)
            break
        if (i + 1) % 10 == 0 or i + 1 == n:
            print(f"  {label} {i + 1}/{n}", flush=True)
        await asyncio.sleep(random.uniform(*api.target.pause_s))
    return {key: summarize(s[key] for s in samples)
            for key in ("post_s", "active_s", "answered_s", "stamped_s")} | {
        "requested": n, "samples": samples}


async def zone_propagation(api: Api, n: int, tag: str) -> tuple[dict[str, Any], list[str]]:
    """POST /v2/zones → ACTIVE and → SOA answered, n times; returns the figures and zone ids."""
    ids: list[str] = []

    async def sample(i: int) -> dict[str, float | None]:
        name = f"zp{i:04d}-{tag}.org."

        async def post() -> dict[str, Any]:
            body = await api.create_zone(name)
            ids.append(body["id"])
            return body
        return await _timed_sample(api, post, lambda b: f"/v2/zones/{b['id']}",
                                   lambda: dns_answers(api.target.dns_port, name, "SOA"))
    return await _series(n, api, sample, "zone creates"), ids


async def recordset_propagation(api: Api, zone_id: str, zone_name: str, n: int) -> dict[str, Any]:
    """POST recordset (A) → ACTIVE and → A answered with its address, n times in one zone."""
    async def sample(i: int) -> dict[str, float | None]:
        name, ip = f"rp{i:04d}.{zone_name}", f"192.0.2.{i % 250 + 1}"
        return await _timed_sample(
            api, lambda: api.create_a(zone_id, name, ip),
            lambda b: f"/v2/zones/{zone_id}/recordsets/{b['id']}",
            lambda: dns_answers(api.target.dns_port, name, "A", ip))
    return await _series(n, api, sample, "recordset creates")


async def ready_zone(api: Api, name: str) -> str:
    """A new zone, waited until ACTIVE, for recordset measurements."""
    zone = await api.create_zone(name)
    if await poll_until(lambda: _active(api, f"/v2/zones/{zone['id']}"), 0.1, timeout=120) is None:
        raise RuntimeError(f"zone {name} did not become ACTIVE")
    return zone["id"]


async def top_up_zones(api: Api, total: int, tag: str) -> dict[str, Any]:
    """Create zones (unmeasured) until the project holds ``total``; wait until none is PENDING."""
    have = await api.zone_count()
    t0 = time.perf_counter()
    for i in range(max(0, total - have)):
        await api.create_zone(f"zt{i:04d}-{tag}.net.")

    async def none_pending() -> bool:
        resp = await api.client.get("/v2/zones", params={"status": "PENDING", "limit": 1})
        return resp.status_code == 200 and resp.json()["metadata"]["total_count"] == 0
    done = await poll_until(none_pending, 0.5, timeout=600)
    return {"created": max(0, total - have), "present": await api.zone_count(),
            "all_active_s": round(done - t0, 2) if done else None}


async def sequential_posts(api: Api, zone_id: str, zone_name: str, n: int) -> dict[str, Any]:
    """n recordset POSTs back to back; then how long until the last is served and the zone ACTIVE."""
    pgids = api.target.pgids()
    cpu0 = cpu_seconds(pgids)
    lat: list[float] = []
    t0 = time.perf_counter()
    for i in range(n):
        t1 = time.perf_counter()
        await api.create_a(zone_id, f"s{i:04d}.{zone_name}", f"198.51.100.{i % 250 + 1}")
        lat.append(time.perf_counter() - t1)
    t_last = time.perf_counter()
    last = f"s{n - 1:04d}.{zone_name}"
    last_ip = f"198.51.100.{(n - 1) % 250 + 1}"
    served, active = await _both(
        poll_until(lambda: dns_answers(api.target.dns_port, last, "A", last_ip), api.target.dns_poll_s, 120),
        poll_until(lambda: _active(api, f"/v2/zones/{zone_id}"), api.target.api_poll_s, 120))
    return {"count": n, "per_s": round(n / (t_last - t0), 1), "latency_s": summarize(lat),
            "last_answered_after_last_post_s": served - t_last if served else None,
            "zone_active_after_last_post_s": active - t_last if active else None,
            "cpu_s": round(cpu_seconds(pgids) - cpu0, 2)}


_WRK_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}


def _wrk_seconds(text: str) -> float | None:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    return float(match.group(1)) * _WRK_UNITS[match.group(2)] if match else None


def _wrk_load(api: Api, path: str, clients: int, seconds: float) -> dict[str, Any]:
    cmd = ["wrk", "-t2", f"-c{clients}", f"-d{int(seconds)}s", "--timeout", "30s", "--latency",
           "-H", f"X-Auth-Project-ID: {api.project}", "-H", "Accept: application/json",
           api.target.api_url + path]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60, check=False).stdout
    return {"tool": f"wrk -t2 -c{clients} -d{int(seconds)}s", **_wrk_figures(out)}


_WRK_POSTS = """
local zones = {%(zones)s}
local names = {%(names)s}
local wanted = %(requests)d
local sent, answered = 0, 0
request = function()
  sent = sent + 1
  local i = (sent - 1) %% #zones + 1
  local body = '{"name": "%(tag)s-' .. sent .. '.' .. names[i] .. '", "type": "A", "records": ["192.0.2.' .. (sent %% 250 + 1) .. '"], "ttl": 300}'
  return wrk.format("POST", "/v2/zones/" .. zones[i] .. "/recordsets", nil, body)
end
response = function(status, headers, body)
  answered = answered + 1
  if answered == wanted then
    io.open("%(marker)s", "w"):close()
    wrk.thread:stop()
  end
end
"""


def _wrk_posts(api: Api, zones: list[tuple[str, str]], connections: int, requests: int,
               timeout: float) -> dict[str, Any]:
    """``requests`` A recordset POSTs by wrk's ``connections`` keep-alive connections (one
    thread), the zones taken in turn; wrk stops once that many were answered. A C client, as
    for the GET figures: the Python client's own ~1 ms per request would otherwise be a large
    part of each of our POSTs and hardly any of the reference's."""
    tag = uuid.uuid4().hex[:6]
    with tempfile.TemporaryDirectory() as work:
        lua, marker = Path(work) / "posts.lua", Path(work) / "done"
        lua.write_text(_WRK_POSTS % {
            "zones": ", ".join(f'"{zid}"' for zid, _ in zones),
            "names": ", ".join(f'"{name}"' for _, name in zones),
            "requests": requests, "tag": f"k{tag}", "marker": marker})
        cmd = ["wrk", "-t1", f"-c{connections}", f"-d{int(timeout)}s", "--timeout", "30s",
               "--latency", "-s", str(lua), "-H", f"X-Auth-Project-ID: {api.project}",
               "-H", "Content-Type: application/json", "-H", "Accept: application/json",
               api.target.api_url]
        # wrk sleeps out its whole duration even once its thread has stopped; an interrupt
        # ends that sleep, and it reports the time it really ran.
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) as proc:
            deadline = time.monotonic() + timeout
            while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.002)
            proc.send_signal(signal.SIGINT)
            out, _ = proc.communicate(timeout=60)
    res = _wrk_figures(out)
    res["tool"] = f"wrk -t1 -c{connections}, {requests} POSTs over {len(zones)} zones"
    return res


async def wrk_posts(api: Api, zones: list[tuple[str, str]], connections: int, requests: int,
                    timeout: float = 600) -> dict[str, Any]:
    """``_wrk_posts``, then how long until every zone is ACTIVE with no recordset PENDING, and
    the target's CPU over the POSTs."""
    pgids = api.target.pgids()
    cpu0 = cpu_seconds(pgids)
    res = await asyncio.to_thread(_wrk_posts, api, zones, connections, requests, timeout)
    res["cpu_s"] = round(cpu_seconds(pgids) - cpu0, 2)
    t_last = time.perf_counter()

    async def settled() -> bool:
        for zone_id, _ in zones:
            if await api.status(f"/v2/zones/{zone_id}") != "ACTIVE":
                return False
            pending = await api.client.get(f"/v2/zones/{zone_id}/recordsets",
                                           params={"status": "PENDING", "limit": 1})
            if pending.json()["metadata"]["total_count"]:
                return False
        return True
    done = await poll_until(settled, api.target.api_poll_s * 2, 300)
    res["all_active_after_s"] = round(done - t_last, 2) if done else None
    return res


def _wrk_figures(out: str) -> dict[str, Any]:
    """Requests per second, p50/p99, the count and the errors of a wrk report."""
    res: dict[str, Any] = {"errors": 0}
    for line in out.splitlines():
        parts = line.split()
        if line.startswith("Requests/sec"):
            res["req_per_s"] = float(parts[1])
        elif parts and parts[0] in ("50%", "99%"):
            res[f"p{parts[0].rstrip('%')}_s"] = _wrk_seconds(parts[1])
        elif "requests in" in line:
            res["requests"] = int(parts[0])
        elif line.strip().startswith("Non-2xx"):
            res["errors"] += int(parts[-1])
        elif line.strip().startswith("Socket errors"):
            res["errors"] += sum(int(x) for x in re.findall(r"\d+", line))
    if "req_per_s" not in res:
        raise RuntimeError(f"wrk gave no figures: {out[-500:]}")
    return res


async def _httpx_load(api: Api, path: str, clients: int, seconds: float) -> dict[str, Any]:
    lat: list[float] = []
    errors = 0
    stop_at = time.perf_counter() + seconds

    async def client() -> None:
        nonlocal errors
        while time.perf_counter() < stop_at:
            t1 = time.perf_counter()
            resp = await api.client.get(path)
            lat.append(time.perf_counter() - t1)
            errors += resp.status_code != 200
    t0 = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    s = summarize(lat)
    return {"tool": f"httpx.AsyncClient x{clients}", "requests": len(lat), "errors": errors,
            "req_per_s": round(len(lat) / (time.perf_counter() - t0), 1), "p50_s": s.get("p50"),
            "p99_s": s.get("p99")}


async def get_load(api: Api, path: str, clients: int, seconds: float, tool: str) -> dict[str, Any]:
    """``clients`` concurrent keep-alive clients GETting ``path`` for ``seconds``; CPU of the target."""
    use_wrk = tool == "wrk" or (tool == "auto" and shutil.which("wrk") is not None)
    pgids = api.target.pgids()
    cpu0 = cpu_seconds(pgids)
    if use_wrk:
        res = await asyncio.to_thread(_wrk_load, api, path, clients, seconds)
    else:
        res = await _httpx_load(api, path, clients, seconds)
    res["cpu_s"] = round(cpu_seconds(pgids) - cpu0, 2)
    res["path"] = path
    return res
