"""Strict checks of what plugins describe: a ruleset's ``params``, a character sheet, an
extension's options.

The host runs them when the plugins are loaded, so a mistake in a description — a
misspelled ``"defualt"``, ``"min": "1"``, a default out of range — stops the start-up
with an error naming the plugin, the hook, the description and the key, instead of
loading fine and failing on the first roll with an unnamed ``internal`` error.

Each check returns a list of :class:`Problem` (empty when the description is sound): the
parameter (or field, or option) and the key at fault, and why, in French and in English.
Every key a description may hold is listed here, per type (:data:`KEYS_BY_TYPE`); any
other key is refused, so a typo never passes silently.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any

from sidecar.host.params import MAP_VALUES, TYPES, validate_params
from sidecar.protocol.errors import ProtocolError

#: The keys every parameter (sheet field, option key) may hold, whatever its type.
COMMON_KEYS = ("type", "default", "required", "label", "description", "more", "situation")
#: The keys each type adds.
KEYS_BY_TYPE: dict[str, tuple[str, ...]] = {
    "int": ("min", "max", "labels", "label_names"),
    "bool": ("sets",),
    "string": ("choices", "choice_labels", "max_length", "pattern", "example"),
    "list": ("items", "item", "choices", "choice_labels", "max_items"),
    "map": ("values", "item", "max_items"),
}
#: The keys a sheet field adds: counters, and (set by the host on the sheet as served)
#: the extension that added the field.
SHEET_KEYS = ("resource", "refill", "extension")
#: The key an extension's option adds.
OPTION_KEYS = ("cost",)
#: The keys of ``item`` (a ``list`` of integers' items, a ``map``'s values), by value type.
ITEM_KEYS = {"int": ("min", "max", "labels"),
             "string": ("choices", "max_length", "pattern", "example")}
#: The keys of one ruleset's description (``sidecar_rulesets``).
RULESET_KEYS = ("name", "title", "version", "params", "dice_order", "description",
                "kind_labels", "margin_labels")
#: What a ruleset may name in its own words (extension, issue 29): its outcome kinds
#: (``kind_labels``) and its margins (``margin_labels``).
WORDED = {"kind_labels": ("botch", "failure", "narrow", "success", "critical"),
          "margin_labels": ("success", "failure")}
#: The keys of an extension's options description (``sidecar_options``).
OPTIONS_KEYS = ("label", "description", "rulesets", "params")
#: What ``refill`` may say.
REFILLS = ("turn", "rest")


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a description: where (``name``: the parameter, field or option;
    ``key``: the key of its description, ``item.min`` for a nested one; either may be
    ``None``) and why, in English and in French."""

    name: str | None
    key: str | None
    en: str
    fr: str

    def where_en(self, noun: str) -> str:
        parts = ([f"{noun} '{self.name}'"] if self.name is not None else []) + (
            [f"key '{self.key}'"] if self.key is not None else [])
        return ", ".join(parts)

    def where_fr(self, noun: str) -> str:
        parts = ([f"{noun} « {self.name} »"] if self.name is not None else []) + (
            [f"clé « {self.key} »"] if self.key is not None else [])
        return ", ".join(parts)

    def text(self, noun: str = "parameter") -> str:
        """In English, where first: ``parameter 'pool', key 'min': must be an integer``."""
        where = self.where_en(noun)
        return f"{where}: {self.en}" if where else self.en


