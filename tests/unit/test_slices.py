"""CPU work in slices (``slices``): same results as in one piece, and the loop gets turns."""

from __future__ import annotations

import asyncio
import random

import dns.name

from openkeel_designate import slices
from openkeel_designate.nameserver.dnssec import canonical_key


def names(count: int) -> list[dns.name.Name]:
    rng = random.Random(7)
    labels = ["a", "B", "zz", "Ab", "*", "0", "x-y", "\\000", "\\255"]
    return [dns.name.from_text(".".join(rng.choice(labels) for _ in range(rng.randint(1, 4)))
                               + ".example.") for _ in range(count)]


def test_sort_in_steps_is_dnspython_canonical_order() -> None:
    items = names(5_000)  # more than one chunk
    result = slices.run(slices.sort(items, key=canonical_key))
    assert result == sorted(items)  # dnspython orders names canonically (RFC 4034 §6.1)


def test_drive_gives_the_loop_turns_and_the_same_result() -> None:
    def work() -> slices.Work[int]:
        total = 0
        for i in range(2_000):
            total += i
            yield
        return total

    async def main() -> tuple[int, int]:
        turns = 0
        done = False

        async def ticker() -> None:
            nonlocal turns
            while not done:
                turns += 1
                await asyncio.sleep(0)

        task = asyncio.ensure_future(ticker())
        result = await slices.drive(work(), slice_seconds=0)  # every step its own slice
        done = True
        await task
        return result, turns

    result, turns = asyncio.run(main())
    assert result == slices.run(work()) == sum(range(2_000))
    assert turns >= 1_000
