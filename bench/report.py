"""Turn raw results into the printed comparison table.

The reference baseline below is transcribed from /work/shared/ref/NOTES.md ("Baseline figures",
Designate 23.0.0 on this machine type). It is printed beside our figures always, and is the
comparison when the live reference cannot run. Where NOTES gives only a range, the row carries
the range as text and no ratio.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LOWER, HIGHER = "lower", "higher"


@dataclass(frozen=True)
class Row:
    key: str
    label: str
    better: str
    unit: str  # "s", "per_s" or "mb"


ROWS = [
    Row("zone_post_p50", "zone POST latency p50", LOWER, "s"),
    Row("zone_active_p50", "zone POST -> ACTIVE p50", LOWER, "s"),
    Row("zone_active_p95", "zone POST -> ACTIVE p95", LOWER, "s"),
    Row("zone_stamped_p50", "zone created -> ACTIVE, server clock p50", LOWER, "s"),
    Row("zone_answered_p50", "zone POST -> SOA answered p50", LOWER, "s"),
    Row("zone_answered_p95", "zone POST -> SOA answered p95", LOWER, "s"),
    Row("rs_post_p50", "recordset POST latency p50", LOWER, "s"),
    Row("rs_active_p50", "recordset POST -> ACTIVE p50", LOWER, "s"),
    Row("rs_active_p95", "recordset POST -> ACTIVE p95", LOWER, "s"),
    Row("rs_answered_p50", "recordset POST -> A answered p50", LOWER, "s"),
    Row("rs_answered_p95", "recordset POST -> A answered p95", LOWER, "s"),
    Row("list_rps", "GET /v2/zones req/s (10 clients)", HIGHER, "per_s"),
    Row("list_p50", "GET /v2/zones latency p50", LOWER, "s"),
    Row("list_p99", "GET /v2/zones latency p99", LOWER, "s"),
    Row("show_rps", "GET /v2/zones/{id} req/s (10 clients)", HIGHER, "per_s"),
    Row("show_p50", "GET /v2/zones/{id} latency p50", LOWER, "s"),
    Row("show_p99", "GET /v2/zones/{id} latency p99", LOWER, "s"),
    Row("seq_per_s", "sequential recordset POSTs per s", HIGHER, "per_s"),
    Row("seq_p50", "sequential recordset POST latency p50", LOWER, "s"),
    Row("seq_last_answered", "last sequential record answered after last POST", LOWER, "s"),
    Row("seq_zone_active", "zone ACTIVE after last sequential POST", LOWER, "s"),
    Row("rss_idle", "RSS idle after start (MB)", LOWER, "mb"),
    Row("rss_after", "RSS after the run (MB)", LOWER, "mb"),
    Row("pss_after", "PSS after the run (MB)", LOWER, "mb"),
]

# (value used for a ratio or None, text printed) — NOTES.md medians and ranges.
BASELINE: dict[str, tuple[float | None, str]] = {
    "zone_post_p50": (0.085, "~85 ms (69-117)"),
    "zone_active_p50": (5.20, "5.20 s (5.13-5.35)"),
    "zone_active_p95": (None, "max 5.35 s of 20"),
    "zone_stamped_p50": (None, "not in NOTES.md"),
    "zone_answered_p50": (0.55, "0.55 s (0.14-1.04)"),
    "zone_answered_p95": (None, "max 1.04 s of 20"),
    "rs_post_p50": (0.025, "~25 ms (20-50)"),
    "rs_active_p50": (7.7, "7.7 s (5.35-10.17)"),
    "rs_active_p95": (None, "max 10.17 s of 15"),
    "rs_answered_p50": (3.4, "3.4 s (0.64-5.70)"),
    "rs_answered_p95": (None, "max 5.70 s of 15"),
    "list_rps": (35.0, "~35 (33.4-37.6), wrk"),
    "list_p50": (0.28, "256-310 ms"),
    "list_p99": (0.53, "482-586 ms"),
    "show_rps": (174.0, "~174 (141-212), wrk"),
    "show_p50": (0.055, "45-65 ms"),
    "show_p99": (0.17, "120-224 ms"),
    "seq_per_s": (33.6, "33.6 (32.4-34.7)"),
    "seq_p50": (0.029, "28-30 ms"),
    "seq_last_answered": (None, "1.8-5.0 s"),
    "seq_zone_active": (None, "6.0-9.7 s (records ACTIVE)"),
    "rss_idle": (822.0, "822 (PSS 527), 60 s idle"),
    "rss_after": (None, "1020-1108"),
    "pss_after": (None, "780-890"),
}


def _get(d: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(d, dict):
            return None
        d = d.get(key)
    return d


def figures(result: dict[str, Any]) -> dict[str, float | None]:
    """The flat figures of one target's raw result (None where a section failed or was skipped)."""
    zones, rsets, seq = result.get("zones", {}), result.get("recordsets", {}), result.get("sequential", {})
    out = {
        "zone_post_p50": _get(zones, "post_s", "p50"),
        "zone_active_p50": _get(zones, "active_s", "p50"),
        "zone_active_p95": _get(zones, "active_s", "p95"),
        "zone_stamped_p50": _get(zones, "stamped_s", "p50"),
        "zone_answered_p50": _get(zones, "answered_s", "p50"),
        "zone_answered_p95": _get(zones, "answered_s", "p95"),
        "rs_post_p50": _get(rsets, "post_s", "p50"),
        "rs_active_p50": _get(rsets, "active_s", "p50"),
        "rs_active_p95": _get(rsets, "active_s", "p95"),
        "rs_answered_p50": _get(rsets, "answered_s", "p50"),
        "rs_answered_p95": _get(rsets, "answered_s", "p95"),
        "seq_per_s": _get(seq, "per_s"),
        "seq_p50": _get(seq, "latency_s", "p50"),
        "seq_last_answered": _get(seq, "last_answered_after_last_post_s"),
        "seq_zone_active": _get(seq, "zone_active_after_last_post_s"),
        "rss_idle": _get(result, "memory_idle", "rss_mb"),
        "rss_after": _get(result, "memory_after", "rss_mb"),
        "pss_after": _get(result, "memory_after", "pss_mb"),
    }
    for prefix, section in (("list", "load_list"), ("show", "load_show")):
        out[f"{prefix}_rps"] = _get(result, section, "req_per_s")
        out[f"{prefix}_p50"] = _get(result, section, "p50_s")
        out[f"{prefix}_p99"] = _get(result, section, "p99_s")
    return out


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "s":
        return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"
    if unit == "mb":
        return f"{value:.0f}"
    return f"{value:.1f}"


