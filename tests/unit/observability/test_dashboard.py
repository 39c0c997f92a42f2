"""The Grafana dashboard only queries metrics this code exports (a rename breaks this test)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from openkeel_designate.observability import metrics

DASHBOARD = Path(__file__).resolve().parents[3] / "dashboards" / "openkeel-designate.json"
_SUFFIXES = ("_bucket", "_count", "_sum", "_total", "_created")


def _exported() -> set[str]:
    names = set()
    for family in metrics.REGISTRY.collect():
        names.add(family.name)
        names.update(sample.name for sample in family.samples)
        names.update(family.name + suffix for suffix in _SUFFIXES)
    return names


def test_every_queried_metric_is_exported():
    panels = json.loads(DASHBOARD.read_text())["panels"]
    queried = {name for panel in panels for target in panel["targets"]
               for name in re.findall(r"\bdesignate_[a-z_]+", target["expr"])}
    assert len(queried) >= 15
    assert queried - _exported() == set()
    assert len({p["id"] for p in panels}) == len(panels)
