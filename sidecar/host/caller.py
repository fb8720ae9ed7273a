"""The one caller of plugins: in which order, with which arguments, guarded or not.

Every call of a plugin's hook during a roll goes through :class:`PluginCaller`. It owns:

* **the call order** — for a roll of one ruleset (:class:`Order`, built once per ruleset):
  the extensions' ``sidecar_modify_roll`` and ``sidecar_modify_outcome`` in pluggy's order
  (a trusted one left out where it declared with :func:`~sidecar.host.registry.scope`
  that it does nothing), ``sidecar_max_spend`` on the owner and the extensions,
  ``sidecar_render_text`` on the owner first; the owner-only hooks
  (:data:`~sidecar.hookspecs.OWNER_ONLY`) on the ruleset's owner and no other plugin;
* **the arguments** — each implementation gets the ones it names
  (pluggy passes a function only the arguments it names);
* **trusted or guarded** — a trusted sync implementation (a built-in, or a plugin the
  operator trusts) is called directly on the real roll and outcome, with a shallow record
  to undo a raise; any other works on a :class:`~sidecar.host.guard.Guard`'s copies,
  under a deadline (a worker thread for sync code, a task of its own for ``async def``),
  and its copies are committed only when sound.

Plugins are trusted code, guarded against bugs, not against malice (as pytest and
datasette treat theirs): a raise, a wrong answer, a deadline missed, a blocked event loop
is that plugin's failure — counted by :class:`~sidecar.host.failures.Failures`, and
reported in the roll's notes — never the server's. Nothing is injected into a running
thread: a sync call past its deadline keeps its thread until it returns (at most
:attr:`PluginCaller.max_threads_per_plugin` per plugin, further calls fail at once), and
an async one is cancelled and abandoned.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from sidecar import hookspecs
from sidecar.host.failures import (
    Failures,
    HookFailure,
    PluginBusy,
    PluginCrash,
    PluginTimeout,
    describe,
)
from sidecar.host.guard import LOCALES, Guard, copy_outcome, copy_roll, deep_copy
from sidecar.host.looptime import Timed
from sidecar.host.params import validate_params
from sidecar.host.registry import Impl, Registry
from sidecar.host.spending import add_declared, declaration_problem
from sidecar.host.workers import DaemonWorkers
from sidecar.model import Outcome, Roll
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.text import heading

#: The refusals a ``sidecar_modify_roll`` may raise as they are: the roll is refused.
ROLL_REFUSALS = ("invalid_params",)
#: The refusals a ``sidecar_max_spend`` may raise as they are: nothing is drawn yet.
SPEND_REFUSALS = ("invalid_params", "insufficient")


async def _drive(timed: Timed) -> Any:
    """The coroutine of an async hook's task (a task needs a coroutine, not an awaitable).

    A task lets ``KeyboardInterrupt`` and ``SystemExit`` through to the event loop, which
    would stop the server: raised by the plugin, they end its task as :class:`PluginCrash`.
    """
    try:
        return await timed
    except (Exception, asyncio.CancelledError):
        raise
    except BaseException as exc:
        raise PluginCrash(f"{type(exc).__name__}: {exc}") from None


def _args(impl: Impl, values: tuple[Any, ...]) -> tuple[Any, ...]:
    """The arguments of ``impl``, from the values of every argument of its hook's spec in
    spec order (pluggy passes a function only the arguments it names)."""
    positions = impl.positions
    # (map over the tuple's own lookup, not a generator: no frame resumed per argument)
    return values if positions is None else tuple(map(values.__getitem__, positions))


def _own_text(text: Any, roll: Roll, outcome: Outcome, locale: str) -> str:
    """A plugin's text cut to 500 characters; the host's own line when it gave no text
    (or a blank one): who rolled, the roll's label, the result's label."""
    if not isinstance(text, str) or not text.strip():
        text = (heading(roll.character or roll.by.get("name", "?"), roll.label, locale=locale)
                + outcome.result["label"][locale])
    return text[:500]


def _final_text(text: Any, roll: Roll, outcome: Outcome, locale: str) -> str:
    """The text shown in ``locale``: the plugins' answer when it is one, else
    :func:`_own_text`."""
    # (not text.strip() ⟺ empty or all spaces, without making a stripped copy)
    if text.__class__ is str and len(text) <= 500 and text and not text.isspace():
        return text
    return _own_text(text, roll, outcome, locale)


def _cancelling() -> bool:
    """Whether the running task is being cancelled (by the server, not by a plugin)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


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


