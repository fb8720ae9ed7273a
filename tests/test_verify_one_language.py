"""``sidecar verify`` in one language a run (issue 29, item 3 of the texts' leftovers):
numbers agreed with their nouns (« pour 1 décision », not « 1 décisions »), a seat is a
« place » as the page says, and what does not check — ÉCHEC, NON VÉRIFIÉ — says why in
the run's ``--locale``: French by default, English with ``--locale en``, never both. An
export of a real ``sidecar serve`` with provable dice, tampered with as a forger would."""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers import GM_TOKEN
from tests.support.serve import ServeProcess, sidecar

#: Words that only an English line would hold, and only a French one.
ENGLISH = re.compile(r"\b(the|its|is|not|was|were|roll|rolls|field|FAILED|checked|"
                     r"decisions?|answers?)\b")
FRENCH = re.compile(r"\b(le|la|les|ses|sa|pas|jet|jets|champ|ÉCHEC|vérifiés?|décisions?|"
                    r"réponses?|règles)\b")


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    """An export of a table with two rolls, one of them opened and decided once."""
    folder = tmp_path_factory.mktemp("verify")
    db, out = folder / "t.db", folder / "t.jsonl"
    with ServeProcess("--db", str(db), dice=None) as serving:  # provable: serve's default
        gm = ["--url", serving.url, "--table", "t", "--token", GM_TOKEN, "--role", "gm"]
        assert sidecar("roll", "dice", "expr=2d6", *gm).returncode == 0
        # The ladder at level 1 never reaches 13: the failed pair opens; Chance sacrificed, it
        # succeeds (one decision).
        opened = sidecar("roll", "ladder", "level=1", "difficulty=13", "--no-ask", "--json",
                         *gm)
        assert opened.returncode == 0, opened.stderr
        roll = json.loads(opened.stdout)["roll"]
        decided = sidecar("react", roll, "sacrifice", *gm)
        assert decided.returncode == 0, decided.stdout + decided.stderr
        assert sidecar("epoch", "end", *gm).returncode == 0  # its seed revealed
    assert sidecar("export", "--db", str(db), "--table", "t", "-o", str(out)).returncode == 0
    return out


def verify(path, *extra):
    return sidecar("verify", str(path), *extra, timeout=60)


def tampered(export, path, change):
    """``export`` with ``change`` made to its first `dice` roll, written to ``path``."""
    events = [json.loads(line) for line in export.read_text().splitlines()]
    first = next(e for e in events if e.get("type") == "outcome" and e["ruleset"] == "dice")
    change(first)
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path, first["seq"]


def test_one_decision_is_agreed_and_a_seat_is_a_place(export):
    french = verify(export)
    assert french.returncode == 0, french.stdout + french.stderr
    assert ("qui a lancé et en quel mode : contrôlé pour 1 décision ou réponse (d'après le "
            "jet ou la demande qu'elle suit)" in french.stdout), french.stdout
    assert "1 décisions" not in french.stdout and "siège" not in french.stdout
    assert "seuls la place, le propriétaire du personnage" in french.stdout, french.stdout
    english = verify(export, "--locale", "en")
    assert ("who rolled and in which mode: checked for 1 decision or answer (against the "
            "roll or the ask it follows)" in english.stdout), english.stdout


def test_what_was_checked_and_what_could_not_be_are_said_plainly(export):
    """« N jets vérifiés » is about the dice: the rolls whose author and mode are the
    journal's word are said to have their dice checked, not « NON PROUVÉS » beside them;
    no raw key (« (by) »), no « elle » that refers to nothing."""
    french = verify(export).stdout
    assert ("pour les 2 autres jets, leurs dés sont vérifiés, mais qui les a lancés et en "
            "quel mode ne peut pas être prouvé : c'est la parole du journal") in french, french
    for wrong in ("(by)", "NON PROUV", "ce qu'elle a reçu", "SON_JOURNAL"):
        assert wrong not in french, (wrong, french)
    assert "--log JOURNAL_DU_JOUEUR` compare l'export à ce que ce joueur a reçu" in french
    english = verify(export, "--locale", "en").stdout
    assert ("for the 2 other rolls, the dice are checked, but who rolled them and in which "
            "mode cannot be proven: that is the journal's word") in english, english
    for wrong in ("(by)", "NOT PROVEN", "what she received", "HER_LOG"):
        assert wrong not in english, (wrong, english)


@pytest.mark.parametrize("what", ["dice", "result"])
def test_a_failed_check_says_why_in_the_runs_one_language(export, tmp_path, what):
    def change(event):
        if what == "dice":
            event["dice"] = event["dice"][:1]  # a die taken out
        else:
            event["result"]["total"] += 1  # the rules' sum written otherwise

    path, seq = tampered(export, tmp_path / "forged.jsonl", change)
    french, english = verify(path), verify(path, "--locale", "en")
    assert french.returncode == english.returncode == 1
    said_fr = next(line for line in french.stdout.splitlines() if "ÉCHEC" in line)
    said_en = next(line for line in english.stdout.splitlines() if "FAILED" in line)
    assert said_fr.startswith(f"ÉCHEC : seq {seq} : jet "), said_fr
    assert f", champ {what}" in said_fr, said_fr
    assert said_en.startswith(f"FAILED: seq {seq}: roll "), said_en
    assert not ENGLISH.search(said_fr), said_fr
    assert not FRENCH.search(said_en), said_en


def test_what_is_not_checked_is_said_in_the_runs_one_language(export):
    french = verify(export, "--no-rerun")
    english = verify(export, "--no-rerun", "--locale", "en")
    assert french.returncode == english.returncode == 4, french.stdout + french.stderr
    listed_fr = [line for line in french.stdout.splitlines() if line.startswith("  seq ")]
    listed_en = [line for line in english.stdout.splitlines() if line.startswith("  seq ")]
    assert listed_fr and len(listed_fr) == len(listed_en), (french.stdout, english.stdout)
    assert any("pas rejoué (--no-rerun)" in line for line in listed_fr), listed_fr
    for line in listed_fr:
        assert not ENGLISH.search(line), line
    for line in listed_en:
        assert not FRENCH.search(line), line
    assert "NON VÉRIFIÉ" in french.stdout and "NOT CHECKED" in english.stdout
