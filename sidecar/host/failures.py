"""Plugin failures: what one is, counting them, and disabling a plugin that keeps failing.

A plugin is trusted code, guarded against bugs, not against malice: whatever it raises, or
however late it answers, is that plugin's failure (:class:`HookFailure`), never the
server's. :class:`Failures` counts them per plugin; a third-party plugin that fails
``max_failures`` times within ``failure_window`` seconds is disabled for the rest of the
run. A built-in (or trusted) plugin is counted and logged, never disabled: the operator
answers for it.

A call that only timed out because another plugin held the event loop meanwhile is
*excused*: left out of its roll, not counted (see :meth:`Failures.excuse`).
"""

from __future__ import annotations

import collections
import logging
import time
from dataclasses import dataclass

from sidecar.host.registry import Registry
from sidecar.protocol.errors import ProtocolError

log = logging.getLogger("sidecar.plugins")


class PluginTimeout(Exception):
    """A plugin call ran past its deadline (a thread is left running, ignored; an async
    hook's task is cancelled and not awaited), or held the event loop past it."""


class PluginBusy(Exception):
    """A plugin already holds as many worker threads as it may (calls past their deadline
    that have not returned yet): further calls fail at once."""


class PluginCrash(Exception):
    """A plugin raised a ``BaseException`` that is not an ``Exception`` (``SystemExit``,
    ``KeyboardInterrupt``, its own ``CancelledError``…): its failure, like any raise."""


@dataclass
class HookFailure:
    """A plugin implementation that raised (or misbehaved) during a call."""

    plugin: str
    hook: str
    error: str


def describe(exc: BaseException) -> str:
    """How a plugin's exception is told in logs, notes and ``last_error``."""
    return f"{type(exc).__name__}: {exc}" if not isinstance(exc, PluginCrash) else str(exc)


class Failures:
    """Counts each plugin's failures in a sliding window and disables the third-party
    ones that fail too often (through :meth:`Registry.disable`)."""

    def __init__(self, registry: Registry, *, max_failures: int = 5,
                 failure_window: float = 60.0) -> None:
        self.registry = registry
        #: Failures within ``failure_window`` seconds that disable a third-party plugin.
        self.max_failures = max_failures
        self.failure_window = failure_window
        #: When a hook was last blamed for holding the event loop (see :meth:`excuse`).
        self.held_at = float("-inf")
        self._excused: collections.Counter[str] = collections.Counter()

    def record(self, plugin: str, why: str) -> None:
        """Count a failure; disable an untrusted plugin after too many in the window."""
        info = self.registry.plugins.get(plugin)
        if info is None:
            return
        if self._excused[plugin]:  # it timed out while another plugin held the loop
            self._excused[plugin] -= 1
            info.last_error = why
            return
        now = time.monotonic()
        info.failures.append(now)
        info.last_error = why
        while info.failures and now - info.failures[0] > self.failure_window:
            info.failures.popleft()
        if (not info.trusted and plugin not in self.registry.disabled
                and len(info.failures) >= self.max_failures):
            self.registry.disable(plugin, f"{len(info.failures)} failures in "
                                          f"{self.failure_window:g}s (last: {why})")

    def recent(self, plugin: str) -> int:
        """How many failures of ``plugin`` fall within the window now."""
        now = time.monotonic()
        return sum(1 for t in self.registry.plugins[plugin].failures
                   if now - t <= self.failure_window)

    def excuse(self, plugin: str) -> None:
        """Let the next failure recorded for ``plugin`` go uncounted: it timed out while
        another plugin held the event loop (which is blamed instead)."""
        self._excused[plugin] += 1

    def report(self, failures: list[HookFailure], plugin: str, hook: str,
               error: str) -> None:
        """A plugin left out of one roll: noted in ``failures`` (the roll's), logged,
        counted."""
        failures.append(HookFailure(plugin, hook, error))
        log.warning("plugin %s failed in %s: %s", plugin, hook, error)
        self.record(plugin, error)

    def ruleset_failed(self, ruleset: str, owner: str | None, why: str, en: str,
                       fr: str) -> ProtocolError:
        """Log and count a ruleset plugin's failure; the ``plugin_error`` for the client
        (``en``/``fr``: what it failed to do)."""
        log.warning("ruleset %s (plugin %s) %s: %s", ruleset, owner, en, why)
        if owner:
            self.record(owner, why)
        kind = why.split(":", 1)[0]
        return ProtocolError(
            "plugin_error",
            f"the ruleset '{ruleset}' {en} ({kind})",
            fr=f"le jeu de règles « {ruleset} » {fr} ({kind})",
            details={"plugin": owner, "ruleset": ruleset},
        )

    def bad_outcome(self, ruleset: str, owner: str | None, why: str) -> ProtocolError:
        """Log and count a ruleset's answer that is no outcome; its ``plugin_error``."""
        log.warning("ruleset %s (plugin %s) returned a bad outcome: %s", ruleset, owner, why)
        if owner:
            self.record(owner, f"bad outcome: {why}")
        return ProtocolError(
            "plugin_error",
            f"the ruleset '{ruleset}' returned a bad outcome: {why}",
            fr=f"le jeu de règles « {ruleset} » a rendu un résultat invalide : {why}",
            details={"plugin": owner, "ruleset": ruleset},
        )
