"""The API request metrics of ``[service:api] workers`` children, in the parent's ``/metrics``.

With API processes, the requests are answered in the children but ``/metrics`` is served by the
parent (it owns the metrics listener and every other role). Each child writes what its API
request families hold (``designate_api_requests``, ``designate_api_request_duration_seconds``)
to a file of its own in a directory the parent made, at most once per ``WRITE_SECONDS`` and only
when it answered requests since; the parent adds every file to its own values at scrape time.

Why files and not the wake-up pipe: a snapshot (one series per route and status, a histogram's
buckets) is larger than the pipe's atomic write, and a file outlives its writer, so the requests
a child answered before it died stay counted and the sums stay monotonic, as counters must.
A scrape sees each child's requests at most ``WRITE_SECONDS`` late.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from prometheus_client.metrics import MetricWrapperBase
from prometheus_client.metrics_core import Metric
from prometheus_client.samples import Sample

from openkeel_designate.observability import metrics

LOG = logging.getLogger(__name__)
WRITE_SECONDS = 1.0
FAMILIES: tuple[MetricWrapperBase, ...] = (metrics.API_REQUESTS, metrics.API_DURATION)

_Key = tuple[str, tuple[tuple[str, str], ...]]  # sample name, sorted labels


def _samples(families: tuple[MetricWrapperBase, ...]) -> Iterator[Sample]:
    """The samples worth adding up: every one but the ``_created`` timestamps."""
    for family in families:
        for metric in family.collect():
            for sample in metric.samples:
                if not sample.name.endswith("_created"):
                    yield sample


class SnapshotWriter:
    """In an API child: its API request families, written to ``directory`` while it serves.

    The first family is the request counter: its total tells whether anything changed.
    """

    def __init__(self, directory: Path, families: tuple[MetricWrapperBase, ...] = FAMILIES,
                 pid: int | None = None):
        self.path = directory / f"api-{pid or os.getpid()}.json"
        self.families = families
        self._written = 0.0

    def write(self) -> None:
        """Atomically (a rename), so that the parent never reads half a file."""
        answered = sum(s.value for s in _samples(self.families[:1]) if s.name.endswith("_total"))
        if answered == self._written:
            return
        data = [[s.name, s.labels, s.value] for s in _samples(self.families)]
        partial = self.path.with_suffix(".tmp")
        partial.write_text(json.dumps(data))
        os.replace(partial, self.path)
        self._written = answered

    async def run(self, stop: asyncio.Event) -> None:
        """Until ``stop``; once more at the end so that the last requests are counted."""
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), WRITE_SECONDS)
            except TimeoutError:
                pass
            try:
                self.write()
            except OSError as exc:  # the parent removed the directory: it is stopping
                LOG.debug("API metrics not written to %s: %s", self.path, exc)
                return


class ChildrenCollector:
    """In the parent: ``families`` as they are here plus what every child wrote."""

    def __init__(self, directory: Path, families: tuple[MetricWrapperBase, ...] = FAMILIES):
        self.directory = directory
        self.families = families

    def describe(self) -> list[Metric]:
        """The families without samples: registering must not read the directory."""
        return [Metric(m.name, m.documentation, m.type, m.unit)
                for family in self.families for m in family.collect()]

    def collect(self) -> Iterator[Metric]:
        children = self._read_children()
        for family in self.families:
            for metric in family.collect():
                yield _merged(metric, children)

    def _read_children(self) -> dict[_Key, float]:
        totals: dict[_Key, float] = defaultdict(float)
        for path in self.directory.glob("api-*.json"):
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError) as exc:  # replaced or removed while we looked
                LOG.debug("API metrics of %s not read: %s", path, exc)
                continue
            for name, labels, value in data:
                totals[(name, tuple(sorted(labels.items())))] += float(value)
        return totals


def _merged(metric: Metric, children: dict[_Key, float]) -> Metric:
    """``metric`` with the children's values added, series only children have appended."""
    merged = Metric(metric.name, metric.documentation, metric.type, metric.unit)
    seen: set[_Key] = set()
    for sample in metric.samples:
        key = (sample.name, tuple(sorted(sample.labels.items())))
        seen.add(key)
        merged.samples.append(sample._replace(value=sample.value + children.get(key, 0.0)))
    family_names = {f"{metric.name}{suffix}" for suffix in ("", "_total", "_bucket", "_count",
                                                           "_sum")}
    extra = [key for key in children if key[0] in family_names and key not in seen]
    for name, labels in sorted(extra, key=_series_order):
        merged.samples.append(Sample(name, dict(labels), children[(name, labels)]))
    return merged


def _series_order(key: _Key) -> tuple:
    """A histogram's series together: its buckets by bound, then its count and sum."""
    name, labels = key
    series = tuple(item for item in labels if item[0] != "le")
    bound = dict(labels).get("le")
    return series, name.endswith("_sum"), name.endswith("_count"), float(bound) if bound else 0.0
