"""The roll pipeline, as plain objects a test can drive without a socket.

validate → ``sidecar_modify_roll`` (extensions, one at a time) → ``sidecar_max_spend``
(as a character: the most it could spend, refused before any die when the sheet cannot
pay it, :mod:`sidecar.host.spending`) → ``sidecar_resolve`` (the ruleset's owner only) →
``sidecar_modify_outcome`` (extensions) → ``sidecar_render_text`` (the owner first; the
other plugins only when it gives no text).

The pipeline orders these steps around the dice and turns answers into a
:class:`Resolution` or a refusal; every plugin call goes through the host's one caller
(:class:`~sidecar.host.caller.PluginCaller`), which knows the call order, picks the
arguments and calls a trusted plugin directly and any other under its guards.

The table's per-plugin state is worked on as a copy (per plugin, on first use) and handed
back in the :class:`Resolution`: the caller commits it only once the roll has succeeded,
so a roll that ends in an error changes nothing about the table.
"""

from __future__ import annotations

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
from sidecar.host.caller import Order, TableStates
from sidecar.host.failures import HookFailure, describe
from sidecar.host.guard import (
    LOCALES,
    Guard,
    copy_outcome,
    copy_roll,
    deep_copy,
    effects_problem,
    odds_problem,
    result_problem,
    spend_problem,
    tree_problem,
)
from sidecar.host.params import labelled, validate_params
from sidecar.host.plugins import Impl, PluginHost
from sidecar.host.spending import refuse_unaffordable
from sidecar.model import Outcome, Roll
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.messages import KINDS
from sidecar.protocol.text import dice_words, given_words, is_localized

log = logging.getLogger("sidecar.pipeline")

__all__ = ["LOCALES", "Resolution", "RollPipeline", "TableStates", "failure_note",
           "result_problem"]

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