def is_text(value: Any) -> bool:
    """Whether ``value`` is what people read: a string, or ``{"fr": ..., "en": ...}``
    (one of them at least, nothing else, strings)."""
    if isinstance(value, str):
        return True
    return (isinstance(value, dict) and bool(value) and set(value) <= {"fr", "en"}
            and all(isinstance(v, str) for v in value.values()))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Collector:
    """Gathers the problems of one description."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, name: str | None, key: str | None, en: str, fr: str) -> None:
        self.problems.append(Problem(name, key, en, fr))

    def text(self, name: str | None, key: str, value: Any, *, optional: bool = True) -> None:
        if (value is None and optional) or is_text(value):
            return
        self.add(name, key, 'must be a string or {"fr": "...", "en": "..."}',
                 'doit être une chaîne ou {"fr": "...", "en": "..."}')

    def unknown(self, name: str | None, keys: Any, allowed: tuple[str, ...], what_en: str,
                what_fr: str, prefix: str = "") -> None:
        for key in keys:
            if key not in allowed:
                known = ", ".join(allowed) or "none"
                # A typo ("defualt") gets its likely fix named.
                close = difflib.get_close_matches(str(key), allowed, n=1)
                hint_en = f", did you mean '{close[0]}'?" if close else ""
                hint_fr = f", vouliez-vous dire « {close[0]} » ?" if close else ""
                self.add(name, f"{prefix}{key}",
                         f"unknown key for {what_en}{hint_en} (known: {known})",
                         f"clé inconnue pour {what_fr}{hint_fr} (connues : {known})")

    def bounds(self, name: str, spec: dict[str, Any], prefix: str = "") -> None:
        for key in ("min", "max"):
            if key in spec and not _is_int(spec[key]):
                self.add(name, prefix + key, f"must be an integer, not {spec[key]!r}",
                         f"doit être un entier, pas {spec[key]!r}")
        low, high = spec.get("min"), spec.get("max")
        if _is_int(low) and _is_int(high) and low > high:
            self.add(name, prefix + "min", f"min {low} is greater than max {high}",
                     f"min {low} est plus grand que max {high}")
        labels = spec.get("labels")
        if "labels" not in spec:
            if "label_names" in spec:
                self.add(name, prefix + "label_names", "names labels the parameter lacks",
                         "nomme des libellés que le paramètre n'a pas")
            return
        if not isinstance(labels, dict) or not labels or not all(
                isinstance(k, str) and k and _is_int(v) for k, v in labels.items()):
            self.add(name, prefix + "labels", "must be a map from a name to an integer",
                     "doit être une table d'un nom vers un entier")
            return
        for label, number in labels.items():
            if (_is_int(low) and number < low) or (_is_int(high) and number > high):
                self.add(name, prefix + "labels",
                         f"'{label}' stands for {number}, outside min–max",
                         f"« {label} » vaut {number}, hors de min–max")
        # What people read for each label in their language (a request still sends the label
        # or its number): the ladder's « Facile » is "Easy" on an English page.
        self.names_of(name, spec, "label_names", labels, prefix,
                      ("a label to its name", "the labels"),
                      ("un libellé vers son nom", "des libellés"))

    def count(self, name: str, spec: dict[str, Any], key: str, prefix: str = "") -> None:
        if key in spec and not (_is_int(spec[key]) and spec[key] >= 1):
            self.add(name, prefix + key, "must be a positive integer",
                     "doit être un entier positif")

    def string_keys(self, name: str, spec: dict[str, Any], prefix: str = "") -> None:
        self.count(name, spec, "max_length", prefix)
        pattern = spec.get("pattern")
        if "pattern" in spec:
            try:
                re.compile(pattern)
            except (TypeError, re.error) as exc:
                self.add(name, prefix + "pattern", f"not a regular expression ({exc})",
                         f"n'est pas une expression régulière ({exc})")
                pattern = None
        example = spec.get("example")
        if "example" in spec:
            if not isinstance(example, str):
                self.add(name, prefix + "example", "must be a string", "doit être une chaîne")
            elif isinstance(pattern, str) and not re.fullmatch(pattern, example):
                self.add(name, prefix + "example", "does not match the pattern",
                         "ne correspond pas au motif (pattern)")
        self.choices(name, spec, prefix)

    def choices(self, name: str, spec: dict[str, Any], prefix: str = "") -> None:
        if "choices" in spec:
            choices = spec["choices"]
            if not isinstance(choices, list) or not choices or not all(
                    isinstance(c, str) and c for c in choices):
                self.add(name, prefix + "choices", "must be a non-empty list of strings",
                         "doit être une liste non vide de chaînes")
            elif len(set(choices)) != len(choices):
                self.add(name, prefix + "choices", "holds the same choice twice",
                         "contient deux fois le même choix")
        if "choice_labels" in spec:
            choices = spec.get("choices")
            self.names_of(name, spec, "choice_labels",
                          choices if isinstance(choices, list) else (), prefix,
                          ("a choice to its label", "the choices"),
                          ("un choix vers son libellé", "des choix"))

    def names_of(self, name: str, spec: dict[str, Any], key: str, known: Any, prefix: str,
                 en: tuple[str, str], fr: tuple[str, str]) -> None:
        """``label_names`` and ``choice_labels``: a map from each of ``known`` (the labels,
        the choices) to what people read for it, a string or ``{"fr", "en"}``."""
        names = spec.get(key, {})
        if not isinstance(names, dict):
            self.add(name, prefix + key, f"must be a map from {en[0]}",
                     f"doit être une table d'{fr[0]}")
            return
        for each, text in names.items():
            if each not in known:
                self.add(name, f"{prefix}{key}.{each}", f"is not one of {en[1]}",
                         f"n'est pas l'un {fr[1]}")
            elif not is_text(text):
                self.add(name, f"{prefix}{key}.{each}",
                         'must be a string or {"fr": "...", "en": "..."}',
                         'doit être une chaîne ou {"fr": "...", "en": "..."}')

    def item(self, name: str, spec: dict[str, Any], kind: str) -> None:
        """``item``: the description of each value of a ``list`` of integers or a map."""
        if "item" not in spec:
            return
        item = spec["item"]
        if not isinstance(item, dict):
            self.add(name, "item", "must be a map (the description of each value)",
                     "doit être une table (la description de chaque valeur)")
            return
        self.unknown(name, item, ITEM_KEYS[kind], f"an item of {kind}",
                     f"un élément {kind}", prefix="item.")
        if kind == "int":
            self.bounds(name, item, "item.")
        else:
            self.string_keys(name, item, "item.")


def _default_problem(name: str, spec: dict[str, Any], kind: str) -> tuple[str, str] | None:
    """Why ``spec["default"]`` is no valid value of the parameter, or ``None``."""
    default = spec["default"]
    if default is None:
        return ("must not be null (leave the default out instead)",
                "ne doit pas être null (omettez-la plutôt)")
    # A label is accepted in a request, but the default is what the hooks receive as is.
    expected = {"int": _is_int, "bool": lambda v: isinstance(v, bool),
                "string": lambda v: isinstance(v, str), "list": lambda v: isinstance(v, list),
                "map": lambda v: isinstance(v, dict)}[kind]
    if not expected(default):
        return (f"must be of type {kind}, not {type(default).__name__} ({default!r:.40})",
                f"doit être de type {kind}, pas {type(default).__name__} ({default!r:.40})")
    try:
        validate_params({name: default}, {name: spec})
    except ProtocolError as exc:
        return (exc.message.split(": ", 1)[-1],
                (exc.message_fr or exc.message).split(" : ", 1)[-1])
    except Exception as exc:  # a description unsound elsewhere (said apart)
        return (f"cannot be checked ({type(exc).__name__})",
                f"ne peut être vérifiée ({type(exc).__name__})")
    return None


def _spec_problems(found: _Collector, name: Any, spec: Any, extra: tuple[str, ...],
                   what_en: str, what_fr: str) -> str | None:
    """The problems of one parameter's description; its type when it has a sound one."""
    if not isinstance(name, str) or not name:
        found.add(str(name), None, "its name must be a non-empty string",
                  "son nom doit être une chaîne non vide")
        return None
    if not isinstance(spec, dict):
        found.add(name, None, f"its description must be a map, not {type(spec).__name__}",
                  f"sa description doit être une table, pas {type(spec).__name__}")
        return None
    kind = spec.get("type", "string")
    if kind not in TYPES:
        found.add(name, "type", f"unknown type {kind!r} (known: {', '.join(TYPES)})",
                  f"type inconnu {kind!r} (connus : {', '.join(TYPES)})")
        return None
    allowed = COMMON_KEYS + KEYS_BY_TYPE[kind] + extra
    found.unknown(name, spec, allowed, f"{what_en} of type {kind}",
                  f"{what_fr} de type {kind}")
    if "required" in spec and not isinstance(spec["required"], bool):
        found.add(name, "required", "must be true or false", "doit être true ou false")
    if spec.get("required") is True and "default" in spec:
        found.add(name, "default", "a required parameter's default would never be used",
                  "la valeur par défaut d'un paramètre obligatoire ne servirait jamais")
    for key in ("label", "description"):
        found.text(name, key, spec.get(key))
    if "more" in spec and not isinstance(spec["more"], bool):
        found.add(name, "more", "must be true or false", "doit être true ou false")
    if kind == "int":
        found.bounds(name, spec)
    elif kind == "string":
        found.string_keys(name, spec)
    elif kind == "list":
        items = spec.get("items", "string")
        if items not in ("string", "int"):
            found.add(name, "items", "a list's items are 'string' or 'int'",
                      "les éléments d'une liste sont 'string' ou 'int'")
        else:
            found.count(name, spec, "max_items")
            if items == "int":
                for key in ("choices", "choice_labels"):
                    if key in spec:
                        found.add(name, key, "a list of integers has no choices",
                                  "une liste d'entiers n'a pas de choix")
                found.item(name, spec, "int")
            else:
                if "item" in spec:
                    found.add(name, "item", "only a list of integers (items: 'int') has "
                              "'item'", "seule une liste d'entiers (items: 'int') a 'item'")
                found.choices(name, spec)
    elif kind == "map":
        values = spec.get("values", "string")
        if values not in MAP_VALUES:
            found.add(name, "values", "a map's values are 'int' or 'string'",
                      "les valeurs d'une table sont 'int' ou 'string'")
        else:
            found.count(name, spec, "max_items")
            found.item(name, spec, values)
    return kind


