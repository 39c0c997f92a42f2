"""The layers as DESIGN.md draws them, read from the source: this test is the contract.

Every module's imports are parsed (``ast``, nothing is imported), mapped to the package of the
project they reach, and checked against ``LAYERS``: api → central → storage → domain, the
services beside the api (worker, mdns, nameserver, producer, sink) using what lies below them,
dnswire and domain at the bottom.  An arrow missing from the table is an upward (or sideways)
import and fails here, as does any import cycle between modules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import openkeel_designate

ROOT = Path(openkeel_designate.__file__).resolve().parent
PROJECT = "openkeel_designate"

# package → the packages of the project it may import (itself always allowed).
LAYERS: dict[str, set[str]] = {
    "domain": set(),
    # metrics, probes and log formats: every layer may count, nothing here reaches back up
    "observability": set(),
    # the process pool for CPU-bound work (central's imports, mdns's signing): knows no zone
    "offload": set(),
    # long CPU work cut into steps that give the event loop back (nameserver's zone loads)
    "slices": set(),
    # the garbage collector paused around work that makes many short-lived objects
    "gcpause": set(),
    "dnswire": {"domain", "slices"},
    "config": {"domain"},
    "network": {"domain"},
    "storage": {"dnswire", "domain", "slices", "gcpause"},
    "central": {"storage", "network", "config", "dnswire", "domain", "observability",
                "offload", "gcpause"},
    "api": {"central", "domain", "observability"},
    # ExternalDNS's webhook provider: receives HTTP as the api does and calls central in process
    "externaldns": {"central", "domain", "observability"},
    "backends": {"config", "dnswire", "domain"},
    "worker": {"central", "storage", "backends", "dnswire", "domain", "observability"},
    "mdns": {"dnswire", "domain", "observability", "offload"},
    "nameserver": {"mdns", "dnswire", "domain", "observability", "slices"},
    "producer": {"central", "storage", "dnswire", "domain"},
    "sink": {"central", "storage", "dnswire", "domain"},
    # the composition root: wires every role together, so it may reach them all
    "runtime": {"api", "central", "config", "externaldns", "mdns", "nameserver", "producer", "sink", "storage",
                "worker", "dnswire", "domain", "backends", "network", "observability",
                "schema_child", "api_workers"},
    # [service:api] workers: the API child processes and their pipe to the parent
    "api_workers": set(),
    # serve's schema check/migration in a short-lived child (alembic never loads in the server)
    "schema_child": {"storage"},
    "cli": {"runtime", "api_workers", "api", "central", "config", "storage", "worker", "dnswire", "domain",
            "config_check", "zone_status", "observability"},
    # manage config check: reads the option table of config
    "config_check": {"config"},
    # manage zone status: a small composition root of its own (database, policy, propagation)
    "zone_status": {"runtime", "central", "domain"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PROJECT, *parts])


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in ROOT.rglob("*.py")}


def imported(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """The project modules ``name`` imports, relative imports resolved.

    ``from package import submodule`` counts as importing the submodule only: running the
    package's ``__init__`` on the way is not an arrow of the design.
    """
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            subs = [f"{base}.{alias.name}" for alias in node.names]
            targets = [sub for sub in subs if sub in known] or [base]
        else:
            continue
        yield from (t for t in targets if t in known and t != name)


def package_of(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else None


def graph() -> dict[str, set[str]]:
    """Module → the project modules it imports (names that are not modules dropped)."""
    known = modules()
    return {name: set(imported(name, path, set(known))) for name, path in known.items()}


def test_every_package_has_a_row():
    packages = {package_of(name) for name in modules()} - {None}
    assert packages <= set(LAYERS), f"add to LAYERS: {sorted(packages - set(LAYERS))}"


def test_the_table_itself_has_no_cycle():
    assert find_cycle({pkg: set(allowed) for pkg, allowed in LAYERS.items()}) is None


def test_no_import_runs_against_the_layers():
    wrong = sorted(
        f"{name} imports {target}"
        for name, targets in graph().items()
        for target in targets
        if (src := package_of(name)) and (dst := package_of(target)) and src != dst
        and dst not in LAYERS.get(src, set())
    )
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle_between_modules():
    cycle = find_cycle(graph())
    assert cycle is None, " -> ".join(cycle or [])


# Only storage touches a session: central sets the transaction boundary and passes the session on.
SESSION_METHODS = {"add", "add_all", "flush", "delete", "get", "execute", "scalar", "scalars",
                   "refresh", "merge", "commit", "rollback", "begin", "stream"}


def test_central_leaves_the_session_to_storage():
    calls = sorted(
        f"{path.relative_to(ROOT)}:{node.lineno} session.{node.func.attr}"
        for path in (ROOT / "central").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "session"
        and node.func.attr in SESSION_METHODS
    )
    assert not calls, "\n".join(calls)


def test_central_takes_only_the_session_type_from_sqlalchemy():
    wrong = sorted(
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in (ROOT / "central").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if (isinstance(node, ast.Import) and any(a.name.startswith("sqlalchemy") for a in node.names))
        or (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy")
            and (node.module != "sqlalchemy.ext.asyncio"
                 or [a.name for a in node.names] != ["AsyncSession"]))
    )
    assert not wrong, "\n".join(wrong)


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``edges`` (as the path that closes it), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None
