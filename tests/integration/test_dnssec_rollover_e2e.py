"""Key rollovers without a validation gap, end to end: a signed zone on the embedded server,
served by the built-in nameserver, is queried by ``delv`` without pause from a thread while its
KSK is rolled (started, the parent's DS set changed, completed), its ZSK rolled (the old one
removed by the producer) and its signing turned off in the RFC 8078 way — and not one answer
fails to validate.

The trust anchors play the parent's DS set (``static-ds``): the old DS alone until the new KSK
is served, then every DS set a parent may hold during the rollover (old, new, both), then —
the tenant completing the rollover only once the parent shows the new DS — the new alone.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import dns.message
import dns.query
import dns.rdatatype
import httpx
import pytest

from support.server import ServerProcess, wait_status

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(shutil.which("delv") is None, reason="BIND's delv needed")]

ZONE = "roll.example."
QUESTIONS = [("www", "A", False), ("@", "DNSKEY", False), ("nothing", "A", True),
             ("@", "CDS", False), ("www", "MX", True)]


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    # a rolled-over ZSK leaves as soon as the zone's (1 s) DNSKEY TTL is over, and the
    # producer looks every second
    with ServerProcess(options={"dnssec": {"retire_margin": 0},
                                "producer_task:dnssec_refresh": {"interval": 1}}) as running:
        yield running


class Prober:
    """A thread asking delv, round after round, every question under every anchor set it is
    given; the main thread changes the anchor sets as the parent would change its DS."""

    def __init__(self, server: ServerProcess, folder: Path):
        self.server = server
        self.folder = folder
        self.anchor_sets: list[Path] = []
        self.failures: list[str] = []
        self.answers = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._rounds = 0

    def anchors(self, *ds_sets: list[str]) -> None:
        """From now on, query under each of these DS sets (one anchor file each)."""
        files = []
        for ds_set in ds_sets:
            path = self.folder / f"anchors-{len(list(self.folder.iterdir()))}"
            lines = "".join(f'  {ZONE} static-ds {tag} {alg} {dtype} "{digest}";\n'
                            for tag, alg, dtype, digest in (ds.split(maxsplit=3)
                                                            for ds in ds_set))
            path.write_text("trust-anchors {\n" + lines + "};\n")
            files.append(path)
        with self._lock:
            self.anchor_sets = files

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)

    def settle(self) -> None:
        """Wait for one more full round under the current anchors."""
        target = self._rounds + 2  # the round running now may have begun under older anchors
        while self._rounds < target and self._thread.is_alive():
            time.sleep(0.05)

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                files = list(self.anchor_sets)
            for anchor in files:
                for label, rtype, negative in QUESTIONS:
                    output = delv(self.server, anchor, label, rtype)
                    wanted = "; negative response, fully validated" if negative \
                        else "; fully validated"
                    self.answers += 1
                    if wanted not in output:
                        self.failures.append(f"{anchor.name} {label}/{rtype}: {output}")
            self._rounds += 1


def delv(server: ServerProcess, anchor: Path, label: str, rtype: str) -> str:
    name = ZONE if label == "@" else f"{label}.{ZONE}"
    result = subprocess.run(["delv", "@127.0.0.1", "-p", str(server.ns_port), "-a", str(anchor),
                             f"+root={ZONE}", name, rtype],
                            capture_output=True, text=True, timeout=30)
    return result.stdout + result.stderr


def served(server: ServerProcess, rtype: str = "DNSKEY") -> set[str]:
    response = dns.query.tcp(dns.message.make_query(ZONE, rtype), "127.0.0.1",
                             port=server.ns_port, timeout=5)
    return {rd.to_text() for rrset in response.answer
            if rrset.rdtype == dns.rdatatype.from_text(rtype) for rd in rrset}


def wait_served(client: httpx.Client, server: ServerProcess, url: str, body: dict) -> None:
    """Until the nameserver serves exactly the keys the API shows."""
    wait_status(client, f"{url}/dnssec", "ACTIVE")
    wanted = {k["dnskey"] for k in client.get(f"{url}/dnssec").json()["keys"]} if body[
        "enabled"] else set()
    deadline = time.monotonic() + 20
    while served(server) != wanted:
        assert time.monotonic() < deadline, f"{served(server)} never became {wanted}"
        time.sleep(0.1)


def test_rollovers_and_disabling_never_break_validation(server, tmp_path):
    with httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10) as client:
        zone = client.post("/v2/zones", json={"name": ZONE, "email": "h@roll.example",
                                              "ttl": 1}).json()
        url = f"/v2/zones/{zone['id']}"
        for name, rtype, data in ((f"www.{ZONE}", "A", "192.0.2.10"),
                                  (ZONE, "MX", f"10 www.{ZONE}")):
            created = client.post(f"{url}/recordsets", json={"name": name, "type": rtype,
                                                             "records": [data]})
            assert created.status_code == 202, created.text
        signed = client.put(f"{url}/dnssec", json={"enabled": True}).json()
        wait_served(client, server, url, signed)
        old_ds = signed["ds"]
        folder = tmp_path / "anchors"
        folder.mkdir()
        prober = Prober(server, folder)
        prober.anchors(old_ds)
        prober.start()
        try:
            prober.settle()
            # KSK rollover: the new KSK is published and signs beside the old
            started = client.post(f"{url}/dnssec/rollover", json={"key": "KSK"})
            assert started.status_code == 202, started.text
            both_ds = started.json()["ds"]
            [new_ds] = [ds for ds in both_ds if ds not in old_ds]
            wait_served(client, server, url, started.json())
            assert {r.split()[0] for r in served(server, "CDS")} == {
                ds.split()[0] for ds in both_ds}  # CDS names both: a scanning parent follows
            prober.settle()
            # the parent may hold the old DS, both, or already the new alone
            prober.anchors(old_ds, both_ds, [new_ds])
            prober.settle()
            # the parent shows the new DS: the tenant completes, the old KSK goes
            prober.anchors(both_ds, [new_ds])
            prober.settle()
            done = client.post(f"{url}/dnssec/rollover",
                               json={"key": "KSK", "action": "complete"})
            assert done.status_code == 202, done.text
            assert done.json()["ds"] == [new_ds]
            wait_served(client, server, url, done.json())
            assert {r.split()[0] for r in served(server, "CDS")} == {new_ds.split()[0]}
            prober.settle()
            prober.anchors([new_ds])

            # ZSK rollover: double signature, then the producer removes the old ZSK
            zsks = {k["dnskey"] for k in done.json()["keys"] if k["flags"] == 256}
            rolled = client.post(f"{url}/dnssec/rollover")
            assert rolled.status_code == 202, rolled.text
            wait_served(client, server, url, rolled.json())
            prober.settle()
            deadline = time.monotonic() + 30
            while zsks & {k["dnskey"] for k in client.get(f"{url}/dnssec").json()["keys"]}:
                assert time.monotonic() < deadline, "the old ZSK was never removed"
                time.sleep(0.2)
            wait_served(client, server, url, client.get(f"{url}/dnssec").json())
            assert not zsks & served(server)
            prober.settle()

            # going insecure: delete CDS/CDNSKEY, the zone still signed and validating
            disabling = client.put(f"{url}/dnssec", json={"enabled": False})
            assert disabling.json()["state"] == "DISABLING"
            wait_served(client, server, url, disabling.json())
            assert served(server, "CDS") == {"0 0 0 00"}
            assert served(server, "CDNSKEY") == {"0 3 0 AA=="}
            prober.settle()
        finally:
            prober.stop()
        assert prober.failures == []
        assert prober.answers >= 8 * len(QUESTIONS)
        print(f"{prober.answers} delv answers, all validated")
        # the parent dropped the DS: confirmed, the zone is served unsigned
        off = client.put(f"{url}/dnssec", json={"enabled": False})
        assert off.json()["state"] == "UNSIGNED"
        wait_served(client, server, url, off.json())
        assert served(server, "CDS") == set()
        plain = dns.query.tcp(dns.message.make_query(f"www.{ZONE}", "A", want_dnssec=True),
                              "127.0.0.1", port=server.ns_port, timeout=5)
        assert [rrset.rdtype for rrset in plain.answer] == [dns.rdatatype.A]  # no RRSIG
