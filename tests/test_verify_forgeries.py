"""Forged exports of a provable table: every verifier rejects them, naming the roll and the
field, and still accepts the genuine export.

A real ``sidecar serve --dice provable`` process plays a table over real sockets (seats, a
character that spends, an extension that changes params, one with table state, a GM's
physical dice, a decision on an open roll, an opposed ask); ``sidecar export`` writes its
journal; each forgery edits that export as a server operator could, and ``sidecar verify``
and the standalone ``examples/verify_dice.py`` each read it.
"""

from __future__ import annotations

import copy
import json
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sidecar.dice.provable import faces_of, leaf_key
from tests.helpers import Peer, run
from tests.support.serve import ServeProcess

ROOT = Path(__file__).resolve().parent.parent
STANDALONE = ROOT / "examples" / "verify_dice.py"

Events = list[dict[str, Any]]


async def _play(server: ServeProcess) -> dict[str, Any]:
    """What a table does in an evening; returns the outcomes each forgery aims at."""
    gm = await Peer.open(server)  # type: ignore[arg-type]  # (it has the .url Peer needs)
    await gm.join(name="MJ", role="gm", client_seed="mj-seed")
    tokens = {}
    for name in ("Lea", "Bruno"):
        seat = await gm.request({"type": "seat", "id": f"s-{name}", "op": "add",
                                 "name": name})
        tokens[name] = seat["token"]
    lea, bruno = await Peer.open(server), await Peer.open(server)  # type: ignore[arg-type]
    await lea.join(name="Lea", token=tokens["Lea"], client_seed="lea-seed")
    await bruno.join(name="Bruno", token=tokens["Bruno"], client_seed="bruno-seed")
    sheet = await gm.request({"type": "sheet", "id": "c1", "op": "set", "character": "Vlad",
                              "ruleset": "bloodlust", "owner": "Lea",
                              "values": {"groupements": {"Tir": 4}, "volonte": 3}})
    assert sheet["type"] == "sheet", sheet
    seen: dict[str, Any] = {}
    # Lea's character spends a willpower point (the sheet changes with the roll).
    seen["spends"] = await lea.roll("bloodlust", {"skill": "Tir", "willpower": True},
                                    character="Vlad")
    seen["plain"] = await lea.roll("bloodlust", {"pool": 6, "difficulty": 7})
    seen["secret"] = await lea.roll("bloodlust", {"pool": 5}, mode="gm")
    # An extension with table state (the session's blank botch), then a new session.
    seen["blank"] = await gm.roll("bloodlust", {"pool": 4}, options={"blank_botch": {}})
    await gm.request({"type": "session", "id": "session", "op": "start"})
    # An extension that changes the params before the dice (the opponent's Peps).
    # (No difficulty typed: a GM's typed one would win over the opponent's Peps.)
    seen["combat"] = await gm.roll("oweens", {"dice": 3},
                                   options={"combat": {"attack": "melee",
                                                       "opponent_pep": 3}})
    # The GM's physical dice open a ladder roll (a failed pair); the decision's new pair
    # comes from the server's dice, proven.
    seen["manual"] = await gm.roll("ladder", {"level": 3, "difficulty": "Difficile"},
                                   dice=[1, 1])
    assert seen["manual"]["open"] is True, seen["manual"]
    seen["decided"] = await gm.request({"type": "react", "id": "d1",
                                        "roll": seen["manual"]["roll"], "choice": "reroll"})
    assert seen["decided"]["type"] == "outcome", seen["decided"]
    ask = await gm.request({"type": "ask", "id": "a1", "op": "open", "to": ["Lea", "Bruno"],
                            "ruleset": "bloodlust", "params": {"pool": 4},
                            "label": "Bras de fer", "mode": "gm", "opposed": True})
    seen["answer"] = await lea.roll("bloodlust", {}, answers=ask["ask"])
    seen["other_answer"] = await bruno.roll("bloodlust", {}, answers=ask["ask"])
    # A PC against the GM's NPC: its side is answered by the GM, as the NPC.
    await gm.request({"type": "sheet", "id": "c-garde", "op": "set", "character": "Garde",
                      "ruleset": "bloodlust", "values": {"volonte": 2}})
    ask = await gm.request({"type": "ask", "id": "a2", "op": "open", "to": ["Lea", "Garde"],
                            "ruleset": "bloodlust", "params": {"pool": 4},
                            "label": "Se faufiler", "opposed": True})
    # (The GM's first: a player's roll stays the epoch's last proven one.)
    seen["npc_answer"] = await gm.roll("bloodlust", {}, answers=ask["ask"], character="Garde")
    seen["pc_answer"] = await lea.roll("bloodlust", {}, answers=ask["ask"])
    assert "winner_character" in seen["pc_answer"]["opposition"], seen["pc_answer"]
    for outcome in seen.values():
        assert outcome["type"] == "outcome", outcome
    # An initiative (its order is the ruleset's; a claim spends a bonbonus).
    for name, owner, values in (("Gaspard", "Bruno", {"pep": 3, "bonbonus": 2}),
                                ("Ortie", None, {"pep": 4})):
        await gm.request({"type": "sheet", "id": f"c-{name}", "op": "set", "character": name,
                          "ruleset": "oweens", "owner": owner, "values": values})
    seen["initiative"] = await gm.request({
        "type": "initiative", "id": "i1",
        "characters": [{"character": "Gaspard", "claim": True}, "Ortie"]})
    assert seen["initiative"]["type"] == "initiative", seen["initiative"]
    reveal = await gm.request({"type": "epoch", "op": "end", "id": "end"})
    assert reveal["op"] == "reveal", reveal
    for peer in (gm, lea, bruno):
        await peer.close()
    return seen


