"""``gcpause.paused``: nested and interleaved pauses keep the collector off until the last one
ends, and the state from before the first is what comes back (also after an exception)."""

from __future__ import annotations

import asyncio
import gc

import pytest

from openkeel_designate import gcpause


@pytest.fixture(autouse=True)
def collector_restored():
    before = gc.isenabled()
    yield
    if before:
        gc.enable()
    else:
        gc.disable()


def test_nested_pauses_resume_at_the_outermost() -> None:
    gc.enable()
    with gcpause.paused():
        assert not gc.isenabled()
        with gcpause.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner end is not the last one
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled() -> None:
    gc.disable()
    with gcpause.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_an_exception_still_resumes() -> None:
    gc.enable()
    with pytest.raises(ValueError), gcpause.paused():
        raise ValueError("inside")
    assert gc.isenabled()


async def test_pauses_interleaved_on_the_loop() -> None:
    """Two claims on one loop: the first to end must not turn the collector back on while the
    second still holds its rows."""
    gc.enable()
    first_entered, first_may_end = asyncio.Event(), asyncio.Event()
    seen: list[bool] = []

    async def first() -> None:
        with gcpause.paused():
            first_entered.set()
            await first_may_end.wait()

    async def second() -> None:
        await first_entered.wait()
        with gcpause.paused():
            first_may_end.set()
            await asyncio.sleep(0.01)  # the first ends meanwhile
            seen.append(gc.isenabled())

    await asyncio.gather(first(), second())
    assert seen == [False]
    assert gc.isenabled()
