"""d6code: whether an extreme-style point comes back is the GM's decision.

The seed: « Dans le cadre du Style Libre, il est possible en réussissant l'action de
récupérer le Point de Style s'il est utilisé à un moment particulièrement crucial, dans le
but de sauver un autre personnage et/ou si l'action, telle qu'elle est décrite, est
ingénieuse et particulièrement stylée. Dans le cadre du Style Extrême, c'est assez
semblable à la différence près que les valeurs obtenues sur les dés … influent sur la
récupération du point : un 1 empêche de récupérer le SP quoi qu'il arrive alors qu'un 6
permet de doubler le nombre de SP récupérés. »

So the dice say how much may come back (``style.sp_recoverable``: 0 with a 1, twice with a
6, × the combo stake) and the GM says whether it does. As a character, a successful
extreme-style roll whose dice allow a recovery is left open, once the player has nothing
left to decide, with two choices only a GM may take (``gm: true``, PROTOCOL.md §7.6):
``sp_return`` (the points come back, the combo chain goes on) and ``sp_keep`` (the
default: the GM did not intervene, nothing comes back).
"""

from __future__ import annotations

from typing import Any

from sidecar.model import Outcome, label
from sidecar.rulesets.sheets import add_spend

#: The GM's decisions on an extreme-style point the dice allow back.
CHOICES = ("sp_return", "sp_keep")


def hold_recovery(outcome: Outcome, sheet: dict[str, Any] | None) -> None:
    """As a character, keep back what extreme style would give back and open the roll
    for the GM (when no other choice is left). ``outcome.spend`` then pays the whole
    point; ``style.sp_recovered`` is 0 until the GM returns ``sp_recoverable``."""
    style = outcome.result.get("style")
    if sheet is None or outcome.choices is not None or not style \
            or style.get("mode") != "extreme":
        return
    allowed = style.get("sp_recovered") or 0
    style["sp_recoverable"] = allowed
    if not allowed:
        return
    style["sp_recovered"] = 0
    add_spend(outcome.spend, "points_style", allowed)  # (the give-back waits for the GM)
    outcome.choices = [
        {"name": "sp_return", "gm": True, "dice": 0, "label": label(
            f"MJ : rendre {allowed} SP (style extrême réussi)",
            f"GM: give back {allowed} SP (extreme style succeeded)")},
        {"name": "sp_keep", "gm": True, "dice": 0, "label": label(
            "MJ : le point de style n'est pas rendu", "GM: the style point is not given back")},
    ]
    outcome.default = "sp_keep"


def recovery_decided(outcome: Outcome, choice: str) -> Outcome:
    """The GM's decision: ``sp_return`` gives back ``sp_recoverable``, ``sp_keep``
    nothing. The caller settles the combo chain on the closed outcome."""
    result = dict(outcome.result)
    style = dict(result["style"])
    spend: dict[str, int] = {}
    notes = []
    if choice == "sp_return":
        style["sp_recovered"] = style["sp_recoverable"]
        add_spend(spend, "points_style", -style["sp_recovered"])
        notes.append(label(f"Le MJ rend {style['sp_recovered']} SP.",
                           f"The GM gives back {style['sp_recovered']} SP."))
    result["style"] = style
    return Outcome(result=result, dice=outcome.dice, spend=spend, notes=notes)


def sp_text(style: dict[str, Any], outcome: Outcome, fr: bool) -> str:
    """What extreme style gave back, for the chat line: « (SP regagnés : 2) », or while
    the GM decides « (SP : 2 si le MJ les rend) »."""
    if outcome.choices and any(c["name"] == "sp_return" for c in outcome.choices):
        allowed = style["sp_recoverable"]
        return (f" (SP : {allowed} si le MJ les rend)" if fr
                else f" (SP: {allowed} if the GM gives them back)")
    return (f" (SP regagnés : {style['sp_recovered']})" if fr
            else f" (SP regained: {style['sp_recovered']})")
