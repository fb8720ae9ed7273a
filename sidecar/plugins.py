"""The plugin host: one pluggy ``PluginManager`` behind a typed facade.

Plugins come from the ``sidecar`` entry-point group (the built-ins under ``plugins/`` are
registered there by this distribution's own ``pyproject.toml``, exactly like a third-party
package) and from the ``*.py`` files of ``--plugins-dir``. The rest of the code calls the
methods of :class:`PluginHost`, never ``pm.hook`` directly: the host calls third-party code
one implementation at a time so that a plugin that raises is contained (pluggy itself would
stop the whole call, pluggy#419).

Set ``SIDECAR_TRACE=1`` to log every hook call.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import functools
import importlib.util
import inspect
import logging
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import pluggy

from protocol.errors import ProtocolError
from sidecar import hookspecs
from sidecar.markers import PROJECT
from sidecar.model import Outcome, Roll
from sidecar.params import check_schema

log = logging.getLogger("sidecar.plugins")

ENTRY_POINT_GROUP = "sidecar"
#: Plugins shipped in this distribution are trusted: they run inline, never disabled.
TRUSTED_DISTRIBUTION = "vtt-sidecar"
HOOK_NAMES = tuple(name for name in dir(hookspecs) if name.startswith("sidecar_"))
EXTENSION_HOOKS = ("sidecar_modify_roll", "sidecar_modify_outcome")


class PluginLoadError(Exception):
    """A plugin could not be loaded; the message names the plugin and says why."""


class PluginTimeout(Exception):
    """A plugin call ran past its deadline (it is left running in its thread, ignored)."""


@dataclass
class PluginInfo:
    """What the host knows of one loaded plugin."""

    name: str
    version: str
    source: str
    description: str
    hooks: list[str] = field(default_factory=list)
    rulesets: list[str] = field(default_factory=list)
    #: Part of this distribution: runs inline and is never disabled.
    trusted: bool = False
    disabled: bool = False
    failures: collections.deque[float] = field(default_factory=collections.deque)
    last_error: str | None = None

    @property
    def is_extension(self) -> bool:
        return any(hook in self.hooks for hook in EXTENSION_HOOKS)

    def to_listing(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "description": self.description}


@dataclass
class HookFailure:
    """A plugin implementation that raised (or misbehaved) during a call."""

    plugin: str
    hook: str
    error: str


def _first_doc_line(obj: Any) -> str:
    doc = getattr(obj, "__doc__", None) or ""
    for line in doc.strip().splitlines():
        if line.strip():
            return line.strip()
    return ""


def _hookimpl_names(plugin: Any) -> list[str]:
    names = []
    for attr in dir(plugin):
        try:
            value = getattr(plugin, attr)
        except Exception:  # a property that raises is not a hook
            continue
        if callable(value) and hasattr(value, f"{PROJECT}_impl"):
            names.append(attr)
    return names


class PluginHost:
    """Loads plugins and calls their hooks on behalf of the pipeline."""

    def __init__(self, *, timeout: float = 0.25, max_failures: int = 5,
                 failure_window: float = 60.0) -> None:
        self.pm = pluggy.PluginManager(PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.plugins: dict[str, PluginInfo] = {}
        #: Seconds a third-party hook call may take before it is skipped.
        self.timeout = timeout
        #: Failures within ``failure_window`` seconds that disable a third-party plugin.
        self.max_failures = max_failures
        self.failure_window = failure_window
        self.disabled: set[str] = set()
        self._pool: ThreadPoolExecutor | None = None
        self._async_cache: dict[Any, bool] = {}
        #: ruleset name → (plugin name, description as sent in ``welcome``)
        self.rulesets: dict[str, tuple[str, dict[str, Any]]] = {}
        if os.environ.get("SIDECAR_TRACE"):
            self.pm.trace.root.setwriter(lambda text: log.info("trace: %s", text.rstrip()))
            self.pm.enable_tracing()

    # -- loading ------------------------------------------------------------------------

    def load_entry_points(self, *, disabled: tuple[str, ...] = ()) -> None:
        """Register every plugin of the ``sidecar`` entry-point group (built-ins included)."""
        for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            if ep.name in disabled or ep.name in self.plugins:
                continue
            try:
                plugin = ep.load()
            except Exception as exc:
                raise PluginLoadError(
                    f"plugin '{ep.name}' (entry point {ep.value}) failed to import: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            dist = ep.dist
            # A plugin's own __version__ wins: one distribution may ship several plugins.
            version = getattr(plugin, "__version__", None) or (dist.version if dist else "")
            source = f"package {dist.name}" if dist is not None else f"entry point {ep.value}"
            self.register(plugin, ep.name, version=version, source=source,
                          trusted=dist is not None and dist.name == TRUSTED_DISTRIBUTION)

    def load_directory(self, directory: str | Path, *, disabled: tuple[str, ...] = ()) -> None:
        """Register every ``*.py`` file of ``directory`` as a plugin named after the file."""
        path = Path(directory)
        if not path.is_dir():
            raise PluginLoadError(f"plugins directory '{path}' does not exist")
        for file in sorted(path.glob("*.py")):
            name = file.stem
            if name in disabled:
                continue
            module_name = f"sidecar_dir_plugin_{name}"
            spec = importlib.util.spec_from_file_location(module_name, file)
            if spec is None or spec.loader is None:
                raise PluginLoadError(f"plugin '{name}' ({file}) cannot be imported")
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            try:
                spec.loader.exec_module(module)
            except Exception as exc:
                sys.modules.pop(module_name, None)
                raise PluginLoadError(
                    f"plugin '{name}' ({file}) failed to import: {type(exc).__name__}: {exc}"
                ) from exc
            self.register(module, name, version=getattr(module, "__version__", ""),
                          source=str(file))

    def register(self, plugin: Any, name: str, *, version: str = "", source: str = "",
                 trusted: bool = False) -> None:
        """Register one plugin object under ``name``, refusing unknown hooks by name."""
        if name in self.plugins:
            raise PluginLoadError(
                f"plugin name '{name}' is already taken by {self.plugins[name].source}"
            )
        hooks = _hookimpl_names(plugin)
        unknown = [hook for hook in hooks if hook not in HOOK_NAMES]
        if unknown:
            raise PluginLoadError(
                f"plugin '{name}' implements unknown hook(s) {', '.join(unknown)}; "
                f"known hooks: {', '.join(HOOK_NAMES)}"
            )
        try:
            self.pm.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            raise PluginLoadError(f"plugin '{name}': {exc}") from exc
        info = PluginInfo(name=name, version=str(version or ""), source=source,
                          description=_first_doc_line(plugin), hooks=sorted(hooks),
                          trusted=trusted)
        self.plugins[name] = info
        if "sidecar_rulesets" in hooks:
            self._collect_rulesets(plugin, info)

    def _collect_rulesets(self, plugin: Any, info: PluginInfo) -> None:
        try:
            described = plugin.sidecar_rulesets()
        except Exception as exc:
            self._unregister(info.name)
            raise PluginLoadError(
                f"plugin '{info.name}': sidecar_rulesets() raised {type(exc).__name__}: {exc}"
            ) from exc
        if inspect.isawaitable(described):
            described.close()
            self._unregister(info.name)
            raise PluginLoadError(f"plugin '{info.name}': sidecar_rulesets() must not be async")
        if not isinstance(described, list):
            self._unregister(info.name)
            raise PluginLoadError(f"plugin '{info.name}': sidecar_rulesets() must return a list")
        for item in described:
            problem = self._ruleset_problem(item)
            if problem:
                self._unregister(info.name)
                raise PluginLoadError(f"plugin '{info.name}': {problem}")
            listing = {
                "name": item["name"],
                "title": item.get("title", item["name"]),
                "version": str(item.get("version", info.version)),
                "params": item.get("params", {}),
            }
            for key, value in item.items():
                listing.setdefault(key, value)  # forward any extra descriptive field
            self.rulesets[item["name"]] = (info.name, listing)
            info.rulesets.append(item["name"])

    def _ruleset_problem(self, item: Any) -> str | None:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"]:
            return "each ruleset description needs a non-empty string 'name'"
        if item["name"] in self.rulesets:
            owner = self.rulesets[item["name"]][0]
            return f"ruleset '{item['name']}' is already provided by plugin '{owner}'"
        problems = check_schema(item.get("params", {}))
        return f"ruleset '{item['name']}': {'; '.join(problems)}" if problems else None

    def _unregister(self, name: str) -> None:
        self.pm.unregister(name=name)
        self.plugins.pop(name, None)

    # -- what is loaded -----------------------------------------------------------------

    def is_trusted(self, plugin: str) -> bool:
        """Whether a plugin runs inline without the third-party guards."""
        info = self.plugins.get(plugin)
        return info is not None and info.trusted

    def trust(self, names: tuple[str, ...]) -> None:
        """Run these plugins inline, like the built-ins (the operator vouches for them)."""
        for name in names:
            if name not in self.plugins:
                raise PluginLoadError(f"cannot trust '{name}': no such plugin is loaded")
            self.plugins[name].trusted = True

    def ruleset_listing(self) -> list[dict[str, Any]]:
        """The rulesets as ``welcome`` lists them."""
        return [listing for _, listing in self.rulesets.values()]

    def extension_listing(self) -> list[dict[str, Any]]:
        """The extensions as ``welcome`` lists them (disabled ones left out)."""
        return [info.to_listing() for info in self.plugins.values()
                if info.is_extension and not info.disabled]

    def ruleset_schema(self, ruleset: str) -> dict[str, Any] | None:
        entry = self.rulesets.get(ruleset)
        return entry[1]["params"] if entry else None

    def ruleset_owner(self, ruleset: str) -> str | None:
        entry = self.rulesets.get(ruleset)
        return entry[0] if entry else None

    # -- calling ------------------------------------------------------------------------

    def implementations(self, hook: str) -> list[pluggy.HookImpl]:
        """The implementations of ``hook`` in pluggy's call order, disabled plugins left out."""
        caller = getattr(self.pm.hook, hook)
        return [impl for impl in reversed(caller.get_hookimpls())
                if impl.plugin_name not in self.disabled]

    @staticmethod
    def call(impl: pluggy.HookImpl, **kwargs: Any) -> Any:
        """Call one implementation inline with the arguments it names (no deadline)."""
        return impl.function(*[kwargs[arg] for arg in impl.argnames])

    async def acall(self, impl: pluggy.HookImpl, **kwargs: Any) -> Any:
        """Call one implementation under the deadline, without blocking the event loop.

        Async hooks are awaited; sync hooks of third-party plugins run in a worker thread;
        the built-in plugins (pure, fast, tested with the server) run inline. Raises
        :class:`PluginTimeout` past :attr:`timeout` seconds.
        """
        function = impl.function
        args = [kwargs[arg] for arg in impl.argnames]
        info = self.plugins.get(impl.plugin_name)
        is_async = self._async_cache.get(function)
        if is_async is None:
            is_async = self._async_cache[function] = inspect.iscoroutinefunction(function)
        try:
            if is_async:
                return await asyncio.wait_for(function(*args), self.timeout)
            if info is not None and info.trusted:
                return function(*args)
            # The thread gets copies: a call that misses its deadline keeps running and must
            # not touch the real roll later. Its changes are taken back only in time.
            copies = [_clone(arg) for arg in args]
            loop = asyncio.get_running_loop()
            result = await asyncio.wait_for(
                loop.run_in_executor(self._executor(), functools.partial(function, *copies)),
                self.timeout)
            for original, copy_ in zip(args, copies, strict=True):
                _take_back(original, copy_)
            return result
        except TimeoutError:
            raise PluginTimeout(f"took longer than {self.timeout:g} s") from None

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            # Enough workers that a few stuck plugin calls (until their plugin is disabled)
            # leave room for everyone else's.
            self._pool = ThreadPoolExecutor(max_workers=32, thread_name_prefix="sidecar-plugin")
        return self._pool

    def shutdown(self) -> None:
        """Stop the worker threads (a stuck plugin call is abandoned, not waited for)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def record_failure(self, plugin: str, why: str) -> None:
        """Count a failure; disable a third-party plugin after too many in the window."""
        info = self.plugins.get(plugin)
        if info is None:
            return
        now = time.monotonic()
        info.failures.append(now)
        info.last_error = why
        while info.failures and now - info.failures[0] > self.failure_window:
            info.failures.popleft()
        if (not info.trusted and plugin not in self.disabled
                and len(info.failures) >= self.max_failures):
            self.disabled.add(plugin)
            info.disabled = True
            log.warning("plugin %s disabled for the rest of the run: %d failures in %gs "
                        "(last: %s)", plugin, len(info.failures), self.failure_window, why)

    async def call_firstresult(
        self,
        hook: str,
        owner: str | None,
        on_failure: Callable[[HookFailure], None],
        **kwargs: Any,
    ) -> Any:
        """Call ``hook`` like pluggy's ``firstresult``, one implementation at a time.

        A failure of ``owner`` (the plugin whose ruleset this is) propagates; a failure of
        any other plugin is reported through ``on_failure`` and skipped.
        """
        for impl in self.implementations(hook):
            try:
                result = await self.acall(impl, **kwargs)
            except Exception as exc:
                if impl.plugin_name == owner:
                    raise
                on_failure(HookFailure(impl.plugin_name, hook, f"{type(exc).__name__}: {exc}"))
                continue
            if result is not None:
                return result
        return None

    async def call_each(
        self,
        hook: str,
        before: Callable[[str], Any],
        after: Callable[[str, Any], str | None],
        undo: Callable[[str, Any], None],
        on_failure: Callable[[HookFailure], None],
        refusals: tuple[str, ...] = (),
        **kwargs: Any,
    ) -> None:
        """Call every implementation of a modify hook, each isolated from the others.

        ``before(plugin)`` snapshots what the plugin may change; ``after(plugin, snapshot)``
        returns a problem description when the plugin left things invalid; ``undo(plugin,
        snapshot)`` restores the snapshot. A plugin that raises, times out, or leaves a
        problem, is undone and reported through ``on_failure``. A :class:`ProtocolError`
        whose code is in ``refusals`` is a deliberate refusal of the request: it propagates.
        """
        for impl in self.implementations(hook):
            snapshot = before(impl.plugin_name)
            try:
                await self.acall(impl, **kwargs)
                problem = after(impl.plugin_name, snapshot)
            except ProtocolError as exc:
                if exc.code in refusals:
                    undo(impl.plugin_name, snapshot)
                    raise
                problem = f"{type(exc).__name__}: {exc}"
            except Exception as exc:
                problem = f"{type(exc).__name__}: {exc}"
            if problem:
                undo(impl.plugin_name, snapshot)
                on_failure(HookFailure(impl.plugin_name, hook, problem))

    def status(self) -> list[dict[str, Any]]:
        """Every plugin with its hooks, rulesets, failures and whether it is disabled."""
        now = time.monotonic()
        return [{"name": info.name, "version": info.version, "source": info.source,
                 "description": info.description, "hooks": info.hooks,
                 "rulesets": info.rulesets, "disabled": info.disabled,
                 "recent_failures": sum(1 for t in info.failures
                                        if now - t <= self.failure_window),
                 "last_error": info.last_error}
                for info in self.plugins.values()]


def _clone(value: Any) -> Any:
    """A copy of a roll or outcome for a call in another thread (others pass as they are)."""
    if isinstance(value, (Roll, Outcome)):
        return dataclasses.replace(value, **{f.name: deep_copy(getattr(value, f.name))
                                             for f in dataclasses.fields(value)})
    return value


def _take_back(original: Any, copy_: Any) -> None:
    """Apply a thread's changes to its copy back onto the real roll or outcome."""
    if not isinstance(original, (Roll, Outcome)):
        return
    for f in dataclasses.fields(original):
        if f.name == "state":  # the pipeline holds this map: keep its identity
            original.state.clear()
            original.state.update(copy_.state)
        else:
            setattr(original, f.name, getattr(copy_, f.name))


def default_host(plugins_dir: str | Path | None = None, *,
                 disabled: tuple[str, ...] = ()) -> PluginHost:
    """A host with every installed plugin, and those of ``plugins_dir`` if given."""
    host = PluginHost()
    host.load_entry_points(disabled=disabled)
    if plugins_dir is not None:
        host.load_directory(plugins_dir, disabled=disabled)
    return host


def deep_copy(value: Any) -> Any:
    """A deep copy of a JSON-like tree (maps and lists; other values are immutable or
    refused later as not JSON-compatible). Several times faster than ``copy.deepcopy``,
    and snapshots are taken around every extension call."""
    if isinstance(value, dict):
        return {key: deep_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [deep_copy(item) for item in value]
    return value
