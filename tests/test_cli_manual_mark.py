"""Physical dice marked in the terminal (issue 29, replay 2): `sidecar roll --dice`, and
`history` read by another member, print « dés physiques (tous) — saisis par MJ » under the faces
the GM typed, in the reader's one language, and nothing of the kind under drawn dice; a
decision that drew new faces on a typed roll names the typed ones only (« dés 1–2 saisis
par MJ », issue 29 follow-up).
Real `sidecar` processes against a real `sidecar serve`, in both dice modes."""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers import GM_TOKEN, PLAYER_TOKEN
from tests.support.serve import ServeProcess, sidecar


@pytest.mark.parametrize("dice", ["secure", "provable"])
def test_roll_and_history_say_who_typed_the_faces(dice: str) -> None:
    with ServeProcess("--db", ":memory:", "--dice", dice) as server:
        gm = ["--url", server.url, "--table", "phys", "--token", GM_TOKEN, "--name", "MJ",
              "--role", "gm"]
        typed = sidecar("roll", "bloodlust", "pool=3", "--dice", "3,5,6", *gm)
        assert typed.returncode == 0, typed.stderr
        assert re.search(r"^   dés physiques \(tous\) — saisis par MJ$", typed.stdout,
                         re.M), typed.stdout
        drawn = sidecar("roll", "bloodlust", "pool=3", *gm)
        assert drawn.returncode == 0, drawn.stderr
        assert "physiques" not in drawn.stdout, drawn.stdout
        lea = ["--url", server.url, "--table", "phys", "--token", PLAYER_TOKEN, "--name",
               "Léa", "--role", "player"]
        history = sidecar("history", *lea)
        assert history.returncode == 0, history.stderr
        assert history.stdout.count("dés physiques (tous) — saisis par MJ") == 1, history.stdout
        english = sidecar("history", "--locale", "en", *lea)
        assert english.returncode == 0, english.stderr
        assert english.stdout.count("physical dice (all) — entered by MJ") == 1, english.stdout
        assert "physiques" not in english.stdout, english.stdout


def test_a_decision_drawing_new_faces_names_only_the_typed_ones() -> None:
    # The ladder at level 1 against 60 always fails and opens; its reroll draws a new pair
    # and shows both pairs, the typed one first (tests/test_manual_marks.py).
    with ServeProcess("--db", ":memory:") as server:
        gm = ["--url", server.url, "--table", "phys2", "--token", GM_TOKEN, "--name", "MJ",
              "--role", "gm"]
        typed = sidecar("roll", "ladder", "level=1", "difficulty=60", "--dice", "1,2",
                        "--json", *gm)
        assert typed.returncode == 0, typed.stderr
        opened = json.loads(typed.stdout)
        assert opened["open"] is True, opened
        rerolled = sidecar("react", opened["roll"], "reroll", *gm)
        assert rerolled.returncode == 0, rerolled.stderr
        assert re.search(r"^   dés 1–2 saisis par MJ$", rerolled.stdout, re.M), rerolled.stdout
        assert "(tous)" not in rerolled.stdout and "physiques" not in rerolled.stdout
        lea = ["--url", server.url, "--table", "phys2", "--token", PLAYER_TOKEN, "--name",
               "Léa", "--role", "player"]
        english = sidecar("history", "--locale", "en", *lea)
        assert english.returncode == 0, english.stderr
        assert english.stdout.count("physical dice (all) — entered by MJ") == 1, english.stdout
        assert english.stdout.count("dice 1–2 typed by MJ") == 1, english.stdout
        assert "saisi" not in english.stdout, english.stdout


def test_two_typists_each_named_with_their_dice() -> None:
    # A player types the first pair, the GM decides a reroll typing the second: each named.
    with ServeProcess("--db", ":memory:", "--allow-player-dice") as server:
        lea = ["--url", server.url, "--table", "phys3", "--token", PLAYER_TOKEN, "--name",
               "Léa", "--role", "player"]
        typed = sidecar("roll", "ladder", "level=1", "difficulty=60", "--dice", "1,2",
                        "--json", *lea)
        assert typed.returncode == 0, typed.stderr
        opened = json.loads(typed.stdout)
        gm = ["--url", server.url, "--table", "phys3", "--token", GM_TOKEN, "--name", "MJ",
              "--role", "gm"]
        rerolled = sidecar("react", opened["roll"], "reroll", "--dice", "3,4", *gm)
        assert rerolled.returncode == 0, rerolled.stderr
        assert re.search(r"^   dés 1–2 saisis par Léa · dés 3–4 saisis par MJ$",
                         rerolled.stdout, re.M), rerolled.stdout
