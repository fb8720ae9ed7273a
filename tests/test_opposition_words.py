"""An opposition's and a cooperation's summary say each side's own result and the
ruleset's margin word (issue 29, replay 2: « Léa (Aengus) échec, marge -3 » where the
roll was a Bourde and O'Ween's says ME): each side carries its result's ``label``, the
command line prints it, and O'Ween's margins as « MR 2 » / « ME 3 »."""

from __future__ import annotations

from sidecar.cli.labels import Labels
from sidecar.cli.render import format_outcome
from tests.helpers import Peer, run, running_server, seated_peer


def test_the_summaries_say_each_sides_result_and_the_rulesets_margin_word():
    async def scenario():
        async with running_server(allow_player_dice=True) as server:
            gm = await Peer.open(server)
            welcome = await gm.join("t", "MJ", "gm")
            peers = {}
            for name in ("Léa", "Tom"):
                peers[name] = await seated_peer(server, gm, name)
            finals = {}
            for kind in ("opposed", "cooperative"):
                ask = await gm.request({"type": "ask", "id": kind, "op": "open",
                                        "to": ["Léa", "Tom"], "ruleset": "oweens",
                                        "params": {"dice": 3, "difficulty": 1},
                                        "label": "Bras de fer", kind: True})
                assert ask["type"] == "ask", ask
                lea = await peers["Léa"].roll("oweens", {}, answers=ask["ask"], dice=[1, 1, 1])
                tom = await peers["Tom"].roll("oweens", {}, answers=ask["ask"], dice=[6, 6, 5])
                assert not lea.get("open") and not tom.get("open"), (lea, tom)
                assert lea["result"]["label"]["fr"] == "Bourde", lea["result"]
                finals[kind] = (lea, tom)
            return welcome, finals

    welcome, finals = run(scenario())
    lea, tom = finals["opposed"]
    sides = tom["opposition"]["sides"]
    assert [side["label"] for side in sides] == [lea["result"]["label"],
                                                 tom["result"]["label"]], sides
    for locale, margin_words in (("fr", ("MR", "ME")), ("en", ("success margin",
                                                                "failure margin"))):
        shown = format_outcome(tom, locale, labels=Labels(welcome, locale))
        line = next(row for row in shown.splitlines() if "opposition" in row)
        assert lea["result"]["label"][locale] in line, line
        assert tom["result"]["label"][locale] in line, line
        assert f"{margin_words[1]} {-lea['result']['margin']}" in line, line
        assert f"{margin_words[0]} {tom['result']['margin']}" in line, line
        assert "marge" not in line and "margin " + str(tom["result"]["margin"]) not in (
            line.replace("success margin", "")), line
        lea, tom = finals["cooperative"]
        shown = format_outcome(tom, locale, labels=Labels(welcome, locale))
        line = next(row for row in shown.splitlines()
                    if "coopération" in row or "cooperation" in row)
        assert tom["result"]["label"][locale] in line, line
        assert f"{margin_words[0]} {tom['result']['margin']}" in line, line
        lea, tom = finals["opposed"]
