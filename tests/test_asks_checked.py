"""An ask is checked when opened as each of its answers would be before its dice
(issue 29: an O'Ween's ask with no characteristic was accepted, and nobody could answer
it). A params problem any answer would hit is the GM's ``invalid_params`` at ``ask
open``, naming the field by its label; nothing is journaled."""

from __future__ import annotations

import logging

from tests.helpers import Peer, run, running_server


async def _table(server):
    gm = await Peer.open(server)
    await gm.join("t", "MJ", "gm")
    await gm.request({"type": "seat", "id": "s-tom", "op": "add", "name": "Tom"})
    token = (await gm.request({"type": "seat", "id": "s", "op": "add",
                               "name": "Léa"}))["token"]
    lea = await Peer.open(server)
    await lea.join("t", "Léa", token=token)
    for name, owner in (("Aengus", "Léa"), ("Brig", "Tom")):
        reply = await gm.request({"type": "sheet", "id": f"c-{name}", "op": "set",
                                  "character": name, "ruleset": "oweens", "owner": owner,
                                  "values": {"pep": 2, "ecl": 2, "enc": 2, "fla": 2}})
        assert reply["type"] == "sheet", reply
    return gm, lea


def test_an_ask_no_answer_could_roll_is_refused_at_open_naming_the_field(caplog):
    caplog.set_level(logging.WARNING)

    async def scenario():
        async with running_server() as server:
            gm, lea = await _table(server)
            before = (await gm.request({"type": "history", "id": "h0"}))["events"]
            refused = await gm.request({"type": "ask", "id": "a", "op": "open",
                                        "to": ["Aengus"], "ruleset": "oweens",
                                        "params": {"difficulty": 2}, "label": "Esquiver"})
            assert refused["type"] == "error" and refused["code"] == "invalid_params"
            assert refused["details"]["param"] == "characteristic"
            assert "Caractéristique" in refused["message"], refused
            # Nothing journaled, nothing told to the seat.
            after = (await gm.request({"type": "history", "id": "h1"}))["events"]
            assert after == before
            assert [m for m in await lea.unseen() if m["type"] == "ask"] == []
            # An opposed side left without its characteristic is refused alike.
            opposed = await gm.request({"type": "ask", "id": "b", "op": "open",
                                        "to": ["Aengus", "Brig"], "ruleset": "oweens",
                                        "opposed": True, "params": {"difficulty": 2},
                                        "each": {"Aengus": {"characteristic": "FLA"},
                                                 "Brig": {"dice": 3}}})
            assert opposed["type"] == "ask", opposed
            opposed = await gm.request({"type": "ask", "id": "c", "op": "open",
                                        "to": ["Aengus", "Brig"], "ruleset": "oweens",
                                        "opposed": True, "params": {"difficulty": 2},
                                        "each": {"Brig": {"characteristic": "PEP"}}})
            assert opposed["code"] == "invalid_params", opposed
            assert opposed["details"]["param"] == "characteristic"
            # Which side lacks it: in the details and in the words.
            assert opposed["details"]["to"] == "Aengus"
            assert opposed["message"].startswith("« Aengus » : "), opposed
            await gm.request({"type": "ask", "id": "x", "op": "cancel",
                              "ask": (await gm.request({"type": "ask", "id": "l",
                                                        "op": "list"}))["asks"][0]["ask"]})
            # A good ask still opens, and its answer rolls.
            ask = await gm.request({"type": "ask", "id": "d", "op": "open",
                                    "to": ["Aengus"], "ruleset": "oweens",
                                    "params": {"difficulty": 2, "characteristic": "FLA"}})
            assert ask["type"] == "ask", ask
            answer = await lea.roll("oweens", {}, answers=ask["ask"])
            assert answer["type"] == "outcome" and answer["character"] == "Aengus", answer
    run(scenario())
    # Checking an ask is no failure of its ruleset (none logged, none counted).
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_a_seat_side_is_refused_only_when_no_answer_of_that_seat_could_roll():
    async def scenario():
        async with running_server() as server:
            gm, lea = await _table(server)
            # Léa may answer as Aengus (her character): the sheet supplies the dice.
            ask = await gm.request({"type": "ask", "id": "a", "op": "open", "to": ["Léa"],
                                    "ruleset": "oweens",
                                    "params": {"difficulty": 2, "characteristic": "PEP"}})
            assert ask["type"] == "ask", ask
            # Neither dice nor a characteristic: no answer of hers could roll.
            refused = await gm.request({"type": "ask", "id": "b", "op": "open",
                                        "to": ["Léa"], "ruleset": "oweens",
                                        "params": {"difficulty": 2}})
            assert refused["code"] == "invalid_params", refused
            assert refused["details"]["param"] == "characteristic"
    run(scenario())


def test_a_seat_side_only_one_character_could_answer_becomes_that_character():
    """Issue 29 (replay 2): an O'Ween's ask to a seat was accepted because its character
    could answer, but the seat's answer was a plain roll (« paramètre « Dés » : est
    obligatoire »). The side becomes that character at open; two such characters make
    the GM name one."""
    async def scenario():
        async with running_server() as server:
            gm, lea = await _table(server)
            ask = await gm.request({"type": "ask", "id": "a", "op": "open", "to": ["Léa"],
                                    "ruleset": "oweens", "label": "Regarder",
                                    "params": {"difficulty": 2, "characteristic": "ECL"}})
            assert ask["type"] == "ask", ask
            assert ask["to"] == [{"seat": "Léa", "character": "Aengus"}], ask
            answer = await lea.roll("oweens", {}, answers=ask["ask"])
            assert answer["type"] == "outcome", answer
            assert answer["character"] == "Aengus", answer
            # Params any roll of hers takes (its own dice): the side stays the seat.
            plain = await gm.request({"type": "ask", "id": "b", "op": "open", "to": ["Léa"],
                                      "ruleset": "oweens",
                                      "params": {"difficulty": 2, "dice": 3}})
            assert plain["to"] == [{"seat": "Léa", "character": None}], plain
            # Two characters of hers could answer: the GM names one.
            reply = await gm.request({"type": "sheet", "id": "c", "op": "set",
                                      "character": "Brann", "ruleset": "oweens",
                                      "owner": "Léa",
                                      "values": {"pep": 2, "ecl": 2, "enc": 2, "fla": 2}})
            assert reply["type"] == "sheet", reply
            refused = await gm.request({"type": "ask", "id": "d", "op": "open",
                                        "to": ["Léa"], "ruleset": "oweens",
                                        "params": {"difficulty": 2, "characteristic": "ECL"}})
            assert refused["code"] == "invalid_params", refused
            assert refused["message"].startswith(
                "Léa joue Aengus et Brann : nommez le personnage qui doit lancer"), refused
            assert refused["details"]["characters"] == ["Aengus", "Brann"], refused
            assert refused["details"]["to"] == "Léa", refused
    run(scenario())
