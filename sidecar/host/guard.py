"""The guard around one call of an untrusted plugin: working copies, checks, commit.

The data goes through once: pipeline → :class:`Guard` (copies what the plugin may touch)
→ plugin (works on the copies, in a worker thread or on the event loop) → guard (checks
the copies against the originals, which nobody touched) → pipeline (commits the copies, or
drops them). Undoing a failed call is dropping its copies, and a thread that misses its
deadline can only ever write into copies nobody reads again.

The module also holds the checks of what plugins hand back (:func:`tree_problem`,
:func:`result_problem`): what is stored must be storable, and sendable to every client.
"""

from __future__ import annotations

import dataclasses
import math
from types import MappingProxyType
from typing import Any

from sidecar.model import Outcome, Roll
from sidecar.protocol.messages import KINDS
from sidecar.protocol.text import is_localized

LOCALES = ("fr", "en")
#: MessagePack carries integers from -2**63 to 2**64-1; anything else poisons a table.
INT_MIN, INT_MAX = -(2 ** 63), 2 ** 64 - 1
#: The most values one plugin answer may hold (also what stops a self-referencing list).
MAX_NODES = 200_000
#: The deepest nesting a plugin answer may have (clients refuse frames nested past 16).
MAX_DEPTH = 12
#: The largest result, and the most notes, one extension may leave in an outcome (values
#: plus characters of text), so that an extension cannot make every roll too large to
#: store (an event is at most 16 KiB).
MAX_ADDED_SIZE = 4096
ROLL_FIELDS = tuple(f.name for f in dataclasses.fields(Roll))
#: What no plugin may change about a roll (everything but its params and its own state).
IDENTITY_FIELDS = tuple(name for name in ROLL_FIELDS if name not in ("params", "state"))


def deep_copy(value: Any) -> Any:
    """A deep copy of a JSON-like tree (maps and lists; other values are immutable or
    refused later). Several times faster than ``copy.deepcopy``."""
    if isinstance(value, (dict, MappingProxyType)):  # (a roll's read-only sheet too)
        return {key: deep_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [deep_copy(item) for item in value]
    return value


def tree_problem(value: Any, max_size: int | None = None) -> str | None:
    """What keeps ``value`` from being stored as JSON and sent as MessagePack, or ``None``.

    Maps with string keys, lists, strings that are valid Unicode (no lone surrogate),
    booleans, ``None``, finite floats and integers within MessagePack's range (-2**63 …
    2**64-1); at most :data:`MAX_NODES` values, nested at most :data:`MAX_DEPTH` deep, and,
    with ``max_size``, a size (values plus characters of text) of at most that much: what
    goes into every event must not make each roll too large to store.
    """
    stack = [(value, 0)]
    seen = chars = 0
    while stack:
        item, depth = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            return f"holds more than {MAX_NODES} values (or refers to itself)"
        if depth > MAX_DEPTH:
            return f"is nested deeper than {MAX_DEPTH} levels"
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, str):
            chars += len(item)
            if not item.isascii():
                try:
                    item.encode()
                except UnicodeEncodeError:
                    return "holds text that is not valid Unicode (a lone surrogate)"
        elif isinstance(item, int):
            if not INT_MIN <= item <= INT_MAX:
                return "holds an integer outside -2**63 … 2**64-1"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"holds the number {item}"
        elif isinstance(item, dict):
            for key in item:
                if not isinstance(key, str):
                    return f"has a map key that is not a string ({type(key).__name__})"
                chars += len(key)
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend((child, depth + 1) for child in item)
        else:
            return f"holds a {type(item).__name__}, which is not JSON-compatible"
        if max_size is not None and chars + seen > max_size:
            return f"is larger than {max_size} (values and characters of text)"
    return None


def result_problem(result: Any) -> str | None:
    """What is wrong with an outcome's ``result`` (``None`` when it is sound)."""
    if not isinstance(result, dict):
        return "result must be a map"
    if not isinstance(result.get("success"), bool):
        return "result.success must be a bool"
    margin = result.get("margin")
    if isinstance(margin, bool) or not isinstance(margin, int):
        return "result.margin must be an integer"
    if result.get("kind") not in KINDS:
        return f"result.kind must be one of {', '.join(KINDS)}"
    label = result.get("label")
    if not (isinstance(label, dict) and all(isinstance(label.get(k), str) for k in LOCALES)):
        return "result.label must be a map with 'fr' and 'en' strings"
    problem = tree_problem(result)
    return f"result {problem}" if problem else None


