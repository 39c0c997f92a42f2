"""serve's schema step runs in a child process: the schema is checked and migrated there, and
alembic never enters the serving process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from openkeel_designate import schema_child

pytestmark = pytest.mark.integration


async def test_check_then_upgrade_a_new_sqlite_file(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.sqlite'}"
    assert not await schema_child.run("check", url)
    assert await schema_child.run("upgrade", url)
    assert await schema_child.run("check", url)


async def test_a_failing_child_stops_the_start(tmp_path) -> None:
    with pytest.raises(SystemExit, match="upgrade failed"):
        await schema_child.run("upgrade", f"sqlite:///{tmp_path / 'no-such-dir' / 'x.sqlite'}")


def test_serving_process_never_imports_alembic() -> None:
    code = ("import sys, openkeel_designate.runtime; "
            "print(sorted(m for m in ('alembic', 'httpx', 'pygments') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "[]"
