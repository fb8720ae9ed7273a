"""The roll pipeline, as plain objects a test can drive without a socket.

validate → ``sidecar_modify_roll`` (extensions, one at a time) → ``sidecar_max_spend``
(as a character: the most it could spend, refused before any die when the sheet cannot
pay it, :mod:`sidecar.host.spending`) → ``sidecar_resolve`` (the ruleset's owner only) →
``sidecar_modify_outcome`` (extensions) → ``sidecar_render_text`` (the owner first; the
other plugins only when it gives no text).

Trusted plugins (the built-ins, and those the operator trusts) are called inline on the
real roll and outcome, with only a shallow record to undo a raise and to see what changed.
Untrusted plugins get a :class:`~sidecar.host.guard.Guard`: they work on copies, in a worker
thread or under the event loop's deadline, and their copies are committed only when
sound.

The table's per-plugin state is worked on as a copy (per plugin, on first use) and handed
back in the :class:`Resolution`: the caller commits it only once the roll has succeeded,
so a roll that ends in an error changes nothing about the table.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sidecar.dice.sources import (
    Dice,
    DiceExhausted,
    DiceSource,
    ManualDice,
    SecureDice,
    describe_dice,
)
from sidecar.host.guard import (
    LOCALES,
    Guard,
    copy_outcome,
    copy_roll,
    deep_copy,
    odds_problem,
    result_problem,
    spend_problem,
    tree_problem,
)
from sidecar.host.params import validate_params
from sidecar.host.plugins import HookFailure, Impl, InlinePlan, PluginCrash, PluginHost
from sidecar.host.spending import add_declared, declaration_problem, refuse_unaffordable
from sidecar.model import Outcome, Roll
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.messages import KINDS, heading

log = logging.getLogger("sidecar.pipeline")

__all__ = ["LOCALES", "Resolution", "RollPipeline", "failure_note", "result_problem"]

#: What the dice source itself refuses while a roll draws (typed faces out of range, too
#: many draws): the host's answers about the faces, passed on as they are.
DICE_REFUSALS = ("bad_dice", "too_large")


@dataclass
class Resolution:
    """A resolved roll: the final roll and outcome, the texts, and the state to commit."""

    roll: Roll
    outcome: Outcome
    text: dict[str, str]
    state: dict[str, dict[str, Any]]
    failures: list[HookFailure] = field(default_factory=list)
    #: Faces this request drew (the roll's, or the decision's): once one is drawn the
    #: outcome is journaled whatever its spend (contract §7: refusals never depend on
    #: the dice), taken only as far as the sheet holds.
    drawn: int = 0


class TableStates:
    """The table's per-plugin state for one roll: each plugin's map is copied on its first
    use, so the table's own maps are never changed and an unused one is never copied."""

    __slots__ = ("table", "copies")

    def __init__(self, table: dict[str, dict[str, Any]] | None) -> None:
        self.table = table or {}
        self.copies: dict[str, dict[str, Any]] = {}

    def of(self, plugin: str) -> dict[str, Any]:
        state = self.copies.get(plugin)
        if state is None:
            kept = self.table.get(plugin)
            state = self.copies[plugin] = deep_copy(kept) if kept else {}
        return state

    def replace(self, plugin: str, state: dict[str, Any]) -> None:
        self.copies[plugin] = state

    def merged(self) -> dict[str, dict[str, Any]]:
        """The table's state after this roll (unchanged maps are the table's own; a plugin
        that had no state and still has none gets no entry)."""
        table = self.table
        merged = None
        for plugin, state in self.copies.items():
            if state or plugin in table:
                if merged is None:
                    merged = dict(table)
                merged[plugin] = state
        return table if merged is None else merged


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if not isinstance(exc, PluginCrash) else str(exc)


def failure_note(failure: HookFailure) -> str:
    """The note an outcome carries about an extension left out of it."""
    return (
        f"extension « {failure.plugin} » en échec, ignorée pour ce jet / "
        f"extension '{failure.plugin}' failed and was left out of this roll ({failure.error})"
    )


def _note_failures(outcome: Outcome, failures: list[HookFailure]) -> None:
    """Say in the outcome's notes which plugin failed on it (each once)."""
    for failure in failures:
        note = failure_note(failure)
        if note not in outcome.notes:
            outcome.notes.append(note)


def _check_all_used(source: DiceSource) -> None:
    """Refuse manual faces the roll did not consume (``bad_dice``)."""
    if isinstance(source, ManualDice) and source.unused:
        used = len(source.rolled)
        raise ProtocolError(
            "bad_dice",
            f"this roll uses {used} dice ({describe_dice(source.rolled)}), "
            f"{len(source.faces)} were given",
            fr=f"ce jet utilise {used} dés ({describe_dice(source.rolled)}), "
               f"{len(source.faces)} ont été donnés",
            details={"expected": used, "given": len(source.faces),
                     "dice": [d["sides"] for d in source.rolled]},
        )


