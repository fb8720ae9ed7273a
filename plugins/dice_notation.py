"""The dice notation of the ``dice`` ruleset: a small recursive-descent parser with strict
limits, so that every bad expression is a clear ``invalid_params`` error naming ``expr``
(French first) and no expression can ask for unbounded work.

Grammar (case-insensitive; spaces allowed around terms and signs)::

    expression := [sign] term (sign term)*           sign := "+" | "-"
    term       := number | dice
    dice       := [count] "d" (sides | "%") ["!"] [keep | compare]
    keep       := ("kh" | "k" | "kl" | "dh" | "dl") number
    compare    := (">=" | ">" | "<=" | "<" | "=") number

``d%`` is ``d100``; ``!`` explodes (a die showing its highest face adds another die, at
most :data:`MAX_EXPLOSIONS` times per die); ``kh``/``k`` keep the highest, ``kl`` the
lowest, ``dh``/``dl`` drop the highest/lowest; a compare counts the dice whose face passes
it (successes) instead of adding faces. Pure code, no I/O, no dice drawn here.
"""

from __future__ import annotations

from dataclasses import dataclass

from sidecar.dice import MAX_DRAWS, MAX_SIDES
from sidecar.protocol.errors import ProtocolError, invalid_param

#: Longest expression accepted (characters).
MAX_LENGTH = 200
#: Most terms (dice groups and numbers) in one expression.
MAX_TERMS = 20
#: Most dice in one expression, before explosions.
MAX_DICE = 100
# Largest die: MAX_SIDES, the dice source's own limit.
#: Largest number term.
MAX_NUMBER = 100_000
#: Most explosions of one die: its last die counts as it falls, even at its highest face.
MAX_EXPLOSIONS = 5
# Most dice a roll may draw, every exploding die exploding to the bound: MAX_DRAWS, the
# dice source's own limit, so that an accepted expression can always be rolled.
#: Digits read for one number (enough for every limit above; more is refused at once).
MAX_DIGITS = 7

PARAM = "expr"

#: The compare operators and their tests.
COMPARES = {">=": lambda f, n: f >= n, ">": lambda f, n: f > n,
            "<=": lambda f, n: f <= n, "<": lambda f, n: f < n, "=": lambda f, n: f == n}


#: Keep and drop modifiers: (word, side kept, whether the number is of dice dropped).
#: "dh"/"dl" drop the highest/lowest: they keep the other side. "k" last: "kh" first.
KEEPS = (("kh", "h", False), ("kl", "l", False), ("dh", "l", True), ("dl", "h", True),
         ("k", "h", False))


@dataclass(frozen=True)
class Term:
    """One term: a number (``count == 0``) or a group of dice.

    ``keep`` is ``("h"|"l", how many kept)``; ``compare`` is ``(operator, number)``.
    """

    sign: int
    count: int = 0
    sides: int = 0
    number: int = 0
    explode: bool = False
    keep: tuple[str, int] | None = None
    compare: tuple[str, int] | None = None
    text: str = ""

    @property
    def is_dice(self) -> bool:
        return self.count > 0

    def success(self, face: int) -> bool:
        """Whether a face counts as a success (a compare term only)."""
        assert self.compare is not None
        op, number = self.compare
        return COMPARES[op](face, number)

    @property
    def draws(self) -> int:
        """Most dice this term may draw (every die exploding to the bound)."""
        return self.count * (1 + MAX_EXPLOSIONS if self.explode else 1)


@dataclass(frozen=True)
class Expression:
    """A parsed expression: its terms, left to right, and its canonical text."""

    terms: tuple[Term, ...]
    text: str

    @property
    def counting(self) -> bool:
        """Whether the total counts successes (its dice terms compare faces)."""
        return any(t.compare is not None for t in self.terms)

    @property
    def dice(self) -> int:
        return sum(t.count for t in self.terms)


