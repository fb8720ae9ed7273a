"""Forgeries the re-attack found after the first round (issue 25, item 5): each is
rejected by ``sidecar verify`` and ``examples/verify_dice.py``, and the genuine files
still verify.

A real ``sidecar serve --dice provable --plugins-dir`` process plays a table over real
sockets — a third-party ruleset whose failed push spends more than the sheet holds, a
player's blind roll decided by the GM, a player whose every frame is kept as her saved
log — then ``sidecar export`` writes its journal. Each forgery edits the export (or the
player's log) as the holder of the revealed seed could.
"""

from __future__ import annotations

import copy
import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sidecar.dice.provable import faces_of, leaf_key
from sidecar.rulesets import bloodlust
from sidecar.testing import resolve
from tests.helpers import Peer, run
from tests.support.serve import ServeProcess

ROOT = Path(__file__).resolve().parent.parent
STANDALONE = ROOT / "examples" / "verify_dice.py"

#: A third-party ruleset that declares no ``sidecar_max_spend``: a failed push costs 3
#: luck, decided after the die (the host takes it only as far as the sheet holds).
LUCKGAME = '''
from sidecar import hookimpl

__version__ = "0.3"


@hookimpl
def sidecar_rulesets():
    return [{"name": "luckgame", "title": {"fr": "Chance", "en": "Luck"}, "version": "0.3",
             "params": {"target": {"type": "int", "min": 1, "max": 6, "default": 4},
                        "push": {"type": "bool", "default": False}}}]


@hookimpl
def sidecar_sheet(ruleset):
    if ruleset != "luckgame":
        return None
    return {"luck": {"type": "int", "min": 0, "max": 5, "default": 1, "resource": True}}


@hookimpl
def sidecar_resolve(roll, dice):
    face = dice.roll(6)
    ok = face >= roll.params["target"]
    spend = {"luck": 3} if roll.params["push"] and not ok else {}
    return {"result": {"success": ok, "margin": face - roll.params["target"],
                       "kind": "success" if ok else "failure",
                       "label": {"fr": "ok" if ok else "raté", "en": "ok" if ok else "failed"}},
            "spend": spend}
'''

Events = list[dict[str, Any]]


