"""observability/ is the bottom layer roles record into: it imports nothing else of ours."""

from __future__ import annotations

import ast
from pathlib import Path

import openkeel_designate.observability as package


def test_observability_imports_only_itself():
    offending = []
    for path in Path(package.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offending += [f"{path.name}: {n}" for n in names
                          if n.startswith("openkeel_designate")
                          and not n.startswith("openkeel_designate.observability")]
    assert offending == []
