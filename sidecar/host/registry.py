"""The registry of plugins: loading them, and knowing what is loaded.

Plugins come from the ``sidecar`` entry-point group (the built-ins under ``plugins/`` are
registered there by this distribution's own ``pyproject.toml``, exactly like a third-party
package) and from the ``*.py`` files of ``--plugins-dir``. The registry keeps one pluggy
``PluginManager``, what it knows of each plugin (:class:`PluginInfo`), which plugin owns
which ruleset, and each hook's implementations in pluggy's call order (:class:`Impl`).
It calls no hook but the descriptions a plugin gives when it is loaded
(``sidecar_rulesets``); everything else is called by
:class:`~sidecar.host.caller.PluginCaller`.

What it refuses at load: an unknown hook name, a hook wrapper (``wrapper=True``,
``hookwrapper=True``: the caller calls implementations one at a time, so a wrapper would
silently never run), a name taken twice, a ruleset described badly — each a
:class:`PluginLoadError` naming the plugin and the hook.

Set ``SIDECAR_TRACE=1`` to log plugin registrations.
"""

from __future__ import annotations

import collections
import importlib.util
import inspect
import logging
import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import pluggy

from sidecar import hookspecs
from sidecar.host.descriptions import Problem, ruleset_problems
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
    """One hook implementation: whose, which hook, which of the spec's arguments it names
    (:class:`~sidecar.host.caller.PluginCaller` calls it, and picks its arguments)."""

    plugin: str
    hook: str
    function: Callable[..., Any]
    argnames: tuple[str, ...]
    is_async: bool
    info: PluginInfo
    #: Where its arguments are among the spec's (``None``: all of them, in order).
    positions: tuple[int, ...] | None = None
    #: Trusted and sync: the caller calls it directly, on the real objects (the registry
    #: rebuilds its implementations whenever a plugin is trusted or disabled).
    inline: bool = False
    #: Declared with :func:`scope` (honoured for inline calls only): the rulesets it acts
    #: on (``None``: all) and the key the roll's ``options`` must hold (``None``: none).
    rulesets: frozenset[str] | None = None
    option: str | None = None


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



class Registry:
    """The plugins loaded, their rulesets, and each hook's implementations in call order.

    Whatever changes what is loaded (a plugin registered, trusted, disabled) calls each of
    :attr:`listeners`, so that what others built from it (call orders, sheets) is built
    again.
    """

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(PROJECT)
        self.pm.add_hookspecs(hookspecs)
        #: The hooks a plugin may implement.
        self.hook_names: tuple[str, ...] = HOOK_NAMES
        self.plugins: dict[str, PluginInfo] = {}
        self.disabled: set[str] = set()
        #: ruleset name → (plugin name, description as sent in ``welcome``)
        self.rulesets: dict[str, tuple[str, dict[str, Any]]] = {}
        #: Called whenever what is loaded changes (see the class's docstring).
        self.listeners: list[Callable[[], None]] = []
        self._versions: dict[str, str] | None = None
        self._impls: dict[str, list[Impl]] = {}
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
                f"plugin '{name}' implements unknown "
                f"{'hook' if len(unknown) == 1 else 'hooks'} {', '.join(unknown)}; "
                f"known hooks: {', '.join(self.hook_names)}",
                fr=f"plugin « {name} » : "
                   f"{'hook inconnu' if len(unknown) == 1 else 'hooks inconnus'} "
                   f"{', '.join(unknown)}",
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
        self._changed()
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
        self._changed()

    # -- what is loaded -----------------------------------------------------------------

    def trust(self, names: tuple[str, ...]) -> None:
        """Run these plugins inline, like the built-ins (the operator vouches for them)."""
        for name in names:
            if name not in self.plugins:
                raise PluginLoadError(f"cannot trust '{name}': no such plugin is loaded")
            self.plugins[name].trusted = True
        self._changed()

    def ruleset_schema(self, ruleset: str) -> dict[str, Any] | None:
        """The params description of ``ruleset``, or ``None`` when no plugin owns it."""
        entry = self.rulesets.get(ruleset)
        return entry[1]["params"] if entry else None

    def ruleset_owner(self, ruleset: str) -> str | None:
        """The plugin that owns ``ruleset``, or ``None``."""
        entry = self.rulesets.get(ruleset)
        return entry[0] if entry else None

    # -- implementations ----------------------------------------------------------------

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

    def disable(self, plugin: str, why: str) -> None:
        """Leave ``plugin`` out of every call for the rest of the run (logged once)."""
        info = self.plugins[plugin]
        if plugin in self.disabled:
            return
        self.disabled.add(plugin)
        info.disabled = True
        self._changed()
        log.warning("plugin %s disabled for the rest of the run: %s", plugin, why)

    def versions(self) -> dict[str, str]:
        """The plugins that take part in rolls, name → version (disabled ones left out):
        what an epoch of verifiable dice records of the rules its rolls were resolved by.
        Built once until a plugin is registered or disabled (every verifiable roll compares
        its epoch's with it); shared, never to be changed by a caller."""
        if self._versions is None:
            self._versions = {name: info.version for name, info in sorted(self.plugins.items())
                              if not info.disabled and name not in self.disabled}
        return self._versions

    def _changed(self) -> None:
        self._versions = None
        self._impls.clear()
        for listener in self.listeners:
            listener()
