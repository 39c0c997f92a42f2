"""Loaded by the server that ``bench/push_timeline.py`` starts (PYTHONPATH): wall-clock marks at
the start and end of each step a change takes on its way to ACTIVE, one line each, appended to
the file named by ``OKD_TIMELINE``. Only for that benchmark; nothing here changes behaviour."""

from __future__ import annotations

import functools
import os
import time

PATH = os.environ.get("OKD_TIMELINE")


def _install() -> None:
    from openkeel_designate.backends import builtin
    from openkeel_designate.nameserver import refresh
    from openkeel_designate.nameserver.zones import ZoneStore
    from openkeel_designate.storage import workqueue
    from openkeel_designate.worker import service

    out = open(PATH, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 - for the process's life

    def mark(label: str) -> None:
        out.write(f"{time.time():.6f} {label}\n")

    def timed(owner: object, name: str, label: str) -> None:
        original = getattr(owner, name)

        @functools.wraps(original)
        async def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - any signature
            mark(f"{label} start")
            try:
                return await original(*args, **kwargs)
            finally:
                mark(f"{label} end")
        setattr(owner, name, wrapper)

    timed(workqueue, "claim", "claim")
    timed(builtin, "send_notify", "notify")
    timed(refresh, "query_soa", "nameserver SOA query")
    timed(refresh, "axfr", "nameserver AXFR")
    timed(refresh, "ixfr", "nameserver IXFR")
    timed(ZoneStore, "put", "nameserver swap-in and save")
    timed(service, "query_soa", "worker SOA poll")
    timed(workqueue, "complete_many", "completion")
    wake = service.Worker.wake

    def woken(self) -> None:  # noqa: ANN001
        mark("worker woken")
        wake(self)
    service.Worker.wake = woken


if PATH:
    _install()