def _export(db: Path, out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "sidecar", "export", "--table", "t", "--db",
                    str(db), "--output", str(out)], check=True, capture_output=True,
                   timeout=60)
    return out


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("forgeries")
    db = tmp / "journal.db"
    server = ServeProcess("--db", str(db), "--dice", "provable", "--rate-limit", "0")
    try:
        seen = run(_play(server))
    finally:
        assert server.stop(signal.SIGTERM) == 0
    seen["export"] = _export(db, tmp / "export.jsonl")
    seen["events"] = [json.loads(line) for line in seen["export"].read_text().splitlines()]
    return seen


def _verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sidecar", "verify", "--locale", "en",
                           str(path)],
                          capture_output=True, text=True, timeout=120)


def _standalone(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(STANDALONE), str(path)],
                          capture_output=True, text=True, timeout=120)


def _event(events: Events, outcome: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in events if e.get("seq") == outcome["seq"])


def _seed(events: Events) -> bytes:
    reveal = next(e for e in events if e["type"] == "epoch" and e["op"] == "reveal")
    return bytes.fromhex(reveal["seed"])


# -- the forgeries: each edits the export, and says which roll and which fields a verifier
#    must name (any one of them) -----------------------------------------------------------

Forgery = Callable[[Events, dict[str, Any]], tuple[dict[str, Any], tuple[str, ...]]]


