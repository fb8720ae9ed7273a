"""The command line of a GM's evening, in the reader's words (issue 29, third re-run's CLI
items A–F): params and choices by their labels, one language per ``--locale`` (``seat``,
``sheet``, ``ask``, ``session`` take it before their sub-command too), French agreement and
punctuation, a sheet said once, the help's example runs, and an open roll's ``react`` hint
only to whoever may decide it, runnable as printed. Real ``sidecar`` processes against a
real ``sidecar serve``."""

from __future__ import annotations

import os
import re
import shlex
import subprocess

import pytest

from tests.helpers import GM_TOKEN, Peer, run
from tests.support.serve import (
    ROOT,
    SIDECAR,
    ServeProcess,
    gm_options,
    luck_serve,
    seat_token,
    sidecar,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with luck_serve(tmp_path_factory.mktemp("plugins")) as serving:
        yield serving


gm_of = gm_options


def ok(*args: str, **kwargs) -> subprocess.CompletedProcess:
    done = sidecar(*args, **kwargs)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


class Watcher:
    """``sidecar watch`` running beside the test: its lines as they come."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen([*SIDECAR, "watch", *args], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
        first = self.process.stdout.readline()
        assert first.startswith("table "), (first, self.process.stderr.read())

    def finish(self) -> tuple[str, str]:
        """What it printed once its ``--count`` outcomes came (it ends by itself)."""
        out, err = self.process.communicate(timeout=30)
        assert self.process.returncode == 0, err
        return out, err


def test_ask_params_and_a_late_watchers_choice_read_as_labels(server):
    gm = gm_of(server, "libelles")
    ok("seat", "add", "Alice", "--no-qr", *gm)
    ok("sheet", "set", "Ysolde", "--ruleset", "oweens", "--owner", "Alice", *gm)
    opened = ok("ask", "open", "Ysolde", "--ruleset", "oweens", "characteristic=ECL",
                "difficulty=3", "collaborators=2", *gm).stdout
    words = "Caractéristique ECL · Difficulté 3 · Collaborateurs 2"
    assert words in opened and "characteristic=" not in opened, opened
    history = ok("history", *gm).stdout
    assert words in history and "difficulty=" not in history, history
    english = ok("history", "--locale", "en", *gm).stdout
    assert "Characteristic ECL · Difficulty 3 · Collaborators 2" in english, english
    # A watch started after the open roll still names the choice taken by its label.
    rolled = ok("roll", "luck", "second_chance=true", "target=12", "--no-ask", *gm).stdout
    roll = re.search(r"react \S*?(\b[0-9a-f]{8,}\S*) ", rolled).group(1)
    watcher = Watcher("--count", "1", *gm)
    ok("react", roll, "keep", *gm)
    out, _ = watcher.finish()
    assert "choix : Garder" in out and "choix : keep" not in out, out


def test_a_games_errors_name_fields_in_plain_french(server):
    gm = gm_of(server, "erreurs-bl")
    ok("sheet", "set", "Kor", "--ruleset", "bloodlust", 'groupements={"Mêlée": 5}', *gm)
    missing = sidecar("roll", "bloodlust", "skill=Tir", "--character", "Kor", *gm)
    assert missing.returncode == 1, missing.stdout
    assert "groupements" not in missing.stderr and "Mêlée" in missing.stderr, missing.stderr
    for locale, expected, wrong in (("fr", "doit être oui ou non", "true ou false"),
                                    ("en", "must be true or false", "oui ou non")):
        flag = sidecar("roll", "bloodlust", "pool=3", "tense=peut-être", "--locale", locale,
                       *gm)
        assert flag.returncode == 1, flag.stdout
        assert expected in flag.stderr and wrong not in flag.stderr, flag.stderr


def test_one_language_and_locale_before_the_sub_command(server):
    gm = gm_of(server, "une-langue")
    alice = seat_token(gm, "Alice")
    base = ["--url", server.url, "--table", "une-langue", "--token", alice]
    for command, note, other in ((["history"], "vue de joueur", "a player's view"),
                                 (["history", "--locale", "en"], "a player's view",
                                  "vue de joueur")):
        done = ok(*command, *base)
        assert note in done.stderr and other not in done.stderr, done.stderr
    for command, english in ((["seat", "--locale", "en", "list"], "characters: "),
                             (["sheet", "--locale", "en", "list"], "no characters"),
                             (["ask", "--locale", "en", "list"], "no open ask"),
                             (["session", "--locale", "en", "start"], "new session 1")):
        done = ok(*command, *gm)
        assert english in done.stdout, (command, done.stdout)
    # Said once after the sub-command too: that one counts.
    assert "aucune demande" in ok("ask", "--locale", "en", "list", "--locale", "fr",
                                  *gm).stdout
    assert "--locale" in ok("seat", "--help").stdout


def test_french_agreement_and_punctuation(server, tmp_path):
    gm = gm_of(server, "accords")
    tokens = {seat: seat_token(gm, seat) for seat in ("Alice", "Tom")}
    opened = ok("ask", "open", "Alice", "Tom", "--ruleset", "luck", "target=4", "--opposed",
                *gm).stdout
    ask = re.search(r"opposition (\S+) :", opened).group(1)
    base = ["--url", server.url, "--table", "accords"]
    ok("answer", ask, "--dice", "6", *base, "--token", tokens["Alice"], "--name", "Alice")
    last = ok("answer", ask, "--dice", "2", *base, "--token", tokens["Tom"],
              "--name", "Tom").stdout
    assert re.search(r"marge -?\d+ ; Tom", last), last
    db = tmp_path / "t.db"
    with ServeProcess("--db", str(db), dice=None) as serving:
        ok("roll", "dice", "expr=1d6", "--url", serving.url, "--table", "t", "--token",
           GM_TOKEN, "--role", "gm")
        ok("epoch", "end", "--url", serving.url, "--table", "t", "--token", GM_TOKEN,
           "--role", "gm")
    ok("export", "--db", str(db), "--table", "t", "-o", str(tmp_path / "t.jsonl"))
    checked = ok("verify", str(tmp_path / "t.jsonl")).stdout
    assert "1 jet vérifié (époque 1)" in checked, checked


def test_a_sheet_is_said_once_and_a_roll_says_what_changed(server):
    gm = gm_of(server, "fiches")
    made = ok("sheet", "set", "Aengus", "--ruleset", "oweens", "pep=3", "--no-owner",
              *gm).stdout
    assert made.count("Peps (PEP)") == 1 and "— →" not in made, made
    assert "Peps (PEP) 3" in made and "Bagages" not in made and "fiche :" not in made, made
    changed = ok("sheet", "set", "Aengus", "ecl=3", *gm).stdout
    assert "Éclate (ECL) 2 → 3" in changed and "Peps" not in changed, changed
    ok("sheet", "set", "Ervald", "--ruleset", "luck", "--no-owner", *gm)
    rolled = ok("roll", "luck", "--character", "Ervald", "--dice", "6", *gm).stdout
    assert "dépensé : Chance −1 → 2" in rolled and "fiche :" not in rolled, rolled


def test_the_ask_helps_example_runs(server):
    shown = " ".join(ok("ask", "--help").stdout.split())  # (its lines unwrapped)
    example = re.search(r"sidecar (ask open .*?) cancel ", shown)
    assert example, shown
    words = shlex.split(example.group(1))
    gm = gm_of(server, "exemple")
    # Its names: a seat and another seat's character, as a GM's table has them.
    names = [word for word in words[2:] if not word.startswith("-") and "=" not in word
             and word != words[words.index("--ruleset") + 1]]
    ruleset = words[words.index("--ruleset") + 1]
    ok("seat", "add", names[0], "--no-qr", *gm)
    ok("seat", "add", "Bob", "--no-qr", *gm)
    ok("sheet", "set", names[1], "--ruleset", ruleset, "--owner", "Bob", *gm)
    # The seat plays a character of the game too: an ask is checked as its answers would
    # be, and a seat without one could not answer a characteristic's roll (issue 29).
    ok("sheet", "set", "Fiona", "--ruleset", ruleset, "--owner", names[0], *gm)
    ok(*words, *gm)


def test_the_react_hint_goes_to_who_may_decide_and_runs_as_printed(server):
    gm = gm_of(server, "indice")
    tokens = {seat: seat_token(gm, seat) for seat in ("Alice", "Bob")}
    base = ["--url", server.url, "--table", "indice"]
    onlooker = Watcher("--count", "1", *base)
    bob = Watcher("--count", "1", *base, "--token", tokens["Bob"], "--name", "Bob")
    game_master = Watcher("--count", "1", *gm)
    env = {**os.environ, "SIDECAR_TOKEN": tokens["Alice"]}
    rolled = ok("roll", "luck", "second_chance=true", "target=12", "--no-ask", *base,
                "--name", "Alice", env=env).stdout
    hint = re.search(r"décider : (.+)$", rolled, re.M).group(1)
    assert tokens["Alice"] not in hint, hint  # from the environment: left to it again
    for watcher in (onlooker, bob):
        out, _ = watcher.finish()
        assert "CHOIX" not in out and "décider" not in out, out
    out, _ = game_master.finish()
    assert re.search(r"décider : .*--role gm", out), out
    # Open, a GM's history says how to decide it; as printed, with the roller's
    # environment, it decides the roll; decided, no history tells to decide it any more.
    assert "décider :" in ok("history", *gm).stdout
    words = shlex.split(hint.replace("CHOIX", "keep"))
    decided = subprocess.run([*SIDECAR, *words[1:]], capture_output=True, text=True,
                             cwd=ROOT, env=env, timeout=30)
    assert decided.returncode == 0, decided.stderr
    assert "choix : Garder — par Alice" in decided.stdout, decided.stdout
    for reader in (gm, [*base, "--name", "Alice", "--role", "player"]):
        history = sidecar("history", *reader, env=env)
        assert history.returncode == 0 and "Relancer" in history.stdout, history.stderr
        assert "décider" not in history.stdout, history.stdout


def test_the_docs_show_what_runs(server):
    """docs/GM.md's sample `watch` is what `watch` prints; docs/FOUNDRY.md's `serve` runs
    as shown from a checkout and keeps the tokens serve keeps across restarts."""
    gm_guide = (ROOT / "docs" / "GM.md").read_text()
    tokens = seat_token(gm_of(server, "demo"), "Alice")
    watching = subprocess.Popen([*SIDECAR, "watch", "--url", server.url, "--table", "demo",
                                 "--token", tokens], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        head = watching.stdout.readline().rstrip("\n")
        note = watching.stderr.readline().rstrip("\n")
    finally:
        watching.terminate()
        watching.communicate(timeout=30)
    assert re.sub(r"\(seq \d+\)", "(seq 0)", head) in gm_guide.splitlines(), head
    assert note in gm_guide.splitlines(), note
    foundry = (ROOT / "docs" / "FOUNDRY.md").read_text()
    install = foundry.split("## 1. Installer", 1)[1].split("\n## ", 1)[0]
    serves = [line.strip() for block in re.findall(r"```sh\n(.*?)```", install, re.S)
              for line in block.splitlines() if " serve " in line]
    assert serves and all(line.startswith(".venv/bin/sidecar serve ") for line in serves)
    assert not any("--player-token" in line or "--gm-token" in line for line in serves)


def test_refused_modes_are_named_as_the_page_and_the_command_line_name_them(server):
    """Issue 29: « ne peut pas être « self » … (« gm » le cache…) » named two modes by
    their keys: the page's labels (strings.js ``mode.self``/``mode.gm``) in each locale,
    as the roll's character refusal and the ask's say them."""
    gm = gm_of(server, "modes")
    ok("sheet", "set", "Kor", "--ruleset", "bloodlust", *gm)
    said = {}
    for locale in ("fr", "en"):
        done = sidecar("roll", "bloodlust", "pool=3", "--character", "Kor", "--mode", "self",
                       "--locale", locale, *gm)
        assert done.returncode == 1, done.stdout
        said[locale] = done.stderr
    assert "« Moi seul »" in said["fr"] and "« Moi et le MJ »" in said["fr"], said["fr"]
    assert '"Only me"' in said["en"] and '"Me and the GM"' in said["en"], said["en"]

    async def ask() -> dict[str, str]:
        refusals = {}
        for locale in ("fr", "en"):
            peer = await Peer.connect(server.url)
            await peer.join("modes", "Morgane", "gm", token=GM_TOKEN, locale=locale)
            refused = await peer.request({"type": "ask", "id": "a", "op": "open",
                                          "to": ["Kor"], "ruleset": "bloodlust",
                                          "params": {"pool": 3}, "mode": "self"})
            assert refused["code"] == "invalid_params", refused
            refusals[locale] = refused["message"]
            await peer.close()
        return refusals
    refusals = run(ask())
    assert "« Moi seul »" in refusals["fr"] and '"Only me"' in refusals["en"], refusals
    for text in (*said.values(), *refusals.values()):
        assert "self" not in text and "'gm'" not in text and "« gm »" not in text, text
    # A wrong token names the role as people say it, not by its key.
    for locale, wanted in (("fr", "jeton incorrect pour le rôle de MJ"),
                           ("en", "wrong token for the GM role")):
        wrong = sidecar("roll", "bloodlust", "pool=3", "--url", server.url, "--table",
                        "modes", "--role", "gm", "--token", "pas-le-bon", "--locale", locale)
        assert wanted in wrong.stderr and "'gm'" not in wrong.stderr, wrong.stderr
