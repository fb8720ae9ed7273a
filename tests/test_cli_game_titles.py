"""The command line names a game as the page does, by its title (« O'Ween's », « Seuil »),
never by its plugin key (``oweens``, ``seuil``), in the lines about asks and characters
(issue 29, a newcomer's replay: « demande bfd78843e73f : oweens « Escalader le mur » »).
Real ``sidecar`` processes against a real ``sidecar serve``."""

from __future__ import annotations

import pytest

from tests.support.serve import ServeProcess, gm_options, sidecar


@pytest.fixture(scope="module")
def server():
    with ServeProcess("--db", ":memory:") as running:
        yield running


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_asks_characters_and_history_name_the_game_by_its_title(server, locale):
    gm = [*gm_options(server, f"titres-{locale}"), "--locale", locale]
    made = sidecar("sheet", "set", "Aengus", "--ruleset", "oweens", "--no-owner", *gm)
    assert made.returncode == 0, made.stderr
    seat = sidecar("seat", "add", "Léa", "--no-qr", *gm)
    assert seat.returncode == 0, seat.stderr
    asked = sidecar("ask", "open", "--ruleset", "seuil", "--label", "Escalader le mur",
                    "Léa", "threshold=10", "level=2", *gm)
    assert asked.returncode == 0, asked.stderr
    listed = sidecar("sheet", "list", *gm)
    history = sidecar("history", *gm)
    asks = sidecar("ask", "list", *gm)
    for done in (asked, listed, history, asks):
        assert done.returncode == 0, done.stderr
    said = asked.stdout + listed.stdout + history.stdout + asks.stdout
    assert "O'Ween's" in listed.stdout and "O'Ween's" in history.stdout, said
    assert "Seuil" in asked.stdout and "Seuil" in history.stdout, said
    for key in ("(oweens", ": seuil", ": oweens"):
        assert key not in said, said
