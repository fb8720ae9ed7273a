"""O'Ween's rolls whose characteristic the seed names.

« A chaque verre bu, le joueur effectue un jet d'Encaisse » (drinking), « Le joueur fait un
jet de Peps contre le Peps de l'adversaire » (melee), « Le tireur fait un jet de Flair
contre une difficulté de 3 » (ranged), and Immobiliser's hold, « un jet d'ENC contre l'ECL
de la cible » (checked by the ``combat`` extension). A rule that names the characteristic
fixes it: another one is refused (``invalid_params`` naming ``characteristic``) before any
die — the refusal rests on the request alone, never on the dice — and a character that
names none rolls the one the rule names.
"""

from __future__ import annotations

from sidecar.model import Roll
from sidecar.protocol.errors import invalid_param
from sidecar.rulesets.oweens_combat import read_settings
from sidecar.rulesets.oweens_sheet import CHARACTERISTICS

#: The situation → the characteristic its rule names, and the rule's French words.
NAMED = {"drinking": ("ENC", "se pinter est un jet d'Encaisse", "drinking is an Encaisse "
                      "roll"),
         "melee": ("PEP", "le corps à corps est un jet de Peps", "melee is a Peps roll"),
         "ranged": ("FLA", "le tir est un jet de Flair", "a ranged attack is a Flair roll")}


def named_characteristic(roll: Roll) -> str | None:
    """The characteristic the roll's rule names (None: the GM's choice), refusing another
    one; a character naming none is given it (its dice come from that reserve)."""
    p = roll.params
    combat = read_settings(roll)
    situation = "drinking" if p.get("drinking") else (
        combat["attack"] if combat is not None and not combat["hold"] else None)
    if situation is None:
        return None
    short, fr, en = NAMED[situation]
    chosen = p.get("characteristic")
    if chosen is not None and chosen != short:
        raise invalid_param("characteristic", f"{en} ({short}), not {chosen}",
                            fr=f"{fr} ({short}), pas {CHARACTERISTICS[chosen][1]} ({chosen})")
    if chosen is None and p.get("dice") is None and roll.sheet is not None:
        p["characteristic"] = short
    return short

