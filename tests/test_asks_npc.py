"""An ask may name a GM's NPC (issue 29 follow-up): the evening's most common opposed
roll is a PC against an NPC (seed 003's « jet en opposition »: sneaking against the
guard's perception). A character no seat plays is a side a GM answers, as that
character; a player cannot; ``answered`` keys it by the character's name; the
opposition names its winner by ``winner_character`` (``winner``, a seat, stays null when
the NPC wins)."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
from pathlib import Path

from sidecar.client import SidecarClient
from tests.helpers import GM_TOKEN, Peer, run, running_server, seated_peer
from tests.support.serve import ROOT, ServeProcess, seat_token, sidecar


async def _duel_table(server):
    """A GM, Léa's seat playing Strengal (3D+5), Tom's seat playing nobody, and the GM's
    NPC Krull (4D+1), owned by no seat."""
    gm = await Peer.open(server)
    await gm.join("t", "MJ", "gm")
    peers = {}
    for name in ("Léa", "Tom"):
        peers[name] = await seated_peer(server, gm, name)
    for character, owner, code in (("Strengal", "Léa", "3D+5"), ("Krull", None, "4D+1")):
        sheet = {"type": "sheet", "id": f"c-{character}", "op": "set",
                 "character": character, "ruleset": "d6code",
                 "values": {"competences": {"CORPS À CORPS": code}}}
        if owner:
            sheet["owner"] = owner
        reply = await gm.request(sheet)
        assert reply["type"] == "sheet", reply
    return gm, peers


DUEL = {"type": "ask", "op": "open", "to": ["Strengal", "Krull"], "ruleset": "d6code",
        "params": {"skill": "CORPS À CORPS", "difficulty": 0}, "opposed": True}


def test_an_opposed_ask_names_an_npc_whose_side_a_gm_answers():
    """Seed 003's duel, Krull the GM's NPC: Strengal 3D+5 rolls 11 → 16, Krull 4D+1 rolls
    13 → 14: Strengal wins; then Krull rolls 18 → 19 against 16: the NPC wins, which is
    neither a draw nor « nobody »."""
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, peers = await _duel_table(server)
            ask = await gm.request({**DUEL, "id": "a1"})
            assert ask["type"] == "ask", ask
            assert ask["to"] == [{"seat": "Léa", "character": "Strengal"},
                                 {"seat": None, "character": "Krull"}]
            # A player cannot answer the NPC's side (Tom is not asked; an ask naming the
            # NPC alone is nobody's at a seat).
            refused = await peers["Tom"].roll("d6code", {}, answers=ask["ask"],
                                              character="Krull")
            assert refused["code"] == "forbidden", refused
            first = await peers["Léa"].roll("d6code", {}, answers=ask["ask"], dice=[3, 4, 4])
            assert first["result"]["score"] == 16 and "opposition" not in first
            # The GM answers as the NPC; the list keys its side by the character's name.
            listed = (await gm.request({"type": "ask", "id": "l1", "op": "list"}))["asks"]
            assert list(listed[0]["answered"]) == ["Léa"]
            last = await gm.roll("d6code", {}, answers=ask["ask"], character="Krull",
                                 dice=[4, 4, 3, 2])
            assert last["type"] == "outcome", last
            assert last["character"] == "Krull" and last["result"]["score"] == 14
            opposition = last["opposition"]
            assert opposition["winner"] == "Léa"
            assert opposition["winner_character"] == "Strengal"
            assert opposition["sides"][1]["seat"] is None
            assert opposition["sides"][1]["character"] == "Krull"
            # Closed: every side answered, the NPC's included.
            assert (await gm.request({"type": "ask", "id": "l2", "op": "list"}))["asks"] == []
            # The NPC wins: winner stays a seat or null, winner_character says who.
            ask = await gm.request({**DUEL, "id": "a2"})
            await peers["Léa"].roll("d6code", {}, answers=ask["ask"], dice=[3, 4, 4])
            listed = (await gm.request({"type": "ask", "id": "l3", "op": "list"}))["asks"]
            assert list(listed[0]["answered"]) == ["Léa"]
            last = await gm.roll("d6code", {}, answers=ask["ask"], character="Krull",
                                 dice=[5, 5, 4, 4])
            assert last["opposition"]["winner"] is None
            assert last["opposition"]["winner_character"] == "Krull"
            assert last["opposition"]["draw"] is False
            # Léa's log gets the same opposition (a public ask).
            seen = await peers["Léa"].recv_type("outcome")
            while seen["seq"] != last["seq"]:
                seen = await peers["Léa"].recv_type("outcome")
            assert seen["opposition"] == last["opposition"]
    run(scenario())


def test_the_npc_side_is_the_gms_alone_and_answered_once():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, peers = await _duel_table(server)
            ask = await gm.request({"type": "ask", "id": "a", "op": "open", "to": ["Krull"],
                                    "ruleset": "d6code",
                                    "params": {"skill": "CORPS À CORPS", "difficulty": 10}})
            assert ask["to"] == [{"seat": None, "character": "Krull"}], ask
            for seat in ("Léa", "Tom"):
                refused = await peers[seat].roll("d6code", {}, answers=ask["ask"])
                assert refused["code"] == "forbidden", refused
            # The GM answers it; without naming the character, the ask's only NPC side.
            answer = await gm.roll("d6code", {}, answers=ask["ask"], dice=[1, 2, 3, 4])
            assert answer["type"] == "outcome" and answer["character"] == "Krull", answer
            assert (await gm.request({"type": "ask", "id": "l", "op": "list"}))["asks"] == []
            # Two NPC sides: each answered once, as its own character.
            await gm.request({"type": "sheet", "id": "c-g", "op": "set", "character": "Gob",
                              "ruleset": "d6code",
                              "values": {"competences": {"CORPS À CORPS": "2D"}}})
            ask = await gm.request({**DUEL, "id": "b", "to": ["Krull", "Gob", "Strengal"]})
            assert ask["type"] == "ask", ask
            vague = await gm.roll("d6code", {}, answers=ask["ask"], dice=[1, 2, 3, 4])
            assert vague["code"] == "invalid_params", vague
            assert vague["details"]["field"] == "character"
            first = await gm.roll("d6code", {}, answers=ask["ask"], character="Krull",
                                  dice=[1, 2, 3, 4])
            assert first["type"] == "outcome", first
            again = await gm.roll("d6code", {}, answers=ask["ask"], character="Krull",
                                  dice=[1, 2, 3, 4])
            assert again["code"] == "bad_message", again
            listed = (await gm.request({"type": "ask", "id": "l2", "op": "list"}))["asks"]
            assert list(listed[0]["answered"]) == ["Krull"]
            assert listed[0]["answered"]["Krull"]["seat"] is None
            # The same NPC twice in one ask is refused, as a seat asked twice is.
            twice = await gm.request({**DUEL, "id": "c", "to": ["Krull", "Krull"]})
            assert twice["code"] == "invalid_params", twice
    run(scenario())


def test_an_npc_sides_params_are_checked_at_open_as_that_character():
    """O'Ween's: an NPC's side left without its characteristic is refused at open, naming
    the side (as a seat's is: tests/test_asks_checked.py)."""
    async def scenario():
        async with running_server() as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            await gm.request({"type": "seat", "id": "s", "op": "add", "name": "Léa"})
            await gm.request({"type": "sheet", "id": "c1", "op": "set", "character": "Aengus",
                              "ruleset": "oweens", "owner": "Léa",
                              "values": {"pep": 2, "ecl": 2, "enc": 2, "fla": 2}})
            await gm.request({"type": "sheet", "id": "c2", "op": "set", "character": "Orc",
                              "ruleset": "oweens", "values": {"pep": 3}})
            refused = await gm.request({"type": "ask", "id": "a", "op": "open",
                                        "to": ["Aengus", "Orc"], "ruleset": "oweens",
                                        "opposed": True,
                                        "params": {"difficulty": 0},
                                        "each": {"Aengus": {"characteristic": "ECL"}}})
            assert refused["code"] == "invalid_params", refused
            assert refused["details"]["to"] == "Orc"
            assert refused["details"]["param"] == "characteristic"
            good = await gm.request({"type": "ask", "id": "b", "op": "open",
                                     "to": ["Aengus", "Orc"], "ruleset": "oweens",
                                     "opposed": True, "params": {"difficulty": 0},
                                     "each": {"Aengus": {"characteristic": "ECL"},
                                              "Orc": {"characteristic": "PEP"}}})
            assert good["type"] == "ask", good
            assert good["to"][1] == {"seat": None, "character": "Orc",
                                     "params": {**good["params"], "characteristic": "PEP"}}
    run(scenario())


def test_the_command_line_asks_a_pc_against_an_npc_and_the_gm_answers_as_the_npc():
    """Seed 003's duel from the command line, Krull the GM's NPC: Strengal 3D+5 rolls 11 →
    16, Krull 4D+1 rolls 18 → 19 and wins: « vainqueur : Krull », in the answer and in
    the history."""
    with ServeProcess("--db", ":memory:", "--allow-player-dice") as server:
        base = ["--url", server.url, "--table", "duel"]
        gm = [*base, "--token", GM_TOKEN, "--name", "Morgane"]
        lea = [*base, "--token", seat_token(gm, "Léa"), "--name", "Léa"]
        for character, owner in (("Strengal", ["--owner", "Léa"]), ("Krull", ["--no-owner"])):
            made = sidecar("sheet", "set", character, "--ruleset", "d6code", *owner, *gm)
            assert made.returncode == 0, made.stderr
        opened = sidecar("ask", "open", "Strengal", "Krull", "--ruleset", "d6code",
                         "difficulty=0", "--opposed", "--each", "Strengal", "code=3D+5",
                         "--each", "Krull", "code=4D+1", *gm)
        assert opened.returncode == 0, opened.stderr
        ask = re.search(r"opposition (\S+) :", opened.stdout).group(1)
        assert "Léa (Strengal) [Code de compétence 3D+5], Krull [Code de compétence 4D+1]" \
            in opened.stdout
        first = sidecar("answer", ask, "--dice", "3,4,4", *lea)
        assert first.returncode == 0, first.stderr
        listed = sidecar("ask", "list", *gm)
        assert "ont répondu : Léa (#" in listed.stdout, listed.stdout
        # Another ask open meanwhile, with no NPC side: not the one a GM answers for Krull.
        other = sidecar("ask", "open", "Strengal", "--ruleset", "d6code", "code=2D",
                       "difficulty=5", *gm)
        assert other.returncode == 0, other.stderr
        # The GM answers the NPC's side as Krull (a GM's token: the GM's role), the ask
        # found by its NPC.
        last = sidecar("answer", "--character", "Krull", "--dice", "5,5,4,4", *gm)
        assert last.returncode == 0, last.stderr
        assert "personnage : Krull" in last.stdout
        assert (f"opposition {ask} : Léa (Strengal) Réussite éclatante, marge 16 ; "
                "Krull Réussite éclatante, marge 19 — vainqueur : Krull") in last.stdout
        history = sidecar("history", "--role", "gm", *gm).stdout
        assert "vainqueur : Krull" in history
        english = sidecar("history", "--role", "gm", "--locale", "en", *gm).stdout
        assert "winner: Krull" in english


def test_the_python_client_answers_an_npcs_side_and_follows_the_ask():
    """The GM's :class:`SidecarClient` answers as the NPC (``answer(character=…)``), keeps
    the NPC's side under its name in ``asks``, and lets the ask go once every side
    answered."""
    async def scenario():
        with ServeProcess("--db", ":memory:", "--allow-player-dice") as server:
            gm = SidecarClient(server.url, table="t", name="MJ", role="gm", token=GM_TOKEN)
            await gm.connect()
            token = (await gm.add_seat("Léa"))["token"]
            lea = SidecarClient(server.url, table="t", name="Léa", token=token)
            await lea.connect()
            try:
                await gm.set_sheet("Strengal", "d6code", {}, owner="Léa")
                await gm.set_sheet("Krull", "d6code", {})
                ask = await gm.ask(["Strengal", "Krull"], "d6code", {"difficulty": 0},
                                   opposed=True, each={"Strengal": {"code": "3D+5"},
                                                       "Krull": {"code": "4D+1"}})
                npc = await gm.answer(ask["ask"], dice=[5, 5, 4, 4], character="Krull")
                assert npc["character"] == "Krull", npc
                assert list(gm.asks[ask["ask"]]["answered"]) == ["Krull"]
                assert gm.asks[ask["ask"]]["answered"]["Krull"]["seat"] is None
                last = await lea.answer(ask["ask"], dice=[3, 4, 4])
                assert last["opposition"]["winner_character"] == "Krull"
                assert last["opposition"]["winner"] is None
                async def seen() -> None:  # the GM's copy of Léa's answer
                    async for event in gm.events():
                        if event.get("seq") == last["seq"]:
                            return
                await asyncio.wait_for(seen(), 10)
                assert ask["ask"] not in gm.asks
            finally:
                await lea.close()
                await gm.close()
    run(scenario())


def test_a_secret_asks_npc_answer_follows_the_mode_and_welcome_keys_it_by_name():
    """A ``gm`` ask: the NPC's answer is the GMs' (Léa gets no copy, her list shows no
    answers); a GM joining later finds the NPC's side in ``welcome.asks`` under its
    name; the opposition reaches the GMs only."""
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm, peers = await _duel_table(server)
            ask = await gm.request({**DUEL, "id": "a", "mode": "gm"})
            assert ask["type"] == "ask", ask
            await peers["Léa"].unseen()
            npc = await gm.roll("d6code", {}, answers=ask["ask"], character="Krull",
                                dice=[5, 5, 4, 4])
            assert npc["mode"] == "gm", npc
            assert [m for m in await peers["Léa"].unseen() if m["type"] == "outcome"] == []
            listed = (await peers["Léa"].request({"type": "ask", "id": "l", "op": "list"}))
            assert listed["asks"][0]["answered"] == {}
            other = await Peer.open(server)
            welcome = await other.join("t", "MJ2", "gm")
            assert list(welcome["asks"][0]["answered"]) == ["Krull"]
            last = await peers["Léa"].roll("d6code", {}, answers=ask["ask"], dice=[3, 4, 4])
            assert "opposition" not in last
            judged = await gm.recv_type("outcome")
            while judged["seq"] != last["seq"]:
                judged = await gm.recv_type("outcome")
            assert judged["opposition"]["winner_character"] == "Krull"
    run(scenario())


async def _npc_decision(server) -> None:
    """Krull 4D+1 rolls 10 → 11 against 20 and fails: his roll stays open (a style
    point); Strengal succeeds; the ask waits for the GM's decision on the NPC's roll,
    which carries the opposition."""
    gm, peers = await _duel_table(server)
    ask = await gm.request({**DUEL, "id": "a",
                            "params": {"skill": "CORPS À CORPS", "difficulty": 20},
                            "each": {"Strengal": {"difficulty": 10}}})
    npc = await gm.roll("d6code", {}, answers=ask["ask"], character="Krull",
                        dice=[1, 2, 3, 4])
    assert npc["open"] is True, npc
    last = await peers["Léa"].roll("d6code", {}, answers=ask["ask"], dice=[3, 4, 4])
    assert last["result"]["success"] is True and "opposition" not in last
    listed = (await gm.request({"type": "ask", "id": "l", "op": "list"}))["asks"]
    assert listed[0]["answered"]["Krull"]["open"] is True
    kept = await gm.request({"type": "react", "id": "r", "roll": npc["roll"],
                             "choice": "keep"})
    assert kept["type"] == "outcome", kept
    assert kept["opposition"]["winner"] == "Léa"
    assert kept["opposition"]["winner_character"] == "Strengal"
    assert kept["opposition"]["sides"][1]["character"] == "Krull"
    assert kept["opposition"]["sides"][1]["seat"] is None
    assert (await gm.request({"type": "ask", "id": "l2", "op": "list"}))["asks"] == []
    for peer in (gm, *peers.values()):
        await peer.close()


def test_a_decision_on_the_npcs_open_answer_settles_its_side():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            await _npc_decision(server)
    run(scenario())


def test_an_export_with_npc_answers_verifies(tmp_path: Path) -> None:
    """``sidecar verify`` and examples/verify_dice.py follow an NPC's side: answered by a
    GM as the NPC, decided after its dice, judged with ``winner_character``."""
    db = tmp_path / "journal.db"
    server = ServeProcess("--db", str(db), "--dice", "provable", "--rate-limit", "0",
                          "--allow-player-dice")
    try:
        run(_npc_decision(server))
    finally:
        assert server.stop(signal.SIGTERM) == 0
    export = tmp_path / "export.jsonl"
    subprocess.run([sys.executable, "-m", "sidecar", "export", "--table", "t", "--db",
                    str(db), "--output", str(export)], check=True, capture_output=True,
                   timeout=60)
    for command in (["-m", "sidecar", "verify", "--locale", "en"],
                    [str(ROOT / "examples" / "verify_dice.py")]):
        done = subprocess.run([sys.executable, *command, str(export)], capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
