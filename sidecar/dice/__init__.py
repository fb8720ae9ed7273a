"""Dice: where faces come from (the OS, a player's hand, a seed) and the proofs that let
anyone check them.

A plugin author's names are handed on here, so ``from sidecar.dice import Dice`` keeps
working wherever the modules of this package stand.
"""

from sidecar.dice.sources import (
    MAX_DRAWS,
    MAX_SIDES,
    Dice,
    DiceExhausted,
    DiceSource,
    ManualDice,
    SecureDice,
    SeededDice,
)

__all__ = ["MAX_DRAWS", "MAX_SIDES", "Dice", "DiceExhausted", "DiceSource", "ManualDice",
           "SecureDice", "SeededDice"]
