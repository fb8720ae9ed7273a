"""`sidecar history` as a GM reads it (issue 29, re-run): a roll prints what it changed
(spent, and the values it left), not the whole sheet; an epoch event says what it is.
Real `sidecar` processes against a real `sidecar serve --dice provable`."""

from __future__ import annotations

import re
from pathlib import Path

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
        assert re.search(r"^#\d+ époque de dés n° 1 close : \d+ événements?, graine révélée$",
                         out, re.M), out
        assert "suivante : 2, engagement " in out, out
        # No empty event line: the epoch says it opened, with its commitment.
        assert not re.search(r"^#\d+\s*$", out, re.M), out
        assert re.search(r"^#1 époque de dés n° 1 ouverte, engagement [0-9a-f]{12}…$", out,
                         re.M), out


def test_an_epoch_ended_by_a_restart_says_plainly_what_it_held(tmp_path: Path):
    """A restart with other settings ends the epoch it finds: one opened by the last
    welcome and holding nothing reads « aucun événement », not "ended, 0 events"."""
    db = str(tmp_path / "t.db")
    gm = ["--table", "rest", "--token", GM_TOKEN, "--name", "Morgane", "--role", "gm"]
    with ServeProcess("--db", db, "--dice", "provable") as server:
        assert sidecar("history", "--url", server.url, *gm).returncode == 0  # opens epoch 1
        server.stop()
    with ServeProcess("--db", db, "--dice", "provable", "--allow-player-dice") as server:
        made = sidecar("seat", "add", "Léa", "--no-qr", "--url", server.url, *gm)
        assert made.returncode == 0, made.stderr
        assert sidecar("epoch", "end", "--url", server.url, *gm).returncode == 0
        said = {locale: sidecar("history", "--url", server.url, "--locale", locale, *gm)
                for locale in ("fr", "en")}
    assert all(done.returncode == 0 for done in said.values()), said
    french, english = said["fr"].stdout, said["en"].stdout
    assert re.search(r"^#2 époque de dés n° 1 close : aucun événement, graine révélée$",
                     french, re.M), french
    assert re.search(r"^#2 dice epoch 1 closed: no events, seed revealed$", english, re.M), english
    # The next one held the seat: its count says so.
    assert re.search(r"^#4 époque de dés n° 2 close : 1 événement, graine révélée$",
                     french, re.M), french
    assert re.search(r"^#4 dice epoch 2 closed: 1 event, seed revealed$", english, re.M), english
    assert re.search(r"^#1 dice epoch 1 opened, commitment [0-9a-f]{12}…$", english, re.M)