def probability_problem(value: Any) -> str | None:
    """Why ``value`` is not a probability (a finite number from 0 to 1), or ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"is a {type(value).__name__}, not a number"
    # (Comparisons first: an integer like 10**400 has no float, and NaN compares false.)
    if not 0 <= value <= 1:
        return f"is {value!r:.40}, outside [0, 1]" if isinstance(value, float) \
            else "is outside [0, 1]"
    return None


def odds_problem(odds: Any, *, check_tree: bool) -> str | None:
    """What is wrong with the map ``sidecar_odds`` returned (``None`` when it is sound)."""
    if not isinstance(odds, dict):
        return f"expected a map, got {type(odds).__name__}"
    problem = probability_problem(odds.get("p_success"))
    if problem:
        return f"p_success {problem}"
    kinds = odds.get("kinds")
    if not isinstance(kinds, dict):
        return "kinds must be a map"
    for kind in KINDS:
        if kind in kinds:
            problem = probability_problem(kinds[kind])
            if problem:
                return f"kinds.{kind} {problem}"
    if check_tree:
        problem = tree_problem(odds)
        if problem:
            return problem
    return None


def copy_roll(roll: Roll, state: dict[str, Any]) -> Roll:
    """A copy of ``roll`` sharing nothing mutable with it, carrying a copy of ``state``."""
    copy_ = Roll(**{name: deep_copy(getattr(roll, name)) for name in ROLL_FIELDS})
    copy_.state = deep_copy(state)
    return copy_


def copy_outcome(outcome: Outcome) -> Outcome:
    return Outcome(result=deep_copy(outcome.result), dice=deep_copy(outcome.dice),
                   notes=list(outcome.notes), applied=list(outcome.applied),
                   spend=dict(outcome.spend) if isinstance(outcome.spend, dict)
                   else outcome.spend, choices=deep_copy(outcome.choices),
                   default=outcome.default,
                   effects=deep_copy(outcome.effects) if outcome.effects else {})


#: Most choices one open roll may offer.
MAX_CHOICES = 12


def choices_problem(choices: Any, default: Any) -> str | None:
    """What is wrong with an outcome's ``choices`` and ``default`` (an open roll)."""
    if choices is None:
        return None if default is None else "a default without choices"
    if not isinstance(choices, list) or not choices or len(choices) > MAX_CHOICES:
        return f"choices must be a list of 1 to {MAX_CHOICES} maps"
    names = set()
    for choice in choices:
        if not isinstance(choice, dict):
            return "each choice must be a map"
        name, label, dice = choice.get("name"), choice.get("label"), choice.get("dice", 0)
        if not isinstance(name, str) or not 0 < len(name) <= 40 or name in names:
            return "each choice needs a unique name of 1 to 40 characters"
        names.add(name)
        if not (isinstance(label, dict) and isinstance(label.get("fr"), str)
                and isinstance(label.get("en"), str)
                and len(label["fr"]) <= 200 and len(label["en"]) <= 200):
            return f"choice '{name}' needs a label {{fr, en}} of at most 200 characters"
        if isinstance(dice, bool) or not isinstance(dice, int) or not 0 <= dice <= 100:
            return f"choice '{name}': dice must be an integer from 0 to 100"
        if "gm" in choice and not isinstance(choice["gm"], bool):
            return f"choice '{name}': gm must be true or false"
        if "spend" in choice and spend_problem(choice["spend"]):
            return f"choice '{name}': spend must be a map of sheet field to integer"
        if tree_problem(choice, MAX_ADDED_SIZE):
            return f"choice '{name}' cannot be stored"
    if default is not None and default not in names:
        return "default must name one of the choices"
    return None


