"""No character is stuck with an open roll for good (issue 26, the fighter's item 7).

An open roll whose target — or whose own character — was removed is still decided, on
what is left: by its roller, by a GM, by its default when time runs out (the plugins see
``roll.removed``; O'Ween's combat needs no typed ``opponent_pep`` then). And whatever a
plugin does, when the default cannot be taken the server closes the roll as it stands
(with a note saying why, French first): its character may roll again past the timeout.
"""

from __future__ import annotations

from typing import Any

from tests.helpers import Peer, run, running_server
from tests.support.plugins import write_plugins
from tests.test_fights_live import MELEE, table
from tests.test_verify import _export, _standalone, _verify

#: Aengus fails against the rat's Peps 3 and may buy augmentations: the roll stays open.
OPENING = [4, 4, 2, 1]


def sheets() -> dict[str, tuple[str | None, dict]]:
    return {"Aengus": ("Alice", {"pep": 4, "bonbonus": 12}),
            "Rat2": (None, {"pep": 3})}


async def open_at(alice: Peer, target: str) -> dict[str, Any]:
    out = await alice.roll("oweens", {"characteristic": "PEP"}, character="Aengus",
                           targets=[target], options=MELEE, dice=OPENING)
    assert out["type"] == "outcome" and out.get("open"), out
    return out


async def remove(gm: Peer, name: str) -> None:
    gone = await gm.request({"type": "sheet", "id": f"rm-{name}", "op": "remove",
                             "character": name, "reason": "mort"})
    assert gone.get("removed") is True, gone


async def recreate(gm: Peer, name: str) -> None:
    made = await gm.request({"type": "sheet", "id": f"mk-{name}", "op": "set",
                             "character": name, "ruleset": "oweens", "owner": None,
                             "values": {"pep": 3}})
    assert made["type"] == "sheet", made


async def closing(peer: Peer, seq: int) -> dict[str, Any]:
    """The outcome that decides the open roll ``seq`` (waited for: the server's timer)."""
    while True:
        event = await peer.recv_type("outcome", timeout=10)
        if event.get("reacts_to") == seq:
            return event


async def rolls_again(alice: Peer) -> None:
    again = await alice.roll("oweens", {"characteristic": "PEP"}, character="Aengus",
                             dice=[6, 6, 6, 6])
    assert again["type"] == "outcome", again  # no « a déjà un jet ouvert »


def test_a_roll_at_a_removed_npc_is_decided_by_its_roller_and_by_the_gm():
    async def scenario():
        async with running_server(allow_player_dice=True, react_timeout=3600) as server:
            gm, alice, _ = await table(server, "oweens", sheets())
            out = await open_at(alice, "Rat2")
            await remove(gm, "Rat2")
            mine = await alice.request({"type": "react", "id": "a", "roll": out["roll"],
                                        "choice": "buy_2"})
            assert mine["type"] == "outcome" and mine["reacts_to"] == out["seq"], mine
            assert not mine.get("effects")  # nothing lands on a gone target
            await rolls_again(alice)
            await recreate(gm, "Rat3")
            out = await open_at(alice, "Rat3")
            await remove(gm, "Rat3")
            theirs = await gm.request({"type": "react", "id": "g", "roll": out["roll"],
                                       "choice": "keep"})
            assert theirs["type"] == "outcome" and theirs["reacts_to"] == out["seq"], theirs
            await rolls_again(alice)
    run(scenario())


def test_a_roll_at_a_removed_npc_takes_its_default_in_time(tmp_path):
    db = str(tmp_path / "journal.db")

    async def scenario():
        async with running_server(allow_player_dice=True, react_timeout=0.5, db=db,
                                  dice="provable") as server:
            gm, alice, _ = await table(server, "oweens", sheets())
            out = await open_at(alice, "Rat2")
            await remove(gm, "Rat2")
            decided = await closing(alice, out["seq"])
            assert decided["choice"] == "keep", decided  # the default, on what is left
            await rolls_again(alice)
            # The roller's own character removed: a GM still decides, on what is left.
            await recreate(gm, "Rat3")
            charge = {"combat": {"attack": "melee", "options": ["charger"],
                                 "initiative": True, "room": True}}
            out = await alice.roll("oweens", {"characteristic": "PEP"}, character="Aengus",
                                   targets=["Rat3"], options=charge, dice=[4, 1])
            assert out.get("open"), out
            await remove(gm, "Aengus")
            theirs = await gm.request({"type": "react", "id": "g", "roll": out["roll"],
                                       "choice": "keep"})
            assert theirs["type"] == "outcome" and theirs["reacts_to"] == out["seq"], theirs
    run(scenario())
    # The journal verifies, each decision re-run with what was left (``roll.removed``).
    done = _verify(_export(db, tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr


STUCK = '''
"""A ruleset with a sheet whose rolls stay open and whose every decision raises."""
from sidecar import hookimpl
from sidecar.model import Outcome, label

@hookimpl
def sidecar_rulesets():
    return [{"name": "coince", "params": {}}]

@hookimpl
def sidecar_sheet(ruleset):
    if ruleset == "coince":
        return {"pv": {"type": "int", "min": 0, "max": 9, "default": 3}}

@hookimpl
def sidecar_resolve(roll, dice):
    face = dice.roll(6)
    return Outcome(result={"success": False, "margin": -1, "total": face, "kind": "failure",
                           "label": label("Échec", "Failure")},
                   choices=[{"name": "keep", "dice": 0, "label": label("Garder", "Keep")}],
                   default="keep")

@hookimpl
def sidecar_react(roll, outcome, choice, dice):
    raise RuntimeError("cassé")
'''


def test_a_plugin_whose_decisions_always_fail_never_locks_a_character(tmp_path):
    directory = write_plugins(tmp_path / "p", coince=STUCK)
    db = str(tmp_path / "journal.db")

    async def scenario():
        async with running_server(plugins_dir=str(directory), react_timeout=0.5, db=db,
                                  dice="provable") as server:
            gm, alice, _ = await table(server, "coince", {"Aengus": ("Alice", {})})
            for attempt in range(2):
                out = await alice.roll("coince", {}, character="Aengus")
                assert out["type"] == "outcome" and out.get("open"), out
                refused = await alice.request({"type": "react", "id": f"k{attempt}",
                                               "roll": out["roll"], "choice": "keep"})
                assert refused["code"] == "plugin_error", refused
                closed = await closing(alice, out["seq"])
                assert closed["choice"] is None and closed["result"] == out["result"]
                note = closed["notes"][-1]  # (as its reader's locale shows it)
                # (the choice by its label, not its key: issue 29)
                assert note.startswith("Le choix par défaut « Garder » n'a pas pu "
                                       "être pris"), note
                assert "clos tel quel" in closed["text"]
    run(scenario())
    # The journal verifies: the closes are the server's, results kept, nothing drawn.
    export = _export(db, tmp_path)
    done = _verify(export, "--plugins-dir", str(directory))
    assert done.returncode == 0, done.stdout + done.stderr
    assert _standalone(export).returncode == 0
