"""O'Ween's initiative: the scene's order, and Surprendre's locks on it.

The order (RULES.md §1, seed 000): highest Peps first; at equal Peps the one with a
relevant bagage; still tied, together; a character whose player spends a bonbonus takes
the initiative. Surprendre (a combat option, ``sidecar.rulesets.oweens_combat``) locks
the initiative for the surpriser over its opponent, this turn and the next: the locks are
kept in the table's state (``surprises``) by :func:`surprise`, read by :func:`initiative`.
"""

from __future__ import annotations

from typing import Any

from sidecar.model import Roll, label
from sidecar.protocol.errors import invalid_param

#: Surprendre's locks a table keeps (one per opponent; the oldest go first).
MAX_SURPRISES = 50
#: Turns a surprise holds: the turn of the roll and the next one.
SURPRISE_TURNS = 2


def active_surprises(state: dict[str, Any], turn: int) -> dict[str, dict[str, Any]]:
    """Surprendre's locks still holding at ``turn``: opponent → ``{by, over, turn}``."""
    return {over: lock for over, lock in (state.get("surprises") or {}).items()
            if turn - lock["turn"] < SURPRISE_TURNS}


def surprise(roll: Roll, combat: dict[str, Any], result: dict[str, Any],
              notes: list[Any]) -> None:
    """Surprendre (« … qui vous permet de prendre l'initiative sur votre adversaire.
    Celui-ci ne pourra pas la reprendre durant ce tour et le suivant »): a hit (the
    options' effects need one) rolled as a character with its
    ``opponent`` named locks the initiative for the surpriser over the opponent, kept in
    the table state with the roll (``surprises``), for this turn and the next."""
    if "surprendre" not in combat["options"] or not result["success"]:
        return
    if roll.character is None or not combat.get("opponent"):
        notes.append(label("Surprendre : sans personnage et adversaire nommés (options.combat."
                           "opponent), le verrou d'initiative n'est pas suivi.", "Surprendre: "
                           "without a character and a named opponent, the initiative lock "
                           "is not tracked."))
        return
    over = combat["opponent"]
    lock = {"by": roll.character, "over": over, "turn": roll.turn}
    surprises = active_surprises(roll.state, roll.turn)  # (expired locks dropped)
    surprises.pop(over, None)
    surprises[over] = lock  # (re-inserted last: the oldest go first)
    while len(surprises) > MAX_SURPRISES:
        del surprises[next(iter(surprises))]
    roll.state["surprises"] = surprises
    result["surprise"] = {**lock, "until_turn": roll.turn + SURPRISE_TURNS - 1}
    notes.append(label(f"Surprise : {roll.character} a l'initiative sur {over}, qui ne peut "
                       f"la reprendre ni ce tour ({roll.turn}) ni le suivant.", f"Surprise: "
                       f"{roll.character} holds the initiative over {over}, who cannot "
                       f"retake it this turn ({roll.turn}) or the next."))


def _initiative_key(entry: dict[str, Any]) -> tuple[int, int]:
    # Highest Peps first; at equal Peps, a relevant bagage first.
    return (-int(entry["sheet"].get("pep", 0)), 0 if entry.get("bagage") else 1)


def _in_groups(entries: list[dict[str, Any]]) -> list[list[str]]:
    groups: list[list[dict[str, Any]]] = []
    for entry in sorted(entries, key=_initiative_key):
        if groups and _initiative_key(groups[-1][0]) == _initiative_key(entry):
            groups[-1].append(entry)  # still tied: they act together
        else:
            groups.append([entry])
    return [[entry["character"] for entry in group] for group in groups]


def initiative(roll: Roll, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The scene's initiative (RULES.md §1, seed 000): highest Peps first; at equal Peps
    the one with a relevant bagage; still tied, together. A character whose player spends
    a bonbonus takes the initiative (1 BB+ from its wallet); if several spend, the same
    rules order them, before everyone else.

    Surprendre's locks (this turn and the next, :func:`active_surprises`): a surpriser
    takes the initiative as a claim that costs nothing (it was paid with the option); its
    opponent's claim to retake it is refused (``invalid_params``)."""
    names = {entry["character"] for entry in entries}
    locks = [lock for lock in active_surprises(roll.state, roll.turn).values()
             if lock["by"] in names and lock["over"] in names]
    surprisers = {lock["by"] for lock in locks}
    for entry in entries:
        lock = next((lock for lock in locks if lock["over"] == entry["character"]), None)
        if entry["claim"] and lock is not None and entry["character"] not in surprisers:
            raise invalid_param(
                "characters", f"{entry['character']} was surprised by {lock['by']}: it "
                "cannot retake the initiative this turn or the next",
                fr=f"{entry['character']} a été surpris par {lock['by']} : il ne peut "
                   "reprendre l'initiative ni ce tour ni le suivant")
    claims = [entry for entry in entries if entry["claim"] or entry["character"] in surprisers]
    others = [entry for entry in entries if entry not in claims]
    return {"order": _in_groups(claims) + _in_groups(others),
            "spend": {entry["character"]: {"bonbonus": 1} for entry in claims
                      if entry["character"] not in surprisers}}