def proof_removed_all_tens(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    roll = _event(events, seen["plain"])
    del roll["proof"]
    for die in roll["dice"]:
        die["face"] = 10
    roll["result"].update(success=True, kind="critical", margin=6)
    return roll, ("proof",)


def character_added_success_flipped(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    roll = _event(events, seen["plain"])
    roll["character"] = "Vlad"
    roll["result"]["success"] = not roll["result"]["success"]
    return roll, ("character", "spent", "sheet", "result.success")


def applied_added_result_flipped(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    roll = _event(events, seen["blank"])
    roll["applied"] = ["blank_botch"]
    roll["result"]["success"] = not roll["result"]["success"]
    return roll, ("applied", "result.success", "result.kind")


def manual_by_a_player(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    roll = _event(events, seen["plain"])
    roll["proof"] = {"manual": True, "by": dict(roll["by"])}
    return roll, ("proof",)


def extra_die_appended(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    roll = _event(events, seen["plain"])
    roll["dice"].append({"sides": 10, "face": 10})
    return roll, ("dice",)


def extra_die_appended_and_proven(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    # With the revealed seed a forger derives a true seventh die for the roll's position:
    # the faces check, but the ruleset draws six.
    roll = _event(events, seen["plain"])
    proof = roll["proof"]
    proof["sides"].append(10)
    faces = faces_of(leaf_key(_seed(events), proof["position"]), proof["client"],
                     proof["position"], proof["sides"])
    roll["dice"].append({"sides": 10, "face": faces[-1]})
    return roll, ("dice", "proof.sides")


def dice_reordered(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    roll = _event(events, seen["plain"])
    dice = roll["dice"]
    i = next(i for i in range(1, len(dice)) if dice[i]["face"] != dice[0]["face"])
    dice[0], dice[i] = dice[i], dice[0]
    return roll, ("dice",)


def seq_changed(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    # The roll and the line before it trade seqs (the lines stay where they are).
    index = next(i for i, e in enumerate(events) if e.get("seq") == seen["plain"]["seq"])
    roll, before = events[index], events[index - 1]
    roll["seq"], before["seq"] = before["seq"], roll["seq"]
    return roll, ("seq", "proof.position")


def params_changed(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    roll = _event(events, seen["plain"])
    roll["params"]["difficulty"] = 3 if roll["params"]["difficulty"] != 3 else 9
    return roll, ("result", "dice", "text")


def result_flipped_consistently(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    roll = _event(events, seen["plain"])
    result = roll["result"]
    if result["success"]:
        result.update(success=False, kind="failure", margin=-1,
                      label={"fr": "Échec", "en": "Failure"})
    else:
        result.update(success=True, kind="success", margin=1,
                      label={"fr": "Réussite", "en": "Success"})
    return roll, ("result",)


def spent_nothing(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    roll = _event(events, seen["spends"])
    roll["spent"] = {}
    return roll, ("spent", "sheet")


def character_of_another_seat(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    roll = _event(events, seen["spends"])
    roll["by"] = {**roll["by"], "name": "Bruno"}
    return roll, ("by", "character")


def decision_choice_changed(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    roll = _event(events, seen["decided"])
    roll["choice"] = "sacrifice"
    return roll, ("choice", "result")


def answer_mode_changed(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    roll = _event(events, seen["answer"])
    roll["mode"] = "public"
    return roll, ("mode",)


def extension_params_undone(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    # The difficulty the combat option set (the opponent's Peps) put back as asked.
    roll = _event(events, seen["combat"])
    roll["params"]["difficulty"] = roll["asked_params"]["difficulty"]
    return roll, ("params",)


def initiative_reordered(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    event = _event(events, seen["initiative"])
    event["order"].reverse()
    return event, ("order",)


def settings_removed(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    # Whether players could enter dice is the server's word in the export: a manual roll
    # by a player on an epoch that does not say so is not accepted (nor called forged:
    # journals written before epochs carried their settings have none).
    # (Such a journal has no nonce either: its seeds were not derived from settings.)
    for event in events:
        if event["type"] == "epoch":
            event.pop("nonce", None)
            for key in ("epoch", "next"):
                if event.get(key):
                    event[key].pop("settings", None)
    # (The epoch's last proven roll: taking any other's proof away leaves its position
    # missing, a forgery of its own.)
    roll = [e for e in events if e["type"] == "outcome" and "position" in e.get("proof", {})
            and e["by"]["role"] == "player"][-1]
    roll["proof"] = {"manual": True, "by": dict(roll["by"])}
    return roll, ("proof",)


def proof_taken_away(events: Events, seen: dict[str, Any]) -> tuple[Any, ...]:
    # A GM may enter dice by hand: the GM's proven roll passed off as entered by hand
    # leaves its position missing (the next roll's is named).
    roll = _event(events, seen["blank"])
    roll["proof"] = {"manual": True, "by": dict(roll["by"])}
    after = next(e for e in events if e["type"] == "outcome" and e["seq"] > roll["seq"]
                 and "position" in e.get("proof", {}))
    return after, ("proof.position",)


#: Forgeries both verifiers reject.
BOTH = [proof_removed_all_tens, character_added_success_flipped,
        applied_added_result_flipped, manual_by_a_player, extra_die_appended,
        dice_reordered, seq_changed, spent_nothing,
        character_of_another_seat, decision_choice_changed, answer_mode_changed,
        proof_taken_away]
#: Forgeries that only a re-run of the ruleset can see (the standalone verifier has no
#: rulesets: it says plainly that it did not recompute results).
RERUN_ONLY = [params_changed, result_flipped_consistently, extension_params_undone,
              extra_die_appended_and_proven, initiative_reordered]


def _forge(table: dict[str, Any], tmp_path: Path, forgery: Forgery
           ) -> tuple[Path, dict[str, Any], tuple[str, ...]]:
    events = copy.deepcopy(table["events"])
    roll, fields = forgery(events, table)
    path = tmp_path / f"{forgery.__name__}.jsonl"
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events))
    return path, roll, fields


def _names_roll_and_field(output: str, roll: dict[str, Any],
                          fields: tuple[str, ...]) -> bool:
    line = next((line for line in output.splitlines() if line.startswith("FAILED")), "")
    return (f"seq {roll['seq']}:" in line
            and ("roll" not in roll or f"roll {roll['roll']}" in line)
            and any(f"field {field}" in line for field in fields))


def test_the_genuine_export_verifies_whole(table: dict[str, Any]) -> None:
    done = _verify(table["export"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "NOT CHECKED" not in done.stdout
    rolls = sum(1 for e in table["events"] if e["type"] == "outcome")
    assert f"{rolls} re-run" in done.stdout, done.stdout
    assert any(e["type"] == "initiative" for e in table["events"])
    standalone = _standalone(table["export"])
    assert standalone.returncode == 0, standalone.stdout + standalone.stderr
    # What it cannot check, it says.
    assert "not recomputed" in standalone.stdout, standalone.stdout


def test_the_export_carries_the_servers_settings(table: dict[str, Any]) -> None:
    start = next(e for e in table["events"] if e["type"] == "epoch" and e["op"] == "start")
    settings = start["epoch"]["settings"]
    assert settings["player_dice"] is False
    assert {"bloodlust", "blank_botch", "combat"} <= set(settings["plugins"])
    combat = _event(table["events"], table["combat"])
    assert combat["asked_params"]["difficulty"] == 0 and combat["params"]["difficulty"] == 3


@pytest.mark.parametrize("forgery", BOTH, ids=[f.__name__ for f in BOTH])
def test_both_verifiers_reject_the_forgery(table: dict[str, Any], tmp_path: Path,
                                           forgery: Forgery) -> None:
    path, roll, fields = _forge(table, tmp_path, forgery)
    done = _verify(path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert _names_roll_and_field(done.stdout, roll, fields), done.stdout
    standalone = _standalone(path)
    assert standalone.returncode == 1, standalone.stdout + standalone.stderr
    assert _names_roll_and_field(standalone.stdout, roll, fields), standalone.stdout


@pytest.mark.parametrize("forgery", RERUN_ONLY, ids=[f.__name__ for f in RERUN_ONLY])
def test_the_rerun_rejects_what_only_the_ruleset_knows(table: dict[str, Any],
                                                       tmp_path: Path,
                                                       forgery: Forgery) -> None:
    path, roll, fields = _forge(table, tmp_path, forgery)
    done = _verify(path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert _names_roll_and_field(done.stdout, roll, fields), done.stdout
    # The standalone verifier never claims what it did not check.
    standalone = _standalone(path)
    assert standalone.returncode in (0, 1), standalone.stdout + standalone.stderr
    if standalone.returncode == 0:
        assert "not recomputed" in standalone.stdout, standalone.stdout
    else:
        assert _names_roll_and_field(standalone.stdout, roll, fields), standalone.stdout


def test_a_players_dice_under_an_epoch_without_settings_are_not_accepted(
        table: dict[str, Any], tmp_path: Path) -> None:
    path, roll, fields = _forge(table, tmp_path, settings_removed)
    for done in (_verify(path), _standalone(path)):
        assert done.returncode == 4, done.stdout + done.stderr
        line = next(line for line in done.stdout.splitlines() if f"seq {roll['seq']}:" in line)
        assert f"roll {roll['roll']}" in line and "field proof" in line, done.stdout
        assert "NOT CHECKED" in done.stdout


def test_a_restart_with_other_settings_ends_the_epoch_and_a_players_dice_then_verify(
        tmp_path: Path) -> None:
    """An epoch's rolls are all made under its own settings: a server restarted with
    `--allow-player-dice` ends the epoch it finds (kept by `--keep-epochs`) before its
    first welcome; a player's physical dice in the next one are legitimate."""
    db = tmp_path / "journal.db"

    async def join_and_roll(server: ServeProcess, **roll: Any) -> tuple[Any, Any]:
        player = await Peer.open(server)  # type: ignore[arg-type]
        welcome = await player.join(name="Aengus", client_seed="aengus-seed")
        outcome = await player.roll("bloodlust", {"pool": 3}, **roll)
        await player.close()
        return welcome, outcome

    first = ServeProcess("--db", str(db), "--dice", "provable", "--keep-epochs")
    try:
        before, _ = run(join_and_roll(first))
    finally:
        assert first.stop(signal.SIGTERM) == 0
    second = ServeProcess("--db", str(db), "--dice", "provable", "--allow-player-dice")
    try:
        after, by_hand = run(join_and_roll(second, dice=[10, 9, 1]))
    finally:
        assert second.stop(signal.SIGTERM) == 0
    assert before["epoch"]["number"] == 1
    assert before["epoch"]["settings"]["player_dice"] is False
    assert after["epoch"]["number"] == 2 and after["epoch"]["settings"]["player_dice"] is True
    assert by_hand["proof"] == {"manual": True, "by": {"name": "Aengus", "role": "player"}}
    export = _export(db, tmp_path / "export.jsonl")
    events = [json.loads(line) for line in export.read_text().splitlines()]
    reveal = next(e for e in events if e["type"] == "epoch" and e["op"] == "reveal")
    assert reveal["epoch"]["number"] == 1 and reveal["next"]["settings"]["player_dice"]
    done = _verify(export)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 roll checked (epoch 1), 2 re-run by their ruleset, 1 manual" in done.stdout
    standalone = _standalone(export)
    assert standalone.returncode == 0, standalone.stdout + standalone.stderr
    # The same dice, had the first server (no player dice) been the one: refused — the
    # epoch's seed derives from the settings it announced, which were changed.
    by_hand_event = next(e for e in events if e.get("seq") == by_hand["seq"])
    by_hand_event["proof"]["by"] = {"name": "Aengus", "role": "player"}
    for event in events:
        for key in ("epoch", "next"):
            if event["type"] == "epoch" and event.get(key) and event[key]["number"] == 2:
                event[key]["settings"]["player_dice"] = False
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(json.dumps(e) + "\n" for e in events))
    last = next(e for e in events if e["type"] == "epoch" and e["op"] == "reveal"
                and e["epoch"]["number"] == 2)
    for done in (_verify(forged), _standalone(forged)):
        assert done.returncode == 1, done.stdout + done.stderr
        assert f"FAILED: seq {last['seq']}: field settings" in done.stdout, done.stdout
    # Without the second reveal (no seed to check the settings against), the roll itself.
    unrevealed = tmp_path / "unrevealed.jsonl"
    unrevealed.write_text("".join(json.dumps(e) + "\n" for e in events if e is not last))
    for done in (_verify(unrevealed), _standalone(unrevealed)):
        assert done.returncode == 1, done.stdout + done.stderr
        assert _names_roll_and_field(done.stdout, by_hand_event, ("proof",)), done.stdout


def test_an_older_journals_opposition_without_its_sides_labels_verifies(
        table: dict[str, Any], tmp_path: Path) -> None:
    """Sides carry their result's ``label`` since issue 29 (replay 2); a journal written
    before holds the same judgement without them, and still verifies."""
    events = copy.deepcopy(table["events"])
    judged = [e["opposition"] for e in events if isinstance(e.get("opposition"), dict)]
    assert judged and all("label" in side for o in judged for side in o["sides"])
    for opposition in judged:
        for side in opposition["sides"]:
            del side["label"]
        # (Older still: before a GM's NPC could answer, no winner's character.)
        del opposition["winner_character"]
    path = tmp_path / "older.jsonl"
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events))
    done = _verify(path)
    assert done.returncode == 0, done.stdout + done.stderr
