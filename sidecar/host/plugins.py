"""The plugin host: one pluggy ``PluginManager`` behind a typed facade.

Plugins come from the ``sidecar`` entry-point group (the built-ins under ``plugins/`` are
registered there by this distribution's own ``pyproject.toml``, exactly like a third-party
package) and from the ``*.py`` files of ``--plugins-dir``. The rest of the code calls the
methods of :class:`PluginHost`, never ``pm.hook`` directly: the host calls third-party code
one implementation at a time so that a plugin that raises is contained (pluggy itself would
stop the whole call, pluggy#419).

What the host takes from pluggy, and what it refuses: implementations are called in
pluggy's order (``tryfirst``/``trylast`` honoured); owner-only hooks (``sidecar_resolve``,
``sidecar_odds``) go to the plugin whose ruleset it is; ``firstresult`` hooks stop at the
first answer; hook wrappers (``wrapper=True``, ``hookwrapper=True``) are refused when the
plugin is loaded, with a :class:`PluginLoadError` naming the plugin and the hook.

Set ``SIDECAR_TRACE=1`` to log plugin registrations.
"""

from __future__ import annotations

import asyncio
import collections
import importlib.util
import inspect
import logging
import os
import sys
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import pluggy

from sidecar import hookspecs
from sidecar.host.descriptions import (
    Problem,
    options_problems,
    ruleset_problems,
    sheet_problems,
)
from sidecar.host.looptime import Timed
from sidecar.host.options import listing as option_listing
from sidecar.host.options import validate_options
from sidecar.host.workers import Abandoned, Call, DaemonWorkers
from sidecar.markers import PROJECT

log = logging.getLogger("sidecar.plugins")

ENTRY_POINT_GROUP = "sidecar"
#: Plugins shipped in this distribution are trusted: they run inline, never disabled.
TRUSTED_DISTRIBUTION = "vtt-sidecar"
HOOK_NAMES = tuple(name for name in dir(hookspecs) if name.startswith("sidecar_"))
EXTENSION_HOOKS = ("sidecar_modify_roll", "sidecar_modify_outcome")
#: Hooks whose trusted implementations honour :func:`scope`.
SCOPED_HOOKS = (*EXTENSION_HOOKS, "sidecar_max_spend")
#: The attribute :func:`scope` sets on an extension hook.
SCOPE_ATTRIBUTE = "sidecar_scope"


