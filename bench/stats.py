"""Percentiles and process figures (RSS, CPU) read from /proc.

Nearest-rank percentiles are used on purpose: with 20–100 samples they always name a value that
was actually measured, which keeps "p95" honest for small series.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterable
from pathlib import Path

Summary = dict[str, float | int | None]


def percentile(sorted_values: list[float], q: float) -> float | None:
    """Nearest-rank percentile of an already sorted list (q in 0..100)."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def summarize(values: Iterable[float | None]) -> Summary:
    """n, failures (None values), min, p50, p95, p99, max — in the unit given."""
    raw = list(values)
    got = sorted(v for v in raw if v is not None)
    out: Summary = {"n": len(got), "failed": len(raw) - len(got)}
    if got:
        out.update({"min": got[0], "p50": percentile(got, 50), "p95": percentile(got, 95),
                    "p99": percentile(got, 99), "max": got[-1]})
    return out


def group_pids(pgid: int) -> list[int]:
    """Every live process whose process group is ``pgid`` (a server and anything it forked)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[2]) == pgid:
            pids.append(int(entry.name))
    return pids


def _status_kb(pid: int, key: str, filename: str = "status") -> int:
    try:
        for line in Path(f"/proc/{pid}/{filename}").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def memory_mb(pgids: Iterable[int]) -> dict[str, float]:
    """Summed RSS and PSS (forked shared pages counted once) of the given process groups."""
    pids = [pid for pgid in pgids for pid in group_pids(pgid)]
    rss = sum(_status_kb(pid, "VmRSS") for pid in pids)
    pss = sum(_status_kb(pid, "Pss", "smaps_rollup") for pid in pids)
    return {"rss_mb": round(rss / 1024, 1), "pss_mb": round(pss / 1024, 1), "processes": len(pids)}


def cpu_seconds(pgids: Iterable[int]) -> float:
    """User + system CPU seconds consumed so far by the given process groups."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pgid in pgids:
        for pid in group_pids(pgid):
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def busy_share(seconds: float = 2.0) -> float:
    """The share of the machine's CPU time (all cores) not idle over the next ``seconds``."""
    def sample() -> tuple[int, int]:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return sum(fields), fields[3] + fields[4]  # idle and iowait
    total0, idle0 = sample()
    time.sleep(seconds)
    total1, idle1 = sample()
    return 1.0 - (idle1 - idle0) / max(total1 - total0, 1)


def wait_quiet(share: float = 0.15, timeout: float = 300.0) -> float:
    """Seconds waited until the machine is busy less than ``share`` over two seconds (at most
    ``timeout``). The reference's central goes on for minutes after a run deletes its zones,
    and took a third of a core from the next run's figures (bench/README.md, 2026-12-07)."""
    started = time.monotonic()
    while busy_share() >= share and time.monotonic() - started < timeout:
        pass
    return round(time.monotonic() - started, 1)
