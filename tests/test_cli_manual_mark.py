"""Physical dice marked in the terminal (issue 29, replay 2): `sidecar roll --dice`, and
`history` read by another member, print « dés physiques — saisis par MJ » under the faces
the GM typed, in the reader's one language, and nothing of the kind under drawn dice.
Real `sidecar` processes against a real `sidecar serve`, in both dice modes."""

from __future__ import annotations

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
        assert re.search(r"^   dés physiques — saisis par MJ$", typed.stdout, re.M), typed.stdout
        drawn = sidecar("roll", "bloodlust", "pool=3", *gm)
        assert drawn.returncode == 0, drawn.stderr
        assert "physiques" not in drawn.stdout, drawn.stdout
        lea = ["--url", server.url, "--table", "phys", "--token", PLAYER_TOKEN, "--name",
               "Léa", "--role", "player"]
        history = sidecar("history", *lea)
        assert history.returncode == 0, history.stderr
        assert history.stdout.count("dés physiques — saisis par MJ") == 1, history.stdout
        english = sidecar("history", "--locale", "en", *lea)
        assert english.returncode == 0, english.stderr
        assert english.stdout.count("physical dice — entered by MJ") == 1, english.stdout
        assert "physiques" not in english.stdout, english.stdout
