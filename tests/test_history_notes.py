"""A table's opening in ``history`` (issue 29, item 9): what a player may not see before the
table's first roll is named as notes (``hidden_notes``: the GM's seats and the others'
characters), never a secret roll; the events themselves stay unseen."""

from __future__ import annotations

from tests.helpers import PLAYER_TOKEN, Peer, run, running_server


def test_the_first_page_names_the_gms_preparation_and_keeps_secret_rolls_secret():
    async def scenario():
        async with running_server() as server:
            gm = await Peer.open(server)
            await gm.join("t", "MJ", "gm")
            seat = await gm.request({"type": "seat", "id": "s1", "op": "add", "name": "Brann"})
            sheet = await gm.request({"type": "sheet", "id": "c1", "op": "set",
                                      "character": "Tam", "ruleset": "oweens",
                                      "owner": "Brann", "values": {"pep": 2}})
            secret = await gm.roll("oweens", {"dice": 1}, mode="gm")
            public = await gm.roll("oweens", {"dice": 1})
            later = await gm.request({"type": "seat", "id": "s2", "op": "add", "name": "Ida"})
            player = await Peer.open(server)
            await player.join("t", "Aengus", "player", PLAYER_TOKEN)
            page = await player.request({"type": "history", "id": "h1", "after": 0})
            assert [event["seq"] for event in page["events"]] == [public["seq"]]
            # The seat and the sheet are notes; the secret roll is not named; nothing after
            # the first roll the page shows.
            assert page["hidden_notes"] == [seat["seq"], sheet["seq"]]
            assert secret["seq"] not in page["hidden_notes"]
            assert later["seq"] not in page["hidden_notes"]
            # A later page says nothing of the kind.
            more = await player.request({"type": "history", "id": "h2",
                                         "after": public["seq"]})
            assert "hidden_notes" not in more
            # A GM sees everything: nothing hidden to name.
            whole = await gm.request({"type": "history", "id": "h3", "after": 0})
            assert "hidden_notes" not in whole
            for peer in (gm, player):
                await peer.close()
    run(scenario())
