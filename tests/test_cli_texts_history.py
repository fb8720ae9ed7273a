"""The command line's texts (issue 29, items 4–6 of the texts' leftovers), a real
``sidecar history`` against a real server: the session is « séance » in French as on the
page, a GM's roll as a character names the character, and a roll decided more than a
page (500 events) later is not shown as still to decide."""

from __future__ import annotations

import re

import pytest

from sidecar.testing import TableServer
from tests import sheet_plugin
from tests.support.plugins import ALWAYS_OPEN
from tests.support.serve import sidecar

#: A `luck` roll that always succeeds (a d6 with skill 0 reaches 1): it opens nothing.
PLAIN = {"target": 1, "skill": 0}


@pytest.fixture(scope="module")
def table():
    # The 500 events are made by a client in this process (fast); only `history` runs as
    # the command a GM types.
    with TableServer([sheet_plugin], rate_limit=0) as server:
        gm = server.client("MJ")
        yield server, gm


def history(server, *extra):
    shown = sidecar("history", "--url", server.url, "--table", "test", "--token",
                    server.gm_token, "--role", "gm", "--name", "MJ", *extra, timeout=60)
    assert shown.returncode == 0, shown.stderr
    return shown.stdout


def blocks(text):
    """Each event's lines, by its seq."""
    found = {}
    for block in re.split(r"\n(?=#\d+ )", text.strip()):
        found[int(re.match(r"#(\d+)", block).group(1))] = block
    return found


def test_a_roll_decided_pages_later_is_not_to_decide_and_one_still_open_is(table):
    server, gm = table
    decided_later = gm.roll("luck", ALWAYS_OPEN, label="Crochetage")
    for _ in range(520):  # its decision comes more than a history page (500) later
        gm.roll("luck", PLAIN)
    gm.react(decided_later, "keep")
    still_open = gm.roll("luck", ALWAYS_OPEN, label="Escalade")
    shown = blocks(history(server))
    assert len(shown) > 520
    assert "décider" in shown[still_open["seq"]], shown[still_open["seq"]]
    assert "décider" not in shown[decided_later["seq"]], shown[decided_later["seq"]]


def test_a_session_is_a_seance_in_french_and_a_session_in_english(table):
    server, gm = table
    started = gm.start_session()
    french = blocks(history(server))[started["seq"]]
    english = blocks(history(server, "--locale", "en"))[started["seq"]]
    assert re.match(rf"#{started['seq']} nouvelle séance \d+ — par MJ$", french), french
    assert re.match(rf"#{started['seq']} new session \d+ — by MJ$", english), english


def test_a_gms_roll_as_a_character_names_the_character(table):
    server, gm = table
    gm.add_seat("Aengus")
    gm.set_sheet("Aengus", "luck", {"luck": 3}, owner="Aengus")
    rolled = gm.roll("luck", {**PLAIN, "cost": 0}, label="Escalade", character="Aengus")
    shown = blocks(history(server))[rolled["seq"]]
    assert shown.startswith(f"#{rolled['seq']} ✓ Aengus — Escalade : "), shown
    assert "MJ —" not in shown
    english = blocks(history(server, "--locale", "en"))[rolled["seq"]]
    assert re.match(rf"#{rolled['seq']} \S+ Aengus — Escalade: ", english), english
