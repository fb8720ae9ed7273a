"""Verifiable dice end to end: epochs, proofs, reveals and ``sidecar verify``.

A real server on a loopback port with ``dice="provable"``, real WebSocket peers, a real
journal file; exports come from ``sidecar export`` and are checked by ``sidecar verify``
(and by the standalone verifier of ``examples/``)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sidecar.dice.provable import faces_of, leaf_key, root_from_path, tree
from sidecar.tools.verify import Bad, check, events_of
from tests.helpers import Peer, run, running_server

ROOT = Path(__file__).resolve().parent.parent
STANDALONE = ROOT / "examples" / "verify_dice.py"


async def _play(db: str, *, end: bool = True) -> dict[str, Any]:
    """A GM and a player roll in every mode; the GM ends the epoch. Returns what each saw."""
    async with running_server(db=db, dice="provable") as server:
        gm, player = await Peer.open(server), await Peer.open(server)
        gm_welcome = await gm.join(name="MJ", role="gm", client_seed="gm-seed-1")
        welcome = await player.join(name="Aengus", client_seed="aengus-seed")
        public = await player.roll("bloodlust", {"pool": 4})
        # Events that are not rolls take their places in the epoch too (a seat, a sheet).
        await gm.request({"type": "seat", "id": "s", "op": "add", "name": "Léa"})
        await gm.request({"type": "sheet", "id": "c", "op": "set", "character": "Brann",
                          "ruleset": "bloodlust", "owner": None, "values": {}})
        secret = await player.roll("bloodlust", {"pool": 3}, mode="gm")
        blind = await player.roll("bloodlust", {"pool": 5}, mode="blind")
        gm_self = await gm.roll("bloodlust", {"pool": 2}, mode="self")
        manual = await gm.roll("bloodlust", {"pool": 2}, dice=[3, 4])
        reveal = None
        if end:
            await gm.request({"type": "epoch", "op": "end", "id": "e1"})
            reveal = await player.recv_type("epoch")
        history = await player.request({"type": "history", "id": "h", "after": 0})
        gm_history = await gm.request({"type": "history", "id": "h", "after": 0})
        frames = list(player.seen)
        await gm.close()
        await player.close()
    return {"welcome": welcome, "gm_welcome": gm_welcome, "public": public,
            "secret": secret, "blind": blind, "gm_self": gm_self, "manual": manual,
            "reveal": reveal, "history": history, "gm_history": gm_history,
            "frames": frames}


def _export(db: str, tmp_path: Path, name: str = "export.jsonl") -> Path:
    out = tmp_path / name
    subprocess.run([sys.executable, "-m", "sidecar", "export", "--table", "t", "--db", db,
                    "--output", str(out)], check=True, capture_output=True, timeout=60)
    return out


def _verify(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    # (In English: the checks below read its English words; French is the default.)
    return subprocess.run([sys.executable, "-m", "sidecar", "verify", "--locale", "en",
                           str(path), *extra],
                          capture_output=True, text=True, timeout=120)


def _standalone(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(STANDALONE), str(path)],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("verify")
    db = str(tmp / "journal.db")
    seen = run(_play(db))
    seen["db"] = db
    seen["export"] = _export(db, tmp)
    return seen


def test_welcome_commits_and_rolls_carry_proofs(played: dict[str, Any]) -> None:
    epoch = played["welcome"]["epoch"]
    assert epoch["number"] == 1 and len(epoch["commitment"]) == 64
    assert epoch["client"] == "aengus-seed"
    assert played["gm_welcome"]["epoch"]["commitment"] == epoch["commitment"]
    proof = played["public"]["proof"]
    assert proof["commitment"] == epoch["commitment"] and proof["client"] == "aengus-seed"
    assert proof["sides"] == [d["sides"] for d in played["public"]["dice"]]
    # Nothing secret before the reveal: no key.
    assert "key" not in proof
    # A blind roll's roller learns neither its faces nor its proof.
    assert played["blind"]["result"] == {"hidden": True} and "proof" not in played["blind"]
    assert played["manual"]["proof"] == {"manual": True, "by": {"name": "MJ", "role": "gm"}}


def test_players_get_keys_of_what_they_saw_never_the_seed(played: dict[str, Any]) -> None:
    reveal = played["reveal"]
    assert reveal["op"] == "reveal" and "seed" not in reveal
    assert reveal["next"]["number"] == 2
    outcomes = {e["seq"]: e for e in played["history"]["events"] if e["type"] == "outcome"}
    for name in ("public", "secret"):
        proof = outcomes[played[name]["seq"]]["proof"]
        key = bytes.fromhex(proof["key"])
        assert root_from_path(key, proof["position"], proof["path"]) == proof["commitment"]
        assert faces_of(key, proof["client"], proof["position"], proof["sides"]) == [
            d["face"] for d in played[name]["dice"]]
    blind = outcomes[played["blind"]["seq"]]
    assert "proof" not in blind and blind["result"] == {"hidden": True}
    assert played["gm_self"]["seq"] not in outcomes
    # The GM sees the seed; it is the one committed.
    gm_reveal = next(e for e in played["gm_history"]["events"] if e["type"] == "epoch"
                     and e["op"] == "reveal")
    assert tree(bytes.fromhex(gm_reveal["seed"])).root == played["welcome"]["epoch"][
        "commitment"]
    # ...and the player never received it, nor any key of the blind roll's position.
    everything = json.dumps(played["frames"])
    assert gm_reveal["seed"] not in everything
    blind_position = next(e for e in played["gm_history"]["events"]
                          if e["seq"] == played["blind"]["seq"])["proof"]["position"]
    blind_key = leaf_key(bytes.fromhex(gm_reveal["seed"]), blind_position).hex()
    assert blind_key not in everything
    # The player's log checks, and holds no key of a roll it did not see.
    lines = [json.dumps(f) for f in played["frames"]]
    report = check(events_of(lines))
    assert report.checked == 2 and not report.waiting


def test_an_empty_or_unrelated_file_is_not_a_clean_one(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    presence = tmp_path / "presence.jsonl"
    presence.write_text('{"type": "presence", "members": []}\n')
    for path in (empty, presence):
        done = _verify(path)
        assert done.returncode == 1 and "no roll to verify" in done.stdout, done.stdout
        standalone = _standalone(path)
        assert standalone.returncode == 1 and "no verifiable roll" in standalone.stdout
    missing = _standalone(tmp_path / "nothere.jsonl")
    assert missing.returncode == 2 and "Traceback" not in missing.stdout + missing.stderr


def test_export_verifies(played: dict[str, Any]) -> None:
    done = _verify(played["export"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 rolls checked" in done.stdout and "1 manual" in done.stdout
    assert "re-run" in done.stdout
    standalone = _standalone(played["export"])
    assert standalone.returncode == 0, standalone.stdout + standalone.stderr


def _tampered(played: dict[str, Any], tmp_path: Path, change: Any) -> tuple[Path, int]:
    lines = played["export"].read_text().splitlines()
    events = [json.loads(line) for line in lines]
    seq = change(events)
    path = tmp_path / "tampered.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path, seq


def _face(events: list[dict[str, Any]]) -> int:
    roll = next(e for e in events if e["type"] == "outcome" and e.get("mode") == "blind")
    roll["dice"][0]["face"] = roll["dice"][0]["face"] % 10 + 1
    return roll["seq"]


def _seed_byte(events: list[dict[str, Any]]) -> int:
    reveal = next(e for e in events if e["type"] == "epoch" and e["op"] == "reveal")
    seed = bytearray.fromhex(reveal["seed"])
    seed[7] ^= 1
    reveal["seed"] = seed.hex()
    return reveal["seq"]


def _client_seed(events: list[dict[str, Any]]) -> int:
    roll = next(e for e in events if e["type"] == "outcome" and e.get("mode") == "gm")
    roll["proof"]["client"] = "aengus-seee"
    return roll["seq"]


def _reordered(events: list[dict[str, Any]]) -> int:
    # The first roll and the line after it swapped: that roll comes out of order.
    i = next(i for i, e in enumerate(events) if e["type"] == "outcome")
    events[i], events[i + 1] = events[i + 1], events[i]
    return events[i + 1]["seq"]


def _skipped_position(events: list[dict[str, Any]]) -> int:
    # A server passing a position over to draw other faces: the roll's dice are the true
    # ones of the next position (everything else about it checks).
    seed = bytes.fromhex(next(e for e in events if e["type"] == "epoch"
                              and e["op"] == "reveal")["seed"])
    roll = next(e for e in events if e["type"] == "outcome" and e.get("mode") == "self")
    proof = roll["proof"]
    proof["position"] += 1
    faces = faces_of(leaf_key(seed, proof["position"]), proof["client"], proof["position"],
                     proof["sides"])
    for die, face in zip(roll["dice"], faces, strict=True):
        die["face"] = face
    return roll["seq"]


@pytest.mark.parametrize("change", [_face, _seed_byte, _client_seed, _reordered],
                         ids=["face", "seed-byte", "client-seed", "reordered"])
def test_tampered_export_fails_naming_the_seq(played: dict[str, Any], tmp_path: Path,
                                              change: Any) -> None:
    path, seq = _tampered(played, tmp_path, change)
    done = _verify(path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"seq {seq}:" in done.stdout + done.stderr
    standalone = _standalone(path)
    assert standalone.returncode == 1 and f"seq {seq}:" in standalone.stdout


def _removed(events: list[dict[str, Any]]) -> int:
    index = next(i for i, e in enumerate(events) if e["type"] == "outcome"
                 and e.get("mode") == "self")
    del events[index]
    return events[index]["seq"]


def test_a_removed_line_fails_naming_the_seq_after_it(played: dict[str, Any],
                                                      tmp_path: Path) -> None:
    path, seq = _tampered(played, tmp_path, _removed)
    done = _verify(path)
    assert done.returncode == 1 and f"seq {seq}:" in done.stdout, done.stdout
    standalone = _standalone(path)
    assert standalone.returncode == 1 and f"seq {seq}:" in standalone.stdout


def test_a_skipped_position_fails_in_an_export(played: dict[str, Any],
                                               tmp_path: Path) -> None:
    path, seq = _tampered(played, tmp_path, _skipped_position)
    done = _verify(path, "--no-rerun")
    assert done.returncode == 1 and f"seq {seq}:" in done.stdout, done.stdout
    standalone = _standalone(path)
    assert standalone.returncode == 1 and f"seq {seq}:" in standalone.stdout


def test_the_ruleset_rerun_catches_a_forged_result(played: dict[str, Any],
                                                   tmp_path: Path) -> None:
    def forge(events: list[dict[str, Any]]) -> int:
        roll = next(e for e in events if e["type"] == "outcome" and e.get("mode") == "public")
        roll["result"] = {**roll["result"], "total": 999}
        return roll["seq"]
    path, seq = _tampered(played, tmp_path, forge)
    done = _verify(path)
    assert done.returncode == 1 and f"seq {seq}:" in done.stdout, done.stdout


def test_a_restart_inside_an_epoch_keeps_its_seed(tmp_path: Path) -> None:
    db = str(tmp_path / "journal.db")

    async def scenario() -> tuple[str, str, dict[str, Any]]:
        async with running_server(db=db, dice="provable", reveal_on_stop=False) as server:
            player = await Peer.open(server)
            first = (await player.join(name="Aengus"))["epoch"]["commitment"]
            before = await player.roll("bloodlust", {"pool": 3})
            await player.close()
        async with running_server(db=db, dice="provable") as server:
            player = await Peer.open(server)
            again = (await player.join(name="Aengus"))["epoch"]["commitment"]
            after = await player.roll("bloodlust", {"pool": 3})
            await player.close()
        # This stop revealed the epoch (the default); the next join starts epoch 2.
        assert after["proof"]["position"] == before["proof"]["position"] + 1
        async with running_server(db=db, dice="provable") as server:
            player = await Peer.open(server)
            third = (await player.join(name="Aengus"))["epoch"]
            await player.close()
        assert third["number"] == 2 and third["commitment"] != first
        return first, again, after
    first, again, after = run(scenario())
    assert first == again == after["proof"]["commitment"]
    done = _verify(_export(db, tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 rolls checked (epoch 1)" in done.stdout


def test_an_unrevealed_epoch_is_not_claimed_checked(tmp_path: Path) -> None:
    db = str(tmp_path / "journal.db")

    async def scenario() -> None:
        async with running_server(db=db, dice="provable", reveal_on_stop=False) as server:
            player = await Peer.open(server)
            await player.join(name="Aengus")
            await player.roll("bloodlust", {"pool": 3})
            await player.close()
    run(scenario())
    done = _verify(_export(db, tmp_path))
    assert done.returncode == 3, done.stdout
    assert "1 roll of an epoch not revealed yet (seq " in done.stdout, done.stdout
    assert "): its dice cannot be checked yet" in done.stdout, done.stdout


def test_only_a_gm_ends_an_epoch() -> None:
    async def scenario() -> None:
        async with running_server(dice="provable") as server:
            player = await Peer.open(server)
            await player.join(name="Aengus")
            error = await player.request({"type": "epoch", "op": "end", "id": 1})
            assert error["type"] == "error" and error["code"] == "forbidden"
            await player.close()
    run(scenario())


def test_wrong_seed_never_matches(played: dict[str, Any]) -> None:
    events = [json.loads(line) for line in played["export"].read_text().splitlines()]
    roll = next(e for e in events if e["type"] == "outcome" and "position" in e.get(
        "proof", {}))
    proof = roll["proof"]
    key = leaf_key(b"\0" * 32, proof["position"])
    assert faces_of(key, proof["client"], proof["position"], [1000] * 8) != faces_of(
        leaf_key(b"\1" * 32, proof["position"]), proof["client"], proof["position"],
        [1000] * 8)
    with pytest.raises(Bad):
        check([{"type": "epoch", "op": "reveal", "seq": 1, "epoch": {
            "number": 1, "commitment": "00" * 32}, "seed": "11" * 32,
            "next": {"number": 2, "commitment": "22" * 32}}])


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_clean_stop_of_serve_reveals_every_epoch(tmp_path: Path, sig: int) -> None:
    from tests.support.serve import free_port, serve_on

    db = tmp_path / "journal.db"
    port = free_port()
    server = serve_on(port, db, "--dice", "provable")
    url = f"ws://127.0.0.1:{port}/ws"

    async def scenario() -> list[dict[str, Any]]:
        peer = await Peer.connect(url)
        try:
            await peer.join("t", "Aengus")
            await peer.send({"type": "roll", "id": 1, "ruleset": "bloodlust",
                             "params": {"pool": 3}})
            while (await peer.recv(10)).get("id") != 1:
                pass
            return peer.seen
        finally:
            await peer.close()
    try:
        seen = run(scenario())
    finally:
        assert server.stop_checked(sig) == 0
    assert seen[-1]["type"] == "outcome" and "proof" in seen[-1]
    done = _verify(_export(str(db), tmp_path))
    assert done.returncode == 0 and "1 roll checked" in done.stdout, done.stdout


def test_a_decision_on_an_open_roll_is_verifiable_with_the_rollers_seed(
        tmp_path: Path) -> None:
    from tests.support.plugins import ALWAYS_OPEN as FAIL
    from tests.support.plugins import luck_host

    db = str(tmp_path / "journal.db")

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with running_server(host=luck_host(), db=db, dice="provable") as server:
            gm, player = await Peer.open(server), await Peer.open(server)
            await gm.join(name="MJ", role="gm", client_seed="gm-seed")
            await player.join(name="Aengus", client_seed="aengus-seed")
            out = await player.roll("luck", FAIL)
            assert out["open"] is True and out["proof"]["client"] == "aengus-seed"
            # The GM decides: the new faces still come from the roller's client seed.
            decided = await gm.request({"type": "react", "id": "d", "roll": out["roll"],
                                        "choice": "reroll"})
            assert decided["reacts_to"] == out["seq"], decided
            await player.close()
            await gm.close()
        return out, decided
    out, decided = run(scenario())
    assert decided["proof"]["client"] == "aengus-seed"
    assert decided["proof"]["position"] == out["proof"]["position"] + 1
    export = _export(db, tmp_path)
    # Its ruleset is a test plugin: without it, the verifier says what it did not re-run.
    done = _verify(export)
    assert done.returncode == 4 and "2 rolls checked" in done.stdout, done.stdout
    assert "NOT CHECKED (2)" in done.stdout
    # (said once, with the other rolls it leaves unchecked)
    assert f"seq {out['seq']}: roll {out['roll']}, field result: the ruleset 'luck' is not " \
           f"installed here (+1: seq {decided['seq']})" in done.stdout
    # With the same plugin as the server (`serve --plugins-dir`), all of it re-runs.
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "luck_rules.py").write_text((ROOT / "tests" / "sheet_plugin.py").read_text())
    done = _verify(export, "--plugins-dir", str(plugins))
    assert done.returncode == 0 and "2 rolls checked" in done.stdout, done.stdout
    assert "2 re-run" in done.stdout
    # The decision's author and mode are checked against its open roll; the roll's are not.
    assert "who rolled and in which mode: checked for 1 decision or answer" in done.stdout
    assert "for the other roll, the dice are checked, but who rolled it" in done.stdout


def test_the_gm_ends_an_epoch_from_the_command_line_and_a_players_log_verifies(
        tmp_path: Path) -> None:
    from tests.helpers import GM_TOKEN
    from tests.live_server import LiveServer

    with LiveServer(dice="provable", db=str(tmp_path / "journal.db")) as server:
        outcome = server.roll("t", "MJ", "bloodlust", {"pool": 4})
        log = tmp_path / "player.jsonl"
        ended = subprocess.run(
            [sys.executable, "-m", "sidecar", "epoch", "end", "--url", server.url, "--table",
             "t", "--name", "MJ", "--token", GM_TOKEN, "--json"],
            capture_output=True, text=True, timeout=60)
        assert ended.returncode == 0, ended.stderr
        reveal = json.loads(ended.stdout)
        assert reveal["op"] == "reveal" and reveal["events"] == 1 and "seed" in reveal
        # A player's saved log: `sidecar history --json` after the reveal.
        history = subprocess.run(
            [sys.executable, "-m", "sidecar", "history", "--url", server.url, "--table", "t",
             "--name", "Aengus", "--role", "player", "--token", server.config.player_token,
             "--json"], capture_output=True, text=True, timeout=60)
        assert history.returncode == 0, history.stderr
        log.write_text(history.stdout)
    events = [json.loads(line) for line in history.stdout.splitlines()]
    [roll] = [e for e in events if e.get("seq") == outcome["seq"]]
    assert "key" in roll["proof"] and all("seed" not in e for e in events)
    done = _verify(log)
    assert done.returncode == 0 and "1 roll checked" in done.stdout, done.stdout
    assert _standalone(log).returncode == 0


def test_a_repeated_epoch_end_ends_one_epoch() -> None:
    async def scenario() -> None:
        async with running_server(dice="provable") as server:
            gm = await Peer.open(server)
            await gm.join(name="MJ", role="gm")
            await gm.roll("bloodlust", {"pool": 2})
            first = await gm.request({"type": "epoch", "op": "end", "id": "end-1"})
            again = await gm.request({"type": "epoch", "op": "end", "id": "end-1"})
            assert again["duplicate"] is True and again["seq"] == first["seq"]
            assert again["next"] == first["next"] and again["seed"] == first["seed"]
            await gm.close()
    run(scenario())


def test_decisions_the_server_takes_in_time_verify_and_cannot_be_forged(
        tmp_path: Path) -> None:
    """An open roll whose time runs out takes its default (the server decides) or, without
    one, closes as it stands: both verify, re-run; the server's decision passed off as
    another choice, or a closed roll's result changed, do not."""
    from tests.support.plugins import ALWAYS_OPEN as FAIL
    from tests.support.plugins import luck_host

    db = str(tmp_path / "journal.db")

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with running_server(host=luck_host(), db=db, dice="provable",
                                  react_timeout=0.2) as server:
            gm = await Peer.open(server)
            await gm.join(name="MJ", role="gm", client_seed="gm-seed")
            await gm.roll("luck", FAIL)
            defaulted = await gm.recv_type("outcome")
            closing = await gm.roll("luck", {**FAIL, "no_default": True})
            assert closing["open"] is True, closing
            closed = await gm.recv_type("outcome")
            await gm.close()
        return defaulted, closed
    defaulted, closed = run(scenario())
    assert defaulted["reacted_by"] is None and defaulted["choice"] == "keep"
    assert closed["choice"] is None and closed["dice"] == []
    export = _export(db, tmp_path)
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "luck_rules.py").write_text((ROOT / "tests" / "sheet_plugin.py").read_text())
    done = _verify(export, "--plugins-dir", str(plugins))
    assert done.returncode == 0 and "4 re-run" in done.stdout, done.stdout
    assert _standalone(export).returncode == 0

    def other_choice(events: list[dict[str, Any]]) -> int:
        event = next(e for e in events if e["seq"] == defaulted["seq"])
        event["choice"] = "reroll"
        return event["seq"]

    def closed_better(events: list[dict[str, Any]]) -> int:
        event = next(e for e in events if e["seq"] == closed["seq"])
        event["result"] = {**event["result"], "success": True, "kind": "success"}
        return event["seq"]

    for change, field in ((other_choice, "choice"), (closed_better, "result")):
        path, seq = _tampered({"export": export}, tmp_path, change)
        for done in (_verify(path, "--plugins-dir", str(plugins)), _standalone(path)):
            assert done.returncode == 1, done.stdout + done.stderr
            assert f"seq {seq}: " in done.stdout and f"field {field}" in done.stdout, \
                done.stdout
