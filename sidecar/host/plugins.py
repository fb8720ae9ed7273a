"""The plugin host: the registry of loaded plugins, with its three parts.

:class:`PluginHost` is what the rest of the code holds. It *is* the
:class:`~sidecar.host.registry.Registry` (loading, entry points, who owns which ruleset)
and has

* :attr:`PluginHost.catalogue` — what the plugins describe: sheets, options, listings
  (:mod:`sidecar.host.catalogue`);
* :attr:`PluginHost.failures` — counting failures, disabling a plugin that keeps failing
  (:mod:`sidecar.host.failures`);
* :attr:`PluginHost.caller` — the one caller of plugins: call order, arguments, trusted
  or guarded calls (:mod:`sidecar.host.caller`).

The rest of the code never calls ``pm.hook``: the caller calls third-party code one
implementation at a time, so that a plugin that raises is contained (pluggy itself would
stop the whole call, pluggy#419).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sidecar.host.caller import PluginCaller
from sidecar.host.catalogue import Catalogue
from sidecar.host.failures import (
    Failures,
    HookFailure,
    PluginBusy,
    PluginCrash,
    PluginTimeout,
)
from sidecar.host.registry import (
    ENTRY_POINT_GROUP,
    HOOK_NAMES,
    TRUSTED_DISTRIBUTION,
    Impl,
    PluginInfo,
    PluginLoadError,
    Registry,
    description_error,
    scope,
)

__all__ = ["ENTRY_POINT_GROUP", "HOOK_NAMES", "TRUSTED_DISTRIBUTION", "HookFailure", "Impl",
           "PluginBusy", "PluginCrash", "PluginHost", "PluginInfo", "PluginLoadError",
           "PluginTimeout", "default_host", "description_error", "scope"]


class PluginHost(Registry):
    """Loads plugins, describes them, counts their failures and calls their hooks."""

    def __init__(self, *, timeout: float = 0.25, max_failures: int = 5,
                 failure_window: float = 60.0) -> None:
        super().__init__()
        self.failures = Failures(self, max_failures=max_failures,
                                 failure_window=failure_window)
        self.catalogue = Catalogue(self)
        self.caller = PluginCaller(self, self.failures, timeout=timeout)

    # -- the caller's guards ------------------------------------------------------------

    @property
    def timeout(self) -> float:
        """Seconds a guarded hook call may take before it is skipped."""
        return self.caller.timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self.caller.timeout = seconds

    @property
    def max_threads_per_plugin(self) -> int:
        """Worker threads one untrusted plugin may hold at once."""
        return self.caller.max_threads_per_plugin

    @property
    def abandoned(self) -> set[asyncio.Future[Any]]:
        """Tasks of async hooks abandoned at their deadline that have not ended yet."""
        return self.caller.abandoned

    def shutdown(self) -> None:
        """Stop the worker threads (a stuck plugin call is abandoned, not waited for)."""
        self.caller.shutdown()

    # -- failures -----------------------------------------------------------------------

    @property
    def failure_window(self) -> float:
        """Seconds over which failures are counted (see :class:`Failures`)."""
        return self.failures.failure_window

    @failure_window.setter
    def failure_window(self, seconds: float) -> None:
        self.failures.failure_window = seconds

    def record_failure(self, plugin: str, why: str) -> None:
        """Count a failure of ``plugin`` (see :meth:`Failures.record`)."""
        self.failures.record(plugin, why)

    def status(self) -> list[dict[str, Any]]:
        """Every plugin with its hooks, rulesets, failures and whether it is disabled."""
        options = self.catalogue.option_descriptions()
        return [{"name": info.name, "version": info.version, "source": info.source,
                 "description": info.description, "hooks": info.hooks,
                 "rulesets": info.rulesets, "disabled": info.disabled,
                 "options": options.get(info.name),
                 "recent_failures": self.failures.recent(info.name),
                 "last_error": info.last_error}
                for info in self.plugins.values()]

    # -- the catalogue ------------------------------------------------------------------

    def ruleset_listing(self) -> list[dict[str, Any]]:
        """The rulesets as ``welcome`` lists them (see :class:`Catalogue`)."""
        return self.catalogue.ruleset_listing()

    def sheet_schema(self, ruleset: str) -> dict[str, Any]:
        """The character sheet of ``ruleset`` (see :meth:`Catalogue.sheet_schema`)."""
        return self.catalogue.sheet_schema(ruleset)

    def check_sheets(self) -> None:
        """Refuse an unusable sheet description now (see :class:`Catalogue`)."""
        self.catalogue.check_sheets()

    def option_descriptions(self) -> dict[str, dict[str, Any]]:
        """Extension name → the description of its options (see :class:`Catalogue`)."""
        return self.catalogue.option_descriptions()

    def check_options(self) -> None:
        """Refuse an unusable options description now (see :class:`Catalogue`)."""
        self.catalogue.check_options()

    def option_listing(self) -> list[dict[str, Any]]:
        """The extensions' options as ``welcome.options`` lists them."""
        return self.catalogue.option_listing()

    def validate_options(self, ruleset: str, options: dict[str, Any]) -> dict[str, Any]:
        """A request's ``options`` checked against the descriptions."""
        return self.catalogue.validate_options(ruleset, options)

    def extension_listing(self, locale: str | None = None) -> list[dict[str, Any]]:
        """The extensions as ``welcome`` lists them (disabled ones left out), described
        in ``locale`` when given."""
        return self.catalogue.extension_listing(locale)

    def welcome_listing(self, locale: str | None = None
                        ) -> tuple[str, dict[str, list[dict[str, Any]]]]:
        """What every welcome in ``locale`` describes, and its digest (see
        :class:`Catalogue`)."""
        return self.catalogue.welcome_listing(locale)


def default_host(plugins_dir: str | Path | None = None, *,
                 disabled: tuple[str, ...] = ()) -> PluginHost:
    """A host with every installed plugin, and those of ``plugins_dir`` if given."""
    host = PluginHost()
    host.load_entry_points(disabled=disabled)
    if plugins_dir is not None:
        host.load_directory(plugins_dir, disabled=disabled)
    host.check_sheets()
    host.check_options()
    return host