@dataclass(slots=True)
class Order:
    """The implementations a roll of one ruleset calls, hook by hook, in call order."""

    #: The plugin that owns the ruleset.
    owner: str | None
    #: That plugin is disabled (after repeated failures): the ruleset is refused.
    disabled: bool
    #: The owner's ``sidecar_resolve`` (``None``: it has none).
    resolve: Impl | None
    #: The ruleset's params description: params an extension changed are checked again.
    schema: dict[str, Any]
    modify_roll: list[Impl]
    #: ``sidecar_max_spend``: the owner's and the extensions' (a ruleset's plugin
    #: declares for its own rulesets only).
    max_spend: list[Impl]
    modify_outcome: list[Impl]
    #: ``sidecar_render_text``: the owner's first, then the extensions'.
    texts: list[Impl]
    #: Owner-only hook → the owner's implementation (``None``: it has none).
    owned: dict[str, Impl | None] = field(default_factory=dict)
    #: When every ``sidecar_modify_roll`` (``sidecar_modify_outcome``) is scoped to an
    #: option: those options, one of which a roll must hold for any of them to be called
    #: (``None``: one of them is called on every roll). The pipeline looks first: an
    #: extension scoped to an option nobody turned on costs no coroutine.
    modify_roll_gate: frozenset[str] | None = None
    modify_outcome_gate: frozenset[str] | None = None
    #: Every ``sidecar_render_text`` is trusted and sync: :meth:`PluginCaller.texts_now`
    #: gives the texts without a coroutine (on the path of every built-in roll).
    texts_trusted: bool = False
    #: The owner's ``sidecar_resolve`` is trusted and sync:
    #: :meth:`PluginCaller.call_trusted_owner` calls it without a coroutine.
    resolve_trusted: bool = False
    #: Every ``sidecar_max_spend`` is trusted and sync: :meth:`PluginCaller.max_spend_now`.
    max_spend_trusted: bool = False

    def __post_init__(self) -> None:
        self.modify_roll_gate = _gate(self.modify_roll)
        self.modify_outcome_gate = _gate(self.modify_outcome)
        self.texts_trusted = all(impl.inline for impl in self.texts)
        self.resolve_trusted = self.resolve is not None and self.resolve.inline
        self.max_spend_trusted = all(impl.inline for impl in self.max_spend)

    def owner_hook(self, hook: str) -> Impl | None:
        """The owner's implementation of the owner-only ``hook``, or ``None``."""
        return self.owned[hook]


def _gate(impls: list[Impl]) -> frozenset[str] | None:
    """The options scoping every one of ``impls`` (see :attr:`Order.modify_roll_gate`)."""
    options = {impl.option for impl in impls}
    return None if None in options else frozenset(o for o in options if o is not None)