def failure_note(failure: HookFailure) -> dict[str, str]:
    """The note an outcome carries about an extension left out of it (``{fr, en}``, each
    member reads one)."""
    return {
        "fr": f"extension « {failure.plugin} » en échec, ignorée pour ce jet "
              f"({failure.error})",
        "en": f"extension '{failure.plugin}' failed and was left out of this roll "
              f"({failure.error})",
    }


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
        (uses_fr, uses_en), given = dice_words(used), len(source.faces)
        raise ProtocolError(
            "bad_dice",
            f"this roll uses {uses_en} ({describe_dice(source.rolled)}), {given_words(given)[1]}",
            fr=f"ce jet utilise {uses_fr} ({describe_dice(source.rolled)}), "
               f"{given} {'a été donné' if given < 2 else 'ont été donnés'}",
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
    ) -> None:
        self.host = host
        #: The one caller of plugins (call order, arguments, trusted or guarded).
        self.calls = host.caller
        #: Where faces come from; by default :class:`SecureDice`, with one set of pools
        #: for the trusted rulesets resolved on this pipeline's thread. Whatever the
        #: source, hooks get it wrapped in a :class:`~sidecar.dice.sources.Dice`.
        self.dice_factory = dice_factory
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
        # (given by position, in Roll's order: its keywords are matched on every roll)
        return Roll(
            ruleset,
            self._validate(ruleset, params, schema),
            # Checked against the extensions' descriptions (``invalid_params`` naming the
            # extension and the key) before any hook sees them.
            self.host.validate_options(ruleset, options) if options else {},
            table,
            dict(by) if by else {},
            label,
            mode,
            manual,
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

    def _dice(self, trusted: bool) -> DiceSource:
        if self.dice_factory is not None:
            return self.dice_factory()
        # An untrusted ruleset may draw in a worker thread, even past its deadline: it gets
        # pools of its own.
        return SecureDice(self._pools) if trusted else SecureDice()

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
        provable server's verifiable dice), or by default the pipeline's. A refusal that
        names one of the ruleset's params names it by its label too."""
        # (One coroutine for the whole roll: the steps a trusted plugin takes — every
        # built-in roll's — are plain calls; each coroutine more cost ~1.4k instructions.)
        try:
            calls = self.calls
            order = calls.order(roll.ruleset)
            states = TableStates(table_state)
            failures: list[HookFailure] = []
            # (A ruleset no extension acts on — none, or all scoped to options this roll
            # does not hold — makes no call to them at all.)
            options, gate = roll.options, order.modify_roll_gate
            changed = (await calls.modify_roll(order, roll, states, failures)
                       if order.modify_roll and (gate is None or not gate.isdisjoint(options))
                       else [])
            if roll.sheet is not None:
                if order.max_spend_trusted:  # (:meth:`afford`, without a coroutine)
                    sheet = self.host.catalogue.sheet_schema(roll.ruleset)
                    refuse_unaffordable(sheet, roll.sheet, calls.max_spend_now(
                        order, roll, states, failures, sheet))
                else:
                    await self.afford(roll, None, None, states, failures, order)
            # (:meth:`_owner_source`, written out: on every roll)
            impl = order.resolve
            if impl is None or order.owner is None:
                raise self._bad_outcome(roll, order.owner, "its plugin does not implement "
                                                           "sidecar_resolve")
            if dice is not None:
                source = ManualDice(dice)
            elif source is None:
                source = self._dice(impl.info.trusted)
            try:
                if order.resolve_trusted:
                    raw, guard = calls.call_trusted_owner(impl, roll, states.of(impl.plugin),
                                                          (Dice(source),)), None
                else:
                    raw, guard = await calls.call_owner(impl, roll, states.of(impl.plugin),
                                                        (Dice(source),))
            except Exception as exc:
                raise (await self._owner_failed(roll, impl, exc, source, dice)) from None
            # (A built-in's usual answer is taken here as :meth:`_taken` would take it,
            # without the call: on every roll.)
            outcome = (raw if guard is None and dice is None and raw.__class__ is Outcome
                       and raw.dice else
                       self._taken(raw, guard, roll, states, source, dice, impl.plugin))
            outcome.applied = changed
            gate = order.modify_outcome_gate
            if order.modify_outcome and (gate is None or not gate.isdisjoint(options)):
                await calls.modify_outcome(order, roll, outcome, states, failures)
            if failures:
                _note_failures(outcome, failures)
            text = (calls.texts_now(order, roll, outcome, failures) if order.texts_trusted
                    else await calls.texts(order, roll, outcome, failures))
            # (positional: a dataclass's keywords are matched one by one, on every roll)
            return Resolution(roll, outcome, text, states.merged(), failures,
                              len(source.rolled))
        except ProtocolError as exc:
            raise self._labelled(roll, exc) from None

    def _labelled(self, roll: Roll, exc: ProtocolError) -> ProtocolError:
        """``exc`` naming the param of an ``invalid_params`` by its label (as people name
        it) when ``roll``'s ruleset describes it."""
        if exc.code != "invalid_params":
            return exc
        name = (exc.details or {}).get("param")
        schema = self.host.ruleset_schema(roll.ruleset) or {}
        if isinstance(name, str) and isinstance(schema.get(name), dict):
            exc = labelled(exc, name, schema[name])
        elif isinstance(name, str) and name.startswith("options."):
            # An extension's own check names its option's key: by its label too.
            _, extension, key = (name.split(".", 2) + ["", ""])[:3]
            described = self.host.option_descriptions().get(extension) or {}
            spec = (described.get("params") or {}).get(key)
            if isinstance(spec, dict):
                exc = labelled(exc, name, spec)
        return exc

    async def afford(self, roll: Roll, outcome: Outcome | None, choice: str | None,
                     states: TableStates | dict[str, Any] | None,
                     failures: list[HookFailure], order: Order | None = None) -> None:
        """Before any die of a roll as a character (``outcome``/``choice``: before a
        decision on that open roll): ``insufficient`` when its sheet cannot pay the most
        the owner and the extensions declare it could spend (``sidecar_max_spend``)."""
        if roll.sheet is None:
            return
        if not isinstance(states, TableStates):
            states = TableStates(states)
        if order is None:
            order = self.calls.order(roll.ruleset)
        sheet = self.host.sheet_schema(roll.ruleset)
        most = await self.calls.max_spend(order, roll, outcome, choice, states, failures,
                                          sheet)
        refuse_unaffordable(sheet, roll.sheet, most)

    async def resolve(self, roll: Roll, dice: list[int] | None,
                      states: TableStates | dict[str, Any],
                      failures: list[HookFailure], *,
                      source: DiceSource | None = None) -> Outcome:
        """Have the ruleset's owner resolve the roll, from manual faces or the dice source
        (``source``: the roll's own, e.g. its verifiable dice; by default the pipeline's)."""
        if not isinstance(states, TableStates):
            states = TableStates(states)
        impl, source = self._owner_source(self.calls.order(roll.ruleset), roll, dice, source)
        try:
            raw, guard = await self.calls.call_owner(impl, roll, states.of(impl.plugin),
                                                     (Dice(source),))
        except Exception as exc:
            raise (await self._owner_failed(roll, impl, exc, source, dice)) from None
        return self._taken(raw, guard, roll, states, source, dice, impl.plugin)

    def _owner_source(self, order: Order, roll: Roll, dice: list[int] | None,
                      given: DiceSource | None) -> tuple[Impl, DiceSource]:
        """The owner's ``sidecar_resolve`` and the source its faces come from: the
        ``dice`` a person entered, else ``given`` (the roll's own), else the pipeline's."""
        impl = order.resolve
        if impl is None or order.owner is None:
            raise self._bad_outcome(roll, order.owner, "its plugin does not implement "
                                                       "sidecar_resolve")
        return impl, (ManualDice(dice) if dice is not None
                      else given if given is not None
                      else self._dice(impl.info.trusted))

    async def _owner_failed(self, roll: Roll, impl: Impl, exc: Exception,
                            source: DiceSource, dice: list[int] | None) -> ProtocolError:
        """What the owner's ``sidecar_resolve`` raising ``exc`` is answered with."""
        owner = impl.plugin
        if isinstance(exc, ProtocolError):
            return self._refused_after_dice(roll, owner, exc, source)
        if isinstance(exc, DiceExhausted):
            return await self._too_few_dice(roll, impl, dice or [])
        return self._ruleset_failed(roll, owner, describe(exc), "failed on this roll",
                                    "a échoué sur ce jet")

    def _taken(self, raw: Any, guard: Guard | None, roll: Roll, states: TableStates,
               source: DiceSource, dice: list[int] | None, owner: str) -> Outcome:
        """The owner's answer as the roll's :class:`Outcome` (an untrusted owner's checked,
        with what it changed of the roll)."""
        if guard is not None:
            self.calls.keep(guard, roll, states)
        # A trusted ruleset's answer is taken as it is when it is the built-ins' usual one
        # (an Outcome showing its dice); any other (a map, from a plugin the operator
        # trusts) is checked whole too, so a malformed one is plugin_error, not a crash.
        if guard is None and raw.__class__ is Outcome and raw.dice:
            raw.applied = []  # (the built-ins' usual answer: taken as it is)
            outcome = raw
        else:
            outcome = self._as_outcome(raw, source, roll, owner, checked=True)
        if dice is not None:
            _check_all_used(source)
        return outcome

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
        return self.host.failures.ruleset_failed(roll.ruleset, owner, why, en, fr)

    def _bad_outcome(self, roll: Roll, owner: str | None, why: str) -> ProtocolError:
        return self.host.failures.bad_outcome(roll.ruleset, owner, why)

    async def _too_few_dice(self, roll: Roll, impl: Impl, faces: list[int]) -> ProtocolError:
        # Replay with the missing faces padded to learn the whole sequence of dice.
        probe = ManualDice(faces, pad=True)
        try:
            await self.calls.call_owner(impl, copy_roll(roll, {}), {}, (Dice(probe),))
            wanted = f"{len(probe.rolled)} ({describe_dice(probe.rolled)})"
        except Exception:
            wanted = f"more than {len(faces)}"
        return ProtocolError(
            "bad_dice",
            f"too few dice: this roll needs {wanted}, {given_words(len(faces))[1]}",
            fr=f"pas assez de dés : ce jet en demande {wanted}, {given_words(len(faces))[0]}",
            details={"given": len(faces), "dice": [d["sides"] for d in probe.rolled]},
        )

    def _as_outcome(self, raw: Any, source: DiceSource, roll: Roll, owner: str | None, *,
                    checked: bool) -> Outcome:
        """The owner's answer as an :class:`Outcome`; an untrusted owner's (``checked``)
        answer is checked whole, as it will be stored and sent."""
        if raw.__class__ is Outcome and not checked and raw.dice:
            raw.applied = []  # (the built-ins' usual answer: taken as it is)
            return raw
        if raw is None:
            raise self._bad_outcome(roll, owner, "no plugin resolved it")
        if isinstance(raw, dict):
            notes = raw.get("notes", [])
            raw = Outcome(result=raw.get("result"), dice=raw.get("dice", []),
                          notes=list(notes) if isinstance(notes, (list, tuple)) else notes,
                          spend=raw.get("spend") or {}, choices=raw.get("choices"),
                          default=raw.get("default"), effects=raw.get("effects") or {})
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
            if problem is None and not all(is_localized(n) for n in raw.notes):
                problem = "notes must be strings or {fr, en} maps of strings"
            if problem is None and not all(isinstance(d, dict) for d in raw.dice):
                problem = "dice must be maps"
            if problem is None:
                problem = tree_problem(raw.dice)
                problem = f"dice {problem}" if problem else None
            if problem is None and raw.spend:
                problem = spend_problem(raw.spend)
            if problem is None and raw.effects:
                problem = effects_problem(raw.effects)
            if problem:
                raise self._bad_outcome(roll, owner, problem)
            # Nothing of the plugin's (a late thread) may change what is stored.
            raw = copy_outcome(raw)
        raw.applied = []
        return raw

    async def react(self, roll: Roll, outcome: Outcome, choice: str,
                    dice: list[int] | None,
                    table_state: dict[str, dict[str, Any]] | None = None, *,
                    source: DiceSource | None = None) -> Resolution:
        """Resolve a decision on an open roll: the owner's ``sidecar_react``, then the
        extensions' ``sidecar_modify_outcome`` and the texts, as for a roll (``dice`` and
        ``source``: as for :meth:`run`)."""
        states = TableStates(table_state)
        failures: list[HookFailure] = []
        order = self.calls.order(roll.ruleset)
        owner, impl = order.owner, order.owner_hook("sidecar_react")
        if impl is None or owner is None:
            raise self._bad_outcome(roll, owner, "its plugin does not implement sidecar_react")
        await self.afford(roll, outcome, choice, states, failures, order)
        given = source
        source = (ManualDice(dice) if dice is not None
                  else given if given is not None else self._dice(impl.info.trusted))
        try:
            raw, guard = await self.calls.call_owner(impl, roll, states.of(owner),
                                                (copy_outcome(outcome), choice, Dice(source)))
        except ProtocolError as exc:
            raise self._refused_after_dice(roll, owner, exc, source) from None
        except DiceExhausted:
            raise ProtocolError(
                "bad_dice", f"too few dice for this choice: {given_words(len(dice or []))[1]}",
                fr=f"pas assez de dés pour ce choix : {given_words(len(dice or []))[0]}",
                details={"given": len(dice or [])}) from None
        except Exception as exc:
            raise self._ruleset_failed(roll, owner, describe(exc), "failed on this decision",
                                       "a échoué sur cette décision") from None
        self.calls.keep(guard, roll, states)
        result = self._as_outcome(raw, source, roll, owner, checked=guard is not None)
        if dice is not None:
            _check_all_used(source)
        await self.calls.modify_outcome(order, roll, result, states, failures)
        _note_failures(result, failures)
        text = await self.calls.texts(order, roll, result, failures)
        return Resolution(roll=roll, outcome=result, text=text, state=states.merged(),
                          failures=failures, drawn=len(source.rolled))

    async def initiative(self, roll: Roll, entries: list[dict[str, Any]],
                         table_state: dict[str, dict[str, Any]] | None = None
                         ) -> dict[str, Any]:
        """The owner's initiative order for ``entries`` (``sidecar_initiative``), checked:
        every character once, spends as maps of field to integer. The owner reads its
        table state (``roll.state``, a copy: what it changes is not kept)."""
        order = self.calls.order(roll.ruleset)
        owner, impl = order.owner, order.owner_hook("sidecar_initiative")
        none = ProtocolError(
            "invalid_params", f"the ruleset '{roll.ruleset}' has no initiative rule",
            fr=f"le jeu de règles « {roll.ruleset} » n'a pas de règle d'initiative",
            details={"param": "characters", "ruleset": roll.ruleset})
        if impl is None or owner is None:
            raise none
        try:
            answer, _ = await self.calls.call_owner(impl, roll, TableStates(table_state).of(owner),
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
        try:
            return await self._odds(roll)
        except ProtocolError as exc:
            # Named by its label, as a roll's refusal is (issue 29, replay 2).
            raise self._labelled(roll, exc) from None

    async def _odds(self, roll: Roll) -> dict[str, Any]:
        failures: list[HookFailure] = []
        order = self.calls.order(roll.ruleset)
        owner, impl = order.owner, order.owner_hook("sidecar_odds")
        await self.calls.modify_roll(order, roll, TableStates(None), failures)
        if impl is None or owner is None:
            raise ProtocolError(  # (the same answer as an owner that returns None)
                "plugin_error",
                f"the ruleset '{roll.ruleset}' does not compute odds",
                fr=f"le jeu de règles « {roll.ruleset} » ne calcule pas les chances",
                details={"plugin": owner, "ruleset": roll.ruleset},
            )
        odds = None
        try:
            # Exact odds may take a good part of a second at the work budget: a trusted
            # ruleset computes them off the event loop, so the table's rolls go on.
            odds, _ = await self.calls.call_owner(impl, roll, {}, (), off_loop=True)
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
            self.host.failures.record(owner, f"malformed odds: {problem}")
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
