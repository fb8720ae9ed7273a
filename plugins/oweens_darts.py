"""O'Ween's darts (the seed's draft, docs/RULESETS.md): a volley, a game, their odds.

A volley is 3D6 in up to 3 throws to make a triple (the lowest reachable with the FLA
roll's bonus); between throws the player decides which dice to reroll (the default:
:func:`volley_policy`, the best play). A game is 6 volleys played one after the other in
one roll, their points added up, fewest wins. The odds of both are exact (:func:`volley_odds`,
:func:`game_odds`), the volleys played by their defaults.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

from sidecar.dice import Dice
from sidecar.model import Outcome, Roll, label
from sidecar.probability import odds_reply
from sidecar.rules import agree, common, heading, plural

#: The d6 a volley throws.
VOLLEY_DICE = 3
#: Throws a volley has to make its triple.
VOLLEY_THROWS = 3
#: A volley's points without a triple (the worst score).
NO_TRIPLE_POINTS = 7


def volley_triple(faces: list[int] | tuple[int, ...], bonus: int) -> int | None:
    """The triple ``faces`` make with up to ``bonus`` +1s (None without): the lowest one
    reachable — the highest face, the others raised to it (fewer points is better)."""
    top = max(faces)
    return top if 3 * top - sum(faces) <= bonus else None


def volley_policy(faces: list[int] | tuple[int, ...], bonus: int = 0,
                  throw: int = 1) -> str:
    """The dice the default choice rerolls (1-based indices as a string): the best play,
    the reroll whose expected points are the fewest (« Le gagnant est celui qui a le
    moins de points »), with ``bonus`` +1s and ``throw`` throws made; among equals, the
    fewest dice, then the lowest faces kept. It depends on the faces shown, not their
    order (the first of equal faces are kept), as the odds count it."""
    plan = _best_plan(bonus)

    def kept(which: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(sorted(face for i, face in enumerate(faces) if i not in which))
    best = kept(min(_rerolls(len(faces)), key=lambda which: (
        plan.choice(faces, throw, which), len(which), kept(which))))
    keep = list(best)
    rerolled = []
    for index, face in enumerate(faces):
        if face in keep:
            keep.remove(face)
        else:
            rerolled.append(str(index + 1))
    return "".join(rerolled)


def _rerolls(count: int) -> list[tuple[int, ...]]:
    return [which for size in range(1, count + 1)
            for which in itertools.combinations(range(count), size)]


class _Plan:
    """A volley's expected points under the best play, exact (fractions), for one
    ``bonus``: :meth:`value` of faces after a throw, :meth:`choice` of a reroll."""

    def __init__(self, bonus: int) -> None:
        self.bonus = bonus
        self.value = cache(self._value)
        self._choice = cache(self._choice_sorted)

    def _value(self, faces: tuple[int, ...], throw: int) -> Fraction:
        triple = volley_triple(faces, self.bonus)
        if triple is not None:
            return Fraction(triple)
        if throw == VOLLEY_THROWS:
            return Fraction(NO_TRIPLE_POINTS)  # (stopping earlier is worth the same 7)
        return min(self.choice(faces, throw, which) for which in _rerolls(len(faces)))

    def choice(self, faces: list[int] | tuple[int, ...], throw: int,
               which: tuple[int, ...]) -> Fraction:
        """Expected points of rerolling the dice ``which`` of ``faces`` at ``throw``."""
        kept = tuple(sorted(face for i, face in enumerate(faces) if i not in which))
        return self._choice(kept, len(which), throw)

    def _choice_sorted(self, kept: tuple[int, ...], rerolled: int, throw: int) -> Fraction:
        total = Fraction(0)
        for new in itertools.product(range(1, 7), repeat=rerolled):
            total += self.value(tuple(sorted(kept + new)), throw + 1)
        return total / 6 ** rerolled


@lru_cache(maxsize=64)
def _best_plan(bonus: int) -> _Plan:
    return _Plan(bonus)


def _game_result(game: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """A darts game's result over its finished volleys: points add up, fewest wins (« Le
    gagnant est celui qui a le moins de points après 6 volées »). ``margin`` is the points
    below the worst score (7 a volley), so that the highest margin wins an opposed ask;
    a finished game is a success (``narrow``: not one triple)."""
    played = len(game["scores"])
    margin = NO_TRIPLE_POINTS * played - game["total"]
    if played < game["volleys"]:
        return common(True, margin, "success" if margin else "narrow",
                      f"Volée {game['volley']}/{game['volleys']}, {game['total']} points",
                      f"Volley {game['volley']}/{game['volleys']}, {game['total']} points",
                      **fields)
    return common(True, margin, "success" if margin else "narrow",
                  f"Partie : {game['total']} points en {played} volées",
                  f"Game: {game['total']} points in {played} volleys", **fields)


def _volley(roll: Roll, faces: list[int], rolled: list[dict[str, Any]], throw: int,
            game: dict[str, Any] | None = None) -> Outcome:
    bonus = roll.params["darts_bonus"]
    value = volley_triple(faces, bonus)
    points = value if value is not None else NO_TRIPLE_POINTS
    ended = value is not None or throw == VOLLEY_THROWS
    fields: dict[str, Any] = {"volley": {"faces": list(faces), "throw": throw,
                                         "triple": value, "points": points,
                                         "bonus_used": 3 * value - sum(faces)
                                         if value is not None else 0}}
    if game is not None:
        game = dict(game, scores=list(game["scores"]) + ([points] if ended else []))
        game["total"] = sum(game["scores"])
        fields["game"] = game
        result = _game_result(game, fields)
    elif value is not None:
        result = common(True, NO_TRIPLE_POINTS - value, "success", f"Triple de {value}",
                        f"Triple {value}s", **fields)
    else:
        result = common(False, -1, "failure", "Pas de triple" if throw == VOLLEY_THROWS
                        else "Pas encore de triple", "No triple" if throw == VOLLEY_THROWS
                        else "No triple yet", **fields)
    outcome = Outcome(result=result, dice=rolled)
    if not ended:
        choices = []
        for size in (1, 2, 3):
            for which in itertools.combinations(range(VOLLEY_DICE), size):
                name = "".join(str(i + 1) for i in which)
                shown = ", ".join(str(faces[i]) for i in which)
                choices.append({"name": f"reroll_{name}", "dice": size, "label": label(
                    f"Relancer {shown} ({agree(size, 'dé')} {name})",
                    f"Reroll {shown} ({'die' if size == 1 else 'dice'} {name})")})
        choices.append({"name": "stop", "dice": 0, "label": label(
            f"S'arrêter : {NO_TRIPLE_POINTS} points", f"Stop: {NO_TRIPLE_POINTS} points")})
        outcome.choices = choices
        outcome.default = f"reroll_{volley_policy(faces, bonus, throw)}"
    elif game is not None and len(game["scores"]) < game["volleys"]:
        # The next volley's three dice, thrown when the player goes on (the default).
        following = game["volley"] + 1
        outcome.choices = [{"name": "next", "dice": VOLLEY_DICE, "label": label(
            f"Volée suivante ({following}/{game['volleys']})",
            f"Next volley ({following}/{game['volleys']})")}]
        outcome.default = "next"
    return outcome


def _new_game(roll: Roll) -> dict[str, Any] | None:
    volleys = roll.params["volleys"]
    return None if volleys == 1 else {"volleys": volleys, "volley": 1, "scores": [],
                                      "total": 0}


def first_volley(roll: Roll, dice: Dice) -> Outcome:
    """A darts roll's first throw (of its first volley, when it plays a game)."""
    game = _new_game(roll)
    faces = dice.roll_many(VOLLEY_DICE, 6)
    if game is not None:
        for die in dice.rolled:
            die["volley"] = 1
    return _volley(roll, faces, dice.rolled, 1, game)


