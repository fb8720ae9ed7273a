"""The ladder's « réussi, mais… » as the GM's choice after the dice (issue 12): a roll still
failed once the player's luck is decided offers the GM ``success_at_cost``,
``success_at_cost_hp`` and ``fail`` — choices marked ``gm: true`` that a player may not
take (PROTOCOL.md §7.6) — through a real server with manual dice."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import sidecar
from sidecar.client import SidecarClient
from sidecar.host.guard import choices_problem
from tests.helpers import Peer, run, running_server
from tests.support.serve import GM_TOKEN, ServeProcess, gm_options, seat_token
from tests.support.serve import sidecar as run_cli

GESTE = {"characteristic": "geste", "difficulty": 9}  # best of 2d6 (level 3) against 9


async def _table(server, **values):
    """A GM, a seat Alice and her character Ervald (ladder) with ``values``."""
    gm = await Peer.open(server)
    await gm.join("t", "MJ", "gm")
    token = (await gm.request({"type": "seat", "id": "s", "op": "add", "name": "Alice"}))["token"]
    await gm.request({"type": "sheet", "id": "c", "op": "set", "character": "Ervald",
                      "ruleset": "ladder", "owner": "Alice", "values": {
                          "caracteristiques": {"geste": 3}, **values}})
    alice = await Peer.open(server)
    await alice.join("t", "Alice", token=token)
    return gm, alice


def _names(event):
    return [c["name"] for c in event.get("choices") or ()]


def test_only_the_gm_may_grant_success_at_a_cost_paid_in_hit_points():
    """Seed: « le personnage … se heurte à une roche saillante, il perd (différentiel)
    points de vie »: score 2 against 9 is a differential of 7, a perte importante."""
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice = await _table(server, chance=1, pv=10)
            out = await alice.roll("ladder", GESTE, character="Ervald", dice=[1, 2])
            # No luck left to the player: the GM's choice at once; "fail" by default.
            assert out["open"] is True and out["default"] == "fail"
            assert _names(out) == ["success_at_cost", "success_at_cost_hp", "fail"]
            assert all(c["gm"] is True for c in out["choices"])
            assert "perte importante" in out["choices"][0]["label"]["fr"]
            assert "7 PV" in out["choices"][1]["label"]["fr"]
            refused = await alice.request({"type": "react", "id": "a", "roll": out["roll"],
                                           "choice": "success_at_cost"})
            assert refused["type"] == "error" and refused["code"] == "forbidden"
            assert refused["details"] == {"field": "choice"}
            refused = await alice.request({"type": "react", "id": "b", "roll": out["roll"],
                                           "choice": "fail"})
            assert refused["code"] == "forbidden"  # nor decline it for the GM
            decided = await gm.request({"type": "react", "id": "g", "roll": out["roll"],
                                        "choice": "success_at_cost_hp"})
            assert decided["reacts_to"] == out["seq"] and decided["reacted_by"]["role"] == "gm"
            r = decided["result"]
            assert r["success"] and r["success_at_cost"] and r["kind"] == "narrow"
            assert r["consequence"]["fr"] == "perte importante" and r["hp_lost"] == 7
            assert decided["spent"] == {"pv": 7} and decided["sheet"]["pv"] == 3
            assert "Réussi, mais… (perte importante)" in decided["text"]
            assert "open" not in decided
            seen = await alice.recv_type("outcome")  # the seat sees the GM's decision
            assert seen["seq"] == decided["seq"] and seen["sheet"]["pv"] == 3
    run(scenario())


def test_the_players_luck_comes_first_then_the_gm_decides():
    """Seed order: the player's « deux moyens pour augmenter ses chances de réussite »,
    then « Rater une action ne signifie pas pour autant que tout est perdu. En fonction de
    la situation, le MJ a plusieurs choix »."""
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice = await _table(server, chance=2, pv=10)
            out = await alice.roll("ladder", GESTE, character="Ervald", dice=[1, 2])
            assert _names(out) == ["reroll", "sacrifice", "keep"] and out["default"] == "keep"
            assert not any(c.get("gm") for c in out["choices"])
            refused = await gm.request({"type": "react", "id": "g0", "roll": out["roll"],
                                        "choice": "success_at_cost"})
            assert refused["code"] == "bad_message"  # not offered yet
            rerolled = await alice.request({"type": "react", "id": "r", "roll": out["roll"],
                                            "choice": "reroll", "dice": [3, 6]})
            # Failed again (6 against 9), no luck left (Chance 1): now the GM's choice.
            assert rerolled["spent"] == {"chance": 1}
            assert rerolled["open"] is True and rerolled["default"] == "fail"
            assert _names(rerolled) == ["success_at_cost", "success_at_cost_hp", "fail"]
            assert rerolled["choices"][0]["label"]["fr"] == "MJ : réussi, mais… (perte mineure)"
            granted = await gm.request({"type": "react", "id": "g", "roll": out["roll"],
                                        "choice": "success_at_cost"})
            assert granted["reacts_to"] == rerolled["seq"]
            r = granted["result"]
            assert r["success"] and r["success_at_cost"] and r["rerolled"]
            assert r["first_score"] == 2 and r["score"] == 6 and "hp_lost" not in r
            assert "spent" not in granted or granted["spent"] == {}
            assert granted["sheet"]["pv"] == 10
            # Keeping the failure hands the roll to the GM, who may leave it failed.
            out = await alice.roll("ladder", {**GESTE, "difficulty": 3}, character="Ervald",
                                   dice=[1, 2])
            assert _names(out) == ["success_at_cost", "fail"]  # differential 1: no HP
            failed = await gm.request({"type": "react", "id": "f", "roll": out["roll"],
                                       "choice": "fail"})
            assert not failed["result"]["success"] and "open" not in failed
    run(scenario())


def test_time_running_out_leaves_the_failure_and_the_up_front_param_still_works():
    async def scenario():
        async with running_server(allow_player_dice=True, react_timeout=0.2) as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            out = await gm.roll("ladder", {"level": 3, "difficulty": 5, "chance": 2},
                                dice=[1, 2])
            assert _names(out) == ["reroll", "sacrifice", "keep"]
            kept = await gm.recv_type("outcome")  # the player's default, in time
            assert kept["choice"] == "keep" and kept["reacted_by"] is None
            assert _names(kept) == ["success_at_cost", "fail"]  # no character: no HP
            closed = await gm.recv_type("outcome")  # the GM's default, in time
            assert closed["choice"] == "fail" and closed["reacted_by"] is None
            assert not closed["result"]["success"] and "open" not in closed
            # The same decision given before the dice: a success at once, nothing open.
            out = await gm.roll("ladder", {"level": 3, "difficulty": 5,
                                           "success_at_cost": True}, dice=[1, 2])
            assert out["result"]["success_at_cost"] and "open" not in out
    run(scenario())


def test_the_gm_choice_does_not_change_the_odds_and_gm_must_be_a_boolean():
    # The GM's decision is no die: the odds stay those of the dice, best of 2d6 ≥ 5.
    odds = sidecar.odds("ladder", {"level": 3, "difficulty": 5})
    assert abs(odds["p_success"] - (1 - (4 / 6) ** 2)) < 1e-12
    choice = {"name": "x", "label": {"fr": "x", "en": "x"}, "dice": 0}
    assert choices_problem([{**choice, "gm": True}], None) is None
    assert choices_problem([{**choice, "gm": "yes"}], None) \
        == "choice 'x': gm must be true or false"


def test_the_gm_choice_survives_a_restart_still_the_gms_alone(tmp_path):
    db = str(tmp_path / "j.db")

    async def scenario():
        async with running_server(allow_player_dice=True, db=db, react_timeout=3600) as server:
            gm, alice = await _table(server, chance=1, pv=10)
            out = await alice.roll("ladder", GESTE, character="Ervald", dice=[2, 4])
            assert out["default"] == "fail"
            rotated = await gm.request({"type": "seat", "id": "k", "op": "rotate",
                                        "name": "Alice"})
        async with running_server(allow_player_dice=True, db=db, react_timeout=3600) as server:
            alice = await Peer.open(server)
            await alice.join("t", "Alice", token=rotated["token"])
            refused = await alice.request({"type": "react", "id": "a", "roll": out["roll"],
                                           "choice": "success_at_cost_hp"})
            assert refused["code"] == "forbidden"
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            decided = await gm.request({"type": "react", "id": "g", "roll": out["roll"],
                                        "choice": "success_at_cost_hp"})
            # Score 4 against 9: differential 5, a perte importante of 5 HP.
            assert decided["spent"] == {"pv": 5} and decided["sheet"]["pv"] == 5
    run(scenario())



def test_the_python_client_offers_a_player_only_the_choices_a_player_may_take():
    """``may_decide``/``choices_for`` (and so ``sidecar roll``'s prompt) leave a GM's choice
    to the GMs: a failed roll whose luck is settled waits for the GM, not for its roller."""
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice = await _table(server, chance=1, pv=10)
            out = await alice.roll("ladder", GESTE, character="Ervald", dice=[1, 2])
            assert out["open"] is True and all(c.get("gm") for c in out["choices"])
            clients = {}
            for role, name in (("gm", "MJ"), ("player", "Alice")):
                client = SidecarClient(server.url, table="t", name=name, role=role)
                client.hello = {"role": role, "name": name}
                clients[role] = client
            assert clients["gm"].may_decide(out)
            assert [c["name"] for c in clients["gm"].choices_for(out)] == _names(out)
            assert clients["player"].choices_for(out) == []
            assert not clients["player"].may_decide(out)
            mixed = {**out, "choices": [*out["choices"], {"name": "keep", "dice": 0}]}
            assert [c["name"] for c in clients["player"].choices_for(mixed)] == ["keep"]
            assert clients["player"].may_decide(mixed)
    run(scenario())


def test_an_open_roll_reloaded_after_quick_restarts_takes_its_default_on_time(tmp_path):
    """Issue 29 (a newcomer's evening): a roll left open across two quick ``sidecar serve``
    restarts (verifiable dice, serve's default) timed out and was closed as it stood, « Le
    choix par défaut « fail » n'a pas pu être pris »: the stop reveals the table's epoch,
    the next one starts at a welcome, and the default's time ran out before anyone joined.
    It is taken as docs/SOIREE.md §4 says, by its own process, with no member there."""
    db = tmp_path / "j.db"
    options = ("--db", str(db), "--allow-player-dice")

    async def roll(server):
        _gm, alice = await _table(server, chance=1, pv=10)
        # Best of 2d6 never reaches 9: failed whatever the dice, the GM's choice open.
        return await alice.roll("ladder", GESTE, character="Ervald")

    async def decided(server, out):
        gm = await Peer.open(server)
        await gm.join("t", "MJ", "gm")
        while True:  # (the default is taken as the server starts: wait for its event)
            page = await gm.request({"type": "history", "id": "h", "after": out["seq"]})
            taken = [e for e in page["events"] if e.get("reacts_to") == out["seq"]]
            if taken:
                return taken[0]
            await asyncio.sleep(0.05)

    with ServeProcess(*options, dice="provable") as server:
        out = run(roll(server))
        assert out["open"] is True and out["default"] == "fail"
        assert server.stop() == 0
    with ServeProcess(*options, dice="provable") as server:  # a quick restart, no one joins
        assert server.stop() == 0
    with sqlite3.connect(db) as journal:  # (its time ran out while no server was up)
        body = json.loads(journal.execute(
            "SELECT body FROM records WHERE kind = 'open'").fetchone()[0])
        journal.execute("UPDATE records SET body = ? WHERE kind = 'open'",
                        (json.dumps({**body, "expires": 0}),))
    with ServeProcess(*options, "--log-level", "info", dice="provable") as server:
        event = run(decided(server, out))
        assert server.stop() == 0
    logged = "".join(server.errors)
    assert "its default" not in logged and "Traceback" not in logged, logged
    assert event["choice"] == "fail" and event["reacted_by"] is None, event
    assert "clos tel quel" not in event["text"] and event["notes"] == out["notes"]


def test_a_roll_waiting_for_the_gms_choice_tells_the_player_so():
    """Issue 29: once only the GM's « réussi, mais… » is left on her open roll, the
    refusal of her next roll as the character says it waits for the GM's decision — not
    « décidez-le d'abord », which her ``react`` would refuse."""
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, alice = await _table(server, chance=1, pv=10)
            out = await alice.roll("ladder", GESTE, character="Ervald", dice=[1, 2])
            assert out["open"] is True and all(c["gm"] for c in out["choices"]), out
            waiting = await alice.roll("ladder", GESTE, character="Ervald")
            assert waiting["code"] == "invalid_params", waiting
            assert waiting["message"] == (
                f"« Ervald » a déjà un jet ouvert (n°{out['seq']}) : il attend la décision "
                "du MJ"), waiting
            assert waiting["details"]["open"] == out["seq"]
            # The GM, who may take those choices, is told to decide it.
            mine = await gm.roll("ladder", GESTE, character="Ervald")
            assert mine["message"].endswith("décidez-le d'abord"), mine
    run(scenario())


def test_the_cli_tells_the_player_her_roll_waits_for_the_gm():
    """Issue 29 as found, with real `sidecar` processes: Zoé's roll as Ines failed with no
    luck left; her next one is refused saying it waits for the GM — as her ``react`` is."""
    with ServeProcess("--db", ":memory:", "--allow-player-dice") as server:
        gm = gm_options(server, "soir")
        zoe = ["--url", server.url, "--table", "soir", "--token", seat_token(gm, "Zoé"),
               "--name", "Zoé"]
        made = run_cli("sheet", "set", "Ines", "--ruleset", "ladder", "--owner", "Zoé",
                       "chance=1", "pv=10", *gm)
        assert made.returncode == 0, made.stderr
        first = run_cli("roll", "ladder", "characteristic=chance", "difficulty=9",
                        "--character", "Ines", "--dice", "1,1", "--no-ask", *zoe)
        assert first.returncode == 0, first.stderr
        assert "MJ : l'action est ratée" in first.stdout, first.stdout
        again = run_cli("roll", "ladder", "characteristic=chance", "difficulty=5",
                        "--character", "Ines", *zoe)
        assert again.returncode != 0, again.stdout
        assert "a déjà un jet ouvert" in again.stderr, again.stderr
        assert ") : il attend la décision du MJ [invalid_params]" in again.stderr, again.stderr
        assert "décidez-le" not in again.stderr and GM_TOKEN not in again.stderr
