"""A zone file's journal: the built-in nameserver's changes since the file was last written whole.

Why: the nameserver wrote every new version of a zone to its file whole, so a one-record change
to a zone of 10,000 records rendered all of them again (30% of that change's CPU in the serving
process, bench/README.md "Found, left for later"). A version taken in by IXFR shares every node it
did not change with the version before (``dnswire.inbound`` clones only what it touches), so what
changed is found by identity, and only those nodes are appended here; the file is written whole
again when the journal outgrows it (or a version shares little with the last, as after an AXFR).

Format: a text file beside the zone file. The first line names the serial of the zone file it
follows (``$BASE <serial>``); each entry is ``$ENTRY <serial>``, one ``$GONE <name>`` or
``$NODE <name>`` line per changed name with a ``$NODE``'s records after it (master-file lines,
absolute names), then ``$END``. An entry without its ``$END`` (the process died while appending)
ends the replay: what follows it is not applied.
"""

from __future__ import annotations

from dataclasses import dataclass

import dns.name
import dns.node
import dns.rdatatype
import dns.zone

from openkeel_designate import slices

SUFFIX = ".jnl"
# The journal is folded into the file when it grows past half the file, or this, if larger.
MIN_FOLD_BYTES = 64 * 1024
# A version changing more than this share of the names is written whole.
MAX_CHANGED_SHARE = 0.25


@dataclass(frozen=True)
class Changes:
    """The names whose node differs from the version before, and the names no longer there."""

    nodes: list[tuple[dns.name.Name, dns.node.Node]]
    gone: list[dns.name.Name]


def changes(before: dns.zone.Zone, after: dns.zone.Zone) -> slices.Work[Changes | None]:
    """What ``after`` changed of ``before``, or None when it is most of the zone (write it
    whole). Nodes are compared by identity: an unchanged node is the same object. The walk
    goes by the nodes' ids, not their names: a ``dns.name.Name`` hashes its labels anew on each
    lookup, which made two lookups per name a tenth of a change's CPU in a 10,000-name zone."""
    limit = max(1, int(len(after.nodes) * MAX_CHANGED_SHARE))
    kept = {id(node) for node in before.nodes.values()}
    yield
    nodes = []
    for count, (name, node) in enumerate(after.nodes.items()):
        if count % 5000 == 0:
            yield
        if id(node) not in kept:
            nodes.append((name, node))
            if len(nodes) > limit:
                return None
    now = {id(node) for node in after.nodes.values()}
    yield
    changed = {name for name, _ in nodes}
    gone = [name for name, node in before.nodes.items()
            if id(node) not in now and name not in changed]
    if len(nodes) + len(gone) > limit:
        return None
    return Changes(nodes, gone)


def header(serial: int) -> str:
    return f"$BASE {serial}\n"


def entry(zone: dns.zone.Zone, found: Changes) -> str:
    """One entry's text for the version ``zone``, ``$END`` included."""
    lines = [f"$ENTRY {serial(zone)}\n"]
    lines += [f"$GONE {name.to_text()}\n" for name in found.gone]
    for name, node in found.nodes:
        lines.append(f"$NODE {name.to_text()}\n")
        text = node.to_text(name, origin=zone.origin, relativize=False)
        if text:
            lines.append(text + "\n")
    lines.append("$END\n")
    return "".join(lines)


def replay(zone: dns.zone.Zone, text: str) -> tuple[bool, int]:
    """Apply the journal ``text`` to ``zone`` (the file's version) in place.

    Returns whether the journal applied whole, and how many entries applied. A journal that
    follows another version of the file (``$BASE``) applies nothing; an entry cut short stops
    the replay there. Either way the caller must write the file whole before journalling more.
    """
    lines = text.splitlines(keepends=True)
    if not lines or lines[0] != header(serial(zone)):
        return False, 0
    applied = 0
    replaced: list[dns.name.Name] = []
    records: list[str] = []
    in_entry = False
    for line in lines[1:]:
        if line.startswith("$ENTRY "):
            if in_entry:
                return False, applied  # the one before has no $END: cut short
            in_entry, replaced, records = True, [], []
        elif not in_entry:
            return False, applied
        elif line.startswith("$GONE ") or line.startswith("$NODE "):
            replaced.append(dns.name.from_text(line[6:].strip()))
        elif line == "$END\n":
            _apply(zone, replaced, records)
            applied += 1
            in_entry = False
        else:
            records.append(line)
    return not in_entry, applied


def _apply(zone: dns.zone.Zone, replaced: list[dns.name.Name], records: list[str]) -> None:
    fragment = dns.zone.from_text("".join(records), origin=zone.origin, relativize=False,
                                  check_origin=False) if records else None
    for name in replaced:
        zone.nodes.pop(name, None)
    if fragment is not None:
        zone.nodes.update(fragment.nodes)


def serial(zone: dns.zone.Zone) -> int:
    """The SOA serial of a zone (the file's, the version's)."""
    return zone.get_rdataset(zone.origin, dns.rdatatype.SOA)[0].serial
