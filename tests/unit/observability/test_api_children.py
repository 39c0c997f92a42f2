"""The parent's ``/metrics`` adds what each API child wrote to its own values."""

from __future__ import annotations

from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from openkeel_designate.observability import api_children


def families(registry: CollectorRegistry) -> tuple[Counter, Histogram]:
    requests = Counter("t_requests", "requests", ["route"], registry=registry)
    duration = Histogram("t_duration_seconds", "time", ["route"], buckets=(0.01, 0.1),
                         registry=registry)
    return requests, duration


def child_file(directory: Path, pid: int, route: str, count: int, seconds: float) -> None:
    """What a child with ``count`` requests of ``seconds`` each on ``route`` writes."""
    child_registry = CollectorRegistry()
    requests, duration = families(child_registry)
    for _ in range(count):
        requests.labels(route).inc()
        duration.labels(route).observe(seconds)
    api_children.SnapshotWriter(directory, (requests, duration), pid).write()


def scrape(registry: CollectorRegistry) -> dict[tuple[str, tuple], float]:
    text = generate_latest(registry).decode()
    values = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            values[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return values


def test_parent_sums_its_own_and_every_childs_values(tmp_path: Path) -> None:
    child_file(tmp_path, 101, "/v2/zones", 3, 0.005)
    child_file(tmp_path, 102, "/v2/zones", 2, 0.05)
    child_file(tmp_path, 103, "/v2/tlds", 1, 0.5)
    parent = CollectorRegistry()
    requests, duration = families(parent)
    requests.labels("/v2/zones").inc()  # the parent's own request (a single-process server)
    parent.unregister(requests)
    parent.unregister(duration)
    parent.register(api_children.ChildrenCollector(tmp_path, (requests, duration)))

    values = scrape(parent)
    assert values[("t_requests_total", (("route", "/v2/zones"),))] == 6
    assert values[("t_requests_total", (("route", "/v2/tlds"),))] == 1
    zones = (("route", "/v2/zones"),)
    assert values[("t_duration_seconds_count", zones)] == 5
    assert values[("t_duration_seconds_bucket", (("le", "0.01"), ("route", "/v2/zones")))] == 3
    assert values[("t_duration_seconds_bucket", (("le", "0.1"), ("route", "/v2/zones")))] == 5
    assert values[("t_duration_seconds_bucket", (("le", "+Inf"), ("route", "/v2/tlds")))] == 1
    assert abs(values[("t_duration_seconds_sum", zones)] - 0.115) < 1e-9


def test_a_child_writes_only_when_it_answered_more(tmp_path: Path) -> None:
    requests, duration = families(CollectorRegistry())
    writer = api_children.SnapshotWriter(tmp_path, (requests, duration), 7)
    writer.write()
    assert not writer.path.exists()  # nothing answered yet
    requests.labels("/v2/zones").inc()
    writer.write()
    assert writer.path.exists()
    writer.path.unlink()
    writer.write()
    assert not writer.path.exists()  # nothing new since the last write
    requests.labels("/v2/zones").inc()
    writer.write()
    assert writer.path.exists()


def test_unreadable_files_are_skipped(tmp_path: Path) -> None:
    child_file(tmp_path, 101, "/v2/zones", 2, 0.005)
    (tmp_path / "api-999.json").write_text("{half")
    parent = CollectorRegistry()
    requests, duration = families(parent)
    parent.unregister(requests)
    parent.unregister(duration)
    parent.register(api_children.ChildrenCollector(tmp_path, (requests, duration)))
    assert scrape(parent)[("t_requests_total", (("route", "/v2/zones"),))] == 2