def volley_react(roll: Roll, outcome: Outcome, choice: str, dice: Dice) -> Outcome:
    """A decision between throws: ``reroll_<dice>``, ``stop``, or ``next`` (the game's
    next volley)."""
    state = outcome.result["volley"]
    game = outcome.result.get("game")
    faces = list(state["faces"])
    if choice == "next":
        # The game's next volley: three new dice, the FLA bonus whole again (« à chaque
        # volée »).
        game = dict(game, volley=game["volley"] + 1)
        faces = dice.roll_many(VOLLEY_DICE, 6)
        for die in dice.rolled:
            die["throw"], die["volley"] = 1, game["volley"]
        return _volley(roll, faces, list(outcome.dice) + list(dice.rolled), 1, game)
    if choice == "stop":
        return _volley(roll, faces, list(outcome.dice), VOLLEY_THROWS, game)
    throw = state["throw"] + 1
    for index in choice[len("reroll_"):]:
        faces[int(index) - 1] = dice.roll(6)
    for die in dice.rolled:
        die["throw"] = throw
        if game is not None:
            die["volley"] = game["volley"]
    return _volley(roll, faces, list(outcome.dice) + list(dice.rolled), throw, game)


@lru_cache(maxsize=64)
def volley_odds(bonus: int) -> dict[str, Any]:
    """Exact odds of a volley played by its defaults (:func:`volley_policy` until a triple
    or the third throw): every path weighs 1/6 per die drawn, 9 dice at most."""
    counts = volley_ways(bonus)
    total = 6 ** (VOLLEY_DICE * VOLLEY_THROWS)
    kinds = {"success": total - counts.get(NO_TRIPLE_POINTS, 0),
             "failure": counts.get(NO_TRIPLE_POINTS, 0)}
    return odds_reply(kinds, total, "points", list(counts.items()))


