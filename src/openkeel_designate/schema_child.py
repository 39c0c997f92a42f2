"""The schema step of ``serve``, run in a short-lived child process.

alembic (and the pygments it pulls in) is about 11 MB of modules that a serving process needs
for one second at start and never again; imported there, it stayed resident for the process's
life.  ``serve`` therefore runs this module as a child (``python -m``), with the database URL in
the environment (never on the command line, where ``ps`` would show its password), and only
reads the exit status.
"""

from __future__ import annotations

import asyncio
import os
import sys

URL_VARIABLE = "OPENKEEL_DESIGNATE_SCHEMA_URL"
NOT_CURRENT = 3


async def run(action: str, url: str) -> bool:
    """``upgrade``: migrate to head (True when done); ``check``: True when already current."""
    env = {**os.environ, URL_VARIABLE: url}
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", __name__, action, env=env, stdin=asyncio.subprocess.DEVNULL)
    status = await child.wait()
    if status not in (0, NOT_CURRENT):
        raise SystemExit(f"database schema {action} failed (exit status {status}; see above)")
    return status == 0


def main(argv: list[str]) -> int:
    from openkeel_designate.storage import migrate

    url = os.environ[URL_VARIABLE]
    if argv[:1] == ["upgrade"]:
        migrate.upgrade(url)
        return 0
    return 0 if migrate.is_current(url) else NOT_CURRENT


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
