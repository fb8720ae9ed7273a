"""The command line shows a reserve as the page does (issue 29): what is left of the
score, « Réserve ECL 3 → 2 / 3 », not its internal gap « Réserve ECL (0 = pleine) 0 → -1 »
— in a sheet's change, ``sheet list``, a roll's spend line and ``history``; ``sheet set``'s
help says how a reserve is written. Real ``sidecar`` processes against ``sidecar serve``."""

from __future__ import annotations

import re

from tests.helpers import GM_TOKEN
from tests.support.serve import ServeProcess, sidecar


def _lines(text: str, start: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith(start)]


def test_reserves_read_as_what_is_left_of_the_score():
    with ServeProcess("--db", ":memory:", "--allow-player-dice") as server:
        gm = ["--url", server.url, "--table", "t", "--role", "gm", "--token", GM_TOKEN]
        made = sidecar("sheet", "set", "Aengus", "--ruleset", "oweens", "ecl=3", "enc=3",
                       "bonbonus=1", *gm)
        assert made.returncode == 0, made.stderr
        assert "Réserve ECL 3 / 3" in made.stdout, made.stdout
        taken = sidecar("sheet", "adjust", "Aengus", "reserve_ecl=-1", *gm)
        assert "Réserve ECL 3 → 2 / 3" in taken.stdout, taken.stdout
        listed = sidecar("sheet", "list", *gm)
        assert "Réserve ECL 2 / 3" in listed.stdout, listed.stdout
        # A lost contest takes a point of ENC's reserve: the spend line says what is left.
        lost = sidecar("roll", "oweens", "characteristic=ENC", "difficulty=2", "contest=true",
                       "--character", "Aengus", "--dice", "4,2,1", "--no-ask", *gm)
        assert lost.returncode == 0, lost.stderr
        assert "dépensé : Réserve ENC −1 → 2 / 3" in lost.stdout, lost.stdout
        english = sidecar("sheet", "adjust", "Aengus", "reserve_ecl=-1", "--locale", "en", *gm)
        assert "ECL reserve 2 → 1 / 3" in english.stdout, english.stdout
        history = sidecar("history", *gm).stdout
        assert _lines(history, "Réserve ECL") == ["Réserve ECL 3 → 2 / 3",
                                                  "Réserve ECL 2 → 1 / 3"], history
        for text in (made.stdout, taken.stdout, listed.stdout, lost.stdout, history,
                     english.stdout):
            assert "pleine" not in text and "= full" not in text, text
            assert not re.search(r"(Réserve \w+|\w+ reserve) -\d", text), text
    # How a reserve is written on the command line: said in the help, in each language.
    helped = sidecar("sheet", "set", "--help")
    assert "reserve_ecl=-1" in " ".join(helped.stdout.split()), helped.stdout
    helped = sidecar("sheet", "set", "--help", "--locale", "en")
    assert "reserve_ecl=-1" in " ".join(helped.stdout.split()), helped.stdout
