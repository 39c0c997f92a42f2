"""The work queue's claim: a zone the worker is still pushing is not claimed a second time by the
same worker when its lease ran out (a starved loop renews late), but stays claimable by others."""

from __future__ import annotations

from conftest import project
from openkeel_designate.storage import workqueue

OWNER = project("proj-claim")


async def test_a_zone_still_being_pushed_is_not_claimed_again_by_its_worker(client, services):
    created = await client.post("/v2/zones", json={"name": "claim.example.", "email": "a@b.c"},
                                headers=OWNER)
    assert created.status_code == 202
    zone_id = created.json()["id"]
    first = await workqueue.claim(services.db, "worker-1", 0, 10)  # a lease that ends at once
    assert [z.id for z in first] == [zone_id]
    again = await workqueue.claim(services.db, "worker-1", 60, 10, busy={zone_id})
    assert again == []
    other = await workqueue.claim(services.db, "worker-2", 60, 10)
    assert [z.id for z in other] == [zone_id] and other[0].taken_over
