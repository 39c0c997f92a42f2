"""How a sequence is written: names unique to the run, projects, context headers, steps.

The structure of a sequence comes from the seed alone (``Builder.rng``); the run id only feeds
the names' suffix, so re-runs never collide in the reference's database and the same seed
always writes the same story.
"""

from __future__ import annotations

import hashlib
import random
import string

from .model import NO_BODY, Sequence, Step, Wait

DEFAULT_POOL = "794ccc2c-d751-44fe-b57f-8894c9f5c842"
#: a master nobody listens on: secondary zones stay un-transferred on both sides
DEAD_MASTER = "127.0.0.1:9"
ZONE_FILE_TYPES = ("text/dns", "application/json", "*/*", "text/plain", "text/dns, */*;q=0.1", "")


def run_suffix(seed: int, run_id: str) -> str:
    """Six characters unique to (seed, run): the names' only run-dependent part."""
    return hashlib.sha256(f"{seed}/{run_id}".encode()).hexdigest()[:6]


def headers(project: str, roles: str = "admin", **flags: str) -> dict[str, str]:
    """noauth context headers; ``flags`` by short name (all_projects, sudo, edit_managed, hard_delete)."""
    names = {"all_projects": "X-Auth-All-Projects", "sudo": "X-Auth-Sudo-Project-ID",
             "edit_managed": "X-Designate-Edit-Managed-Records",
             "hard_delete": "X-Designate-Hard-Delete", "delete_shares": "X-Designate-Delete-Shares"}
    out = {"X-Auth-Project-ID": project, "X-Roles": roles}
    out.update({names[k]: v for k, v in flags.items()})
    return out


class Builder:
    """One sequence being written: names, projects, and the steps so far."""

    def __init__(self, seed: int, index: int, suffix: str, name: str):
        self.rng = random.Random(f"{seed}:{index}:{name}")
        self.index = index
        self.suffix = suffix
        self.name = name
        self.steps: list[Step] = []
        self.cleanup: list[Step] = []
        self.owner = self.project("o")
        self.other = self.project("x")
        self.count = 0

    # ------------------------------------------------------------------ names
    def project(self, tag: str) -> str:
        return f"dif-{self.suffix}-{self.index}{tag}"

    def word(self) -> str:
        return "".join(self.rng.choice(string.ascii_lowercase) for _ in range(self.rng.randint(3, 8)))

    def mixed(self, text: str) -> str:
        """Mixed case half of the time: names are case-insensitive in DNS and in Designate."""
        if self.rng.random() < 0.5:
            return text
        return "".join(c.upper() if c.isalpha() and self.rng.random() < 0.4 else c for c in text)

    def zone_name(self) -> str:
        self.count += 1
        tld = self.rng.choice(("test.", "example.", "example.org.", "invalid."))
        return self.mixed(f"{self.word()}-{self.suffix}-{self.index}-{self.count}.{tld}")

    def long_name(self, length: int) -> str:
        """A name of exactly ``length`` characters (trailing dot included), labels of 63 or less."""
        self.count += 1
        tail = f"{self.suffix}-{self.index}-{self.count}.test."
        labels: list[str] = []
        room = length - len(tail)
        while room > 0:
            size = min(63, room - 1) if room > 1 else 1
            if room - (size + 1) == 1:  # never leave a remainder of one: it cannot be a label
                size -= 1
            labels.append("a" * size)
            room -= size + 1
        return ".".join(labels) + "." + tail if labels else tail

    # ------------------------------------------------------------------ steps
    def add(self, label: str, method: str = "GET", path: str = "/", hdrs: dict | None = None,
            body: object = NO_BODY, **kw: object) -> Step:
        step = Step(label=f"{self.name}/{label}", method=method, path=path,
                    headers=dict(hdrs if hdrs is not None else headers(self.owner)), body=body, **kw)
        self.steps.append(step)
        return step

    def wait(self, path: str, until: str = "settled", hdrs: dict | None = None) -> None:
        self.steps.append(Step(label=f"{self.name}/wait", path=path,
                               headers=dict(hdrs or headers(self.owner)), wait=Wait(path, until)))

    def zone(self, capture: str, name: str | None = None, hdrs: dict | None = None,
             label: str = "create-zone", **extra: object) -> str:
        name = name or self.zone_name()
        self.add(label, "POST", "/v2/zones", hdrs,
                 {"name": name, "email": f"hostmaster@{self.word()}.example.net", **extra},
                 capture={capture: "id"})
        return name

    def sequence(self) -> Sequence:
        projects = [self.owner, self.other]
        return Sequence(self.name, self.index, self.steps, projects, self.cleanup)


