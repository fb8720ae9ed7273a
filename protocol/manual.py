"""Which faces of an outcome a person typed (physical dice), and who.

An outcome's ``dice`` may mix faces typed (a roll's or a decision's ``dice``) and faces
the server drew: a decision shows its open roll's faces beside its own (or its own
alone). Clients are told exactly which are physical: ``manual: {by, dice}`` on the
outcome, ``dice`` the indexes in its ``dice`` of the typed faces, ``by`` who typed them
(PROTOCOL.md §3) — and, when two people typed faces of one outcome (a roll's and its
decision's), ``entered``: each one's ``{by, dice}``.

The journal keeps who typed an event's own faces in its proof (``{manual: true, by}``,
provable dice) or in ``entered_by`` (secure dice); a decision's event keeps, besides,
``manual_dice``: the list of ``{by, dice}`` worked out when it was numbered, its open
roll's typed faces carried to their places among its own.
"""

from __future__ import annotations

from typing import Any


def typed_by(event: dict[str, Any]) -> list[dict[str, Any]]:
    """Who typed which of ``event``'s shown ``dice``: ``[{by, dice: [index…]}]`` (empty:
    all drawn). An event without ``manual_dice`` had all its faces typed, or none."""
    if "manual_dice" in event:
        return event["manual_dice"]
    proof = event.get("proof")
    entered = event.get("entered_by") or (
        proof.get("by") if isinstance(proof, dict) and proof.get("manual") else None)
    if entered is None or not event.get("dice"):
        return []
    return [{"by": entered, "dice": list(range(len(event["dice"])))}]


def _earlier_places(shown: list[Any], earlier: list[Any], drawn: int) -> list[int | None]:
    """Where each of the open roll's faces is among a decision's ``shown`` dice (``None``:
    not shown). A decision shows its own ``drawn`` faces alone, or every face of its open
    roll and its own merged, each in its order (what a verifier accepts): the open roll's
    are found in order, by die and face, the first that fits."""
    def key(die: Any) -> Any:
        return (die.get("sides"), die.get("face")) if isinstance(die, dict) else die

    if len(shown) != len(earlier) + drawn:
        if len(shown) == drawn:
            return [None] * len(earlier)
        # (a ruleset showing something else: its own faces taken as the last ones)
        kept = max(0, len(shown) - drawn)
        return [i if i < kept else None for i in range(len(earlier))]
    places: list[int | None] = []
    at = 0
    for die in earlier:
        while at < len(shown) and key(shown[at]) != key(die):
            at += 1
        if at == len(shown):  # (not a merge after all: its own faces taken as the last)
            return [i if i < len(shown) - drawn else None for i in range(len(earlier))]
        places.append(at)
        at += 1
    return places


def decision_typed(shown: list[Any], opened: dict[str, Any], drawn: int,
                   entered: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The ``manual_dice`` of a decision on the open roll ``opened``: its typed faces
    carried to their places among the decision's ``shown`` dice, and the decision's own
    ``drawn`` faces when ``entered`` (who typed them) is given."""
    places = _earlier_places(shown, list(opened.get("dice") or []), drawn)
    marks: dict[tuple[str, str], dict[str, Any]] = {}
    for mark in typed_by(opened):
        moved = [places[i] for i in mark["dice"] if i < len(places) and places[i] is not None]
        if moved:
            by = mark["by"]
            marks.setdefault((by.get("name"), by.get("role")), {"by": by, "dice": []})[
                "dice"].extend(moved)
    if entered is not None:
        taken = {place for place in places if place is not None}
        own = [i for i in range(len(shown)) if i not in taken]
        if own:
            marks.setdefault((entered.get("name"), entered.get("role")),
                             {"by": entered, "dice": []})["dice"].extend(own)
    for mark in marks.values():
        mark["dice"] = sorted(set(mark["dice"]))
    return list(marks.values())


def manual_mark(event: dict[str, Any]) -> dict[str, Any] | None:
    """The outcome's ``manual`` as clients read it, or ``None`` when no face was typed:
    ``by`` the last who typed (a decision's, when it typed), ``dice`` every typed face's
    index, ``entered`` each one's when two people typed."""
    marks = typed_by(event)
    if not marks:
        return None
    mark: dict[str, Any] = {"by": marks[-1]["by"],
                            "dice": sorted({i for m in marks for i in m["dice"]})}
    if len(marks) > 1:
        mark["entered"] = marks
    return mark
