"""`sidecar history` as a GM reads it (issue 29, re-run): a roll prints what it changed
(spent, and the values it left), not the whole sheet; an epoch event says what it is.
Real `sidecar` processes against a real `sidecar serve --dice provable`."""

from __future__ import annotations

import re

from tests.helpers import GM_TOKEN
from tests.support.serve import ServeProcess, sidecar


def test_history_prints_what_a_roll_changed_and_what_an_epoch_is():
    with ServeProcess("--db", ":memory:", "--dice", "provable") as server:
        gm = ["--url", server.url, "--table", "hist", "--token", GM_TOKEN, "--name",
              "Morgane", "--role", "gm"]
        made = sidecar("sheet", "set", "Aengus", "--ruleset", "oweens", "pep=2",
                       "--no-owner", *gm)
        assert made.returncode == 0, made.stderr
        rolled = sidecar("roll", "oweens", "characteristic=PEP", "difficulty=2",
                         "--character", "Aengus", *gm)
        assert rolled.returncode == 0, rolled.stderr
        ended = sidecar("epoch", "end", *gm)
        assert ended.returncode == 0, ended.stderr
        history = sidecar("history", *gm)
        assert history.returncode == 0, history.stderr
        out = history.stdout
        # The sheet is printed once, by its own event; the roll says what it spent.
        assert out.count("Peps (PEP)") == 1 and "fiche :" not in out, out
        assert "dépensé :" in out, out
        assert re.search(r"^#\d+ époque de dés 1 close après \d+ événements?, graine révélée$",
                         out, re.M), out
        assert "suivante : 2, engagement " in out, out
        # No empty event line: the epoch says it opened, with its commitment.
        assert not re.search(r"^#\d+\s*$", out, re.M), out
        assert re.search(r"^#1 époque de dés 1 ouverte, engagement [0-9a-f]{12}…$", out, re.M), out
