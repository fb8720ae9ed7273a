"""Rolls at one table are resolved one at a time, from reading plugin state to committing it.

Two rolls resolved side by side would each start from the same per-table state, and the
second commit would erase the first one's changes (a lost count, a botch spent twice).
"""

from __future__ import annotations

import asyncio

from tests.helpers import Peer, run, running_server
from tests.test_plugins import write_plugins

COUNTER = '''
import asyncio
from sidecar import hookimpl

inside = 0
both_inside = asyncio.Event()

@hookimpl
async def sidecar_modify_roll(roll):
    """Counts the table's rolls in its state, slowly: a second roll may arrive meanwhile."""
    global inside
    inside += 1
    if inside > 1:
        both_inside.set()
    count = roll.state.get("count", 0)
    try:
        # Long enough for the other roll to arrive if the table let it in.
        await asyncio.wait_for(both_inside.wait(), 0.3)
    except TimeoutError:
        pass
    roll.state["count"] = count + 1
    inside -= 1

@hookimpl
def sidecar_modify_outcome(roll, outcome):
    outcome.notes.append(f"count={roll.state['count']} together={both_inside.is_set()}")
'''


def test_two_rolls_at_one_table_never_resolve_side_by_side(tmp_path):
    directory = write_plugins(tmp_path / "plugins", counter=COUNTER)

    async def scenario():
        async with running_server(plugins_dir=str(directory), plugin_timeout=2.0,
                                  rate_limit=0) as server:
            alice, bob = await Peer.open(server), await Peer.open(server)
            await alice.join(name="Alice", role="gm")
            await bob.join(name="Bob")
            first, second = await asyncio.gather(alice.roll(), bob.roll())
            notes = sorted(note for outcome in (first, second) for note in outcome["notes"]
                           if note.startswith("count="))
            assert notes == ["count=1 together=False", "count=2 together=False"], notes
            await alice.close()
            await bob.close()
    run(scenario())