class PluginCaller:
    """Calls the plugins of ``registry`` on behalf of the pipeline (see the module)."""

    def __init__(self, registry: Registry, failures: Failures, *,
                 timeout: float = 0.25) -> None:
        self.registry = registry
        self.failures = failures
        #: Seconds a guarded hook call may take before it is skipped.
        self.timeout = timeout
        #: Worker threads one untrusted plugin may hold at once; more calls fail at once.
        self.max_threads_per_plugin = 2
        #: Longest an async hook may hold the event loop in one step (between two awaits);
        #: past it the hook is blamed, even within its deadline.
        self.loop_hold_limit = 0.05
        #: Seconds an async hook cancelled at its deadline has to end before it is
        #: disabled for ignoring its cancellation.
        self.cancel_grace = 0.1
        #: Tasks of async hooks abandoned at their deadline that have not ended yet (a hook
        #: that ignores cancellation never does): a process about to exit leaves them.
        self.abandoned: set[asyncio.Future[Any]] = set()
        self._pool: DaemonWorkers | None = None
        self._lock = threading.Lock()
        self._orders: dict[str, Order] = {}
        registry.listeners.append(self._orders.clear)

    # -- call order ---------------------------------------------------------------------

    def order(self, ruleset: str) -> Order:
        """The calls of a roll of ``ruleset``, built once (again when a plugin is added,
        trusted or disabled); ``plugin_error`` when the ruleset's owner is disabled."""
        order = self._orders.get(ruleset)
        if order is None:
            order = self._orders[ruleset] = self._build_order(ruleset)
        if order.disabled:
            raise ProtocolError(
                "plugin_error",
                f"the ruleset '{ruleset}' is disabled after repeated failures of its plugin",
                fr=f"le jeu de règles « {ruleset} » est désactivé : son extension a échoué "
                   "trop souvent",
                details={"plugin": order.owner, "ruleset": ruleset, "disabled": True})
        return order

    def _build_order(self, ruleset: str) -> Order:
        registry = self.registry
        owner, listing = registry.rulesets.get(ruleset, (None, {}))

        def here(impl: Impl) -> bool:  # (a scope's rulesets are known now: its option is not)
            return impl.rulesets is None or ruleset in impl.rulesets

        def owner_or_extension(impl: Impl) -> bool:
            return impl.plugin == owner or not registry.plugins[impl.plugin].rulesets

        owned = {hook: next((i for i in registry.implementations(hook) if i.plugin == owner),
                            None) for hook in hookspecs.OWNER_ONLY}
        return Order(
            owner, owner in registry.disabled, owned["sidecar_resolve"],
            listing.get("params") or {},
            [i for i in registry.implementations("sidecar_modify_roll") if here(i)],
            [i for i in registry.implementations("sidecar_max_spend")
             if owner_or_extension(i) and here(i)],
            [i for i in registry.implementations("sidecar_modify_outcome") if here(i)],
            sorted(filter(owner_or_extension, registry.implementations("sidecar_render_text")),
                   key=lambda impl: impl.plugin != owner),
            owned)

    # -- the calls of a roll ------------------------------------------------------------

    async def modify_roll(self, order: Order, roll: Roll, states: TableStates,
                          failures: list[HookFailure]) -> list[str]:
        """The extensions' ``sidecar_modify_roll``, one at a time; the plugins that changed
        params. A failure leaves that extension out of the roll (its changes undone,
        params validated again when changed); a ``ProtocolError`` ``invalid_params``
        refuses the roll (it propagates)."""
        changed: list[str] = []
        options = roll.options
        for impl in order.modify_roll:
            if impl.option is not None and impl.option not in options:
                continue  # (a trusted extension's declared scope)
            state = states.of(impl.plugin)
            if impl.inline:  # on the roll itself, with what undoes a raise
                roll.state = state
                params, kept = dict(roll.params), dict(state)
                work, guard = roll, None
            else:
                guard = Guard(impl.plugin, impl.hook, roll, state)
                params, work = roll.params, guard.work_roll
            args = _args(impl, (work,))
            try:
                impl.function(*args) if impl.inline else await self.invoke(impl, args)
            except BaseException as exc:
                problem: str | None = self._failed(impl, exc, ROLL_REFUSALS)
            else:
                problem = guard.roll_problem() if guard is not None else None
                if problem is None and work.params != params:
                    try:
                        work.params = validate_params(work.params, order.schema)
                    except ProtocolError as exc:
                        problem = f"left invalid params: {exc.message}"
            if problem is not None:
                if guard is None:
                    roll.params = params
                    state.clear()
                    state.update(kept)
                self.failures.report(failures, impl.plugin, impl.hook, problem)
                continue
            if work.params != params:
                roll.params = work.params
                changed.append(impl.plugin)
            if guard is not None:
                states.replace(impl.plugin, work.state)
        return changed

    async def max_spend(self, order: Order, roll: Roll, outcome: Outcome | None,
                        choice: str | None,
                        states: TableStates, failures: list[HookFailure],
                        sheet: dict[str, Any]) -> dict[str, int]:
        """The most the roll (``outcome``/``choice``: a decision on it) may spend, summed
        over what the owner and the extensions declare (``sidecar_max_spend``), each
        answer checked against ``sheet``. The owner's failure refuses the roll
        (``plugin_error``: no die drawn yet); an extension's leaves it out."""
        most: dict[str, int] = {}
        options = roll.options
        for impl in order.max_spend:
            if impl.option is not None and impl.option not in options:
                continue
            if impl.inline:
                roll.state = states.of(impl.plugin)
                args = _args(impl, (roll, outcome, choice))
            else:  # read only for the plugin: it gets copies
                args = _args(impl, (copy_roll(roll, states.of(impl.plugin)),
                                  copy_outcome(outcome) if outcome is not None else None,
                                  choice))
            answer = None
            try:
                answer = impl.function(*args) if impl.inline else await self.invoke(impl, args)
            except BaseException as exc:
                problem: str | None = self._failed(impl, exc, SPEND_REFUSALS)
            else:
                problem = declaration_problem(answer, sheet)
            self._declared(most, order, roll, impl, answer, problem, failures)
        return most

    def max_spend_now(self, order: Order, roll: Roll, states: TableStates,
                      failures: list[HookFailure], sheet: dict[str, Any]) -> dict[str, int]:
        """:meth:`max_spend` before a roll's dice, when every implementation is trusted and
        sync (:attr:`Order.max_spend_trusted`): plain calls, no coroutine — every roll as
        a character of a built-in ruleset."""
        most: dict[str, int] = {}
        options = roll.options
        for impl in order.max_spend:
            if impl.option is not None and impl.option not in options:
                continue
            roll.state = states.of(impl.plugin)
            answer = None
            try:
                answer = impl.function(*_args(impl, (roll, None, None)))
            except BaseException as exc:
                problem: str | None = self._failed(impl, exc, SPEND_REFUSALS)
            else:
                problem = declaration_problem(answer, sheet)
                if problem is None:  # (the usual answer, without the call below)
                    add_declared(most, answer)
                    continue
            self._declared(most, order, roll, impl, answer, problem, failures)
        return most

    def _declared(self, most: dict[str, int], order: Order, roll: Roll, impl: Impl,
                  answer: Any, problem: str | None, failures: list[HookFailure]) -> None:
        """One ``sidecar_max_spend`` answer: added to ``most``, or its ``problem`` — the
        owner's refuses the roll, an extension's leaves it out."""
        if problem is None:
            add_declared(most, answer)
        elif impl.plugin == order.owner:
            raise self.failures.ruleset_failed(
                roll.ruleset, impl.plugin, problem,
                "failed to say what the roll may spend",
                "n'a pas pu dire ce que le jet peut dépenser")
        else:
            self.failures.report(failures, impl.plugin, impl.hook, problem)

    async def call_owner(self, impl: Impl, roll: Roll, state: dict[str, Any],
                         values: tuple[Any, ...], *, off_loop: bool = False
                         ) -> tuple[Any, Guard | None]:
        """Call the owner-only hook ``impl`` with ``roll`` (its state ``state``) then
        ``values``: its answer, and the guard of an untrusted call (``None`` for a trusted
        one: its answer is trusted too), to :meth:`keep` once the answer is taken.
        Whatever the plugin raises propagates (a ``BaseException`` as
        :class:`PluginCrash`). With ``off_loop``, a trusted owner runs in a worker thread
        (exact odds may take a good part of a second: the tables' rolls go on)."""
        if impl.inline:
            if off_loop:
                roll.state = state
                args = (roll, *values) if impl.positions is None else _args(impl,
                                                                            (roll, *values))
                return await asyncio.to_thread(self._direct, impl, args), None
            return self.call_trusted_owner(impl, roll, state, values), None
        guard = Guard(impl.plugin, impl.hook, roll, state)
        return await self.invoke(impl, _args(impl, (guard.work_roll, *values))), guard

    def call_trusted_owner(self, impl: Impl, roll: Roll, state: dict[str, Any],
                           values: tuple[Any, ...]) -> Any:
        """:meth:`call_owner` of a trusted sync implementation (``impl.inline``), on the
        event loop's thread: its answer, without a coroutine (every built-in roll's
        ``sidecar_resolve``). Whatever it raises propagates as for :meth:`call_owner`."""
        roll.state = state
        # (The usual owner names every argument: no call to pick them, on every roll.)
        args = (roll, *values) if impl.positions is None else _args(impl, (roll, *values))
        try:
            return impl.function(*args)
        except BaseException as exc:
            raise self._crash(exc) from None

    def keep(self, guard: Guard | None, roll: Roll, states: TableStates) -> None:
        """After an untrusted owner's call: refuse what it changed that it may not
        (``plugin_error``), and keep its state (a trusted owner worked on the real roll
        and state)."""
        if guard is not None:
            problem = guard.roll_problem()
            if problem:
                raise self.failures.bad_outcome(roll.ruleset, guard.plugin, problem)
            states.replace(guard.plugin, guard.work_roll.state)

    @staticmethod
    def _failed(impl: Impl, exc: BaseException, passes: tuple[str, ...] = ()) -> str:
        """What a call that raised ``exc`` is told as (its failure), or ``exc`` raised again
        when it is not the plugin's failure: a refusal the hook may raise as it is
        (``passes``: ``ProtocolError`` codes), or the server's own cancellation (the one
        ``BaseException`` :meth:`invoke` lets through)."""
        if not impl.inline and not isinstance(exc, Exception):
            raise exc
        if passes and isinstance(exc, ProtocolError) and exc.code in passes:
            raise exc
        return describe(exc)

    @classmethod
    def _direct(cls, impl: Impl, args: tuple[Any, ...]) -> Any:
        try:
            return impl.function(*args)
        except BaseException as exc:
            raise cls._crash(exc) from None

    @staticmethod
    def _crash(exc: BaseException) -> Exception:
        """What a trusted call that raised ``exc`` raises: ``exc`` itself when it is an
        ``Exception``; else (``SystemExit`` & co. from plugin code) :class:`PluginCrash`,
        its failure, which can never stop the server."""
        return exc if isinstance(exc, Exception) else PluginCrash(describe(exc))

    async def modify_outcome(self, order: Order, roll: Roll, outcome: Outcome,
                             states: TableStates, failures: list[HookFailure]) -> None:
        """The extensions' ``sidecar_modify_outcome``, one at a time; those that changed
        the outcome are added to its ``applied``. A failure leaves that extension out (its
        changes undone)."""
        changed: list[str] = []
        options = roll.options
        for impl in order.modify_outcome:
            if impl.option is not None and impl.option not in options:
                continue
            state = states.of(impl.plugin)
            if impl.inline:  # on the outcome itself, with what undoes a raise
                roll.state = state
                result, notes, spend = dict(outcome.result), len(outcome.notes), \
                    dict(outcome.spend)
                effects = deep_copy(outcome.effects) if outcome.effects else {}
                kept = dict(state)
                guard = None
                args = _args(impl, (roll, outcome))
            else:
                guard = Guard(impl.plugin, impl.hook, roll, state, outcome)
                args = _args(impl, (guard.work_roll, guard.work_outcome))
            try:
                impl.function(*args) if impl.inline else await self.invoke(impl, args)
            except BaseException as exc:
                problem: str | None = self._failed(impl, exc)
            else:
                problem = (guard.roll_problem() or guard.outcome_problem()
                           if guard is not None else None)
            if problem is not None:
                if guard is None:
                    outcome.result, outcome.spend, outcome.effects = result, spend, effects
                    del outcome.notes[notes:]
                    state.clear()
                    state.update(kept)
                self.failures.report(failures, impl.plugin, impl.hook, problem)
                continue
            if guard is None:
                if (len(outcome.notes) != notes or outcome.result != result
                        or outcome.spend != spend or outcome.effects != effects):
                    changed.append(impl.plugin)
                continue
            work = guard.work_outcome
            assert work is not None
            if (guard.result_changed or guard.notes_added or work.spend != outcome.spend
                    or work.effects != outcome.effects):
                changed.append(impl.plugin)
            outcome.result, outcome.notes, outcome.spend = work.result, work.notes, work.spend
            outcome.effects = work.effects
            states.replace(impl.plugin, guard.work_roll.state)
        for plugin in changed:
            if plugin not in outcome.applied:
                outcome.applied.append(plugin)

    def texts_now(self, order: Order, roll: Roll, outcome: Outcome,
                  failures: list[HookFailure]) -> dict[str, str]:
        """:meth:`texts` when every implementation is trusted and sync
        (:attr:`Order.texts_trusted`): called directly, no coroutine — the texts of every
        built-in roll."""
        texts = {}
        for locale in LOCALES:
            text = None
            for impl in order.texts:
                try:
                    text = (impl.function(roll, outcome, locale) if impl.positions is None
                            else impl.function(*_args(impl, (roll, outcome, locale))))
                except BaseException as exc:
                    self.failures.report(failures, impl.plugin, impl.hook,
                                         self._failed(impl, exc))
                    text = None
                    continue
                if text is not None:
                    break
            # (_final_text, written out: on every roll)
            texts[locale] = (text if text.__class__ is str and len(text) <= 500 and text
                             and not text.isspace() else _own_text(text, roll, outcome, locale))
        return texts

    async def texts(self, order: Order, roll: Roll, outcome: Outcome,
                    failures: list[HookFailure]) -> dict[str, str]:
        """The one-line summary in each locale: the owner's text; when it gives none, the
        first extension's (pluggy's order); else — or when it is no text, or blank — the
        host's own line. A failure leaves that plugin out."""
        if order.texts_trusted:
            return self.texts_now(order, roll, outcome, failures)
        copies: tuple[Roll, Outcome] | None = None
        texts = {}
        for locale in LOCALES:
            text = None
            for impl in order.texts:
                if impl.inline:
                    args = (roll, outcome, locale)
                else:
                    if copies is None:  # read-only for the plugin: it gets copies
                        copies = (copy_roll(roll, {}), copy_outcome(outcome))
                    args = (copies[0], copies[1], locale)
                if impl.positions is not None:  # (it names fewer arguments)
                    args = _args(impl, args)
                try:
                    text = impl.function(*args) if impl.inline else await self.invoke(impl, args)
                except BaseException as exc:
                    self.failures.report(failures, impl.plugin, impl.hook,
                                         self._failed(impl, exc))
                    text = None
                    continue
                if text is not None:
                    break
            texts[locale] = _final_text(text, roll, outcome, locale)
        return texts

    # -- one call -----------------------------------------------------------------------

    async def invoke(self, impl: Impl, args: tuple[Any, ...]) -> Any:
        """Call one implementation and return its result: a trusted sync one directly,
        any other under its guards.

        Async hooks run as a task of their own, awaited until the deadline only (see
        :meth:`_in_task`), and a call that holds the loop past it (a blocking call inside
        ``async def``) is a failure too; sync hooks of untrusted plugins run in a daemon
        worker thread, at most :attr:`max_threads_per_plugin` at once per plugin. Whatever
        the plugin raises comes out as an ``Exception`` — a ``BaseException``
        (``SystemExit``, ``KeyboardInterrupt``, a ``CancelledError`` of its own) as
        :class:`PluginCrash` —, so a plugin can never stop the server. Only the
        cancellation of the calling task itself (the server shutting down) propagates as
        such.
        """
        try:
            if impl.inline:
                return impl.function(*args)
            if impl.is_async:
                return await self._in_task(impl, args)
            return await self._in_thread(impl, args)
        except Exception:
            raise
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError) and _cancelling():
                raise  # the server's own task is being cancelled: not the plugin's doing
            raise PluginCrash(f"{type(exc).__name__}: {exc}") from None

    async def _in_task(self, impl: Impl, args: tuple[Any, ...]) -> Any:
        """An async hook, run as a task that is awaited until the deadline and no longer.

        At the deadline the task is cancelled and abandoned: the caller never awaits its
        end, so a hook that swallows its ``CancelledError`` (a retry loop around
        ``except CancelledError: pass``) cannot hold its roll, nor its table. One that has
        not ended :attr:`cancel_grace` seconds later ignores cancellation: it is disabled
        at once (its task is left to itself, see :attr:`abandoned`).
        """
        start = time.monotonic()
        timed = Timed(impl.function(*args))
        task = asyncio.ensure_future(_drive(timed))
        try:
            done, _ = await asyncio.wait((task,), timeout=self.timeout)
            if not done:
                task.cancel()
                await asyncio.wait((task,), timeout=self.cancel_grace)
        except asyncio.CancelledError:
            # The server's own cancellation: the hook's task is cancelled with it, never
            # awaited (it may not honour it).
            task.cancel()
            self._let_go(task)
            raise
        self._let_go(task)
        self._check_hold(impl, timed.longest)
        if done:
            return task.result()  # (its own TimeoutError, CancelledError… are its failure)
        if not task.done():
            why = (f"took longer than {self.timeout:g} s and ignored its cancellation "
                   f"for {self.cancel_grace:g} s more")
            if impl.info.trusted:  # (never disabled: the operator answers for it)
                raise PluginTimeout(why)
            self.registry.disable(impl.plugin, why)
            raise PluginTimeout(f"{why}: disabled")
        if self.failures.held_at > start:
            # Another plugin held the loop during this call (and is blamed for it): this
            # one is left out of the roll, but not counted as failing.
            self.failures.excuse(impl.plugin)
            raise PluginTimeout(f"took longer than {self.timeout:g} s while another "
                                "plugin held the event loop (not counted)")
        raise PluginTimeout(f"took longer than {self.timeout:g} s")

    def _let_go(self, task: asyncio.Future[Any]) -> None:
        """Keep a hook's task in :attr:`abandoned` until it ends (the loop holds tasks
        weakly; nobody may await it any more), then retrieve what it ended with, so that
        asyncio logs nothing about it."""
        self.abandoned.add(task)

        def ended(task: asyncio.Future[Any]) -> None:
            self.abandoned.discard(task)
            if not task.cancelled():
                task.exception()
        task.add_done_callback(ended)

    def _check_hold(self, impl: Impl, longest: float) -> None:
        """Blame an async hook one of whose steps held the event loop too long."""
        if longest > min(self.loop_hold_limit, self.timeout):
            self.failures.held_at = time.monotonic()
            if longest > self.timeout and not impl.info.trusted:
                # Past its whole deadline in one step, it froze every table that long:
                # not five chances, it is disabled at once.
                self.registry.disable(impl.plugin, f"held the event loop for {longest:.2f} s")
            raise PluginTimeout(f"held the event loop for {longest:.2f} s in one step (at "
                                f"most {min(self.loop_hold_limit, self.timeout):g} s): it "
                                "blocks in an async hook")

    async def _in_thread(self, impl: Impl, args: tuple[Any, ...]) -> Any:
        """A sync hook in a worker thread, awaited until the deadline. Past it the call is
        abandoned — left to return in its own time (nothing is injected into the thread:
        it could be holding a lock) — and keeps its thread meanwhile, which bounds what
        a stuck plugin may hold (:attr:`max_threads_per_plugin`)."""
        info = impl.info
        with self._lock:
            if info.in_flight >= self.max_threads_per_plugin:
                raise PluginBusy(f"already has {info.in_flight} calls running past their "
                                 f"deadline (at most {self.max_threads_per_plugin})")
            info.in_flight += 1

        def run() -> Any:
            try:
                return impl.function(*args)
            except Exception:
                raise
            except BaseException as exc:  # GeneratorExit & co. must not cross threads
                raise PluginCrash(f"{type(exc).__name__}: {exc}") from None

        def finished(_: Any) -> None:
            with self._lock:
                info.in_flight -= 1

        try:
            future = self._workers().submit(run)
        except BaseException:
            with self._lock:
                info.in_flight -= 1
            raise
        future.add_done_callback(finished)
        try:
            async with asyncio.timeout(self.timeout) as deadline:
                return await asyncio.wrap_future(future)
        except TimeoutError:
            if not deadline.expired():
                raise  # the plugin's own TimeoutError: an ordinary failure
            raise PluginTimeout(f"took longer than {self.timeout:g} s") from None

    def _workers(self) -> DaemonWorkers:
        if self._pool is None:
            self._pool = DaemonWorkers()
        return self._pool

    def shutdown(self) -> None:
        """Stop the worker threads (a stuck plugin call is abandoned, not waited for)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
