"""An O'Ween's cooperative answer says the free augmentation its collaborator gives, even
when it could raise no die (issue 29 follow-up: « Brady — La porte: 2D vs 3 », no sign
of the +1A the cooperation gave; the line now says « 2D+1A contre 3 »), and the
cooperation's line names a narrow success as the ruleset does (« Réussite de justesse »,
"Narrow success") in each reader's language — the command line's, and the web page's
(which said « (Réussite) » / "(Success)"). A real server; the faces are the players'
physical dice."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from sidecar.cli.labels import Labels
from sidecar.cli.render import format_outcome
from tests.helpers import Peer, run, running_server

BEST_TEXT = Path(__file__).resolve().parent / "js" / "best_text.mjs"


async def _cooperation():
    """A real server's cooperative O'Ween's ask: Brady (English), then Léa (French)."""
    async with running_server(allow_player_dice=True) as server:
        gm = await Peer.open(server)
        welcome = await gm.join("t", "MJ", "gm")
        peers = {}
        for name, locale in (("Brady", "en"), ("Léa", "fr")):
            token = (await gm.request({"type": "seat", "id": f"s-{name}", "op": "add",
                                       "name": name}))["token"]
            peers[name] = await Peer.open(server)
            await peers[name].join("t", name, token=token, locale=locale)
        ask = await gm.request({"type": "ask", "id": "coop", "op": "open",
                                "to": ["Brady", "Léa"], "ruleset": "oweens",
                                "params": {"dice": 2, "difficulty": 3},
                                "label": "La porte", "cooperative": True})
        assert ask["type"] == "ask", ask
        # 6 and 2: one +1 step raises neither to a new success (2 needs two).
        brady = await peers["Brady"].roll("oweens", {}, answers=ask["ask"], dice=[6, 2])
        # 4 and 5: the free +1 makes the 5 a 6, three successes against 3: narrow.
        lea = await peers["Léa"].roll("oweens", {}, answers=ask["ask"], dice=[4, 5])
        return welcome, brady, lea


def test_a_cooperative_answer_shows_the_free_augmentation_it_could_not_use():
    welcome, brady, lea = run(_cooperation())
    assert brady["params"]["collaborators"] == 1, brady["params"]
    assert brady["result"]["augmentations_used"] == 0, brady["result"]
    assert brady["text"] == "Brady — La porte: 2D+1A vs 3: 2 successes, failure margin 1", \
        brady["text"]
    assert lea["text"].startswith("Léa — La porte : 2D+1A contre 3 : 3 réussites"), lea["text"]
    assert lea["result"]["kind"] == "narrow", lea["result"]
    for locale, narrow in (("fr", "Réussite de justesse"), ("en", "Narrow success")):
        shown = format_outcome(lea, locale, labels=Labels(welcome, locale))
        line = next(row for row in shown.splitlines()
                    if "coopération" in row or "cooperation" in row)
        assert f"Léa {narrow}" in line, line


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_pages_cooperation_line_names_a_narrow_success_as_the_ruleset_does():
    _, _, lea = run(_cooperation())
    printed = subprocess.run(["node", str(BEST_TEXT), json.dumps(lea["cooperation"])],
                             capture_output=True, text=True, timeout=60, check=True)
    french, english = printed.stdout.splitlines()
    assert french == "Le meilleur jet compte : Léa (Réussite de justesse)", french
    assert english.endswith("Léa (Narrow success)"), english
