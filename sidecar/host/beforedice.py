"""A roll taken up to its first die and no further: what a roll would be refused with
before any face is drawn (issue 29: an ask is checked when opened as each of its answers
would be checked before its dice).

The roll goes through :meth:`~sidecar.host.pipeline.RollPipeline.run` itself — params,
the extensions' ``sidecar_modify_roll``, the owner's ``sidecar_resolve`` up to its first
draw — so the check is the one every roll passes, not a second validator. The dice
source refuses to hand out a face: a roll that reaches its dice passed every check a
roll makes before them (contract §7 clarified: refusals never depend on the dice).
"""

from __future__ import annotations

from typing import Any

from sidecar.dice.sources import DiceSource
from sidecar.host.pipeline import RollPipeline
from sidecar.model import Roll
from sidecar.protocol.errors import ProtocolError


class DiceReached(ProtocolError):
    """Raised at a probed roll's first draw: nothing before the dice refused it."""

    def __init__(self) -> None:
        super().__init__("internal", "the roll reached its dice",
                         fr="le jet en est arrivé à ses dés")  # (never sent)


class NoFaces(DiceSource):
    """A source that gives no face: its first draw raises :class:`DiceReached`."""

    def _face(self, sides: int) -> int:
        raise DiceReached


async def params_refusal(pipeline: RollPipeline, roll: Roll,
                         table_state: dict[str, dict[str, Any]] | None) -> ProtocolError | None:
    """The ``invalid_params`` refusal ``roll`` (prepared, its sheet and targets given)
    meets before its dice on ``pipeline``, its param named by its label; ``None`` when it
    would reach them. Other refusals (a sheet that cannot pay yet, a failing plugin) are
    left to the roll itself: they depend on what the table holds when it is made. The
    table's state is not changed (the pipeline works on copies)."""
    try:
        await pipeline.run(roll, table_state=table_state, source=NoFaces())
    except DiceReached:
        return None
    except ProtocolError as refusal:
        return refusal if refusal.code == "invalid_params" else None
    return None


def side_refusal(refusal: ProtocolError, side: dict[str, Any], named: bool) -> ProtocolError:
    """``refusal`` of one side of an ask (``side``: its ``seat`` and ``character``) as
    the GM is told it: ``details.to`` names the side, and so does the text when the ask
    has several (``named``): which of them lacks what."""
    name = side.get("character") or side["seat"]
    details = {**(refusal.details or {}), "to": name}
    if not named:
        return ProtocolError(refusal.code, refusal.message, fr=refusal.message_fr,
                             details=details)
    return ProtocolError(refusal.code, f"'{name}': {refusal.message}",
                         fr=f"« {name} » : {refusal.message_fr or refusal.message}",
                         details=details)


def seat_side(side: dict[str, Any], rolls: list[Roll],
              refusals: list[ProtocolError | None], named: bool) -> None:
    """Settle a seat's side of an ask (``side`` names no character; ``rolls`` its
    possible answers, as each of its characters of the ask's game then as none, with
    their ``refusals``): a side whose params need no character stays the seat's; one
    only ONE of its characters could answer becomes that character (``side`` is changed:
    the answer is made as it, as for an ask naming it — issue 29, replay 2); else the
    ask is refused — no answer could roll, or the GM must name which character rolls."""
    if refusals[-1] is None:
        return
    able = [roll.character for roll, refusal in zip(rolls, refusals, strict=True)
            if refusal is None and roll.character is not None]
    if len(able) == 1:
        side["character"] = able[0]
        return
    if not able:
        first = next(refusal for refusal in refusals if refusal is not None)
        raise side_refusal(first, side, named)
    seat, fr_names = side["seat"], " et ".join([", ".join(able[:-1]), able[-1]])
    en_names = " and ".join([", ".join(able[:-1]), able[-1]])
    raise ProtocolError(
        "invalid_params", f"{seat} plays {en_names}: name the character who rolls",
        fr=f"{seat} joue {fr_names} : nommez le personnage qui doit lancer",
        details={"param": "to", "field": "to", "to": seat, "characters": able})