def spend_problem(spend: Any) -> str | None:
    """What is wrong with an outcome's ``spend`` (a map of field name to integer)."""
    if not isinstance(spend, dict):
        return "spend must be a map of sheet field to integer"
    for name, amount in spend.items():
        if not isinstance(name, str) or isinstance(amount, bool) or not isinstance(amount, int):
            return "spend must be a map of sheet field to integer"
        if not -2**31 <= amount < 2**31:
            return f"spend of '{name[:40]}' is out of range"
    if len(spend) > 64:
        return "spend names more than 64 fields"
    return None


def effects_problem(effects: Any) -> str | None:
    """What is wrong with the shape of an outcome's ``effects`` (a map of character to a
    map of field to integer); whether each names a target and a number field of its sheet
    is checked where the targets are known (:mod:`sidecar.table.targeting`)."""
    if not isinstance(effects, dict) or len(effects) > 64:
        return "effects must be a map of character to {field: integer}"
    for name, delta in effects.items():
        if not isinstance(name, str) or not isinstance(delta, dict):
            return "effects must be a map of character to {field: integer}"
        problem = spend_problem(delta)
        if problem:
            return f"effects on '{name[:40]}': {problem.replace('spend', 'effect')}"
    return None


class Guard:
    """One untrusted call: the copies the plugin works on, and what it is checked against.

    ``roll``/``outcome``/``state`` are the originals (the plugin never sees them);
    ``work_roll``/``work_outcome`` are what the plugin is given. After the call,
    :meth:`roll_problem` and :meth:`outcome_problem` say what it broke; the pipeline then
    commits the working copies or drops them.
    """

    __slots__ = ("plugin", "hook", "roll", "outcome", "state", "work_roll", "work_outcome")

    def __init__(self, plugin: str, hook: str, roll: Roll, state: dict[str, Any],
                 outcome: Outcome | None = None) -> None:
        self.plugin = plugin
        self.hook = hook
        self.roll = roll
        self.state = state
        self.outcome = outcome
        self.work_roll = copy_roll(roll, state)
        self.work_outcome = copy_outcome(outcome) if outcome is not None else None

    @property
    def params_changed(self) -> bool:
        return self.work_roll.params != self.roll.params

    @property
    def result_changed(self) -> bool:
        assert self.outcome is not None and self.work_outcome is not None
        return self.work_outcome.result != self.outcome.result

    @property
    def notes_added(self) -> list[Any]:
        assert self.outcome is not None and self.work_outcome is not None
        return self.work_outcome.notes[len(self.outcome.notes):]

    def roll_problem(self) -> str | None:
        """What the plugin changed about the roll that it may not, or left unstorable."""
        work = self.work_roll
        for name in IDENTITY_FIELDS:
            if getattr(work, name) != getattr(self.roll, name):
                return f"changed roll.{name}, which plugins may not change"
        if not isinstance(work.params, dict):
            return "roll.params is no longer a map"
        if not isinstance(work.state, dict):
            return "roll.state is no longer a map"
        if work.state != self.state:
            problem = tree_problem(work.state)
            if problem:
                return f"state {problem}"
        return None

    def outcome_problem(self) -> str | None:
        """What the plugin changed about the outcome that it may not, or left invalid."""
        work, original = self.work_outcome, self.outcome
        assert work is not None and original is not None
        if work.dice != original.dice:
            return "changed outcome.dice, which extensions may not change"
        if work.applied != original.applied:
            return "changed outcome.applied, which the server keeps"
        if work.spend != original.spend:
            problem = spend_problem(work.spend)
            if problem:
                return problem
        if work.effects != original.effects:
            problem = effects_problem(work.effects)
            if problem:
                return problem
        if work.choices != original.choices or work.default != original.default:
            return "changed outcome.choices, which only the ruleset sets"
        if not isinstance(work.notes, list) or work.notes[:len(original.notes)] != original.notes:
            return "notes may only be appended to"
        added = work.notes[len(original.notes):]
        if not all(is_localized(note) for note in added):
            return "notes must be strings or {fr, en} maps of strings"
        if added:
            problem = tree_problem(added, MAX_ADDED_SIZE)
            if problem:
                return f"notes: {problem}"
        if work.result != original.result:
            problem = result_problem(work.result)
            if not problem and tree_problem(original.result, MAX_ADDED_SIZE) is None:
                problem = tree_problem(work.result, MAX_ADDED_SIZE)
            if problem:
                return f"left an invalid result: {problem}"
        return None
