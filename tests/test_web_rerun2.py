"""The GM's evening on the phone page, as a newcomer's third run found it (issue 29 re-run 2),
in a real headless Chromium at 390 px against a real sidecar: a total without a target is
neither a success nor a failure (shown neutral, in every game's card), and the GM's card of
an opposed ask says what each side is asked for. Skips like tests/test_web_table.py
without Chromium.
"""

from __future__ import annotations

from typing import Any

from tests.live_server import LiveServer
from tests.test_web_evening import new_outcome, open_ask, oweens_table, phone_gm, send_ask

#: One roll of each game, each with a verdict (`dice` against a target).
JUDGED = [("oweens", {"dice": 2, "difficulty": 1}), ("ladder", {"level": 3, "difficulty": 5}),
          ("bloodlust", {"pool": 2}), ("d6code", {"code": "2D", "difficulty": 10}),
          ("seuil", {"level": 1, "threshold": 6}), ("dice", {"expr": "2d6", "target": 7})]
#: Totals without a target: a sum, a count of successes.
UNJUDGED = [("dice", {"expr": "3d6>=4"}), ("dice", {"expr": "1d20+2"})]

#: The colours a verdict paints: each kind's badge background and card border.
VERDICT_COLOURS = """() => {
    const kinds = ["botch", "failure", "narrow", "success", "critical"];
    const probe = (cls, property) => {
        const node = document.createElement("span");
        node.className = cls;
        document.body.append(node);
        const colour = getComputedStyle(node)[property];
        node.remove();
        return colour;
    };
    return {badge: kinds.map(k => probe(`kind kind-${k}`, "backgroundColor")),
            border: kinds.map(k => probe(`entry entry-${k}`, "borderLeftColor"))};
}"""


def shown_colours(page: Any, seq: int) -> dict[str, str]:
    page.wait_for_entry(seq)
    return page.page.evaluate("""(seq) => {
        const entry = document.querySelector(`#log .entry[data-seq="${seq}"]`);
        return {badge: getComputedStyle(entry.querySelector(".kind")).backgroundColor,
                border: getComputedStyle(entry).borderLeftColor,
                label: entry.querySelector(".kind").textContent};
    }""", seq)


def test_a_total_without_a_target_is_neither_success_nor_failure(
        browser: Any, server: LiveServer) -> None:
    gm = phone_gm(browser, server, "totaux")
    # The `dice` roller from the page's form, nothing in « Seuil à atteindre ».
    gm.page.select_option("#ruleset", "dice")
    gm.fill_params({"expr": "2d6"})
    before = gm.state("outcomes.length")
    gm.page.click("#roll-button")
    rolled = {new_outcome(gm, before)["seq"]: None}
    for ruleset, params in UNJUDGED:
        rolled[server.roll("totaux", "MJ", ruleset, params)["seq"]] = None
    for ruleset, params in JUDGED:
        outcome = server.roll("totaux", "MJ", ruleset, params)
        rolled[outcome["seq"]] = outcome["result"]["kind"]
    colours = gm.page.evaluate(VERDICT_COLOURS)
    kinds = ["botch", "failure", "narrow", "success", "critical"]
    for seq, kind in rolled.items():
        shown = shown_colours(gm, seq)
        if kind is None:
            # The total, said as it is (« Total : 9 », « 2 réussites »), in no verdict's colour.
            assert shown["badge"] not in colours["badge"], (seq, shown)
            assert shown["border"] not in colours["border"], (seq, shown)
            assert shown["label"], shown
        else:
            # Every game's verdict keeps its colour.
            index = kinds.index(kind)
            assert shown["badge"] == colours["badge"][index], (seq, kind, shown)
            assert shown["border"] == colours["border"][index], (seq, kind, shown)
    gm.close()


def test_the_gms_card_of_an_opposed_ask_says_each_sides_own_params(
        browser: Any, server: LiveServer) -> None:
    gm, _, _ = oweens_table(browser, server, "camps")
    page = gm.page
    # Ervald pulls with his Peps against 2, Tam resists with her Éclate, the difficulty
    # common to both (0, the default) left as it is.
    open_ask(gm, ["Ervald", "Tam"])
    page.check("#ask-opposed")
    ervald = page.locator('#ask-sides [data-side="Ervald"]')
    tam = page.locator('#ask-sides [data-side="Tam"]')
    for side in (ervald, tam):
        side.locator("summary").click()  # (each side is one folded line)
    ervald.locator('[id$="-characteristic"]').select_option("PEP")
    ervald.locator('[id$="-difficulty"]').fill("2")
    tam.locator('[id$="-characteristic"]').select_option("ECL")
    ask = send_ask(gm, "Bras de fer")
    card = page.locator(f'#asks .ask-card[data-ask="{ask["ask"]}"]')
    lines = {name: card.locator(f'.ask-line[data-seat="{seat}"]').text_content()
             for name, seat in (("Ervald", "Aengus"), ("Tam", "Brann"))}
    # Each side's own values, by their labels: what differs between the sides.
    assert "Caractéristique PEP" in lines["Ervald"] and "Difficulté 2" in lines["Ervald"], lines
    assert "Caractéristique ECL" in lines["Tam"] and "Difficulté 0" in lines["Tam"], lines
    # Not said once for both above them as if it were common (the difficulty is not 0 for
    # Ervald), and no raw key anywhere on the card.
    common = card.locator(".ask-what")
    assert common.count() == 0 or "Difficulté" not in common.text_content(), \
        common.text_content()
    text = card.text_content()
    for key in ("characteristic", "difficulty", "Difficulté 0 · Difficulté"):
        assert key not in text, text
    # The GM's log line of the ask says it too.
    line = page.locator(f'#log .entry-ask[data-op="open"][data-seq="{ask["seq"]}"]')
    assert "Caractéristique PEP" in line.text_content(), line.text_content()
    assert "Caractéristique ECL" in line.text_content(), line.text_content()
    gm.close()