async def _play(server: ServeProcess) -> dict[str, Any]:
    gm = await Peer.open(server)  # type: ignore[arg-type]  # (it has the .url Peer needs)
    await gm.join(name="MJ", role="gm", client_seed="mj-seed")
    seat = await gm.request({"type": "seat", "id": "s-lea", "op": "add", "name": "Lea"})
    lea = await Peer.open(server)  # type: ignore[arg-type]
    seen: dict[str, Any] = {}
    seen["welcome"] = await lea.join(name="Lea", token=seat["token"], client_seed="lea-seed")
    await gm.request({"type": "sheet", "id": "c1", "op": "set", "character": "Vlad",
                      "ruleset": "bloodlust", "owner": "Lea",
                      "values": {"groupements": {"Tir": 4}, "volonte": 3}})
    # A session and two turns: what an event put in a roll's place must fit.
    for rid, request in (("se", {"op": "start"}), ("t1", None), ("t2", None)):
        reply = await gm.request(
            {"type": "session", "id": rid, **request} if request else
            {"type": "sheet", "id": rid, "op": "refill", "what": "turn"})
        assert reply["type"] != "error", reply
    seen["plain"] = await lea.roll("bloodlust", {"pool": 4, "difficulty": 6})
    seen["second"] = await lea.roll("bloodlust", {"pool": 3})
    seen["vlad"] = await lea.roll("bloodlust", {"skill": "Tir"}, character="Vlad")
    # A failed push on luck 1: the rules spend 3, the sheet holds 1 (a level-1 ladder
    # pair against 60 always fails: no die is chosen here).
    for attempt in range(60):
        await gm.request({"type": "sheet", "id": f"k{attempt}", "op": "set",
                          "character": "Lk", "ruleset": "luckgame", "owner": "Lea",
                          "values": {"luck": 1}})
        pushed = await lea.roll("luckgame", {"target": 6, "push": True}, character="Lk")
        assert pushed["type"] == "outcome", pushed
        if pushed["notes"]:
            seen["clamped"] = pushed
            break
    assert "clamped" in seen, "no failed push in 60 rolls of a d6 against 6"
    # Lea's blind roll, open on a failed pair, decided by the GM.
    seen["blind"] = await lea.roll("ladder", {"level": 1, "difficulty": 60}, mode="blind")
    opened = await gm.recv_type("outcome")
    while opened.get("roll") != seen["blind"]["roll"]:
        opened = await gm.recv_type("outcome")
    assert opened["open"] is True, opened
    seen["decided"] = await gm.request({"type": "react", "id": "d1",
                                        "roll": opened["roll"], "choice": "keep"})
    assert seen["decided"]["type"] == "outcome", seen["decided"]
    seen["last"] = await lea.roll("bloodlust", {"pool": 2})
    reveal = await gm.request({"type": "epoch", "op": "end", "id": "end"})
    assert reveal["op"] == "reveal", reveal
    # Lea's log: every journaled message she received, then the history page with keys.
    await lea.recv_type("epoch")
    history = await lea.request({"type": "history", "id": "h", "after": 0, "limit": 500})
    seen["log"] = [m for m in lea.seen if m["type"] == "welcome"
                   or (isinstance(m.get("seq"), int) and m["type"] != "history")] + [history]
    for peer in (gm, lea):
        await peer.close()
    return seen


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("reattack")
    plugins = tmp / "plug"
    plugins.mkdir()
    (plugins / "luckgame.py").write_text(LUCKGAME)
    db = tmp / "journal.db"
    server = ServeProcess("--db", str(db), "--dice", "provable", "--rate-limit", "0",
                          "--plugins-dir", str(plugins))
    try:
        seen = run(_play(server))
    finally:
        assert server.stop(signal.SIGTERM) == 0
    subprocess.run([sys.executable, "-m", "sidecar", "export", "--table", "t", "--db",
                    str(db), "--output", str(tmp / "export.jsonl")], check=True,
                   capture_output=True, timeout=60)
    seen["plugins"] = plugins
    seen["export"] = tmp / "export.jsonl"
    seen["events"] = [json.loads(line) for line in seen["export"].read_text().splitlines()]
    seen["log_path"] = _write(tmp / "lea.jsonl", seen["log"])
    return seen


def _write(path: Path, events: Events) -> Path:
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events))
    return path


def _verify(table: dict[str, Any], path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sidecar", "verify", "--locale", "en",
                           "--plugins-dir", str(table["plugins"]), str(path)],
                          capture_output=True, text=True, timeout=120)


def _standalone(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(STANDALONE), str(path)],
                          capture_output=True, text=True, timeout=120)


