"""A reserve kept as its gap to a score (O'Ween's `reserve_ecl`: 0 = full, −1 = one point
lost) is named in the server's words as what is left of it, « Réserve ECL : il en reste
1 / 3 », as the page and the CLI show it: never « pas assez de « Réserve ECL (0 = pleine) » :
il en reste -2 » (issue 29). The wire's `details.have`/`need` stay the numbers they were."""

from __future__ import annotations

from typing import Any

from tests.helpers import Peer, run, running_server

GM_SHEET = {"type": "sheet", "op": "set", "character": "Ervald", "ruleset": "oweens",
            "values": {"pep": 3, "ecl": 3, "enc": 2, "fla": 2, "reserve_ecl": -2}}


def test_a_reserve_too_low_is_named_as_what_is_left_of_it() -> None:
    async def scenario() -> None:
        async with running_server() as server:
            replies: dict[str, dict[str, Any]] = {}
            for locale in ("fr", "en"):
                gm = await Peer.open(server)
                await gm.join("t", f"MJ-{locale}", "gm", locale=locale)
                made = await gm.request({**GM_SHEET, "id": f"set-{locale}"})
                assert made["type"] == "sheet", made
                # 9 more points lost would take the gap past the sheet's −10.
                replies[locale] = await gm.request({
                    "type": "sheet", "id": f"adj-{locale}", "op": "adjust",
                    "character": "Ervald", "delta": {"reserve_ecl": -9}, "reason": "test"})
            for reply in replies.values():
                assert reply["code"] == "insufficient", reply
                assert reply["details"] == {"field": "reserve_ecl", "have": -2, "need": 9}
                text = reply["message"]
                assert "pleine" not in text and "full" not in text, text
                assert "-2" not in text and "−2" not in text, text
            assert "« Réserve ECL » : il en reste 1 / 3" in replies["fr"]["message"], replies
            assert '"ECL reserve": 1 / 3 left' in replies["en"]["message"], replies
    run(scenario())