def scope(*, rulesets: tuple[str, ...] | None = None,
          option: str | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare that an extension hook does nothing outside ``rulesets``, or on a roll whose
    ``options`` lack ``option``: a trusted plugin's hook is then not called at all there
    (no call, no undo record). The declaration must be exact — the hook returns at once
    on those rolls anyway —; third-party hooks are called regardless, under their guards.
    """
    def mark(function: Callable[..., Any]) -> Callable[..., Any]:
        setattr(function, SCOPE_ATTRIBUTE,
                (frozenset(rulesets) if rulesets is not None else None, option))
        return function
    return mark


class PluginLoadError(Exception):
    """A plugin could not be loaded; the message names the plugin and says why.

    ``message`` is English; ``fr`` (when given) the same in French, which ``str()``
    puts first (``« fr » / « en »``, one line), like the command line's other messages.
    A description refused at load also carries ``plugin``, ``hook``, ``description``
    (the ruleset, ``None`` for options) and ``key`` (the parameter and its key:
    ``difficulty.default``).
    """

    def __init__(self, message: str, *, fr: str | None = None, plugin: str | None = None,
                 hook: str | None = None, description: str | None = None,
                 key: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fr = fr
        self.plugin = plugin
        self.hook = hook
        self.description = description
        self.key = key

    def __str__(self) -> str:
        return f"{self.fr} / {self.message}" if self.fr else self.message


#: How a refused description is named, per hook: (English, French) of the description,
#: then of one of its entries.
_DESCRIBED = {
    "sidecar_rulesets": (("ruleset '{}'", "jeu de règles « {} »"), ("parameter", "paramètre")),
    "sidecar_sheet": (("the sheet of '{}'", "la fiche de « {} »"), ("field", "champ")),
    "sidecar_options": (("its options", "ses options"), ("option", "option")),
}


def description_error(plugin: str, hook: str, described: str | None,
                      problems: list[Problem]) -> PluginLoadError:
    """The load error for a description ``hook`` returned that ``problems`` refuse:
    the plugin, the hook, the description and the key of the first problem, French then
    English (with how many more there are)."""
    first = problems[0]
    (what_en, what_fr), (noun_en, noun_fr) = _DESCRIBED[hook]
    more = len(problems) - 1
    en = [f"plugin '{plugin}'", hook]
    fr = [f"plugin « {plugin} »", hook]
    if described is not None or hook == "sidecar_options":
        en.append(what_en.format(described))
        fr.append(what_fr.format(described))
    if first.where_en(noun_en):
        en.append(first.where_en(noun_en))
        fr.append(first.where_fr(noun_fr))
    text_en = ", ".join(en) + f": {first.en}" + (f" (and {more} more)" if more else "")
    text_fr = ", ".join(fr) + f" : {first.fr}" + (f" (et {more} de plus)" if more else "")
    key = ".".join(part for part in (first.name, first.key) if part is not None) or None
    return PluginLoadError(text_en, fr=text_fr, plugin=plugin, hook=hook,
                           description=described, key=key)


class PluginTimeout(Exception):
    """A plugin call ran past its deadline (a thread is left running, ignored; an async
    hook's task is cancelled and not awaited), or held the event loop past it."""


class PluginBusy(Exception):
    """A plugin already holds as many worker threads as it may (calls past their deadline
    that have not returned yet): further calls fail at once."""


class PluginCrash(Exception):
    """A plugin raised a ``BaseException`` that is not an ``Exception`` (``SystemExit``,
    ``KeyboardInterrupt``, its own ``CancelledError``…): its failure, like any raise."""


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


def _cancelling() -> bool:
    """Whether the running task is being cancelled (by the server, not by a plugin)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


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
    #: Worker threads running one of its calls now (some may be past their deadline).
    in_flight: int = 0

    @property
    def is_extension(self) -> bool:
        return any(hook in self.hooks for hook in EXTENSION_HOOKS)

    def to_listing(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "description": self.description}


@dataclass(slots=True)
class Impl:
    """One hook implementation, ready to call: whose, which hook, with which arguments."""

    plugin: str
    hook: str
    function: Callable[..., Any]
    argnames: tuple[str, ...]
    is_async: bool
    info: PluginInfo
    #: Where its arguments are among the spec's (``None``: all of them, in order).
    positions: tuple[int, ...] | None = None
    #: Trusted and sync: the pipeline calls it directly, on the real objects (the host
    #: rebuilds its implementations whenever a plugin is trusted or disabled).
    inline: bool = False
    #: Declared with :func:`scope` (honoured for inline calls only): the rulesets it acts
    #: on (``None``: all) and the key the roll's ``options`` must hold (``None``: none).
    rulesets: frozenset[str] | None = None
    option: str | None = None

    def applies(self, roll: Any) -> bool:
        """Whether an inline call on ``roll`` can do anything (see :func:`scope`)."""
        return ((self.option is None or self.option in roll.options)
                and (self.rulesets is None or roll.ruleset in self.rulesets))

    def pick(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        """Its arguments, from the values of every argument of the spec, in spec order."""
        positions = self.positions
        return values if positions is None else tuple(values[i] for i in positions)


@dataclass(slots=True)
class InlinePlan:
    """Every implementation a roll of one ruleset calls, when all are trusted and sync:
    the pipeline then runs the whole roll as plain calls."""

    modify_roll: list[Impl]
    resolve: Impl
    modify_outcome: list[Impl]
    texts: list[Impl]
    #: ``sidecar_max_spend``: the owner's and the extensions' (see :meth:`spend_limiters`).
    max_spend: list[Impl] = field(default_factory=list)


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


def _hookimpls(plugin: Any) -> dict[str, dict[str, Any]]:
    """The hooks a plugin implements (its ``specname`` when given) → their pluggy options."""
    found = {}
    for attr in dir(plugin):
        try:
            value = getattr(plugin, attr)
        except Exception:  # a property that raises is not a hook
            continue
        opts = getattr(value, f"{PROJECT}_impl", None) if callable(value) else None
        if isinstance(opts, dict):
            found[opts.get("specname") or attr] = opts
    return found


class PluginHost:
    """Loads plugins and calls their hooks on behalf of the pipeline."""

    def __init__(self, *, timeout: float = 0.25, max_failures: int = 5,
                 failure_window: float = 60.0) -> None:
        self.pm = pluggy.PluginManager(PROJECT)
        self.pm.add_hookspecs(hookspecs)
        #: The hooks a plugin may implement.
        self.hook_names: tuple[str, ...] = HOOK_NAMES
        self.plugins: dict[str, PluginInfo] = {}
        #: Seconds a third-party hook call may take before it is skipped.
        self.timeout = timeout
        #: Failures within ``failure_window`` seconds that disable a third-party plugin.
        self.max_failures = max_failures
        self.failure_window = failure_window
        self.disabled: set[str] = set()
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
        #: When a hook was last blamed for holding the loop; calls that timed out while it
        #: did are excused (see :meth:`record_failure`).
        self._held_at = float("-inf")
        self._excused: collections.Counter[str] = collections.Counter()
        self._pool: DaemonWorkers | None = None
        self._lock = threading.Lock()
        self._impls: dict[str, list[Impl]] = {}
        #: ruleset → its character sheet (owner's fields, then extensions'), built once.
        self._sheets: dict[str, dict[str, Any]] = {}
        #: extension name → the description of its options, built once (see
        #: :meth:`option_descriptions`).
        self._options: dict[str, dict[str, Any]] | None = None
        self._owned: dict[tuple[str, str], Impl | None] = {}
        self._text_orders: dict[str, list[Impl]] = {}
        self._plans: dict[str, InlinePlan | None] = {}
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
            except BaseException as exc:  # sys.exit() at import is a broken plugin too
                raise PluginLoadError(
                    f"plugin '{ep.name}' (entry point {ep.value}) failed to import: "
                    f"{type(exc).__name__}: {exc}",
                    fr=f"plugin « {ep.name} » (point d'entrée {ep.value}) : échec de "
                    f"l'import : {type(exc).__name__} : {exc}", plugin=ep.name) from exc
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
            except BaseException as exc:  # sys.exit() at import is a broken plugin too
                sys.modules.pop(module_name, None)
                raise PluginLoadError(
                    f"plugin '{name}' ({file}) failed to import: {type(exc).__name__}: {exc}",
                    fr=f"plugin « {name} » ({file}) : échec de l'import : "
                    f"{type(exc).__name__} : {exc}", plugin=name) from exc
            self.register(module, name, version=getattr(module, "__version__", ""),
                          source=str(file))

    def register(self, plugin: Any, name: str, *, version: str = "", source: str = "",
                 trusted: bool = False) -> None:
        """Register one plugin object under ``name``, refusing unknown hooks by name."""
        if name in self.plugins:
            raise PluginLoadError(
                f"plugin name '{name}' is already taken by {self.plugins[name].source}"
            )
        impls = _hookimpls(plugin)
        hooks = list(impls)
        unknown = [hook for hook in hooks if hook not in self.hook_names]
        if unknown:
            raise PluginLoadError(
                f"plugin '{name}' implements unknown hook(s) {', '.join(unknown)}; "
                f"known hooks: {', '.join(self.hook_names)}",
                fr=f"plugin « {name} » : hook(s) inconnu(s) {', '.join(unknown)}",
                plugin=name, hook=unknown[0])
        for hook, opts in impls.items():
            if opts.get("wrapper") or opts.get("hookwrapper"):
                # The host calls implementations one at a time to contain failures; a
                # wrapper around the others would silently never run: refuse it.
                raise PluginLoadError(
                    f"plugin '{name}': {hook} is a hook wrapper (wrapper=True or "
                    "hookwrapper=True), which sidecar does not run; implement the hook "
                    "itself (tryfirst/trylast set the order)")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                self.pm.register(plugin, name=name)
            except pluggy.PluginValidationError as exc:
                raise PluginLoadError(f"plugin '{name}': {exc}") from exc
        for warning in caught:
            self._warn(name, warning)
        info = PluginInfo(name=name, version=str(version or ""), source=source,
                          description=_first_doc_line(plugin), hooks=sorted(hooks),
                          trusted=trusted)
        self.plugins[name] = info
        self._forget_calls()
        if "sidecar_rulesets" in hooks:
            self._collect_rulesets(plugin, info)

    @staticmethod
    def _warn(name: str, warning: warnings.WarningMessage) -> None:
        """Pass on a warning pluggy gave while registering a plugin (a deprecated hook or
        argument: ``warn_on_impl``, ``warn_on_impl_args``), naming the plugin, where its
        function is; and log it, since Python hides deprecation warnings by default."""
        text = f"plugin '{name}': {warning.message}"
        log.warning("%s (%s:%s)", text, warning.filename, warning.lineno)
        warnings.warn_explicit(text, warning.category, warning.filename, warning.lineno or 0)

    def _collect_rulesets(self, plugin: Any, info: PluginInfo) -> None:
        try:
            described = self.pm.hook.sidecar_rulesets.get_hookimpls()
            function = next(i.function for i in described if i.plugin_name == info.name)
            described = function()
        except BaseException as exc:
            self._unregister(info.name)
            raise PluginLoadError(
                f"plugin '{info.name}': sidecar_rulesets() raised {type(exc).__name__}: {exc}",
                fr=f"plugin « {info.name} » : sidecar_rulesets() a levé "
                f"{type(exc).__name__} : {exc}", plugin=info.name, hook="sidecar_rulesets"
            ) from exc
        if inspect.isawaitable(described):
            described.close()
            self._unregister(info.name)
            raise PluginLoadError(f"plugin '{info.name}': sidecar_rulesets() must not be async")
        if not isinstance(described, list):
            self._unregister(info.name)
            raise PluginLoadError(
                f"plugin '{info.name}': sidecar_rulesets() must return a list",
                fr=f"plugin « {info.name} » : sidecar_rulesets() doit renvoyer une liste",
                plugin=info.name, hook="sidecar_rulesets")
        for item in described:
            error = self._ruleset_problem(info.name, item)
            if error is not None:
                self._unregister(info.name)
                raise error
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

    def _ruleset_problem(self, plugin: str, item: Any) -> PluginLoadError | None:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"]:
            return PluginLoadError(
                f"plugin '{plugin}', sidecar_rulesets: each ruleset description needs a "
                "non-empty string 'name'",
                fr=f"plugin « {plugin} », sidecar_rulesets : chaque description de jeu a "
                "besoin d'un 'name', une chaîne non vide", plugin=plugin,
                hook="sidecar_rulesets", key="name")
        if item["name"] in self.rulesets:
            owner = self.rulesets[item["name"]][0]
            return PluginLoadError(
                f"plugin '{plugin}': ruleset '{item['name']}' is already provided by "
                f"plugin '{owner}'",
                fr=f"plugin « {plugin} » : le jeu de règles « {item['name']} » est déjà "
                f"fourni par le plugin « {owner} »", plugin=plugin, hook="sidecar_rulesets",
                description=item["name"])
        problems = ruleset_problems(item)
        return (description_error(plugin, "sidecar_rulesets", item["name"], problems)
                if problems else None)

    def _unregister(self, name: str) -> None:
        self.pm.unregister(name=name)
        self.plugins.pop(name, None)
        self._forget_calls()

    # -- what is loaded -----------------------------------------------------------------

    def trust(self, names: tuple[str, ...]) -> None:
        """Run these plugins inline, like the built-ins (the operator vouches for them)."""
        for name in names:
            if name not in self.plugins:
                raise PluginLoadError(f"cannot trust '{name}': no such plugin is loaded")
            self.plugins[name].trusted = True
        self._forget_calls()

    def ruleset_listing(self) -> list[dict[str, Any]]:
        """The rulesets as ``welcome`` lists them (with their character ``sheet``)."""
        return [{**listing, "sheet": self.sheet_schema(name)}
                for name, (_, listing) in self.rulesets.items()]

    def sheet_schema(self, ruleset: str) -> dict[str, Any]:
        """The character sheet of ``ruleset`` (``{}`` when it has none): its owner's
        :func:`~sidecar.hookspecs.sidecar_sheet` fields, then those extensions add (marked
        ``extension``). Built on first use and kept; a plugin whose description is
        unusable is logged and left out, never a failure of the roll that asked."""
        sheet = self._sheets.get(ruleset)
        if sheet is not None:
            return sheet
        sheet = self._sheets[ruleset] = self._build_sheet(ruleset, strict=False)
        return sheet

    def check_sheets(self) -> None:
        """Build every ruleset's sheet now, refusing (``PluginLoadError``, naming the
        plugin and the field) a description that is unusable: run once the plugins are
        loaded, so a mistake fails at start-up rather than at the first roll."""
        for ruleset in self.rulesets:
            self._sheets[ruleset] = self._build_sheet(ruleset, strict=True)

    def _build_sheet(self, ruleset: str, *, strict: bool) -> dict[str, Any]:
        def problem(text: str | PluginLoadError) -> None:
            if strict:
                raise text if isinstance(text, PluginLoadError) else PluginLoadError(text)
            log.error("%s", text)

        owner = self.ruleset_owner(ruleset)
        sheet = {}
        impls = self.pm.hook.sidecar_sheet.get_hookimpls()
        # The owner first, so an extension never redefines one of its fields.
        impls = sorted(impls, key=lambda impl: impl.plugin_name != owner)
        for impl in impls:
            name = impl.plugin_name
            info = self.plugins.get(name)
            if info is None or (name != owner and not info.is_extension and info.rulesets):
                continue  # a ruleset's plugin describes its own rulesets' sheets only
            try:
                fields = impl.function(ruleset) if impl.argnames else impl.function()
            except BaseException as exc:  # a plugin can never stop the server
                problem(f"plugin '{name}': sidecar_sheet({ruleset!r}) raised "
                        f"{type(exc).__name__}: {exc}")
                continue
            if fields is None:
                continue
            if inspect.isawaitable(fields):
                fields.close()
                problem(f"plugin '{name}': sidecar_sheet() must not be async")
                continue
            problems = sheet_problems(fields)
            if problems:  # (when not strict, logged: the sheet is left out)
                problem(description_error(name, "sidecar_sheet", ruleset, problems))
                continue
            for field_name, spec in fields.items():
                if field_name in sheet:
                    problem(f"plugin '{name}': sheet field '{field_name}' of '{ruleset}' is "
                            "already defined by another plugin; left out")
                    continue
                sheet[field_name] = spec if name == owner else {**spec, "extension": name}
        return sheet

    def option_descriptions(self) -> dict[str, dict[str, Any]]:
        """Extension name → the description of its per-roll options
        (:func:`~sidecar.hookspecs.sidecar_options`), for those that give one. Built on
        first use and kept; an unusable description is logged and left out here (the
        extension's options then go unchecked) — :meth:`check_options` refuses it at
        start-up."""
        if self._options is None:
            self._options = self._build_options(strict=False)
        return self._options

    def check_options(self) -> None:
        """Collect every extension's option description now, refusing (``PluginLoadError``
        naming the plugin) one that is unusable: a mistake fails at start-up."""
        self._options = self._build_options(strict=True)

    def _build_options(self, *, strict: bool) -> dict[str, dict[str, Any]]:
        described: dict[str, dict[str, Any]] = {}
        for impl in self.pm.hook.sidecar_options.get_hookimpls():
            name = impl.plugin_name
            if name not in self.plugins:
                continue
            try:
                description = impl.function()
                problems = ([Problem(None, None, "must not be async",
                                     "ne doit pas être async")]
                            if inspect.isawaitable(description) else
                            options_problems(description) if description is not None
                            else [])
            except BaseException as exc:  # a plugin can never stop the server
                description, problems = None, [Problem(
                    None, None, f"raised {type(exc).__name__}: {exc}",
                    f"a levé {type(exc).__name__} : {exc}")]
            if inspect.isawaitable(description):
                description.close()
            if problems:
                error = description_error(name, "sidecar_options", None, problems)
                if strict:
                    raise error
                log.error("%s (its options go unchecked)", error)
                continue
            if description is not None:
                described[name] = description
        return described

    def option_listing(self) -> list[dict[str, Any]]:
        """The extensions' options as ``welcome.options`` lists them (disabled ones left
        out)."""
        return [option_listing(name, description)
                for name, description in self.option_descriptions().items()
                if not self.plugins[name].disabled]

    def validate_options(self, ruleset: str, options: dict[str, Any]) -> dict[str, Any]:
        """A request's ``options`` checked against the descriptions (``invalid_params``
        naming the extension and the key); see :func:`sidecar.host.options.validate_options`."""
        if not options:
            return {}
        return validate_options(options, ruleset, self.option_descriptions(),
                                self.plugins.keys())

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

    def implementations(self, hook: str) -> list[Impl]:
        """The implementations of ``hook`` in pluggy's call order (``tryfirst`` first,
        ``trylast`` last, otherwise the last registered first), disabled plugins left out."""
        impls = self._impls.get(hook)
        if impls is None:
            caller = getattr(self.pm.hook, hook)
            spec = tuple(caller.spec.argnames) if caller.spec is not None else ()
            impls = self._impls[hook] = []
            for impl in reversed(caller.get_hookimpls()):
                if impl.plugin_name in self.disabled or impl.plugin_name not in self.plugins:
                    continue
                names = tuple(impl.argnames)
                info = self.plugins[impl.plugin_name]
                is_async = inspect.iscoroutinefunction(impl.function)
                inline = info.trusted and not is_async
                rulesets, option = (getattr(impl.function, SCOPE_ATTRIBUTE, (None, None))
                                    if inline and hook in SCOPED_HOOKS else (None, None))
                impls.append(Impl(impl.plugin_name, hook, impl.function, names, is_async, info,
                                  None if names == spec else
                                  tuple(spec.index(name) for name in names),
                                  inline=inline, rulesets=rulesets, option=option))
        return impls

    def text_order(self, ruleset: str) -> list[Impl]:
        """The ``sidecar_render_text`` implementations for a roll of ``ruleset``: its
        owner's first, then those of plugins that own no ruleset (extensions), in pluggy's
        order. Another ruleset's plugin writes texts for its own rulesets only."""
        impls = self._text_orders.get(ruleset)
        if impls is None:
            owner = self.ruleset_owner(ruleset)
            impls = self._text_orders[ruleset] = sorted(
                (impl for impl in self.implementations("sidecar_render_text")
                 if impl.plugin == owner or not self.plugins[impl.plugin].rulesets),
                key=lambda impl: impl.plugin != owner)
        return impls

    def spend_limiters(self, ruleset: str) -> list[Impl]:
        """The ``sidecar_max_spend`` implementations for a roll of ``ruleset``: its
        owner's and those of plugins that own no ruleset (extensions), in pluggy's order;
        another ruleset's plugin declares for its own rulesets only."""
        owner = self.ruleset_owner(ruleset)
        return [impl for impl in self.implementations("sidecar_max_spend")
                if impl.plugin == owner or not self.plugins[impl.plugin].rulesets]

    def _forget_calls(self) -> None:
        """Drop the precomputed call lists (a plugin was added, removed, disabled, trusted)."""
        self._impls.clear()
        self._sheets.clear()
        self._options = None
        self._owned.clear()
        self._text_orders.clear()
        self._plans.clear()

    def inline_plan(self, ruleset: str) -> InlinePlan | None:
        """The calls of a roll of ``ruleset`` when every one is trusted and sync, else
        ``None`` (then each untrusted call goes through :meth:`invoke` and a guard)."""
        plan = self._plans.get(ruleset, False)
        if plan is not False:
            return plan
        resolve = self.owner_implementation("sidecar_resolve", ruleset)
        # (Extensions declared for other rulesets are left out of the plan at once.)
        plan = InlinePlan(
            [i for i in self.implementations("sidecar_modify_roll")
             if i.rulesets is None or ruleset in i.rulesets], resolve,
            [i for i in self.implementations("sidecar_modify_outcome")
             if i.rulesets is None or ruleset in i.rulesets],
            self.text_order(ruleset),
            [i for i in self.spend_limiters(ruleset)
             if i.rulesets is None or ruleset in i.rulesets]) if resolve is not None else None
        if plan is not None and not all(
                impl.inline for impl in (plan.resolve, *plan.modify_roll,
                                         *plan.modify_outcome, *plan.texts,
                                         *plan.max_spend)):
            plan = None
        self._plans[ruleset] = plan
        return plan

    def owner_implementation(self, hook: str, ruleset: str) -> Impl | None:
        """The implementation of ``hook`` by the plugin that owns ``ruleset`` (the only
        one an owner-only hook is called on), or ``None``."""
        key = (hook, ruleset)
        if key in self._owned:
            return self._owned[key]
        owner = self.ruleset_owner(ruleset)
        found = next((impl for impl in self.implementations(hook) if impl.plugin == owner),
                     None)
        self._owned[key] = found
        return found

    async def invoke(self, impl: Impl, args: list[Any]) -> Any:
        """Call one implementation under the host's guards and return its result.

        Async hooks run as a task of their own, awaited until the deadline only (see
        :meth:`_in_task`), and a call that holds the loop past it (a blocking call inside
        ``async def``) is a failure too; sync hooks of untrusted plugins run in a daemon
        worker thread, at most :attr:`max_threads_per_plugin` at once per plugin; trusted
        sync hooks run inline. Whatever the plugin raises comes out as an ``Exception`` — a
        ``BaseException`` (``SystemExit``, ``KeyboardInterrupt``, a ``CancelledError`` of
        its own) as :class:`PluginCrash` —, so a plugin can never stop the server. Only the
        cancellation of the calling task itself (the server shutting down) propagates as
        such.
        """
        try:
            if impl.is_async:
                return await self._in_task(impl, args)
            if impl.info.trusted:
                return impl.function(*args)
            return await self._in_thread(impl, args)
        except Exception:
            raise
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError) and _cancelling():
                raise  # the server's own task is being cancelled: not the plugin's doing
            raise PluginCrash(f"{type(exc).__name__}: {exc}") from None

    async def _in_task(self, impl: Impl, args: list[Any]) -> Any:
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
            self._disable(impl.plugin, why)
            raise PluginTimeout(f"{why}: disabled")
        if self._held_at > start:
            # Another plugin held the loop during this call (and is blamed for it): this
            # one is left out of the roll, but not counted as failing.
            self._excused[impl.plugin] += 1
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
            self._held_at = time.monotonic()
            if longest > self.timeout and not impl.info.trusted:
                # Past its whole deadline in one step, it froze every table that long:
                # not five chances, it is disabled at once.
                self._disable(impl.plugin, f"held the event loop for {longest:.2f} s")
            raise PluginTimeout(f"held the event loop for {longest:.2f} s in one step (at "
                                f"most {min(self.loop_hold_limit, self.timeout):g} s): it "
                                "blocks in an async hook")

    async def _in_thread(self, impl: Impl, args: list[Any]) -> Any:
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
            except Abandoned:
                raise
            except BaseException as exc:  # GeneratorExit & co. must not cross threads
                raise PluginCrash(f"{type(exc).__name__}: {exc}") from None

        def finished(_: Any) -> None:
            with self._lock:
                info.in_flight -= 1

        call = Call(run)
        try:
            future = self._workers().submit(call)
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
            # Abandoned: stop it, so it does not keep taking the interpreter's time.
            call.interrupt()
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

    def record_failure(self, plugin: str, why: str) -> None:
        """Count a failure; disable an untrusted plugin after too many in the window."""
        info = self.plugins.get(plugin)
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
        if (not info.trusted and plugin not in self.disabled
                and len(info.failures) >= self.max_failures):
            self._disable(plugin, f"{len(info.failures)} failures in "
                                  f"{self.failure_window:g}s (last: {why})")

    def _disable(self, plugin: str, why: str) -> None:
        info = self.plugins[plugin]
        if plugin in self.disabled:
            return
        self.disabled.add(plugin)
        info.disabled = True
        self._forget_calls()
        log.warning("plugin %s disabled for the rest of the run: %s", plugin, why)

    def versions(self) -> dict[str, str]:
        """The plugins that take part in rolls, name → version (disabled ones left out):
        what an epoch of verifiable dice records of the rules its rolls were resolved by."""
        return {name: info.version for name, info in sorted(self.plugins.items())
                if not info.disabled and name not in self.disabled}

    def status(self) -> list[dict[str, Any]]:
        """Every plugin with its hooks, rulesets, failures and whether it is disabled."""
        now = time.monotonic()
        return [{"name": info.name, "version": info.version, "source": info.source,
                 "description": info.description, "hooks": info.hooks,
                 "rulesets": info.rulesets, "disabled": info.disabled,
                 "options": self.option_descriptions().get(info.name),
                 "recent_failures": sum(1 for t in info.failures
                                        if now - t <= self.failure_window),
                 "last_error": info.last_error}
                for info in self.plugins.values()]


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