def _failed(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, done.stdout + done.stderr
    return next(line for line in done.stdout.splitlines() if line.startswith("FAILED"))


def _at(events: Events, outcome: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in events if e.get("seq") == outcome["seq"])


def _rerolled(event: dict[str, Any], faces: list[int]) -> None:
    """``event`` (a plain bloodlust roll) resolved again on ``faces``, as a forger would."""
    again = resolve(bloodlust, "bloodlust", event["params"], faces=faces, label=event["label"])
    event["dice"], event["result"] = again["dice"], again["result"]
    name = event["by"]["name"]
    text = {k: v.replace("test", name, 1) for k, v in again["text"].items()}
    event["text"] = text if isinstance(event["text"], dict) else text["en"]


# -- the genuine files --------------------------------------------------------------------

def test_the_genuine_export_and_log_verify(table: dict[str, Any]) -> None:
    """Item 6: the host's note on a spend taken only as far as the sheet holds is the
    replay's too (a genuine export with a third-party ruleset verifies)."""
    clamped = _at(table["events"], table["clamped"])
    assert clamped["spent"] == {"luck": 1} and "only as far as" in clamped["notes"][0]["en"]
    done = _verify(table, table["export"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "NOT CHECKED" not in done.stdout
    standalone = _standalone(table["export"])
    assert standalone.returncode == 0, standalone.stdout + standalone.stderr
    for done in (_verify(table, table["log_path"]), _standalone(table["log_path"])):
        assert done.returncode in (0, 4), done.stdout + done.stderr


# -- item 1: duplicate seqs ---------------------------------------------------------------

@pytest.mark.parametrize("where", ["after", "before"])
def test_a_duplicated_line_with_its_result_flipped_fails(table: dict[str, Any],
                                                         tmp_path: Path, where: str) -> None:
    events = copy.deepcopy(table["events"])
    original = _at(events, table["plain"])
    forged = copy.deepcopy(original)
    forged["result"]["success"] = not forged["result"]["success"]
    index = events.index(original)
    events.insert(index + 1 if where == "after" else index, forged)
    path = _write(tmp_path / "dup.jsonl", events)
    for done in (_verify(table, path), _standalone(path)):
        line = _failed(done)
        assert f"seq {original['seq']}:" in line and "field seq" in line, line


def test_an_exact_duplicate_in_an_export_fails(table: dict[str, Any], tmp_path: Path) -> None:
    events = copy.deepcopy(table["events"])
    original = _at(events, table["plain"])
    events.insert(events.index(original) + 1, copy.deepcopy(original))
    path = _write(tmp_path / "dup.jsonl", events)
    for done in (_verify(table, path), _standalone(path)):
        assert "field seq" in _failed(done)


# -- item 2: settings bound to the seed ---------------------------------------------------

def test_forged_settings_allowing_players_dice_fail(table: dict[str, Any],
                                                    tmp_path: Path) -> None:
    events = copy.deepcopy(table["events"])
    for event in events:
        if event["type"] == "epoch":
            for key in ("epoch", "next"):
                if event.get(key) and event[key]["number"] == 1:
                    event[key]["settings"]["player_dice"] = True
    roll = _at(events, table["plain"])
    roll["proof"] = {"manual": True, "by": {"name": "Lea", "role": "player"}}
    _rerolled(roll, [10] * len(roll["dice"]))
    path = _write(tmp_path / "settings.jsonl", events)
    reveal = next(e for e in events if e["type"] == "epoch" and e["op"] == "reveal")
    for done in (_verify(table, path), _standalone(path)):
        line = _failed(done)
        assert f"seq {reveal['seq']}:" in line and "field settings" in line, line


def test_a_reveal_without_its_nonce_leaves_the_settings_unchecked(
        table: dict[str, Any], tmp_path: Path) -> None:
    events = copy.deepcopy(table["events"])
    reveal = next(e for e in events if e["type"] == "epoch" and e["op"] == "reveal")
    assert "nonce" in reveal
    del reveal["nonce"]
    path = _write(tmp_path / "nononce.jsonl", events)
    for done in (_verify(table, path), _standalone(path)):
        assert done.returncode == 4, done.stdout + done.stderr
        assert "field settings" in done.stdout and "not bound" in done.stdout, done.stdout


# -- item 3: rolls deleted ------------------------------------------------------------------

def test_a_roll_replaced_by_a_session_event_fails(table: dict[str, Any],
                                                  tmp_path: Path) -> None:
    events = copy.deepcopy(table["events"])
    roll = _at(events, table["second"])
    events[events.index(roll)] = {"type": "session", "seq": roll["seq"], "table": "t",
                                  "number": 0, "by": {"name": "MJ", "role": "gm"},
                                  "mode": "public"}
    path = _write(tmp_path / "session.jsonl", events)
    for done in (_verify(table, path), _standalone(path)):
        line = _failed(done)
        assert f"seq {roll['seq']}:" in line and "field number" in line, line


def _sheet_in_place_of(events: Events, outcome: dict[str, Any]) -> dict[str, Any]:
    """The roll replaced by a GM's sheet event that changes nothing, at its seq."""
    roll = _at(events, outcome)
    vlad = next(e for e in events if e["type"] == "sheet" and e["character"] == "Vlad")
    events[events.index(roll)] = {**copy.deepcopy(vlad), "seq": roll["seq"], "op": "adjust",
                                  "changed": {}, "reason": ""}
    return roll


def test_a_roll_replaced_by_a_sheet_event_leaves_its_position_missing(
        table: dict[str, Any], tmp_path: Path) -> None:
    events = copy.deepcopy(table["events"])
    _sheet_in_place_of(events, table["second"])
    after = _at(events, table["vlad"])
    path = _write(tmp_path / "sheet.jsonl", events)
    for done in (_verify(table, path), _standalone(path)):
        line = _failed(done)
        assert f"seq {after['seq']}:" in line and "field proof.position" in line, line


def _truncated(events: Events, outcome: dict[str, Any]) -> dict[str, Any]:
    """The epoch's last roll dropped, its reveal renumbered."""
    reveal = next(e for e in events if e["type"] == "epoch" and e["op"] == "reveal")
    last = _at(events, outcome)
    assert last["seq"] == reveal["seq"] - 1
    events.remove(last)
    reveal["seq"] -= 1
    reveal["events"] -= 1
    for event in events[events.index(reveal):]:
        if event is not reveal:
            event["seq"] -= 1
    return last


def test_a_truncated_epoch_is_said_undetectable_from_the_export(
        table: dict[str, Any], tmp_path: Path) -> None:
    events = copy.deepcopy(table["events"])
    _truncated(events, table["last"])
    path = _write(tmp_path / "truncated.jsonl", events)
    for done in (_verify(table, path), _standalone(path), _verify(table, table["export"])):
        assert "players' own saved logs" in done.stdout, done.stdout


# -- item 4: a GM's decision on a blind roll ------------------------------------------------

def test_a_gms_blind_decision_given_to_the_roller_fails(table: dict[str, Any],
                                                        tmp_path: Path) -> None:
    events = copy.deepcopy(table["events"])
    decided = _at(events, table["decided"])
    assert decided["reacted_by"]["role"] == "gm" and decided["mode"] == "blind"
    decided["reacted_by"] = {k: v for k, v in decided["by"].items()}
    path = _write(tmp_path / "blind.jsonl", events)
    for done in (_verify(table, path), _standalone(path)):
        line = _failed(done)
        assert f"seq {decided['seq']}:" in line and "field reacted_by" in line, line


# -- item 5: the client seed re-chosen ------------------------------------------------------

def test_a_players_roll_with_another_client_seed_fails_on_her_log(
        table: dict[str, Any], tmp_path: Path) -> None:
    log = copy.deepcopy(table["log"])
    assert log[0]["type"] == "welcome" and log[0]["epoch"]["client"] == "lea-seed"
    copies = [m for m in log if m.get("seq") == table["plain"]["seq"]] + [
        e for m in log if m["type"] == "history" for e in m["events"]
        if e.get("seq") == table["plain"]["seq"]]
    keyed = next(c for c in copies if "key" in c["proof"])
    key, position = bytes.fromhex(keyed["proof"]["key"]), keyed["proof"]["position"]
    sides = keyed["proof"]["sides"]
    faces = faces_of(key, "lea-other", position, sides)
    for forged in copies:
        forged["proof"]["client"] = "lea-other"
        _rerolled(forged, faces)
    path = _write(tmp_path / "reseeded.jsonl", log)
    # The log as docs/CLIENTS.md saves it: the welcome and a history page (the welcome
    # says whose seed it is).
    assert log[0]["epoch"]["by"] == {"name": "Lea", "role": "player"}
    short = _write(tmp_path / "short.jsonl", [log[0], log[-1]])
    for done in (_verify(table, path), _standalone(path), _verify(table, short),
                 _standalone(short)):
        line = _failed(done)
        assert f"seq {table['plain']['seq']}:" in line and "field proof.client" in line, line


def test_an_export_says_client_seeds_are_the_servers_word(table: dict[str, Any],
                                                          tmp_path: Path) -> None:
    events = copy.deepcopy(table["events"])
    roll = _at(events, table["plain"])
    seed = bytes.fromhex(next(e for e in events if e.get("op") == "reveal")["seed"])
    proof = roll["proof"]
    proof["client"] = "lea-other"
    _rerolled(roll, faces_of(leaf_key(seed, proof["position"]), "lea-other",
                             proof["position"], proof["sides"]))
    path = _write(tmp_path / "reseeded.jsonl", events)
    for done in (_verify(table, path), _standalone(path)):
        assert "client seed" in done.stdout, done.stdout


# -- item 7: what the standalone verifier prints --------------------------------------------

def test_the_standalone_verifier_escapes_what_it_prints(table: dict[str, Any],
                                                        tmp_path: Path) -> None:
    events = copy.deepcopy(table["events"])
    roll = _at(events, table["plain"])
    roll["roll"] = "ab\x1b]0;pwned\x07\x1b[2K\rcd"
    roll["dice"].append({"sides": 10, "face": 10})
    path = _write(tmp_path / "escape.jsonl", events)
    done = _standalone(path)
    assert done.returncode == 1, done.stdout
    assert "\x1b" not in done.stdout and "\r" not in done.stdout and "\x07" not in done.stdout
    assert "\\x1b" in done.stdout, done.stdout


# -- what an export alone cannot show, a player's own log does ------------------------------

def _against(table: dict[str, Any], path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sidecar", "verify", "--locale", "en",
                           "--plugins-dir", str(table["plugins"]), str(path), "--log",
                           str(table["log_path"])],
                          capture_output=True, text=True, timeout=120)


def test_the_genuine_export_agrees_with_the_players_log(table: dict[str, Any]) -> None:
    done = _against(table, table["export"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "events as the player received them" in done.stdout


def _reseeded(events: Events, outcome: dict[str, Any]) -> dict[str, Any]:
    roll = _at(events, outcome)
    seed = bytes.fromhex(next(e for e in events if e.get("op") == "reveal")["seed"])
    proof = roll["proof"]
    proof["client"] = "lea-other"
    _rerolled(roll, faces_of(leaf_key(seed, proof["position"]), "lea-other",
                             proof["position"], proof["sides"]))
    return roll


@pytest.mark.parametrize("forgery", ["truncated", "reseeded"])
def test_the_players_log_shows_what_the_export_alone_cannot(
        table: dict[str, Any], tmp_path: Path, forgery: str) -> None:
    events = copy.deepcopy(table["events"])
    roll = _truncated(events, table["last"]) if forgery == "truncated" else _reseeded(
        events, table["second"])
    path = _write(tmp_path / f"{forgery}.jsonl", events)
    alone = _verify(table, path)
    assert alone.returncode == 0, alone.stdout + alone.stderr  # (consistent: said above)
    line = _failed(_against(table, path))
    assert f"seq {roll['seq']}:" in line and "a player's log" in line, line
    assert ("field type" if forgery == "truncated" else "field dice") in line, line


def test_the_players_log_says_the_forgery_in_french_by_default(table: dict[str, Any],
                                                                tmp_path: Path) -> None:
    """Issue 29: one language a run — the ÉCHEC line of a log compared, French only."""
    events = copy.deepcopy(table["events"])
    roll = _reseeded(events, table["second"])
    path = _write(tmp_path / "reseeded.jsonl", events)
    done = subprocess.run([sys.executable, "-m", "sidecar", "verify", "--plugins-dir",
                           str(table["plugins"]), str(path), "--log", str(table["log_path"])],
                          capture_output=True, text=True, timeout=120)
    line = next(line for line in done.stdout.splitlines() if line.startswith("ÉCHEC"))
    assert line.startswith(f"ÉCHEC : seq {roll['seq']} : jet "), line
    assert ", champ dice : le joueur a vu les dés " in line, line
    assert "(journal d'un joueur : " in line, line
    for english in ("player saw", "field", "roll ", "a player's log", "FAILED"):
        assert english not in line, line