def ratio(ours: float | None, other: float | None) -> float | None:
    if ours is None or not other:
        return None
    return ours / other


def fmt_ratio(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if value < 0.1 else f"{value:.2f}"


def table(ours: dict[str, float | None], ref: dict[str, float | None] | None) -> tuple[str, list[dict[str, Any]]]:
    """The printed table and the same rows as data (for the JSON file)."""
    against = "ref (live)" if ref is not None else "baseline"
    header = ["figure", "ours", "ref (live)", f"ours/{against}", "better", "baseline (NOTES.md)"]
    lines, data = [], []
    for row in ROWS:
        base_value, base_text = BASELINE[row.key]
        ref_value = ref.get(row.key) if ref is not None else None
        r = ratio(ours.get(row.key), ref_value if ref is not None else base_value)
        cells = [row.label, fmt(ours.get(row.key), row.unit),
                 fmt(ref_value, row.unit) if ref is not None else "n/a", fmt_ratio(r), row.better, base_text]
        lines.append(cells)
        data.append({"key": row.key, "label": row.label, "ours": ours.get(row.key), "ref": ref_value,
                     "ratio_ours_over": against, "ratio": r, "better": row.better,
                     "baseline_value": base_value, "baseline_text": base_text})
    return render(header, lines), data


def render(header: list[str], lines: list[list[str]]) -> str:
    """Plain-text columns: the header, a rule, then one line per row."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *lines)]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
                     for cells in [header, ["-" * w for w in widths], *lines])
