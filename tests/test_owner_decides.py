"""A roll made as a character may be decided by that character's player (issue 29): the
GM's public roll as Aengus offered « au choix du joueur » choices the player could not
take, and locked Aengus until its time ran out. The roller, a GM, or — when the roll's
mode shows it to that seat (public) — the seat that plays the character decide; a
blind, ``gm`` or ``self`` roll it does not see stays its roller's and the GMs'. The
« décidez-le d'abord » refusal is true for whoever reads it."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys

from tests.helpers import Peer, run, running_server
from tests.support.plugins import luck_host
from tests.support.serve import ROOT, SIDECAR, gm_options, luck_serve, seat_token, sidecar

OPEN = {"second_chance": True, "target": 12}  # (a failure, hence open, whatever the dice)


async def _table(server):
    gm = await Peer.open(server)
    await gm.join("t", "MJ", "gm")
    seats = {}
    for name in ("Léa", "Tom"):
        token = (await gm.request({"type": "seat", "id": f"s-{name}", "op": "add",
                                   "name": name}))["token"]
        seats[name] = await Peer.open(server)
        await seats[name].join("t", name, token=token)
    made = await gm.request({"type": "sheet", "id": "c", "op": "set", "character": "Aengus",
                             "ruleset": "luck", "owner": "Léa", "values": {"skill": 1,
                                                                           "luck": 5}})
    assert made["type"] == "sheet", made
    return gm, seats["Léa"], seats["Tom"]


def test_the_characters_player_decides_the_gms_public_roll_as_it(tmp_path):
    db = str(tmp_path / "journal.db")

    async def scenario():
        async with running_server(host=luck_host(), db=db, dice="provable") as server:
            gm, lea, tom = await _table(server)
            rolled = await gm.roll("luck", OPEN, character="Aengus", dice=[1])
            assert rolled.get("open") is True, rolled
            # While it waits, Léa may decide it: the refusal of her roll says so.
            waiting = await lea.roll("luck", {}, character="Aengus")
            assert waiting["code"] == "invalid_params", waiting
            assert waiting["message"].endswith("décidez-le d'abord"), waiting
            # Tom does not play Aengus.
            other = await tom.request({"type": "react", "id": "t", "roll": rolled["roll"],
                                       "choice": "keep"})
            assert other["code"] == "forbidden", other
            decided = await lea.request({"type": "react", "id": "d", "roll": rolled["roll"],
                                         "choice": "keep"})
            assert decided["type"] == "outcome" and decided["reacts_to"] == rolled["seq"], \
                decided
            assert decided["reacted_by"]["name"] == "Léa"
            # Aengus is free again.
            again = await lea.roll("luck", {}, character="Aengus")
            assert again["type"] == "outcome", again
            await gm.request({"type": "epoch", "op": "end", "id": "e1"})
    run(scenario())
    # The export holding her decision verifies, by the verifier and the standalone one.
    export, plugins = tmp_path / "export.jsonl", tmp_path / "plugins"
    plugins.mkdir()
    shutil.copy(ROOT / "tests" / "sheet_plugin.py", plugins / "luck_rules.py")
    exported = sidecar("export", "--table", "t", "--db", db, "--output", str(export))
    assert exported.returncode == 0, exported.stderr
    for command in ([*SIDECAR, "verify", "--locale", "en", "--plugins-dir", str(plugins)],
                    [sys.executable, str(ROOT / "examples" / "verify_dice.py")]):
        checked = subprocess.run([*command, str(export)], capture_output=True, text=True,
                                 cwd=ROOT, timeout=120)
        assert checked.returncode == 0, (command, checked.stdout, checked.stderr)


def test_a_roll_the_player_does_not_see_stays_the_gms_to_decide():
    async def scenario():
        async with running_server(host=luck_host()) as server:
            gm, lea, _ = await _table(server)
            for mode in ("gm", "blind"):
                rolled = await gm.roll("luck", OPEN, character="Aengus", dice=[1], mode=mode)
                assert rolled.get("open") is True, rolled
                refused = await lea.request({"type": "react", "id": f"d-{mode}",
                                             "roll": rolled["roll"], "choice": "keep"})
                assert refused["type"] == "error", refused
                # Her roll as Aengus meanwhile is not refused (whether the hidden roll is
                # open is its dice's secret, §8.5): the hidden roll takes its default first.
                mine = await lea.roll("luck", {}, character="Aengus")
                assert mine["type"] == "outcome", mine
                late = await gm.request({"type": "react", "id": f"g-{mode}",
                                         "roll": rolled["roll"], "choice": "keep"})
                assert late["type"] == "error" and late["code"] == "bad_message", late
    run(scenario())


def test_the_cli_tells_the_characters_player_how_to_decide(tmp_path):
    with luck_serve(tmp_path) as server:
        gm = gm_options(server, "soir")
        token = seat_token(gm, "Léa")
        made = sidecar("sheet", "set", "Aengus", "--ruleset", "luck", "--owner", "Léa",
                       "skill=1", *gm)
        assert made.returncode == 0, made.stderr
        base = ["--url", server.url, "--table", "soir", "--token", token, "--name", "Léa"]
        watching = subprocess.Popen([*SIDECAR, "watch", "--count", "1", *base],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, cwd=ROOT)
        first = watching.stdout.readline()
        assert first.startswith("table "), (first, watching.stderr.read())
        rolled = sidecar("roll", "luck", "second_chance=true", "target=12", "--character",
                         "Aengus", "--dice", "1", "--no-ask", *gm)
        assert rolled.returncode == 0, rolled.stderr
        out, err = watching.communicate(timeout=30)
        hint = re.search(r"décider : (.+)$", out, re.M)
        assert hint, (out, err)
        # As printed, it decides the roll.
        decided = sidecar(*shlex.split(hint.group(1).replace("CHOIX", "keep"))[1:])
        assert decided.returncode == 0, decided.stderr
        assert "par Léa" in decided.stdout, decided.stdout
