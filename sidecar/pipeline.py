"""The roll pipeline, as plain objects a test can drive without a socket.

validate → ``sidecar_modify_roll`` (extensions, one at a time) → ``sidecar_resolve`` (the
ruleset) → ``sidecar_modify_outcome`` (extensions) → ``sidecar_render_text``.

The table's per-plugin state is worked on as a copy and handed back in the
:class:`Resolution`: the caller commits it only once the roll has succeeded, so a roll that
ends in an error changes nothing about the table.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol.errors import ProtocolError
from protocol.messages import KINDS
from sidecar.dice import DiceExhausted, DiceSource, ManualDice, SecureDice, describe_dice
from sidecar.model import Outcome, Roll
from sidecar.params import validate_params
from sidecar.plugins import HookFailure, PluginHost, deep_copy

log = logging.getLogger("sidecar.pipeline")

LOCALES = ("fr", "en")


@dataclass
class Resolution:
    """A resolved roll: the final roll and outcome, the texts, and the state to commit."""

    roll: Roll
    outcome: Outcome
    text: dict[str, str]
    state: dict[str, dict[str, Any]]
    failures: list[HookFailure] = field(default_factory=list)


def _json_problem(value: Any) -> str | None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return f"not JSON-compatible: {exc}"
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
    return _json_problem(result)


IDENTITY_FIELDS = ("ruleset", "table", "by", "label", "mode", "manual", "options")


def identity(roll: Roll) -> tuple[Any, ...]:
    """A snapshot of what no plugin may change about a roll (strings and bools are
    immutable; only the two maps need copying)."""
    return (roll.ruleset, roll.table, dict(roll.by), roll.label, roll.mode, roll.manual,
            deep_copy(roll.options))


def identity_change(roll: Roll, snapshot: tuple[Any, ...]) -> str | None:
    """The first identity field a plugin changed, if any."""
    for name, value in zip(IDENTITY_FIELDS, snapshot, strict=True):
        if getattr(roll, name) != value:
            return name
    return None


def restore_identity(roll: Roll, snapshot: tuple[Any, ...]) -> None:
    for name, value in zip(IDENTITY_FIELDS, snapshot, strict=True):
        setattr(roll, name, value)


def failure_note(failure: HookFailure) -> str:
    """The note an outcome carries about an extension left out of it."""
    return (
        f"extension « {failure.plugin} » en échec, ignorée pour ce jet / "
        f"extension '{failure.plugin}' failed and was left out of this roll ({failure.error})"
    )


class RollPipeline:
    """Turns validated requests into resolutions, through the plugin host."""

    def __init__(
        self,
        host: PluginHost,
        *,
        dice_factory: Callable[[], DiceSource] = SecureDice,
        on_failure: Callable[[HookFailure], None] | None = None,
    ) -> None:
        self.host = host
        self.dice_factory = dice_factory
        self.on_failure = on_failure

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
            params=validate_params(params, schema),
            options=dict(options or {}),
            table=table,
            by=dict(by or {}),
            label=label,
            mode=mode,
            manual=manual,
        )

    def _report(self, failures: list[HookFailure]) -> Callable[[HookFailure], None]:
        def report(failure: HookFailure) -> None:
            failures.append(failure)
            log.warning("plugin %s failed in %s: %s", failure.plugin, failure.hook, failure.error)
            self.host.record_failure(failure.plugin, failure.error)
            if self.on_failure is not None:
                self.on_failure(failure)
        return report

    async def modify_roll(self, roll: Roll, state: dict[str, dict[str, Any]],
                          failures: list[HookFailure]) -> list[str]:
        """Run the extensions' ``sidecar_modify_roll``; return those that changed params."""
        schema = self.host.ruleset_schema(roll.ruleset) or {}
        changed: list[str] = []

        def before(plugin: str) -> tuple[dict[str, Any], dict[str, Any], tuple[Any, ...] | None]:
            roll.state = state.setdefault(plugin, {})
            # The built-ins are tested with the server: no need to watch their identity.
            guard = None if self.host.is_trusted(plugin) else identity(roll)
            return deep_copy(roll.params), deep_copy(roll.state), guard

        def after(plugin: str, snapshot: tuple[dict[str, Any], dict[str, Any],
                                               tuple[Any, ...] | None]) -> str | None:
            changed_field = snapshot[2] is not None and identity_change(roll, snapshot[2])
            if changed_field:
                return f"changed roll.{changed_field}, which extensions may not change"
            if not isinstance(roll.params, dict):
                return "roll.params is no longer a map"
            if roll.params != snapshot[0]:
                try:
                    roll.params = validate_params(roll.params, schema)
                except ProtocolError as exc:
                    return f"left invalid params: {exc.message}"
            # Unchanged state was checked before: only a change needs checking.
            problem = _json_problem(roll.state) if roll.state != snapshot[1] else None
            if problem:
                return f"state {problem}"
            if roll.params != snapshot[0]:
                changed.append(plugin)
            return None

        def undo(plugin: str, snapshot: tuple[dict[str, Any], dict[str, Any],
                                              tuple[Any, ...] | None]) -> None:
            roll.params = snapshot[0]
            state[plugin] = snapshot[1]
            if snapshot[2] is not None:
                restore_identity(roll, snapshot[2])

        await self.host.call_each("sidecar_modify_roll", before, after, undo,
                                  self._report(failures), refusals=("invalid_params",),
                                  roll=roll)
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

    def _ruleset_failed(self, roll: Roll, owner: str | None, exc: Exception, en: str,
                        fr: str) -> ProtocolError:
        """Log and count a ruleset plugin's exception; the ``plugin_error`` for the client."""
        log.warning("ruleset %s (plugin %s) %s: %s: %s", roll.ruleset, owner, en,
                    type(exc).__name__, exc)
        if owner:
            self.host.record_failure(owner, f"{type(exc).__name__}: {exc}")
        return ProtocolError(
            "plugin_error",
            f"the ruleset '{roll.ruleset}' {en} ({type(exc).__name__})",
            fr=f"le jeu de règles « {roll.ruleset} » {fr} ({type(exc).__name__})",
            details={"plugin": owner, "ruleset": roll.ruleset},
        )

    async def resolve(self, roll: Roll, dice: list[int] | None,
                      state: dict[str, dict[str, Any]], failures: list[HookFailure]) -> Outcome:
        """Have the ruleset's plugin resolve the roll, from manual faces or the dice source."""
        owner = self._check_owner(roll.ruleset)
        roll.state = state.setdefault(owner or "", {})
        source: DiceSource = ManualDice(dice) if dice is not None else self.dice_factory()
        before = identity(roll)
        try:
            raw = await self.host.call_firstresult("sidecar_resolve", owner,
                                                   self._report(failures), roll=roll,
                                                   dice=source)
        except ProtocolError:
            raise
        except DiceExhausted:
            raise (await self._too_few_dice(roll, dice or [], state)) from None
        except Exception as exc:
            raise self._ruleset_failed(roll, owner, exc, "failed on this roll",
                                       "a échoué sur ce jet") from None
        changed_field = identity_change(roll, before)
        if changed_field:
            restore_identity(roll, before)
            raw = f"changed roll.{changed_field}"
        outcome = self._as_outcome(raw, source, roll, owner, self.host)
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
        return outcome

    async def _too_few_dice(self, roll: Roll, faces: list[int],
                            state: dict[str, dict[str, Any]]) -> ProtocolError:
        # Replay with the missing faces padded to learn the whole sequence of dice.
        probe = ManualDice(faces, pad=True)
        try:
            await self.host.call_firstresult(
                "sidecar_resolve", self.host.ruleset_owner(roll.ruleset), lambda failure: None,
                roll=Roll(**{**roll.__dict__, "params": deep_copy(roll.params)}), dice=probe)
            wanted = f"{len(probe.rolled)} ({describe_dice(probe.rolled)})"
        except Exception:
            wanted = f"more than {len(faces)}"
        return ProtocolError(
            "bad_dice",
            f"too few dice: this roll needs {wanted}, {len(faces)} were given",
            fr=f"pas assez de dés : ce jet en demande {wanted}, {len(faces)} donnés",
            details={"given": len(faces), "dice": [d["sides"] for d in probe.rolled]},
        )

    @staticmethod
    def _as_outcome(raw: Any, source: DiceSource, roll: Roll, owner: str | None,
                    host: PluginHost) -> Outcome:
        def broken(why: str) -> ProtocolError:
            log.warning("ruleset %s (plugin %s) returned a bad outcome: %s",
                        roll.ruleset, owner, why)
            if owner:
                host.record_failure(owner, f"bad outcome: {why}")
            return ProtocolError(
                "plugin_error",
                f"the ruleset '{roll.ruleset}' returned a bad outcome: {why}",
                fr=f"le jeu de règles « {roll.ruleset} » a rendu un résultat invalide : {why}",
                details={"plugin": owner, "ruleset": roll.ruleset},
            )

        if raw is None:
            raise broken("no plugin resolved it")
        if isinstance(raw, str):
            raise broken(raw)
        if isinstance(raw, dict):
            raw = Outcome(result=raw.get("result"), dice=raw.get("dice", []),
                          notes=list(raw.get("notes", [])))
        if not isinstance(raw, Outcome):
            raise broken(f"expected an Outcome or a map, got {type(raw).__name__}")
        if not raw.dice and source.rolled:
            # Every die drawn is shown to the table, even when the plugin forgot to say so.
            raw.dice = list(source.rolled)
        problem = result_problem(raw.result)
        if problem is None and not all(isinstance(n, str) for n in raw.notes):
            problem = "notes must be strings"
        if problem is None and not all(isinstance(d, dict) for d in raw.dice):
            problem = "dice must be maps"
        if problem is None:
            problem = _json_problem(raw.dice)
        if problem:
            raise broken(problem)
        raw.applied = []
        return raw

    async def modify_outcome(self, roll: Roll, outcome: Outcome,
                             state: dict[str, dict[str, Any]],
                             failures: list[HookFailure]) -> None:
        """Run the extensions' ``sidecar_modify_outcome``; record those that changed it."""

        changed: list[str] = []

        def before(plugin: str) -> tuple[Any, ...]:
            roll.state = state.setdefault(plugin, {})
            if self.host.is_trusted(plugin):
                return (deep_copy(outcome.result), list(outcome.notes), deep_copy(roll.state),
                        None, None, None)
            return (deep_copy(outcome.result), list(outcome.notes), deep_copy(roll.state),
                    identity(roll), deep_copy(outcome.dice), list(outcome.applied))

        def after(plugin: str, snapshot: tuple[Any, ...]) -> str | None:
            if snapshot[3] is not None:
                changed_field = identity_change(roll, snapshot[3])
                if changed_field:
                    return f"changed roll.{changed_field}, which extensions may not change"
                if outcome.dice != snapshot[4]:
                    return "changed outcome.dice, which extensions may not change"
                if outcome.applied != snapshot[5]:
                    return "changed outcome.applied, which the server keeps"
            # The result was sound before this extension: only a change needs checking.
            result_changed = outcome.result != snapshot[0]
            problem = result_problem(outcome.result) if result_changed else None
            if problem:
                return f"left an invalid result: {problem}"
            kept = outcome.notes[:len(snapshot[1])] if isinstance(outcome.notes, list) else None
            if kept != snapshot[1]:
                return "notes may only be appended to"
            if not all(isinstance(n, str) for n in outcome.notes):
                return "notes must be strings"
            problem = _json_problem(roll.state) if roll.state != snapshot[2] else None
            if problem:
                return f"state {problem}"
            if result_changed or len(outcome.notes) != len(snapshot[1]):
                changed.append(plugin)
            return None

        def undo(plugin: str, snapshot: tuple[Any, ...]) -> None:
            outcome.result, outcome.notes, state[plugin] = snapshot[0], snapshot[1], snapshot[2]
            if snapshot[3] is not None:
                restore_identity(roll, snapshot[3])
                outcome.dice, outcome.applied = snapshot[4], snapshot[5]

        await self.host.call_each("sidecar_modify_outcome", before, after, undo,
                                  self._report(failures), roll=roll, outcome=outcome)
        for plugin in changed:
            if plugin not in outcome.applied:
                outcome.applied.append(plugin)

    async def render_text(self, roll: Roll, outcome: Outcome,
                          failures: list[HookFailure]) -> dict[str, str]:
        """The one-line summary in each locale."""
        texts = {}
        for locale in LOCALES:
            # No owner: every plugin's failure is reported and skipped, nothing raises.
            text = await self.host.call_firstresult("sidecar_render_text", None,
                                                    self._report(failures), roll=roll,
                                                    outcome=outcome, locale=locale)
            if not isinstance(text, str) or not text.strip():
                who = roll.by.get("name", "?")
                what = f"{roll.label} : " if roll.label else ""
                text = f"{who} — {what}{outcome.result['label'][locale]}"
            texts[locale] = text[:500]
        return texts

    # -- whole runs ---------------------------------------------------------------------

    async def run(
        self,
        roll: Roll,
        *,
        dice: list[int] | None = None,
        table_state: dict[str, dict[str, Any]] | None = None,
    ) -> Resolution:
        """Resolve a prepared roll end to end. Raises ``ProtocolError`` on any refusal."""
        state = deep_copy(table_state or {})
        failures: list[HookFailure] = []
        self._check_owner(roll.ruleset)
        changed = await self.modify_roll(roll, state, failures)
        outcome = await self.resolve(roll, dice, state, failures)
        outcome.applied = list(changed)
        await self.modify_outcome(roll, outcome, state, failures)
        for failure in failures:
            note = failure_note(failure)
            if note not in outcome.notes:
                outcome.notes.append(note)
        text = await self.render_text(roll, outcome, failures)
        return Resolution(roll=roll, outcome=outcome, text=text, state=state, failures=failures)

    async def odds(self, roll: Roll) -> dict[str, Any]:
        """Exact odds of a prepared roll, with the extensions' roll changes applied."""
        failures: list[HookFailure] = []
        owner = self._check_owner(roll.ruleset)
        await self.modify_roll(roll, {}, failures)
        try:
            odds = await self.host.call_firstresult("sidecar_odds", owner,
                                                    self._report(failures), roll=roll)
        except ProtocolError:
            raise
        except Exception as exc:
            raise self._ruleset_failed(roll, owner, exc, "failed to compute odds",
                                       "n'a pas pu calculer les chances") from None
        if odds is None:
            raise ProtocolError(
                "plugin_error",
                f"the ruleset '{roll.ruleset}' does not compute odds",
                fr=f"le jeu de règles « {roll.ruleset} » ne calcule pas les chances",
                details={"plugin": owner, "ruleset": roll.ruleset},
            )
        kinds = odds.get("kinds") if isinstance(odds, dict) else None
        p_success = odds.get("p_success") if isinstance(odds, dict) else None
        if (not isinstance(kinds, dict) or isinstance(p_success, bool)
                or not isinstance(p_success, (int, float))):
            if owner:
                self.host.record_failure(owner, "malformed odds")
            raise ProtocolError(
                "plugin_error",
                f"the ruleset '{roll.ruleset}' returned malformed odds",
                fr=f"le jeu de règles « {roll.ruleset} » a rendu des chances invalides",
                details={"plugin": owner, "ruleset": roll.ruleset},
            )
        odds = dict(odds)
        odds["p_success"] = float(p_success)
        odds["kinds"] = {kind: float(kinds.get(kind, 0.0)) for kind in KINDS}
        return odds
