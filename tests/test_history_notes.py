"""``history``'s ``hidden_notes`` (issue 29, item 9 and its re-run): what a player may not
see that is no roll — the GM's seats and the others' characters, at the table's opening or
during the game — is named as notes, never a secret roll; the events themselves stay unseen."""

from __future__ import annotations

from tests.helpers import PLAYER_TOKEN, Peer, run, running_server


def test_pages_name_the_gms_notes_and_keep_secret_rolls_secret():
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
            last = await gm.roll("oweens", {"dice": 1})
            player = await Peer.open(server)
            await player.join("t", "Aengus", "player", PLAYER_TOKEN)
            page = await player.request({"type": "history", "id": "h1", "after": 0})
            assert [event["seq"] for event in page["events"]] == [public["seq"], last["seq"]]
            # The seat and the sheets are notes, before the first roll and after it; the
            # secret roll is not named.
            assert page["hidden_notes"] == [seat["seq"], sheet["seq"], later["seq"]]
            assert secret["seq"] not in page["hidden_notes"]
            # A later page names those it covers.
            more = await player.request({"type": "history", "id": "h2",
                                         "after": public["seq"]})
            assert more["hidden_notes"] == [later["seq"]]
            # A page that stops at its limit names only the notes up to its end.
            short = await player.request({"type": "history", "id": "h4", "after": 0,
                                          "limit": 1})
            assert short["more"] is True
            assert short["hidden_notes"] == [seat["seq"], sheet["seq"]]
            # A GM sees everything: nothing hidden to name.
            whole = await gm.request({"type": "history", "id": "h3", "after": 0})
            assert "hidden_notes" not in whole
            for peer in (gm, player):
                await peer.close()
    run(scenario())
