"""The backup that comes before a takeover: Designate's own tools, the operator's way back.

``mysqldump``/``pg_dump`` rather than a copy of our own: the file restores with the engine's
client alone (``mysql DB < FILE``, ``psql -d DB -f FILE``), whether or not this project is still
installed.  Passwords go through the environment (``MYSQL_PWD``/``PGPASSWORD``), never argv.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess

from sqlalchemy.engine import make_url


def command(url: str, path: str) -> tuple[list[str], dict[str, str]]:
    """The dump command for the database at ``url`` and the environment it needs."""
    parsed = make_url(url)
    query = dict(parsed.query)
    host = parsed.host or query.get("host") or "127.0.0.1"
    user = parsed.username or query.get("user")
    env: dict[str, str] = {}
    if parsed.get_backend_name() == "postgresql":
        args = ["pg_dump", "-h", host, "-p", str(parsed.port or 5432), "--no-owner", "-f", path]
        args += ["-U", user] if user else []
        if parsed.password:
            env["PGPASSWORD"] = parsed.password
        return args + [parsed.database or ""], env
    args = ["mysqldump", "--single-transaction", "--routines", "-h", host,
            "-P", str(parsed.port or 3306), f"--result-file={path}"]
    args += ["-u", user] if user else []
    if parsed.password:
        env["MYSQL_PWD"] = parsed.password
    return args + [parsed.database or ""], env


def printable(url: str, path: str) -> str:
    args, env = command(url, path)
    prefix = " ".join(f"{name}=..." for name in env)
    return (prefix + " " if prefix else "") + shlex.join(args)


def take(url: str, path: str) -> None:
    """Dump the database to ``path``; raise with the tool's message when it fails."""
    args, env = command(url, path)
    if shutil.which(args[0]) is None:
        raise RuntimeError(f"{args[0]} is not installed: install it, or take the backup another "
                           "way and run again with --no-backup")
    done = subprocess.run(args, env={**os.environ, **env}, capture_output=True, text=True)
    if done.returncode != 0 or not os.path.getsize(path):
        raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr.strip()}")
