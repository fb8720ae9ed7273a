"""Odds refusals name a param by its label, as a roll's do (issue 29, replay 2: ``sidecar
odds ladder difficulty=Difficile`` said « paramètre 'level' » where ``roll`` says
« paramètre « Difficulté » »): on the command line (local odds) and over the wire."""

from __future__ import annotations

from tests.helpers import Peer, run, running_server
from tests.support.serve import sidecar

CASES = [(("ladder", "difficulty=Difficile"), "level"),
         (("oweens", "difficulty=3"), "dice"),
         (("dice", "expr=1d1000000"), "expr")]


def test_local_odds_name_params_by_label() -> None:
    for args, key in CASES:
        shown = sidecar("odds", *args)
        assert shown.returncode != 0, shown.stdout
        assert "paramètre « " in shown.stderr and f"('{key}')" in shown.stderr, shown.stderr
        assert f"paramètre '{key}'" not in shown.stderr, shown.stderr


def test_odds_over_the_wire_name_params_by_label() -> None:
    async def scenario():
        async with running_server() as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            for ruleset, params, key in (("ladder", {"difficulty": "Difficile"}, "level"),
                                         ("oweens", {"difficulty": 3}, "dice"),
                                         ("dice", {"expr": "1d1000000"}, "expr")):
                reply = await gm.request({"type": "odds", "id": key, "ruleset": ruleset,
                                          "params": params})
                assert reply["code"] == "invalid_params", reply
                assert reply["details"]["param"] == key, reply
                assert "paramètre « " in reply["message"], reply
                assert f"paramètre '{key}'" not in reply["message"], reply
    run(scenario())