def _shown(text: str) -> str:
    return text if len(text) <= 40 else text[:39] + "…"


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        # ASCII only: a lower-cased non-ASCII character may change length (İ → i̇).
        self.lower = "".join(c.lower() if c.isascii() else c for c in text)
        self.pos = 0

    # -- errors -------------------------------------------------------------------------

    def fail(self, en: str, fr: str) -> ProtocolError:
        shown = _shown(self.text)
        return invalid_param(PARAM, f"'{shown}': {en}", fr=f"« {shown} » : {fr}")

    def unexpected(self) -> ProtocolError:
        if self.pos >= len(self.text):
            return self.fail("ends too early (e.g. 2d6+3)",
                             "se termine trop tôt (ex. 2d6+3)")
        char = self.text[self.pos]
        return self.fail(f"unexpected '{char}' at position {self.pos + 1} (e.g. 2d6+3)",
                         f"« {char} » inattendu en position {self.pos + 1} (ex. 2d6+3)")

    # -- scanning -----------------------------------------------------------------------

    def skip_spaces(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def accept(self, word: str) -> bool:
        if self.lower.startswith(word, self.pos):
            self.pos += len(word)
            return True
        return False

    def number(self) -> int | None:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in "0123456789":
            self.pos += 1
            if self.pos - start > MAX_DIGITS:
                raise self.fail(f"number too large at position {start + 1}",
                                f"nombre trop grand en position {start + 1}")
        return int(self.text[start:self.pos]) if self.pos > start else None

    # -- grammar ------------------------------------------------------------------------

    def expression(self) -> Expression:
        if len(self.text) > MAX_LENGTH:
            raise self.fail(f"at most {MAX_LENGTH} characters",
                            f"au plus {MAX_LENGTH} caractères")
        self.skip_spaces()
        if self.pos >= len(self.text):
            raise self.fail("empty expression (e.g. 2d6+3)", "expression vide (ex. 2d6+3)")
        terms: list[Term] = []
        sign = 1
        if self.accept("-"):
            sign = -1
        else:
            self.accept("+")
        while True:
            self.skip_spaces()
            terms.append(self.term(sign))
            if len(terms) > MAX_TERMS:
                raise self.fail(f"at most {MAX_TERMS} terms", f"au plus {MAX_TERMS} termes")
            self.skip_spaces()
            if self.pos >= len(self.text):
                break
            if self.accept("+"):
                sign = 1
            elif self.accept("-"):
                sign = -1
            else:
                raise self.unexpected()
        return self.check(terms)

    def term(self, sign: int) -> Term:
        start = self.pos
        count = self.number()
        if not self.accept("d"):
            if count is None:
                raise self.unexpected()
            if count > MAX_NUMBER:
                raise self.fail(f"numbers go up to {MAX_NUMBER}, not {count}",
                                f"les nombres vont jusqu'à {MAX_NUMBER}, pas {count}")
            return Term(sign=sign, number=count, text=str(count))
        if count is None:
            count = 1  # "d20" is "1d20"
        if count < 1:
            raise self.fail(f"'{self.text[start:self.pos]}': at least 1 die",
                            f"« {self.text[start:self.pos]} » : au moins 1 dé")
        if count > MAX_DICE:
            raise self.fail(f"at most {MAX_DICE} dice, not {count}",
                            f"au plus {MAX_DICE} dés, pas {count}")
        if self.accept("%"):
            sides: int | None = 100
        else:
            sides = self.number()
        if sides is None:
            raise self.fail(f"the number of sides is missing after 'd' (position "
                            f"{self.pos + 1}, e.g. 2d6)",
                            f"il manque le nombre de faces après « d » (position "
                            f"{self.pos + 1}, ex. 2d6)")
        if not 1 <= sides <= MAX_SIDES:
            raise self.fail(f"a die has 1 to {MAX_SIDES} sides, not {sides}",
                            f"un dé a de 1 à {MAX_SIDES} faces, pas {sides}")
        explode = self.accept("!")
        if explode and sides < 2:
            raise self.fail("a d1 cannot explode (it always shows its highest face)",
                            "un d1 ne peut pas exploser (il montre toujours sa face la "
                            "plus haute)")
        keep = self.keep(count)
        compare = None if keep else self.compare(sides)
        if keep and explode:
            raise self.fail("keeping or dropping dice does not combine with '!'",
                            "garder ou écarter des dés ne se combine pas avec « ! »")
        text = f"{count}d{sides}{'!' if explode else ''}"
        if keep:
            text += f"k{keep[0]}{keep[1]}"
        if compare:
            text += f"{compare[0]}{compare[1]}"
        return Term(sign=sign, count=count, sides=sides, explode=explode, keep=keep,
                    compare=compare, text=text)

    def keep(self, count: int) -> tuple[str, int] | None:
        at = self.pos
        found = next((way for way in KEEPS if self.accept(way[0])), None)
        if found is None:
            return None
        word, side, drop = found
        number = self.number()
        if number is None:
            raise self.fail(f"'{word}' needs a number of dice (e.g. 4d6kh3)",
                            f"« {word} » demande un nombre de dés (ex. 4d6kh3)")
        if drop:
            if not 1 <= number < count:
                raise self.fail(
                    f"'{self.text[at:self.pos]}' must drop 1 to {count - 1} of the {count} "
                    "dice rolled" if count > 1 else
                    f"'{self.text[at:self.pos]}': no die to drop from a single die",
                    f"« {self.text[at:self.pos]} » doit écarter de 1 à {count - 1} des "
                    f"{count} dés lancés" if count > 1 else
                    f"« {self.text[at:self.pos]} » : pas de dé à écarter d'un seul dé")
            return side, count - number
        if not 1 <= number <= count:
            raise self.fail(f"'{self.text[at:self.pos]}' must keep 1 to {count} of the "
                            f"{count} dice rolled",
                            f"« {self.text[at:self.pos]} » doit garder de 1 à {count} des "
                            f"{count} dés lancés")
        return side, number

    def compare(self, sides: int) -> tuple[str, int] | None:
        for op in (">=", "<=", ">", "<", "="):
            if self.accept(op):
                break
        else:
            return None
        number = self.number()
        if number is None:
            raise self.fail(f"'{op}' needs a face (e.g. 8d10>=7)",
                            f"« {op} » demande une face (ex. 8d10>=7)")
        if not 1 <= number <= sides:
            raise self.fail(f"'{op}{number}': a d{sides}'s faces go from 1 to {sides}",
                            f"« {op}{number} » : les faces d'un d{sides} vont de 1 à {sides}")
        return op, number

    def check(self, terms: list[Term]) -> Expression:
        dice = sum(t.count for t in terms)
        if dice > MAX_DICE:
            raise self.fail(f"at most {MAX_DICE} dice in all, not {dice}",
                            f"au plus {MAX_DICE} dés en tout, pas {dice}")
        draws = sum(t.draws for t in terms)
        if draws > MAX_DRAWS:
            raise self.fail(
                f"too many dice if every die explodes ({draws}, at most {MAX_DRAWS})",
                f"trop de dés si chaque dé explose ({draws}, au plus {MAX_DRAWS})")
        dice_terms = [t for t in terms if t.is_dice]
        counting = [t for t in dice_terms if t.compare is not None]
        if counting and len(counting) != len(dice_terms):
            raise self.fail("counting successes (>=…) and adding faces do not mix",
                            "compter des réussites (>=…) et additionner des faces ne se "
                            "mélangent pas")
        text = ""
        for i, t in enumerate(terms):
            if t.sign < 0:
                text += "-"
            elif i:
                text += "+"
            text += t.text
        return Expression(tuple(terms), text)


def parse(text: str) -> Expression:
    """Parse a dice expression; every bad one raises ``invalid_params`` naming ``expr``."""
    if not isinstance(text, str):
        raise invalid_param(PARAM, "must be a string", fr="doit être une chaîne")
    return _Parser(text).expression()
