"""A real Keystone on a free loopback port, for the ``auth_strategy = keystone`` tests.

Why a real one: token validation is a conversation with Keystone (service token, subject token,
catalog, revocation, implied roles); a fake would only test our reading of our own fake.

Nothing is installed here: ``keystone`` and ``gunicorn`` come from the ``test`` extra. Each
instance gets a temporary directory with ``keystone.conf`` (SQLite, fernet tokens, cheap bcrypt),
runs ``keystone-manage`` (fernet/credential keys, ``db_sync``, ``bootstrap``), then serves
``keystone.wsgi.api`` under gunicorn in its own process group, stopped by ``stop()`` or at exit.
One gunicorn process with threads and Keystone's in-memory cache: without the cache a token
validation costs Keystone 1-2 s on a busy machine (30 ms with it), and a single process keeps
that cache coherent with revocations.

    with KeystoneProcess() as ks:
        user = ks.create_user("alice", project="p1", roles=["member"])
        token = ks.token("alice", project="p1")
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from support.server import free_port

ADMIN_PASSWORD = "secret"
REGION = "RegionOne"
SERVICE_USER = "designate"
SERVICE_PASSWORD = "secret"

_LIVE: set["KeystoneProcess"] = set()

# keystone parses sys.argv with oslo.config at import: gunicorn's arguments must not reach it.
_WSGI_SHIM = "import sys\nsys.argv = sys.argv[:1]\nfrom keystone.wsgi.api import application\n"


class KeystoneError(RuntimeError):
    """Keystone did not set up or start; the message carries the log tail."""


@dataclass
class KeystoneUser:
    id: str
    name: str
    password: str
    project_id: str | None


class KeystoneProcess:
    """One Keystone: ``start()`` (a few seconds), admin helpers, ``stop()``."""

    def __init__(self, start_timeout: float = 120.0, threads: int = 4, cache: bool = True):
        self.start_timeout = start_timeout
        self.threads = threads
        self.cache = cache
        self.port = 0
        self.dir: Path | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._admin_token: str | None = None
        self._http = httpx.Client(timeout=30)
        self.project_ids: dict[str, str] = {}
        self.role_ids: dict[str, str] = {}

    @property
    def url(self) -> str:
        """Keystone's root, as ``auth_url`` / ``www_authenticate_uri`` are usually written."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        assert self.dir is not None
        return self.dir / "keystone.log"

    def authtoken_options(self, **extra: object) -> dict[str, object]:
        """``[keystone_authtoken]`` for a DNS API validating tokens against this Keystone."""
        opts: dict[str, object] = {
            "www_authenticate_uri": self.url, "auth_url": self.url, "auth_type": "password",
            "username": SERVICE_USER, "password": SERVICE_PASSWORD, "project_name": "service",
            "user_domain_name": "Default", "project_domain_name": "Default",
            "region_name": REGION, "memcached_servers": "127.0.0.1:11211",
        }
        opts.update(extra)
        return opts

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> "KeystoneProcess":
        _LIVE.add(self)
        self.dir = Path(tempfile.mkdtemp(prefix="okd-keystone-"))
        self.port = free_port()
        try:
            self._write_config()
            self._setup_database()
            self._launch()
            self._wait_ready()
            self._seed()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop gunicorn (its whole process group) and remove the directory."""
        _LIVE.discard(self)
        if self._proc is not None and self._proc.poll() is None:
            try:
                os.killpg(self._proc.pid, signal.SIGTERM)
                self._proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self._proc.pid, signal.SIGKILL)
                self._proc.wait(timeout=10)
            except ProcessLookupError:
                pass
        self._proc = None
        self._http.close()
        if self.dir is not None and os.environ.get("OKD_KEEP_STATE") != "1":
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def __enter__(self) -> "KeystoneProcess":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    # ----------------------------------------------------------------- admin helpers
    def token(self, username: str, password: str = "pass", project: str | None = None,
              system: bool = False) -> str:
        """A token for a user of the Default domain, project- or system-scoped."""
        scope: dict[str, object] | None = None
        if project is not None:
            scope = {"project": {"name": project, "domain": {"id": "default"}}}
        elif system:
            scope = {"system": {"all": True}}
        auth: dict[str, object] = {"identity": {"methods": ["password"], "password": {"user": {
            "name": username, "domain": {"id": "default"}, "password": password}}}}
        if scope is not None:
            auth["scope"] = scope
        resp = self._http.post(f"{self.url}/v3/auth/tokens", json={"auth": auth})
        if resp.status_code != 201:
            raise KeystoneError(f"token for {username}: {resp.status_code} {resp.text}")
        return resp.headers["X-Subject-Token"]

    def revoke(self, token: str) -> None:
        """Revoke one token (``DELETE /v3/auth/tokens``)."""
        resp = self._http.delete(f"{self.url}/v3/auth/tokens",
                                 headers={**self._admin(), "X-Subject-Token": token})
        if resp.status_code != 204:
            raise KeystoneError(f"revoke: {resp.status_code} {resp.text}")

    def project(self, name: str) -> str:
        """The id of project ``name``, created on first use."""
        if name not in self.project_ids:
            found = self._get("/v3/projects", params={"name": name})["projects"]
            if found:
                self.project_ids[name] = found[0]["id"]
            else:
                body = {"project": {"name": name, "domain_id": "default"}}
                self.project_ids[name] = self._post("/v3/projects", body)["project"]["id"]
        return self.project_ids[name]

    def role(self, name: str) -> str:
        if not self.role_ids:
            self.role_ids = {r["name"]: r["id"] for r in self._get("/v3/roles")["roles"]}
        if name not in self.role_ids:
            self.role_ids[name] = self._post("/v3/roles", {"role": {"name": name}})["role"]["id"]
        return self.role_ids[name]

    def create_user(self, name: str, project: str | None = None, roles: tuple[str, ...] = (),
                    password: str = "pass") -> KeystoneUser:
        """A Default-domain user with ``roles`` on ``project`` (created when missing)."""
        body = {"user": {"name": name, "password": password, "domain_id": "default"}}
        user_id = self._post("/v3/users", body)["user"]["id"]
        project_id = self.project(project) if project else None
        for role in roles:
            self.grant(user_id, role, project=project)
        return KeystoneUser(user_id, name, password, project_id)

    def grant(self, user_id: str, role: str, project: str | None = None) -> None:
        target = f"/v3/projects/{self.project(project)}" if project else "/v3/system"
        resp = self._http.put(f"{self.url}{target}/users/{user_id}/roles/{self.role(role)}",
                              headers=self._admin())
        if resp.status_code not in (200, 204):
            raise KeystoneError(f"grant {role}: {resp.status_code} {resp.text}")

    def register_endpoint(self, service_type: str, name: str, url: str) -> None:
        """A catalog service with public/internal/admin endpoints at ``url`` (in REGION)."""
        service = self._post("/v3/services", {"service": {"type": service_type, "name": name}})
        for interface in ("public", "internal", "admin"):
            self._post("/v3/endpoints", {"endpoint": {
                "service_id": service["service"]["id"], "interface": interface, "url": url,
                "region_id": REGION}})

    # ----------------------------------------------------------------- internals
    def _admin(self) -> dict[str, str]:
        if self._admin_token is None:
            self._admin_token = self.token("admin", ADMIN_PASSWORD, project="admin")
        return {"X-Auth-Token": self._admin_token}

    def _get(self, path: str, params: dict[str, str] | None = None) -> dict:
        resp = self._http.get(self.url + path, params=params, headers=self._admin())
        if resp.status_code != 200:
            raise KeystoneError(f"GET {path}: {resp.status_code} {resp.text}")
        return resp.json()

    def _post(self, path: str, body: dict) -> dict:
        resp = self._http.post(self.url + path, json=body, headers=self._admin())
        if resp.status_code != 201:
            raise KeystoneError(f"POST {path}: {resp.status_code} {resp.text}")
        return resp.json()

    def _write_config(self) -> None:
        assert self.dir is not None
        (self.dir / "keystone.conf").write_text(f"""[DEFAULT]