def _own_copy(odds: dict[str, Any]) -> dict[str, Any]:
    """The caller's own copy of a trusted ruleset's (often cached) odds: fresh maps and
    lists all the way down, with the distribution's pairs copied at C speed."""
    answer = {}
    for key, value in odds.items():
        if key == "distribution" and value.__class__ is dict:
            value = {name: ([list(pair) if pair.__class__ is list else deep_copy(pair)
                             for pair in item] if name == "values" and item.__class__ is list
                            else deep_copy(item))
                     for name, item in value.items()}
        elif key != "kinds" and value.__class__ in (dict, list):  # (kinds: rebuilt)
            value = deep_copy(value)
        answer[key] = value
    return answer


def _params_key(params: dict[str, Any]) -> tuple[Any, ...] | None:
    """A hashable key for params made of scalars and lists of scalars (types included:
    ``True`` and ``1`` validate differently), or ``None``."""
    key = []
    for name, value in params.items():
        kind = value.__class__
        if kind is list:
            value = tuple(value)
        elif kind is dict:
            return None
        key.append((name, kind, value))
    return tuple(key)


class RollPipeline:
    """Turns validated requests into resolutions, through the plugin host."""

    def __init__(
        self,
        host: PluginHost,
        *,
        dice_factory: Callable[[], DiceSource] | None = None,
        on_failure: Callable[[HookFailure], None] | None = None,
    ) -> None:
        self.host = host
        #: Where faces come from; by default :class:`SecureDice`, with one set of pools
        #: for the trusted rulesets resolved on this pipeline's thread. Whatever the
        #: source, hooks get it wrapped in a :class:`~sidecar.dice.sources.Dice`.
        self.dice_factory = dice_factory
        self.on_failure = on_failure
        self._pools: dict[int, list[int]] = {}
        #: (ruleset, params key) → validated params: a repeated request is not re-validated.
        self._validated: dict[tuple[Any, ...], tuple[dict[str, Any], tuple[str, ...]]] = {}

    # -- steps --------------------------------------------------------------------------

    def prepare(
        self,
        ruleset: str,
        params: dict[str, Any],
        *,
        options: dict[str, Any] | None = None,
        table: str = "",
        by: dict[str, str] | None = None,
        label: str = "",
        mode: str = "public",
        manual: bool = False,
    ) -> Roll:
        """Check the ruleset and the params; return the :class:`Roll` hooks will see."""
        schema = self.host.ruleset_schema(ruleset)
        if schema is None:
            known = ", ".join(sorted(self.host.rulesets)) or "none"
            raise ProtocolError(
                "unknown_ruleset",
                f"unknown ruleset '{ruleset[:40]}' (loaded: {known})",
                fr=f"jeu de règles inconnu '{ruleset[:40]}' (chargés : {known})",
                details={"ruleset": ruleset[:40], "known": sorted(self.host.rulesets)},
            )
        return Roll(
            ruleset=ruleset,
            params=self._validate(ruleset, params, schema),
            # Checked against the extensions' descriptions (``invalid_params`` naming the
            # extension and the key) before any hook sees them.
            options=self.host.validate_options(ruleset, options) if options else {},
            table=table,
            by=dict(by) if by else {},
            label=label,
            mode=mode,
            manual=manual,
        )

    def prepare_plain(self, ruleset: str, *, table: str = "",
                      by: dict[str, str] | None = None) -> Roll:
        """A :class:`Roll` of ``ruleset`` with no params checked: what a hook needs to know
        of who asks and where, when nothing is rolled (initiative)."""
        if self.host.ruleset_schema(ruleset) is None:
            raise ProtocolError("unknown_ruleset", f"unknown ruleset '{ruleset[:40]}'",
                                fr=f"jeu de règles inconnu « {ruleset[:40]} »",
                                details={"ruleset": ruleset[:40]})
        return Roll(ruleset=ruleset, params={}, table=table, by=dict(by) if by else {})

    def _validate(self, ruleset: str, params: dict[str, Any],
                  schema: dict[str, Any]) -> dict[str, Any]:
        if params.__class__ is not dict:
            return validate_params(params, schema)
        values = tuple(params.values())
        # Types are part of the key: ``True`` and ``1`` are equal but validate differently.
        key: tuple[Any, ...] | None = (ruleset, tuple(params), tuple(map(type, values)),
                                       values)
        try:
            known = self._validated.get(key)
        except TypeError:  # a list among the values: the slower key, lists as tuples
            listed = _params_key(params)
            try:
                key = (ruleset, listed)
                known = self._validated.get(key) if listed is not None else None
            except TypeError:  # an unhashable item in a list
                key = known = None
            if listed is None:
                key = None
        if known is not None:  # the roll's own copy (lists are the only mutable values)
            checked, lists = known
            copy = checked.copy()
            for name in lists:
                copy[name] = list(copy[name])
            return copy
        checked = validate_params(params, schema)
        if key is not None:
            if len(self._validated) >= 4096:
                self._validated.clear()
            lists = tuple(name for name, value in checked.items() if value.__class__ is list)
            kept = checked.copy()
            for name in lists:
                kept[name] = list(kept[name])
            self._validated[key] = (kept, lists)
        return checked

    def _report(self, failures: list[HookFailure], plugin: str, hook: str, error: str) -> None:
        failure = HookFailure(plugin, hook, error)
        failures.append(failure)
        log.warning("plugin %s failed in %s: %s", plugin, hook, error)
        self.host.record_failure(plugin, error)
        if self.on_failure is not None:
            self.on_failure(failure)

    def _dice(self, trusted: bool) -> DiceSource:
        if self.dice_factory is not None:
            return self.dice_factory()
        # An untrusted ruleset may draw in a worker thread, even past its deadline: it gets
        # pools of its own.
        return SecureDice(self._pools) if trusted else SecureDice()

    def _modify_roll_inline(self, impl: Impl, roll: Roll, states: TableStates,
                            failures: list[HookFailure], changed: list[str]) -> None:
        """A trusted ``sidecar_modify_roll``, on the real roll: a shallow record to undo a
        raise, params validated again only when they changed."""
        if not impl.applies(roll):
            return
        roll.state = state = states.of(impl.plugin)
        params, kept = dict(roll.params), dict(state)
        problem = None
        try:
            impl.function(*impl.pick((roll,)))
        except ProtocolError as exc:
            if exc.code == "invalid_params":
                raise
            problem = describe(exc)
        except BaseException as exc:  # a plugin can never stop the server
            problem = describe(exc)
        if problem is None and roll.params != params:
            try:
                roll.params = validate_params(roll.params,
                                              self.host.ruleset_schema(roll.ruleset) or {})
            except ProtocolError as exc:
                problem = f"left invalid params: {exc.message}"
        if problem is not None:
            roll.params = params
            state.clear()
            state.update(kept)
            self._report(failures, impl.plugin, impl.hook, problem)
        elif roll.params != params:
            changed.append(impl.plugin)

    async def modify_roll(self, roll: Roll, states: TableStates | dict[str, Any],
                          failures: list[HookFailure]) -> list[str]:
        """Run the extensions' ``sidecar_modify_roll``; return those that changed params.

        A ``ProtocolError`` with code ``invalid_params`` raised by an extension refuses the
        roll (it propagates); any other failure leaves that extension out of this roll.
        """
        if not isinstance(states, TableStates):
            states = TableStates(states)
        changed: list[str] = []
        schema: dict[str, Any] | None = None
        for impl in self.host.implementations("sidecar_modify_roll"):
            if impl.inline:
                self._modify_roll_inline(impl, roll, states, failures, changed)
                continue
            guard = Guard(impl.plugin, impl.hook, roll, states.of(impl.plugin))
            try:
                await self.host.invoke(impl, impl.pick((guard.work_roll,)))
            except ProtocolError as exc:
                if exc.code == "invalid_params":
                    raise
                problem = describe(exc)
            except Exception as exc:
                problem = describe(exc)
            else:
                problem = guard.roll_problem()
                if problem is None and guard.params_changed:
                    if schema is None:
                        schema = self.host.ruleset_schema(roll.ruleset) or {}
                    try:
                        guard.work_roll.params = validate_params(guard.work_roll.params,
                                                                 schema)
                    except ProtocolError as exc:
                        problem = f"left invalid params: {exc.message}"
            if problem is not None:
                self._report(failures, impl.plugin, impl.hook, problem)
                continue
            if guard.params_changed:
                roll.params = guard.work_roll.params
                changed.append(impl.plugin)
            states.replace(impl.plugin, guard.work_roll.state)
        return changed

    def _check_owner(self, ruleset: str) -> str | None:
        owner = self.host.ruleset_owner(ruleset)
        if owner in self.host.disabled:
            raise ProtocolError(
                "plugin_error",
                f"the ruleset '{ruleset}' is disabled after repeated failures of its plugin",
                fr=f"le jeu de règles « {ruleset} » est désactivé : son extension a échoué "
                   "trop souvent",
                details={"plugin": owner, "ruleset": ruleset, "disabled": True})
        return owner

    # -- what a roll may spend, before its dice (sidecar.host.spending) ------------------------

    def _declared(self, roll: Roll, impl: Impl, answer: Any, sheet: dict[str, Any],
                  most: dict[str, int], failures: list[HookFailure]) -> None:
        """Add one plugin's ``sidecar_max_spend`` answer to ``most``, checked."""
        problem = declaration_problem(answer, sheet)
        if problem is None:
            add_declared(most, answer)
        else:
            self._declaration_failed(roll, impl, problem, failures)

    def _declaration_failed(self, roll: Roll, impl: Impl, problem: str,
                            failures: list[HookFailure]) -> None:
        """A plugin could not say what the roll may spend: the owner's failure refuses
        the roll (no die drawn yet); an extension's leaves it out, as elsewhere."""
        if impl.plugin == self.host.ruleset_owner(roll.ruleset):
            raise self._ruleset_failed(roll, impl.plugin, problem,
                                       "failed to say what the roll may spend",
                                       "n'a pas pu dire ce que le jet peut dépenser")
        self._report(failures, impl.plugin, impl.hook, problem)

    @staticmethod
    def _passes(exc: BaseException) -> bool:
        """A refusal a declaration may raise as it is: nothing is drawn yet."""
        return isinstance(exc, ProtocolError) and exc.code in ("invalid_params",
                                                                "insufficient")

    def _declare_inline(self, impl: Impl, roll: Roll, outcome: Outcome | None,
                        choice: str | None, states: TableStates, sheet: dict[str, Any],
                        most: dict[str, int], failures: list[HookFailure]) -> None:
        """A trusted ``sidecar_max_spend``, on the roll itself, added to ``most``."""
        if not impl.applies(roll):
            return
        roll.state = states.of(impl.plugin)
        try:
            answer = impl.function(*impl.pick((roll, outcome, choice)))
        except BaseException as exc:  # a plugin can never stop the server
            if self._passes(exc):
                raise
            self._declaration_failed(roll, impl, describe(exc), failures)
            return
        self._declared(roll, impl, answer, sheet, most, failures)

    def _afford_inline(self, impls: list[Impl], roll: Roll, outcome: Outcome | None,
                       choice: str | None, states: TableStates,
                       failures: list[HookFailure]) -> None:
        """:meth:`afford` when every declaration is trusted and sync (the built-ins)."""
        if roll.sheet is None or not impls:
            return
        sheet = self.host.sheet_schema(roll.ruleset)
        most: dict[str, int] = {}
        for impl in impls:
            self._declare_inline(impl, roll, outcome, choice, states, sheet, most, failures)
        refuse_unaffordable(sheet, roll.sheet, most)

    async def afford(self, roll: Roll, outcome: Outcome | None, choice: str | None,
                     states: TableStates | dict[str, Any] | None,
                     failures: list[HookFailure]) -> None:
        """Before any die of a roll as a character (``outcome``/``choice``: before a
        decision on that open roll): ``insufficient`` when its sheet cannot pay the most
        the owner and the extensions declare it could spend (``sidecar_max_spend``)."""
        if roll.sheet is None:
            return
        if not isinstance(states, TableStates):
            states = TableStates(states)
        impls = self.host.spend_limiters(roll.ruleset)
        if all(impl.inline for impl in impls):
            self._afford_inline(impls, roll, outcome, choice, states, failures)
            return
        sheet = self.host.sheet_schema(roll.ruleset)
        most: dict[str, int] = {}
        for impl in impls:
            if impl.inline:
                self._declare_inline(impl, roll, outcome, choice, states, sheet, most,
                                     failures)
                continue
            try:  # read only for the plugin: it gets copies
                answer = await self.host.invoke(impl, impl.pick((
                    copy_roll(roll, states.of(impl.plugin)),
                    copy_outcome(outcome) if outcome is not None else None, choice)))
            except Exception as exc:
                if self._passes(exc):
                    raise
                self._declaration_failed(roll, impl, describe(exc), failures)
                continue
            self._declared(roll, impl, answer, sheet, most, failures)
        refuse_unaffordable(sheet, roll.sheet, most)

    def _refused_after_dice(self, roll: Roll, owner: str | None, exc: ProtocolError,
                            source: DiceSource) -> ProtocolError:
        """A refusal raised while resolving: as it is before any face is drawn, or when it
        is the dice source's own (typed faces out of range, too many draws); otherwise
        the ruleset refused once it had seen faces — its failure, never a refusal that
        could depend on the dice."""
        if not source.rolled or exc.code in DICE_REFUSALS:
            return exc
        return self._ruleset_failed(roll, owner, f"{exc.code}: {exc.message}",
                                    "refused the roll after drawing its dice",
                                    "a refusé le jet après avoir tiré ses dés")

    def _ruleset_failed(self, roll: Roll, owner: str | None, why: str, en: str,
                        fr: str) -> ProtocolError:
        """Log and count a ruleset plugin's failure; the ``plugin_error`` for the client."""
        log.warning("ruleset %s (plugin %s) %s: %s", roll.ruleset, owner, en, why)
        if owner:
            self.host.record_failure(owner, why)
        kind = why.split(":", 1)[0]
        return ProtocolError(
            "plugin_error",
            f"the ruleset '{roll.ruleset}' {en} ({kind})",
            fr=f"le jeu de règles « {roll.ruleset} » {fr} ({kind})",
            details={"plugin": owner, "ruleset": roll.ruleset},
        )

    async def _call_owner(self, impl: Impl, roll: Roll, state: dict[str, Any],
                          values: tuple[Any, ...]) -> tuple[Any, Guard | None]:
        """Call an owner-only hook: inline on the roll when trusted, else on a guard's copy.
        Exceptions propagate (``BaseException`` of inline code as :class:`PluginCrash`)."""
        if impl.inline:
            return self._call_inline(impl, roll, state, values), None
        guard = Guard(impl.plugin, impl.hook, roll, state)
        result = await self.host.invoke(impl, impl.pick((guard.work_roll, *values)))
        return result, guard

    @staticmethod
    def _call_inline(impl: Impl, roll: Roll, state: dict[str, Any],
                     values: tuple[Any, ...]) -> Any:
        """A trusted owner's hook on the roll itself (on the loop, or in a worker thread
        for odds); ``BaseException`` of its code raised as :class:`PluginCrash`."""
        roll.state = state
        try:
            return impl.function(*impl.pick((roll, *values)))
        except (Exception, DiceExhausted):
            raise
        except BaseException as exc:  # SystemExit & co. from plugin code: its failure
            raise PluginCrash(describe(exc)) from None

    async def resolve(self, roll: Roll, dice: list[int] | None,
                      states: TableStates | dict[str, Any],
                      failures: list[HookFailure], *,
                      source: DiceSource | None = None) -> Outcome:
        """Have the ruleset's owner resolve the roll, from manual faces or the dice source
        (``source``: the roll's own, e.g. its verifiable dice; by default the pipeline's)."""
        return (await self._resolve(roll, dice, states, failures, source))[0]

    async def _resolve(self, roll: Roll, dice: list[int] | None,
                       states: TableStates | dict[str, Any],
                       failures: list[HookFailure],
                       given: DiceSource | None = None) -> tuple[Outcome, DiceSource]:
        """:meth:`resolve`, and the source the faces came from (what it drew)."""
        if not isinstance(states, TableStates):
            states = TableStates(states)
        owner = self._check_owner(roll.ruleset)
        impl = self.host.owner_implementation("sidecar_resolve", roll.ruleset)
        if impl is None or owner is None:
            raise self._bad_outcome(roll, owner, "its plugin does not implement "
                                                 "sidecar_resolve")
        source: DiceSource = (ManualDice(dice) if dice is not None
                              else given if given is not None
                              else self._dice(impl.info.trusted))
        try:
            raw, guard = await self._call_owner(impl, roll, states.of(owner),
                                                (Dice(source),))
        except ProtocolError as exc:
            raise self._refused_after_dice(roll, owner, exc, source) from None
        except DiceExhausted:
            raise (await self._too_few_dice(roll, impl, dice or [])) from None
        except Exception as exc:
            raise self._ruleset_failed(roll, owner, describe(exc), "failed on this roll",
                                       "a échoué sur ce jet") from None
        self._keep_owner_state(guard, roll, owner, states)
        outcome = self._as_outcome(raw, source, roll, owner, checked=guard is not None)
        _check_all_used(source)
        return outcome, source

    def _keep_owner_state(self, guard: Guard | None, roll: Roll, owner: str,
                          states: TableStates) -> None:
        """After an untrusted owner's call: refuse what it changed that it may not, and
        keep its state (a trusted owner worked on the real roll and state)."""
        if guard is not None:
            problem = guard.roll_problem()
            if problem:
                raise self._bad_outcome(roll, owner, problem)
            states.replace(owner, guard.work_roll.state)

    async def _too_few_dice(self, roll: Roll, impl: Impl, faces: list[int]) -> ProtocolError:
        # Replay with the missing faces padded to learn the whole sequence of dice.
        probe = ManualDice(faces, pad=True)
        try:
            await self._call_owner(impl, copy_roll(roll, {}), {}, (Dice(probe),))
            wanted = f"{len(probe.rolled)} ({describe_dice(probe.rolled)})"
        except Exception:
            wanted = f"more than {len(faces)}"
        return ProtocolError(
            "bad_dice",
            f"too few dice: this roll needs {wanted}, {len(faces)} were given",
            fr=f"pas assez de dés : ce jet en demande {wanted}, {len(faces)} donnés",
            details={"given": len(faces), "dice": [d["sides"] for d in probe.rolled]},
        )

    def _bad_outcome(self, roll: Roll, owner: str | None, why: str) -> ProtocolError:
        log.warning("ruleset %s (plugin %s) returned a bad outcome: %s",
                    roll.ruleset, owner, why)
        if owner:
            self.host.record_failure(owner, f"bad outcome: {why}")
        return ProtocolError(
            "plugin_error",
            f"the ruleset '{roll.ruleset}' returned a bad outcome: {why}",
            fr=f"le jeu de règles « {roll.ruleset} » a rendu un résultat invalide : {why}",
            details={"plugin": owner, "ruleset": roll.ruleset},
        )

    def _as_outcome(self, raw: Any, source: DiceSource, roll: Roll, owner: str | None, *,
                    checked: bool) -> Outcome:
        """The owner's answer as an :class:`Outcome`; an untrusted owner's (``checked``)
        answer is checked whole, as it will be stored and sent."""
        if raw is None:
            raise self._bad_outcome(roll, owner, "no plugin resolved it")
        if isinstance(raw, dict):
            notes = raw.get("notes", [])
            raw = Outcome(result=raw.get("result"), dice=raw.get("dice", []),
                          notes=list(notes) if isinstance(notes, (list, tuple)) else notes,
                          spend=raw.get("spend") or {}, choices=raw.get("choices"),
                          default=raw.get("default"))
        if not isinstance(raw, Outcome):
            raise self._bad_outcome(roll, owner,
                                    f"expected an Outcome or a map, got {type(raw).__name__}")
        if not raw.dice and source.rolled:
            # Every die drawn is shown to the table, even when the plugin forgot to say so.
            raw.dice = list(source.rolled)
        if checked:
            if not isinstance(raw.notes, list) or not isinstance(raw.dice, list):
                problem: str | None = "notes and dice must be lists"
            else:
                problem = result_problem(raw.result)
            if problem is None and not all(isinstance(n, str) for n in raw.notes):
                problem = "notes must be strings"
            if problem is None and not all(isinstance(d, dict) for d in raw.dice):
                problem = "dice must be maps"
            if problem is None:
                problem = tree_problem(raw.dice)
                problem = f"dice {problem}" if problem else None
            if problem is None and raw.spend:
                problem = spend_problem(raw.spend)
            if problem:
                raise self._bad_outcome(roll, owner, problem)
            # Nothing of the plugin's (a late thread) may change what is stored.
            raw = copy_outcome(raw)
        raw.applied = []
        return raw

    def _modify_outcome_inline(self, impl: Impl, roll: Roll, outcome: Outcome,
                               states: TableStates, failures: list[HookFailure],
                               changed: list[str]) -> None:
        """A trusted ``sidecar_modify_outcome``, on the real outcome: a shallow record to
        undo a raise and to see whether it changed anything."""
        if not impl.applies(roll):
            return
        roll.state = state = states.of(impl.plugin)
        result, notes, kept = dict(outcome.result), len(outcome.notes), dict(state)
        spend = dict(outcome.spend)
        try:
            impl.function(*impl.pick((roll, outcome)))
        except BaseException as exc:  # a plugin can never stop the server
            outcome.result = result
            outcome.spend = spend
            del outcome.notes[notes:]
            state.clear()
            state.update(kept)
            self._report(failures, impl.plugin, impl.hook, describe(exc))
            return
        if len(outcome.notes) != notes or outcome.result != result or outcome.spend != spend:
            changed.append(impl.plugin)

    async def modify_outcome(self, roll: Roll, outcome: Outcome,
                             states: TableStates | dict[str, Any],
                             failures: list[HookFailure]) -> None:
        """Run the extensions' ``sidecar_modify_outcome``; record those that changed it."""
        if not isinstance(states, TableStates):
            states = TableStates(states)
        changed: list[str] = []
        for impl in self.host.implementations("sidecar_modify_outcome"):
            if impl.inline:
                self._modify_outcome_inline(impl, roll, outcome, states, failures, changed)
                continue
            guard = Guard(impl.plugin, impl.hook, roll, states.of(impl.plugin), outcome)
            try:
                await self.host.invoke(impl, impl.pick((guard.work_roll, guard.work_outcome)))
            except Exception as exc:
                problem: str | None = describe(exc)
            else:
                problem = guard.roll_problem() or guard.outcome_problem()
            if problem is not None:
                self._report(failures, impl.plugin, impl.hook, problem)
                continue
            work = guard.work_outcome
            assert work is not None
            if guard.result_changed or guard.notes_added or work.spend != outcome.spend:
                changed.append(impl.plugin)
            outcome.result, outcome.notes, outcome.spend = work.result, work.notes, work.spend
            states.replace(impl.plugin, guard.work_roll.state)
        for plugin in changed:
            if plugin not in outcome.applied:
                outcome.applied.append(plugin)

    async def render_text(self, roll: Roll, outcome: Outcome,
                          failures: list[HookFailure]) -> dict[str, str]:
        """The one-line summary in each locale: the owner's text; when it gives none, the
        first extension's (a plugin owning no ruleset, pluggy order; see
        :meth:`PluginHost.text_order`); else the host's own line."""
        ordered = self.host.text_order(roll.ruleset)
        copies: tuple[Roll, Outcome] | None = None
        texts = {}
        for locale in LOCALES:
            text = None
            for impl in ordered:
                try:
                    if impl.inline:
                        text = impl.function(*impl.pick((roll, outcome, locale)))
                    else:
                        if copies is None:  # read-only for the plugin: it gets copies
                            copies = (copy_roll(roll, {}), copy_outcome(outcome))
                        text = await self.host.invoke(
                            impl, impl.pick((copies[0], copies[1], locale)))
                except BaseException as exc:  # a plugin can never stop the server
                    if not isinstance(exc, Exception) and not impl.inline:
                        raise  # the server's own cancellation (invoke converts the rest)
                    self._report(failures, impl.plugin, impl.hook, describe(exc))
                    text = None
                    continue
                if text is not None:
                    break
            texts[locale] = self._text_or_default(text, roll, outcome, locale)
        return texts

    # -- whole runs ---------------------------------------------------------------------

    async def run(
        self,
        roll: Roll,
        *,
        dice: list[int] | None = None,
        table_state: dict[str, dict[str, Any]] | None = None,
        source: DiceSource | None = None,
    ) -> Resolution:
        """Resolve a prepared roll end to end. Raises ``ProtocolError`` on any refusal.

        ``dice``: faces a person entered; else ``source``, the roll's own dice source (a
        provable server's verifiable dice), or by default the pipeline's."""
        states = TableStates(table_state)
        failures: list[HookFailure] = []
        plan = self.host.inline_plan(roll.ruleset)
        if plan is not None:
            try:
                return self._run_inline(plan, roll, dice, states, failures, source)
            except DiceExhausted:
                raise (await self._too_few_dice(roll, plan.resolve, dice or [])) from None
        self._check_owner(roll.ruleset)
        changed = await self.modify_roll(roll, states, failures)
        await self.afford(roll, None, None, states, failures)
        outcome, source = await self._resolve(roll, dice, states, failures, source)
        outcome.applied = changed
        await self.modify_outcome(roll, outcome, states, failures)
        _note_failures(outcome, failures)
        text = await self.render_text(roll, outcome, failures)
        return Resolution(roll=roll, outcome=outcome, text=text, state=states.merged(),
                          failures=failures, drawn=len(source.rolled))

    def _run_inline(self, plan: InlinePlan, roll: Roll, dice: list[int] | None,
                    states: TableStates, failures: list[HookFailure],
                    given: DiceSource | None = None) -> Resolution:
        """:meth:`run` when every implementation involved is trusted and sync (the
        built-ins): the same steps, called directly, with no coroutine in between. Too few
        manual faces raise ``DiceExhausted`` (the caller asks how many were needed)."""
        changed: list[str] = []
        for impl in plan.modify_roll:
            self._modify_roll_inline(impl, roll, states, failures, changed)
        if roll.sheet is not None and plan.max_spend:
            self._afford_inline(plan.max_spend, roll, None, None, states, failures)
        owner = plan.resolve
        if dice is not None:
            source: DiceSource = ManualDice(dice)
        elif given is not None:
            source = given
        elif self.dice_factory is not None:
            source = self.dice_factory()
        else:
            source = SecureDice(self._pools)
        roll.state = states.of(owner.plugin)
        try:
            facade = Dice(source)  # (plugins never see which source is behind it)
            raw = (owner.function(roll, facade) if owner.positions is None
                   else owner.function(*owner.pick((roll, facade))))
        except ProtocolError as exc:
            raise self._refused_after_dice(roll, owner.plugin, exc, source) from None
        except DiceExhausted:
            raise
        except BaseException as exc:  # a plugin can never stop the server
            raise self._ruleset_failed(roll, owner.plugin, describe(exc),
                                       "failed on this roll", "a échoué sur ce jet") from None
        if raw.__class__ is Outcome and raw.dice:  # (what _as_outcome would leave as is)
            outcome = raw
        else:
            # Not the built-ins' usual answer (a map, a plugin the operator trusts): checked
            # whole, so a malformed one is that ruleset's plugin_error, not a server error.
            outcome = self._as_outcome(raw, source, roll, owner.plugin, checked=True)
        if dice is not None:
            _check_all_used(source)
        outcome.applied = changed
        if plan.modify_outcome:
            changed = []
            options = roll.options
            for impl in plan.modify_outcome:
                if impl.option is not None and impl.option not in options:
                    continue  # (its rulesets were checked when the plan was made)
                self._modify_outcome_inline(impl, roll, outcome, states, failures, changed)
            for plugin in changed:
                if plugin not in outcome.applied:
                    outcome.applied.append(plugin)
        if failures:  # (the usual roll has none: no call on the hot path)
            _note_failures(outcome, failures)
        texts = {}
        for locale in LOCALES:
            text = None
            for impl in plan.texts:
                try:
                    text = (impl.function(roll, outcome, locale) if impl.positions is None
                            else impl.function(*impl.pick((roll, outcome, locale))))
                except BaseException as exc:  # a plugin can never stop the server
                    self._report(failures, impl.plugin, impl.hook, describe(exc))
                    text = None
                    continue
                if text is not None:
                    break
            # (not text.strip() ⟺ empty or all spaces, without making a stripped copy)
            texts[locale] = (text if text.__class__ is str and len(text) <= 500 and text
                             and not text.isspace()
                             else self._text_or_default(text, roll, outcome, locale))
        return Resolution(roll=roll, outcome=outcome, text=texts, state=states.merged(),
                          failures=failures, drawn=len(source.rolled))

    @staticmethod
    def _text_or_default(text: Any, roll: Roll, outcome: Outcome, locale: str) -> str:
        if not isinstance(text, str) or not text.strip():
            text = heading(roll.by.get("name", "?"), roll.label) + outcome.result["label"][locale]
        return text[:500]

    async def react(self, roll: Roll, outcome: Outcome, choice: str,
                    dice: list[int] | None,
                    table_state: dict[str, dict[str, Any]] | None = None, *,
                    source: DiceSource | None = None) -> Resolution:
        """Resolve a decision on an open roll: the owner's ``sidecar_react``, then the
        extensions' ``sidecar_modify_outcome`` and the texts, as for a roll (``dice`` and
        ``source``: as for :meth:`run`)."""
        states = TableStates(table_state)
        failures: list[HookFailure] = []
        owner = self._check_owner(roll.ruleset)
        impl = self.host.owner_implementation("sidecar_react", roll.ruleset)
        if impl is None or owner is None:
            raise self._bad_outcome(roll, owner, "its plugin does not implement sidecar_react")
        await self.afford(roll, outcome, choice, states, failures)
        given = source
        source = (ManualDice(dice) if dice is not None
                  else given if given is not None else self._dice(impl.info.trusted))
        try:
            raw, guard = await self._call_owner(impl, roll, states.of(owner),
                                                (copy_outcome(outcome), choice, Dice(source)))
        except ProtocolError as exc:
            raise self._refused_after_dice(roll, owner, exc, source) from None
        except DiceExhausted:
            raise ProtocolError(
                "bad_dice", f"too few dice for this choice: {len(dice or [])} given",
                fr=f"pas assez de dés pour ce choix : {len(dice or [])} donnés",
                details={"given": len(dice or [])}) from None
        except Exception as exc:
            raise self._ruleset_failed(roll, owner, describe(exc), "failed on this decision",
                                       "a échoué sur cette décision") from None
        self._keep_owner_state(guard, roll, owner, states)
        result = self._as_outcome(raw, source, roll, owner, checked=guard is not None)
        if dice is not None:
            _check_all_used(source)
        await self.modify_outcome(roll, result, states, failures)
        _note_failures(result, failures)
        text = await self.render_text(roll, result, failures)
        return Resolution(roll=roll, outcome=result, text=text, state=states.merged(),
                          failures=failures, drawn=len(source.rolled))

    async def initiative(self, roll: Roll, entries: list[dict[str, Any]],
                         table_state: dict[str, dict[str, Any]] | None = None
                         ) -> dict[str, Any]:
        """The owner's initiative order for ``entries`` (``sidecar_initiative``), checked:
        every character once, spends as maps of field to integer. The owner reads its
        table state (``roll.state``, a copy: what it changes is not kept)."""
        owner = self._check_owner(roll.ruleset)
        impl = self.host.owner_implementation("sidecar_initiative", roll.ruleset)
        none = ProtocolError(
            "invalid_params", f"the ruleset '{roll.ruleset}' has no initiative rule",
            fr=f"le jeu de règles « {roll.ruleset} » n'a pas de règle d'initiative",
            details={"param": "characters", "ruleset": roll.ruleset})
        if impl is None or owner is None:
            raise none
        try:
            answer, _ = await self._call_owner(impl, roll, TableStates(table_state).of(owner),
                                               (deep_copy(entries),))
        except ProtocolError:
            raise
        except Exception as exc:
            raise self._ruleset_failed(roll, owner, describe(exc), "failed on initiative",
                                       "a échoué sur l'initiative") from None
        if answer is None:
            raise none
        names = [entry["character"] for entry in entries]
        order = answer.get("order") if isinstance(answer, dict) else None
        spend = answer.get("spend", {}) if isinstance(answer, dict) else None
        problem = None
        if (not isinstance(order, list) or not all(isinstance(g, list) for g in order)
                or sorted(name for group in order for name in group) != sorted(names)):
            problem = "order must list every character once, in groups"
        elif not isinstance(spend, dict) or any(
                name not in names or spend_problem(amounts) for name, amounts in spend.items()):
            problem = "spend must map characters to {field: integer}"
        if problem:
            raise self._bad_outcome(roll, owner, problem)
        return {"order": deep_copy(order), "spend": deep_copy(spend)}

    async def odds(self, roll: Roll) -> dict[str, Any]:
        """Exact odds of a prepared roll, with the extensions' roll changes applied.

        The answer is the caller's own: a plugin's cached odds are copied, never shared.
        """
        failures: list[HookFailure] = []
        owner = self._check_owner(roll.ruleset)
        await self.modify_roll(roll, TableStates(None), failures)
        impl = self.host.owner_implementation("sidecar_odds", roll.ruleset)
        if impl is None or owner is None:
            raise ProtocolError(  # (the same answer as an owner that returns None)
                "plugin_error",
                f"the ruleset '{roll.ruleset}' does not compute odds",
                fr=f"le jeu de règles « {roll.ruleset} » ne calcule pas les chances",
                details={"plugin": owner, "ruleset": roll.ruleset},
            )
        odds = None
        try:
            if impl.inline:
                # Exact odds may take a good part of a second at the work budget: a trusted
                # ruleset computes them off the event loop, so the table's rolls go on.
                odds = await asyncio.to_thread(self._call_inline, impl, roll, {}, ())
            else:
                odds, _ = await self._call_owner(impl, roll, {}, ())
        except ProtocolError:
            raise
        except Exception as exc:
            raise self._ruleset_failed(roll, owner, describe(exc), "failed to compute odds",
                                       "n'a pas pu calculer les chances") from None
        if odds is None:
            raise ProtocolError(
                "plugin_error",
                f"the ruleset '{roll.ruleset}' does not compute odds",
                fr=f"le jeu de règles « {roll.ruleset} » ne calcule pas les chances",
                details={"plugin": owner, "ruleset": roll.ruleset},
            )
        # The built-ins' answers are known sound; everyone else's is checked whole.
        problem = None if impl.info.trusted else odds_problem(odds, check_tree=True)
        if problem:
            log.warning("ruleset %s (plugin %s) returned malformed odds: %s",
                        roll.ruleset, owner, problem)
            self.host.record_failure(owner, f"malformed odds: {problem}")
            raise ProtocolError(
                "plugin_error",
                f"the ruleset '{roll.ruleset}' returned malformed odds: {problem}",
                fr=f"le jeu de règles « {roll.ruleset} » a rendu des chances invalides : "
                   f"{problem}",
                details={"plugin": owner, "ruleset": roll.ruleset},
            )
        answer = _own_copy(odds) if impl.info.trusted else deep_copy(odds)
        kinds = odds["kinds"]
        answer["p_success"] = float(odds["p_success"])
        answer["kinds"] = {kind: float(kinds.get(kind, 0.0)) for kind in KINDS}
        return answer