@lru_cache(maxsize=64)
def volley_ways(bonus: int) -> dict[int, int]:
    """A volley's points, each with its number of ways out of 6⁹ (the volley played by
    its defaults)."""
    @cache
    def ending(faces: tuple[int, ...], throw: int) -> tuple[tuple[int, Fraction], ...]:
        value = volley_triple(faces, bonus)
        if value is not None:
            return ((value, Fraction(1)),)
        if throw == VOLLEY_THROWS:
            return ((NO_TRIPLE_POINTS, Fraction(1)),)
        which = [int(i) - 1 for i in volley_policy(faces, bonus, throw)]
        points: Counter[int] = Counter()
        for new in itertools.product(range(1, 7), repeat=len(which)):
            after = list(faces)
            for index, face in zip(which, new, strict=True):
                after[index] = face
            for value, p in ending(tuple(after), throw + 1):
                points[value] += p / 6 ** len(which)
        return tuple(points.items())

    total = 6 ** (VOLLEY_DICE * VOLLEY_THROWS)
    ways: Counter[int] = Counter()
    for first in itertools.product(range(1, 7), repeat=VOLLEY_DICE):
        for value, p in ending(first, 1):
            ways[value] += p / 6 ** VOLLEY_DICE
    return {value: int(p * total) for value, p in sorted(ways.items())}


@lru_cache(maxsize=64)
def game_odds(bonus: int, volleys: int) -> dict[str, Any]:
    """Exact odds of a darts game of ``volleys`` volleys, each played by its defaults:
    the volleys are independent, so the total's distribution is the volleys' points
    distribution (:func:`volley_ways`, in integers over 6⁹ paths) added ``volleys`` times.
    Kinds as the game's result: ``narrow`` without a single triple, else ``success``."""
    ways = volley_ways(bonus)
    per_volley = 6 ** (VOLLEY_DICE * VOLLEY_THROWS)
    totals = {0: 1}
    for _ in range(volleys):
        grown: dict[int, int] = {}
        for total, count in totals.items():
            for points, more in ways.items():
                grown[total + points] = grown.get(total + points, 0) + count * more
        totals = grown
    worst = NO_TRIPLE_POINTS * volleys
    kinds = {"narrow": totals.get(worst, 0),
             "success": per_volley ** volleys - totals.get(worst, 0)}
    return odds_reply(kinds, per_volley ** volleys, "total", sorted(totals.items()))


def darts_odds(params: dict[str, Any]) -> dict[str, Any]:
    """The odds of a darts roll: one volley, or a game of ``volleys``."""
    if params["volleys"] > 1:
        return game_odds(params["darts_bonus"], params["volleys"])
    return volley_odds(params["darts_bonus"])


def volley_text(roll: Roll, result: dict[str, Any], fr: bool) -> str:
    """A darts roll's line in the chat, in French (``fr``) or English."""
    v, game = result["volley"], result.get("game")
    faces = ", ".join(map(str, v["faces"]))
    if fr:
        which = f" {game['volley']}/{game['volleys']}" if game else ""
        line = (f"{heading(roll)}Volée{which}, lancer {v['throw']} : {faces} "
                "— " + (f"triple de {v['triple']}" if v["triple"] else "pas de triple")
                + f", {v['points']} points")
        if game:
            line += (f" ; partie : {game['total']} points en "
                     f"{plural(len(game['scores']), 'volée')}")
        return line
    which = f" {game['volley']}/{game['volleys']}" if game else ""
    line = (f"{heading(roll, locale='en')}Volley{which}, throw {v['throw']}: {faces} — "
            + (f"triple {v['triple']}s" if v["triple"] else "no triple")
            + f", {v['points']} points")
    if game:
        volleys = len(game["scores"])
        line += f"; game: {game['total']} points in {volleys} volley{'' if volleys == 1 else 's'}"
    return line