def params_problems(schema: Any, *, extra: tuple[str, ...] = (),
                    what: tuple[str, str] = ("a parameter", "un paramètre")) -> list[Problem]:
    """Problems in a ``params`` description (a ruleset's, or the base of a sheet's or of
    an extension's options): every key known for its type, of the right type, bounds in
    order, the default a valid value."""
    found = _Collector()
    if not isinstance(schema, dict):
        found.add(None, None, "must be a map from a parameter's name to its description",
                  "doit être une table du nom d'un paramètre vers sa description")
        return found.problems
    for name, spec in schema.items():
        count = len(found.problems)
        kind = _spec_problems(found, name, spec, extra, *what)
        if kind is not None and len(found.problems) == count and "default" in spec:
            # (Only a description otherwise sound can say whether its default is valid.)
            why = _default_problem(name, spec, kind)
            if why is not None:
                found.add(name, "default", *why)
    _situation_problems(found, schema)
    _sets_problems(found, schema)
    return found.problems


def _sets_problems(found: _Collector, schema: dict[str, Any]) -> None:
    """A situation's ``sets`` (``{param: value}``: what its rule fixes, a form picks it)
    names parameters of the same description."""
    for name, spec in schema.items():
        sets = spec.get("sets") if isinstance(spec, dict) else None
        if sets is None:
            continue
        if not isinstance(sets, dict) or any(key not in schema for key in sets):
            found.add(str(name), "sets", "must map parameters of the same description to "
                      "their value", "doit associer des paramètres de la même description "
                      "à leur valeur")


