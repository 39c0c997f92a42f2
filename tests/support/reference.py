"""The real Designate 23.0.0 (``/work/shared/ref`` scripts) on its own ports, database and vhost.

``setup.sh`` installs ``designate==23.0.0`` from PyPI into a venv (cached at ``OKD_REF_VENV``,
default ``$TMPDIR/okd-ref-designate-23.0.0``, so CI pays the install once), writes its
designate.conf and pools.yaml, creates the database with Designate's own ``designate-manage
database sync`` and loads the pool.  ``ReferenceStack.start()`` raises ``Unavailable`` naming what
is missing when any of that cannot happen here; tests skip on it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from support.reflock import setup_lock

REF_SCRIPTS = Path(os.environ.get("OKD_REF_SCRIPTS", "/work/shared/ref"))


class Unavailable(Exception):
    """The reference cannot run here; the message says what is missing."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ReferenceStack:
    def __init__(self, db_name: str, engine: str = "mysql"):
        self.engine = engine
        self.dir = Path(tempfile.mkdtemp(prefix="okd-ref-"))
        # The same venv as the differential harness's reference (REF_DIR/venv, the ref
        # scripts' default), so one CI run installs Designate 23.0.0 once.
        self.venv = Path(os.environ.get("OKD_REF_VENV", Path(os.environ.get("REF_DIR", "/tmp/ref"))
                                        / "venv"))
        self.ports = {"API_PORT": free_port(), "MDNS_PORT": free_port(),
                      "PDNS_PORT": free_port(), "PDNS_API_PORT": free_port()}
        self.db_name = db_name
        self.env = {**os.environ, "REF_DIR": str(self.dir), "VENV": str(self.venv),
                    "DB_NAME": db_name, "RABBIT_VHOST": db_name,
                    **{k: str(v) for k, v in self.ports.items()}}

    @property
    def conf(self) -> Path:
        return self.dir / "etc" / "designate.conf"

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.ports['API_PORT']}"

    def _script(self, name: str, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(REF_SCRIPTS / name), *args], env=self.env,
                              capture_output=True, text=True, timeout=timeout)

    def start(self) -> None:
        for tool in ("mysqladmin", "rabbitmqctl", "pdns_server", "sqlite3"):
            if shutil.which(tool) is None:
                raise Unavailable(f"{tool} is not installed (the reference needs MariaDB, "
                                  "RabbitMQ and PowerDNS)")
        if not (REF_SCRIPTS / "setup.sh").exists():
            raise Unavailable(f"no reference scripts at {REF_SCRIPTS}")
        with setup_lock():
            done = self._script("setup.sh")
        if done.returncode != 0 or not (self.venv / "bin" / "designate-central").exists():
            raise Unavailable("Designate 23.0.0 could not be installed or set up here "
                              f"(setup.sh exit {done.returncode}): {done.stdout[-800:]}"
                              f"{done.stderr[-800:]}")
        if self.engine == "postgresql":
            self._switch_to_postgresql()
        done = self._script("start.sh", timeout=300)
        if done.returncode != 0:
            self.stop()
            raise Unavailable(f"Designate 23.0.0 did not start: {done.stdout[-1500:]}")
        if self.engine == "postgresql":
            self._manage("pool", "update", "--file", str(self.dir / "etc" / "pools.yaml"))

    def _manage(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.venv / "bin" / "designate-manage"), "--config-file",
                               str(self.conf), *args], capture_output=True, text=True,
                              timeout=300)

    def _switch_to_postgresql(self) -> None:
        """setup.sh knows MariaDB only: point the same designate.conf at a PostgreSQL database
        and create its schema with Designate's own sync (which stops one migration short)."""
        pip = subprocess.run([str(self.venv / "bin" / "pip"), "install", "-q", "psycopg2-binary"],
                             capture_output=True, text=True, timeout=600)
        if pip.returncode != 0:
            raise Unavailable(f"psycopg2-binary could not be installed: {pip.stderr[-500:]}")
        created = subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-c",
                                  f'CREATE DATABASE "{self.db_name}"'], capture_output=True,
                                 text=True)
        if created.returncode != 0:
            raise Unavailable(f"no PostgreSQL here: {created.stderr[-300:]}")
        text = self.conf.read_text().splitlines()
        url = f"postgresql+psycopg2://postgres@127.0.0.1/{self.db_name}"
        self.conf.write_text("\n".join(f"connection = {url}" if line.startswith("connection =")
                                        else line for line in text) + "\n")
        self._manage("database", "sync")  # exits 1 at its last migration on PostgreSQL

    def stop(self, everything: bool = False) -> None:
        self._script("stop.sh", *(["all"] if everything else []), timeout=120)

    def cleanup(self) -> None:
        self.stop(everything=True)
        subprocess.run(["mysql", "-uroot", "-e", f"DROP DATABASE IF EXISTS `{self.db_name}`"],
                       capture_output=True)
        subprocess.run(["rabbitmqctl", "-q", "delete_vhost", self.db_name], capture_output=True)
        if self.engine == "postgresql":
            subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-c",
                            f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)'],
                           capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)
