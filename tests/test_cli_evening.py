"""The command line as a GM's evening met it (issue 29): a table character's odds against
its live sheet, asks printed by what differs from the defaults, a `dice` total's odds
without a target, and `new-plugin`'s next steps. Every command runs as a real `sidecar`
process against a real `sidecar serve`."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sidecar import odds as local_odds
from tests.helpers import GM_TOKEN
from tests.support.serve import ROOT, SIDECAR, ServeProcess, seat_token, sidecar


def percent(p: float) -> str:
    """``format_odds``'s way of writing a probability: the page's, in French (checked
    against the page's rule in tests/test_cli_like_the_page.py)."""
    from sidecar.cli.odds_view import percent as written
    return written(p, "fr")


@pytest.fixture(scope="module")
def server():
    with ServeProcess("--db", ":memory:") as serving:
        yield serving


def gm_of(server: ServeProcess, table: str) -> list[str]:
    return ["--url", server.url, "--table", table, "--token", GM_TOKEN, "--name", "Morgane",
            "--role", "gm"]


def test_a_characters_odds_against_its_live_sheet(server):
    gm = gm_of(server, "odds-live")
    made = sidecar("sheet", "set", "Aengus", "--ruleset", "oweens", "ecl=6", "--no-owner", *gm)
    assert made.returncode == 0, made.stderr
    spent = sidecar("sheet", "adjust", "Aengus", "reserve_ecl=-1", *gm)
    assert spent.returncode == 0, spent.stderr
    asked = sidecar("odds", "oweens", "characteristic=ECL", "difficulty=4",
                    "--character", "Aengus", *gm)
    assert asked.returncode == 0, asked.stderr
    # Éclate 6, one point lost: five dice, as the sheet stands now (not 2, the default).
    expected = local_odds("oweens", {"dice": 5, "difficulty": 4})
    assert f"P(réussite) = {percent(expected['p_success'])}" in asked.stdout
    assert "Aengus" in asked.stdout
    as_json = sidecar("odds", "oweens", "characteristic=ECL", "difficulty=4",
                      "--character", "Aengus", "--json", *gm)
    assert json.loads(as_json.stdout)["p_success"] == pytest.approx(expected["p_success"])
    # A character the table does not have: one line, the server's word, exit 1.
    unknown = sidecar("odds", "oweens", "characteristic=ECL", "--character", "Nobody", *gm)
    assert unknown.returncode == 1 and unknown.stdout == ""
    assert unknown.stderr.count("\n") == 1 and "Traceback" not in unknown.stderr
    # Without --url nor --character: computed here, as before.
    offline = sidecar("odds", "oweens", "dice=5", "difficulty=4")
    assert offline.returncode == 0
    assert f"= {percent(expected['p_success'])}" in offline.stdout


def test_asks_print_only_what_differs_from_the_defaults(server):
    gm = gm_of(server, "asks-short")
    for name in ("Aengus", "Brann"):
        seat_token(gm, name)
        made = sidecar("sheet", "set", name, "--ruleset", "oweens", "--owner", name, *gm)
        assert made.returncode == 0, made.stderr
    opened = sidecar("ask", "open", "Aengus", "Brann", "--ruleset", "oweens",
                     "characteristic=ECL", "difficulty=3", "--opposed", *gm)
    assert opened.returncode == 0, opened.stderr
    history = sidecar("history", "--role", "gm", *gm)
    assert history.returncode == 0, history.stderr
    listed = sidecar("ask", "list", *gm)
    for shown in (opened.stdout, history.stdout, listed.stdout):
        params = [line for line in shown.splitlines() if line.strip().startswith("paramètres :")]
        assert params == ["   paramètres : Caractéristique ECL · Difficulté 3"], shown
        # None of O'Ween's other params at their default (bagage=false, augmentations=0…).
        assert "bagage=non" not in shown and "augmentations=0" not in shown, shown


def test_dice_odds_without_a_target_show_the_distribution_only(server):
    plain = sidecar("odds", "dice", "expr=2d6")
    assert plain.returncode == 0, plain.stderr
    assert "réussite" not in plain.stdout.lower() and "100 %" not in plain.stdout
    assert "échec" not in plain.stdout.lower()
    assert "distribution (total)" in plain.stdout and "17 %" in plain.stdout  # a 7
    as_json = json.loads(sidecar("odds", "dice", "expr=2d6", "--json").stdout)
    assert as_json["judged"] is False
    # With a target: success and failure, as before.
    target = sidecar("odds", "dice", "expr=2d6", "target=8")
    assert "P(réussite) = 42 %" in target.stdout
    assert "Échec " in target.stdout
    # A table's server says the same.
    remote = sidecar("odds", "dice", "expr=2d6", *gm_of(server, "dice-odds"))
    assert remote.returncode == 0, remote.stderr
    assert "réussite" not in remote.stdout and "distribution (total)" in remote.stdout
    # A pool counted against a face gives successes, not a total: its distribution says so.
    pool = sidecar("odds", "dice", "expr=8d10>=7")
    assert "distribution (réussites)" in pool.stdout and "total" not in pool.stdout, pool.stdout
    pool_en = sidecar("odds", "dice", "expr=8d10>=7", "--locale", "en")
    assert "distribution (successes)" in pool_en.stdout, pool_en.stdout


def test_new_plugin_prints_commands_that_run_as_shown(tmp_path):
    outside = tmp_path / "mes-plugins"
    outside.mkdir()
    made = subprocess.run([*SIDECAR, "new-plugin", "torche", "--kind", "ruleset"],
                          capture_output=True, text=True, timeout=60, cwd=outside)
    assert made.returncode == 0, made.stderr
    steps = made.stdout.split("ensuite :", 1)[1].splitlines()  # (French by default)
    commands = [line.split("  #")[0].strip() for line in steps if line.startswith("  ")]
    install = next(c for c in commands if "pip install" in c)
    test = next(c for c in commands if "pytest" in c)
    # This environment's own interpreter, not whatever `pip` or `python` PATH finds: each
    # command runs as printed (its --version here, nothing installed into the test venv).
    interpreter = shlex.split(install)[0]
    assert Path(interpreter).is_absolute() and shlex.split(test)[0] == interpreter
    assert Path(interpreter).resolve() == Path(sys.executable).resolve()
    assert shlex.split(install)[1:4] == ["-m", "pip", "install"]
    for command in (install, test):
        words = shlex.split(command)
        ran = subprocess.run([*words[:3], "--version"], capture_output=True, text=True,
                             timeout=60, cwd=outside / "torche")
        assert ran.returncode == 0, ran.stderr
    listing = next(c for c in commands if c.split()[-1] == "plugins")
    assert Path(shlex.split(listing)[0]).is_absolute() or shlex.split(listing)[0] == "sidecar"
    assert "checkout" not in made.stdout + made.stderr  # not inside a git checkout

    inside = subprocess.run([*SIDECAR, "new-plugin", "torche2", "--kind", "ruleset",
                             "--directory", str(tmp_path / "x")], capture_output=True,
                            text=True, timeout=60, cwd=ROOT)
    assert inside.returncode == 0, inside.stderr
    assert "checkout" not in inside.stdout + inside.stderr  # tmp_path: no checkout there
    within = ROOT / "build" / "tmp-new-plugin-test"
    try:
        warned = subprocess.run([*SIDECAR, "new-plugin", "torche3", "--kind", "ruleset",
                                 "--directory", str(within)], capture_output=True,
                                text=True, timeout=60, cwd=ROOT)
        assert warned.returncode == 0, warned.stderr
        assert re.search(r"^sidecar: attention : .* dépôt git ", warned.stderr), warned.stderr
        assert str(ROOT) in warned.stderr
    finally:
        shutil.rmtree(within, ignore_errors=True)


def banner_tokens(server: ServeProcess) -> tuple[str, str]:
    """The GM's and the players' tokens as ``serve`` printed them."""
    text = "".join(server.lines)
    gm = re.search(r"MJ +: .*--role gm --token (\S+)", text)
    player = re.search(r"Joueur .*--token (\S+)", text)
    assert gm and player, text
    return gm.group(1), player.group(1)


def test_default_tokens_survive_a_restart(tmp_path):
    journal = tmp_path / "soirée.db"
    with ServeProcess("--db", str(journal), tokens=False) as first:
        gm_token, player_token = banner_tokens(first)
        seat = ["--url", first.url, "--table", "demo"]
        assert sidecar("roll", "bloodlust", "pool=3", "--token", player_token,
                       *seat).returncode == 0
        assert first.stop() == 0
    kept = journal.with_name("soirée.db.tokens")
    assert kept.stat().st_mode & 0o777 == 0o600  # secrets: the owner's only
    assert f"jetons : gardés dans {kept}" in "".join(first.lines)

    with ServeProcess("--db", str(journal), tokens=False) as again:
        # Printed again, the same: every GM and shared link made before still joins.
        assert banner_tokens(again) == (gm_token, player_token)
        listed = sidecar("seat", "list", "--url", again.url, "--table", "demo",
                         "--token", gm_token)
        assert listed.returncode == 0, listed.stderr
        rolled = sidecar("roll", "bloodlust", "pool=3", "--url", again.url, "--table",
                         "demo", "--token", player_token)
        assert rolled.returncode == 0, rolled.stderr
        assert again.stop() == 0

    # A token given wins for that run; the file keeps its own for the next.
    with ServeProcess("--db", str(journal), "--gm-token", "le-mj-de-ce-soir",
                      tokens=False) as given:
        assert banner_tokens(given) == ("le-mj-de-ce-soir", player_token)
        assert given.stop() == 0
    assert json.loads(kept.read_text()) == {"gm_token": gm_token,
                                            "player_token": player_token}

    # A journal in memory forgets everything at stop: said, and no file.
    with ServeProcess("--db", ":memory:", tokens=False, cwd=tmp_path) as memory:
        assert "jetons : nouveaux à chaque démarrage" in "".join(memory.lines)
    assert [path.name for path in tmp_path.glob("*.tokens")] == ["soirée.db.tokens"]


def test_an_unreadable_tokens_file_stops_serve_in_one_line(tmp_path):
    journal = tmp_path / "t.db"
    journal.with_name("t.db.tokens").write_text("{pas du json")
    stopped = subprocess.run([*SIDECAR, "serve", "--port", "0", "--db", str(journal)],
                             capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert stopped.returncode == 1
    assert stopped.stderr.count("\n") == 1 and "Traceback" not in stopped.stderr
    assert "t.db.tokens" in stopped.stderr and "supprimez-le" in stopped.stderr
    assert journal.with_name("t.db.tokens").read_text() == "{pas du json"  # kept as it was