def _situation_problems(found: _Collector, schema: dict[str, Any]) -> None:
    """A ``situation`` names a ``bool`` parameter of the same description (the switch a
    form offers as a situation, bringing the parameters that name it)."""
    for name, spec in schema.items():
        if not isinstance(spec, dict) or "situation" not in spec:
            continue
        switch = schema.get(spec["situation"]) if isinstance(spec["situation"], str) else None
        if not isinstance(switch, dict) or switch.get("type") != "bool":
            found.add(str(name), "situation", "must name a bool parameter of the same "
                      "description", "doit nommer un paramètre bool de la même description")


def sheet_problems(sheet: Any) -> list[Problem]:
    """Problems in a character sheet (:func:`~sidecar.hookspecs.sidecar_sheet`): a
    ``params`` description whose counters (``resource``, ``refill``) are integers with a
    default, and no field required."""
    problems = params_problems(sheet, extra=SHEET_KEYS, what=("a sheet field",
                                                             "un champ de fiche"))
    if not isinstance(sheet, dict):
        return problems
    found = _Collector()
    for name, spec in sheet.items():
        if not isinstance(spec, dict) or not isinstance(name, str):
            continue
        kind = spec.get("type", "string")
        if "extension" in spec and not isinstance(spec["extension"], str):
            found.add(name, "extension", "must be a plugin's name", "doit être le nom d'un plugin")
        if "resource" in spec:
            if not isinstance(spec["resource"], bool):
                found.add(name, "resource", "must be true or false", "doit être true ou false")
            elif spec["resource"] and kind != "int":
                found.add(name, "resource", "only an int can be a resource",
                          "seul un int peut être une ressource")
        if "refill" in spec and (spec["refill"] not in REFILLS or kind != "int"
                                 or "default" not in spec):
            found.add(name, "refill", "refill is 'turn' or 'rest', on an int with a default",
                      "refill vaut 'turn' ou 'rest', sur un int avec une valeur par défaut")
        if spec.get("required"):
            found.add(name, "required", "sheet fields are never required (give a default)",
                      "les champs d'une fiche ne sont jamais obligatoires (donnez une "
                      "valeur par défaut)")
    return problems + found.problems


