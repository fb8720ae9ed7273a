"""The catalogue: what the loaded plugins describe, built once and kept.

Each ruleset's character sheet (its owner's :func:`~sidecar.hookspecs.sidecar_sheet`
fields, then those extensions add), the extensions' per-roll options
(:func:`~sidecar.hookspecs.sidecar_options`) and the listings ``welcome`` sends. These
descriptions are checked strictly once the plugins are loaded (:meth:`Catalogue.check_sheets`,
:meth:`Catalogue.check_options`: a mistake stops start-up with a
:class:`~sidecar.host.registry.PluginLoadError` naming the plugin and the key); after
that, an unusable one is logged and left out, never a failure of the roll that asked.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import logging
from typing import Any

from sidecar.host.descriptions import Problem, options_problems, sheet_problems
from sidecar.host.options import listing as option_listing
from sidecar.host.options import validate_options
from sidecar.host.registry import PluginLoadError, Registry, description_error
from sidecar.protocol.text import localized, one_language

log = logging.getLogger("sidecar.plugins")


class Catalogue:
    """The descriptions of the plugins of ``registry``: sheets, options, listings."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        #: ruleset → its character sheet (owner's fields, then extensions'), built once.
        self._sheets: dict[str, dict[str, Any]] = {}
        #: extension name → the description of its options, built once (see
        #: :meth:`option_descriptions`).
        self._options: dict[str, dict[str, Any]] | None = None
        #: What every welcome describes, and its digest (see :meth:`welcome_listing`).
        self._welcome: tuple[str, dict[str, list[dict[str, Any]]]] | None = None
        registry.listeners.append(self._forget)

    def _forget(self) -> None:
        self._sheets.clear()
        self._options = None
        self._welcome = None

    def welcome_listing(self, locale: str | None = None
                        ) -> tuple[str, dict[str, list[dict[str, Any]]]]:
        """``(digest, {"rulesets", "extensions", "options"})``: what every welcome in
        ``locale`` describes (the extensions' descriptions are in the reader's language),
        built once per locale (and again when a plugin is disabled), and a digest of it a
        client echoes in ``hello.catalogue`` to be spared it (PROTOCOL.md §2). The digest
        covers the listings' canonical JSON, so two processes with the same plugins give
        the same one; the listings are shared, never to be changed by a caller."""
        if self._welcome is None:
            self._welcome = {}
        found = self._welcome.get(locale)
        if found is None:
            listing = {"rulesets": self.ruleset_listing(),
                       "extensions": self.extension_listing(locale),
                       "options": self.option_listing()}
            canonical = json.dumps(listing, sort_keys=True, separators=(",", ":"),
                                   ensure_ascii=False, default=repr)
            digest = hashlib.sha256(canonical.encode()).hexdigest()[:24]
            found = self._welcome[locale] = (digest, listing)
        return found

    def ruleset_listing(self) -> list[dict[str, Any]]:
        """The rulesets as ``welcome`` lists them (with their character ``sheet``)."""
        return [{**listing, "sheet": self.sheet_schema(name)}
                for name, (_, listing) in self.registry.rulesets.items()]

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
        for ruleset in self.registry.rulesets:
            self._sheets[ruleset] = self._build_sheet(ruleset, strict=True)

    def _build_sheet(self, ruleset: str, *, strict: bool) -> dict[str, Any]:
        def problem(text: str | PluginLoadError) -> None:
            if strict:
                raise text if isinstance(text, PluginLoadError) else PluginLoadError(text)
            log.error("%s", text)

        owner = self.registry.ruleset_owner(ruleset)
        sheet = {}
        impls = self.registry.pm.hook.sidecar_sheet.get_hookimpls()
        # The owner first, so an extension never redefines one of its fields.
        impls = sorted(impls, key=lambda impl: impl.plugin_name != owner)
        for impl in impls:
            name = impl.plugin_name
            info = self.registry.plugins.get(name)
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
        for impl in self.registry.pm.hook.sidecar_options.get_hookimpls():
            name = impl.plugin_name
            if name not in self.registry.plugins:
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
                if not self.registry.plugins[name].disabled]

    def validate_options(self, ruleset: str, options: dict[str, Any]) -> dict[str, Any]:
        """A request's ``options`` checked against the descriptions (``invalid_params``
        naming the extension and the key); see :func:`sidecar.host.options.validate_options`."""
        if not options:
            return {}
        return validate_options(options, ruleset, self.option_descriptions(),
                                self.registry.plugins.keys())

    def extension_listing(self, locale: str | None = None) -> list[dict[str, Any]]:
        """The extensions as ``welcome`` lists them (disabled ones left out); ``locale``:
        each description in the reader's language — its options' ``description`` when it
        gives one, else its docstring's line « français / English » cut in two."""
        listing = [info.to_listing() for info in self.registry.plugins.values()
                   if info.is_extension and not info.disabled]
        if locale is None:
            return listing
        options = self.option_descriptions()
        for entry in listing:
            described = options.get(entry["name"], {}).get("description")
            entry["description"] = (localized(described, locale) if described
                                    else one_language(entry["description"], locale))
        return listing