log_file = {self.log_path}

[database]
connection = sqlite:///{self.dir}/keystone.db

[token]
provider = fernet
expiration = 3600
# the tests revoke tokens and expect Keystone to see it at once
caching = false

[revoke]
# revocation events must be seen at once too (the cache would keep an old list)
caching = false

[fernet_tokens]
key_repository = {self.dir}/fernet-keys

[credential]
key_repository = {self.dir}/credential-keys

[identity]
password_hash_algorithm = bcrypt
password_hash_rounds = 4

[cache]
enabled = {"true" if self.cache else "false"}
backend = dogpile.cache.memory
""")
        (self.dir / "ks_wsgi.py").write_text(_WSGI_SHIM)

    def _env(self) -> dict[str, str]:
        assert self.dir is not None
        return {**os.environ, "OS_KEYSTONE_CONFIG_DIR": str(self.dir),
                "OS_KEYSTONE_CONFIG_FILES": "keystone.conf", "PYTHONWARNINGS": "ignore"}

    def _manage(self, *args: str) -> None:
        assert self.dir is not None
        cmd = [_bin("keystone-manage"), "--config-file", str(self.dir / "keystone.conf"), *args]
        with open(self.dir / "manage.log", "ab") as log:
            done = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  env=self._env(), timeout=300, check=False)
        if done.returncode != 0:
            tail = (self.dir / "manage.log").read_text(errors="replace")[-3000:]
            raise KeystoneError(f"keystone-manage {args[0]} exited {done.returncode}\n{tail}")

    def _setup_database(self) -> None:
        import grp
        import pwd

        user = pwd.getpwuid(os.getuid()).pw_name
        group = grp.getgrgid(os.getgid()).gr_name
        owner = ["--keystone-user", user, "--keystone-group", group]
        self._manage("fernet_setup", *owner)
        self._manage("credential_setup", *owner)
        self._manage("db_sync")
        self._manage("bootstrap", "--bootstrap-password", ADMIN_PASSWORD,
                     "--bootstrap-public-url", f"{self.url}/v3/",
                     "--bootstrap-internal-url", f"{self.url}/v3/",
                     "--bootstrap-admin-url", f"{self.url}/v3/",
                     "--bootstrap-region-id", REGION)

    def _launch(self) -> None:
        assert self.dir is not None
        cmd = [_bin("gunicorn"), "-b", f"127.0.0.1:{self.port}", "-w", "1",
               "--threads", str(self.threads),
               "--timeout", "120", "--chdir", str(self.dir), "ks_wsgi:application"]
        with open(self.dir / "gunicorn.log", "ab") as log:
            self._proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL, env=self._env(),
                                          start_new_session=True, cwd=self.dir)

    def _wait_ready(self) -> None:
        assert self.dir is not None
        deadline = time.monotonic() + self.start_timeout
        while True:
            if self._proc is not None and self._proc.poll() is not None:
                gunicorn = (self.dir / "gunicorn.log").read_text(errors="replace")[-3000:]
                raise KeystoneError(f"gunicorn exited {self._proc.returncode}\n{gunicorn}")
            try:
                if self._http.get(f"{self.url}/v3", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise KeystoneError(f"keystone did not answer in {self.start_timeout}s\n"
                                    f"{self.log_tail()}")
            time.sleep(0.2)

    def _seed(self) -> None:
        """The service user a DNS API authenticates with, as a deployment would have it."""
        self.create_user(SERVICE_USER, project="service", roles=("admin", "service"),
                         password=SERVICE_PASSWORD)


def _bin(name: str) -> str:
    """A console script of the interpreter running us (the project's venv)."""
    script = Path(sys.executable).with_name(name)
    if script.exists():
        return str(script)
    found = shutil.which(name)
    if found is None:
        raise KeystoneError(f"{name} not found: install the test extra (pip install -e '.[test]')")
    return found


@atexit.register
def _stop_all() -> None:
    for keystone in list(_LIVE):
        try:
            keystone.stop()
        except Exception:  # noqa: BLE001 - best effort at interpreter exit
            pass