def options_problems(described: Any) -> list[Problem]:
    """Problems in what :func:`~sidecar.hookspecs.sidecar_options` returned: its own keys,
    then each option like a parameter, plus ``cost``."""
    found = _Collector()
    if not isinstance(described, dict):
        found.add(None, None, "sidecar_options() must return a map (or None)",
                  "sidecar_options() doit renvoyer une table (ou None)")
        return found.problems
    found.unknown(None, described, OPTIONS_KEYS, "options", "des options")
    for key in ("label", "description"):
        found.text(None, key, described.get(key))
    rulesets = described.get("rulesets")
    if rulesets is not None and (not isinstance(rulesets, list) or not rulesets or not all(
            isinstance(r, str) and r for r in rulesets)):
        found.add(None, "rulesets", "must be a non-empty list of ruleset names, or None "
                  "(every ruleset)", "doit être une liste non vide de noms de jeux, ou None "
                  "(tous les jeux)")
    params = described.get("params")
    if not isinstance(params, dict):
        found.add(None, "params", "must be a map from each option key to its description",
                  "doit être une table de chaque clé d'option vers sa description")
        return found.problems
    problems = found.problems + params_problems(params, extra=OPTION_KEYS,
                                                what=("an option", "une option"))
    found = _Collector()
    for key, spec in params.items():
        if not isinstance(key, str) or not isinstance(spec, dict):
            continue
        if "." in key or "=" in key:
            found.add(key, None, "an option key has no '.' nor '='",
                      "une clé d'option n'a ni '.' ni '='")
        kind, cost = spec.get("type", "string"), spec.get("cost")
        if "cost" not in spec:
            continue
        if kind == "bool":
            if not _is_int(cost):
                found.add(key, "cost", "the cost of a bool is an integer",
                          "le coût d'un bool est un entier")
        elif kind == "list" and isinstance(spec.get("choices"), list):
            if not isinstance(cost, dict) or any(
                    c not in spec["choices"] or not _is_int(v) for c, v in cost.items()):
                found.add(key, "cost", "the cost of a list is a map from its choices to "
                          "integers", "le coût d'une liste est une table de ses choix vers "
                          "des entiers")
        else:
            found.add(key, "cost", "only a bool or a list with choices has a cost",
                      "seuls un bool ou une liste à choix ont un coût")
    return problems + found.problems


def ruleset_problems(item: Any) -> list[Problem]:
    """Problems in one ruleset of :func:`~sidecar.hookspecs.sidecar_rulesets` — its own
    keys (``name`` then ``key``), then its ``params`` (see :func:`params_problems`)."""
    found = _Collector()
    if not isinstance(item, dict):
        found.add(None, None, "each ruleset description must be a map",
                  "chaque description de jeu doit être une table")
        return found.problems
    found.unknown(None, item, RULESET_KEYS, "a ruleset", "un jeu de règles")
    for key in ("title", "dice_order", "description"):
        found.text(None, key, item.get(key), optional=key not in item)
    for key, names in WORDED.items():
        words = item.get(key, {})
        if not isinstance(words, dict) or not set(words) <= set(names):
            found.add(None, key, f"must map some of {', '.join(names)} to a text",
                      f"doit associer à certains de {', '.join(names)} un texte")
            continue
        for name, text in words.items():
            found.text(None, f"{key}.{name}", text, optional=False)
    if "version" in item and not isinstance(item["version"], str):
        found.add(None, "version", "must be a string (\"1.0\")", "doit être une chaîne (\"1.0\")")
    return found.problems + params_problems(item.get("params", {}))
