"""Validation of a roll's ``params`` against its ruleset's parameter description.

A ruleset describes its parameters once (see ``sidecar_rulesets`` in
:mod:`sidecar.hookspecs`); :func:`validate_params` checks a request against it and fills in
the defaults, so ruleset code only ever sees well-typed values, and every bad value is an
``invalid_params`` error naming the parameter. The same description goes to clients, which
build their forms from it.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from sidecar.protocol.errors import MUST_BE_BOOL, ProtocolError, invalid_param

TYPES = ("int", "bool", "string", "list", "map")
#: What a ``map`` field's values may be.
MAP_VALUES = ("int", "string")


def normalise_label(text: str) -> str:
    """Fold a label for matching: no accents, lower case, single spaces ("Pas_évident" →
    "pas evident")."""
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).lower()
    return " ".join(re.split(r"[\s_\-']+", folded)).strip()


def resolve_label(value: str, labels: dict[str, int],
                  names: dict[str, Any] | None = None) -> int | None:
    """The number a label stands for, matched loosely (accents, case, ``_``), or ``None``;
    also by the names ``label_names`` gives it (« Average » for « Moyen »): what a form or
    an English run shows is taken back as typed."""
    named = resolve_choice(value, list(labels), names)
    return None if named is None else labels[named]


def resolve_choice(value: str, choices: list[Any], labels: Any = None) -> Any:
    """The choice ``value`` names, or ``None``: its id or its label in either language
    (``choice_labels``), matched loosely as :func:`resolve_label` does (« low stress »,
    « Stress_bas », « Viser », "aim"): what a form or an English run shows is taken back."""
    wanted = normalise_label(value)
    for choice in choices:
        said = labels.get(choice) if isinstance(labels, dict) else None
        spellings = [choice, *(said.values() if isinstance(said, dict) else ())]
        if any(isinstance(s, str) and normalise_label(s) == wanted for s in spellings):
            return choice
    return None


def known_choices(choices: list[Any], labels: Any = None) -> dict[str, str]:
    """The choices as an error lists them to each reader: each id (what is typed) with its
    label in that language beside it when it differs — « stress_bas (low stress) »,
    « stress_bas (stress bas) », « libre » (no gloss)."""
    def one(choice: Any, locale: str) -> str:
        said = labels.get(choice) if isinstance(labels, dict) else None
        text = said.get(locale) if isinstance(said, dict) else None
        return f"{choice} ({text})" if isinstance(text, str) and text and text != choice \
            else str(choice)
    return {locale: ", ".join(one(choice, locale) for choice in choices)
            for locale in ("fr", "en")}


def _check_int(name: str, value: Any, spec: dict[str, Any]) -> int:
    labels = spec.get("labels") or {}
    if isinstance(value, str) and labels:
        names = spec.get("label_names")
        number = resolve_label(value, labels, names if isinstance(names, dict) else None)
        if number is None:
            # Each language lists the names its reader types (« Moyen », "Average"): both
            # are taken back (:func:`resolve_label`).
            def said(label: str, locale: str) -> str:
                named = (names or {}).get(label) if isinstance(names, dict) else None
                text = named.get(locale) if isinstance(named, dict) else None
                return text if isinstance(text, str) and text else label
            known_en = ", ".join(said(label, "en") for label in labels)
            known_fr = ", ".join(said(label, "fr") for label in labels)
            raise invalid_param(name, f"unknown label '{value[:40]}' (known: {known_en})",
                                fr=f"libellé inconnu « {value[:40]} » (connus : {known_fr})")
        return number
    if isinstance(value, bool) or not isinstance(value, int):
        expected = "an integer or a label" if labels else "an integer"
        raise invalid_param(name, f"must be {expected}",
                            fr="doit être un entier ou un libellé" if labels
                            else "doit être un entier")
    low, high = spec.get("min"), spec.get("max")
    if low is not None and value < low:
        raise invalid_param(name, f"must be ≥ {low}, not {value}",
                            fr=f"doit être ≥ {low}, pas {value}")
    if high is not None and value > high:
        raise invalid_param(name, f"must be ≤ {high}, not {value}",
                            fr=f"doit être ≤ {high}, pas {value}")
    return value


def _check_string(name: str, value: Any, spec: dict[str, Any]) -> str:
    if not isinstance(value, str):
        raise invalid_param(name, "must be a string", fr="doit être une chaîne")
    max_length = spec.get("max_length", 200)
    if len(value) > max_length:
        raise invalid_param(name, f"at most {max_length} characters",
                            fr=f"au plus {max_length} caractères")
    value = _chosen(name, value, spec, in_list=False)
    pattern = spec.get("pattern")
    if pattern is not None and not re.fullmatch(pattern, value):
        example = spec.get("example", pattern)
        raise invalid_param(name, f"'{value[:40]}' is not of the form {example}",
                            fr=f"« {value[:40]} » n'est pas de la forme {example}")
    return value


def _check_int_list(name: str, value: Any, spec: dict[str, Any]) -> list[int] | dict[str, int]:
    """A ``list`` of ``items: "int"``: integers within ``item``'s bounds, as a list or as a
    map naming each one (only the values count)."""
    if isinstance(value, dict):
        return _check_map(name, value, {**spec, "values": "int"})
    if not isinstance(value, list):
        raise invalid_param(name, "must be a list of integers",
                            fr="doit être une liste d'entiers")
    max_items = spec.get("max_items", 20)
    if len(value) > max_items:
        raise invalid_param(name, f"at most {max_items} items", fr=f"au plus {max_items} éléments")
    return [_check_int(name, item, spec.get("item", {})) for item in value]


def _check_list(name: str, value: Any, spec: dict[str, Any]) -> list[Any] | dict[str, int]:
    if spec.get("items") == "int":
        return _check_int_list(name, value, spec)
    if not isinstance(value, list):
        raise invalid_param(name, "must be a list", fr="doit être une liste")
    max_items = spec.get("max_items", 20)
    if len(value) > max_items:
        raise invalid_param(name, f"at most {max_items} items", fr=f"au plus {max_items} éléments")
    items = []
    for item in value:
        if not isinstance(item, str):
            raise invalid_param(name, "items must be strings",
                                fr="les éléments doivent être des chaînes")
        items.append(_chosen(name, item, spec, in_list=True))
    return items


def _chosen(name: str, value: str, spec: dict[str, Any], *, in_list: bool) -> str:
    """``value`` as one of the spec's ``choices`` (taken back from its label in either
    language, :func:`resolve_choice`), or ``invalid_params`` listing them as its reader
    reads them."""
    choices = spec.get("choices")
    if choices is None or value in choices:
        return value
    chosen = resolve_choice(value, choices, spec.get("choice_labels"))
    if chosen is not None:
        return chosen
    known = known_choices(choices, spec.get("choice_labels"))
    if in_list:
        raise invalid_param(name, f"unknown item '{value[:40]}' (known: {known['en']})",
                            fr=f"élément inconnu « {value[:40]} » (connus : {known['fr']})")
    raise invalid_param(name, f"must be one of {known['en']}",
                        fr=f"doit être l'un de {known['fr']}")


def _check_map(name: str, value: Any, spec: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise invalid_param(name, "must be a map", fr="doit être un dictionnaire")
    max_items = spec.get("max_items", 50)
    if len(value) > max_items:
        raise invalid_param(name, f"at most {max_items} items", fr=f"au plus {max_items} éléments")
    kind = spec.get("values", "string")
    checked = {}
    for key, item in value.items():
        if not isinstance(key, str) or not key or len(key) > 64:
            raise invalid_param(name, "keys must be strings of 1 to 64 characters",
                                fr="les clés doivent être des chaînes de 1 à 64 caractères")
        if kind == "int":
            checked[key] = _check_int(f"{name}.{key}", item, spec.get("item", {}))
        else:
            checked[key] = _check_string(f"{name}.{key}", item, spec.get("item", {}))
    return checked


def validate_params(params: dict[str, Any], schema: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Check ``params`` against ``schema``; return a new map with defaults filled in.

    Unknown parameters are refused (a misspelled one would otherwise silently fall back to
    its default). Parameters with no default that are not required are left out.
    """
    for name in params:
        if name not in schema:
            # Each by its label, its key beside it (what is typed): « Volonté (volonte) ».
            named = {key: field_label(key, spec) for key, spec in schema.items()}
            known = {lang: ", ".join(n[lang] if n[lang] == key else f"{n[lang]} ({key})"
                                     for key, n in named.items()) for lang in ("fr", "en")}
            raise invalid_param(name, f"unknown parameter (known: {known['en'] or 'none'})",
                                fr=f"paramètre inconnu (connus : {known['fr'] or 'aucun'})")
    checked: dict[str, Any] = {}
    for name, spec in schema.items():
        try:
            _check_one(name, params.get(name), spec, checked)
        except ProtocolError as error:
            raise labelled(error, name, spec) from None
    return checked


def _check_one(name: str, value: Any, spec: dict[str, Any], checked: dict[str, Any]) -> None:
    """Check one param's ``value`` into ``checked`` (its default when missing)."""
    if value is None:
        if spec.get("required"):
            raise invalid_param(name, "is required", fr="est obligatoire")
        if "default" in spec:
            checked[name] = spec["default"]
        return
    kind = spec.get("type", "string")
    if kind == "int":
        checked[name] = _check_int(name, value, spec)
    elif kind == "bool":
        if not isinstance(value, bool):
            raise invalid_param(name, MUST_BE_BOOL["en"], fr=MUST_BE_BOOL["fr"])
        checked[name] = value
    elif kind == "list":
        checked[name] = _check_list(name, value, spec)
    elif kind == "map":
        checked[name] = _check_map(name, value, spec)
    else:
        checked[name] = _check_string(name, value, spec)


def field_label(name: str, spec: dict[str, Any] | None) -> dict[str, str]:
    """How people name a param or a sheet field: its description's ``label`` in each
    language (« Volonté du tour »), its key when it has none."""
    given = (spec or {}).get("label")
    if isinstance(given, dict):
        fr, en = given.get("fr"), given.get("en")
        fr = fr if isinstance(fr, str) and fr else (en if isinstance(en, str) and en else name)
        return {"fr": fr, "en": en if isinstance(en, str) and en else fr}
    if isinstance(given, str) and given:
        return {"fr": given, "en": given}
    return {"fr": name, "en": name}


def labelled(error: ProtocolError, name: str, spec: dict[str, Any] | None) -> ProtocolError:
    """``error`` (an :func:`invalid_param` of ``name``) naming the param by its label
    first: « paramètre « Acheter après les dés » ('buy_after') : … ». The key stays, in
    ``details.param`` and in the text, for those who type it (the command line)."""
    named = field_label(name, spec)
    if named["fr"] == name and named["en"] == name:
        return error
    error.message = error.message.replace(
        f"parameter '{name}'", f"parameter \"{named['en']}\" ('{name}')", 1)
    if error.message_fr:
        error.message_fr = error.message_fr.replace(
            f"paramètre '{name}'", f"paramètre « {named['fr']} » ('{name}')", 1)
    return error


def copy_params(params: dict[str, Any]) -> dict[str, Any]:
    """A copy of validated params that shares nothing mutable with them (their values are
    scalars and lists of scalars): what a roll's extensions change is not what was asked."""
    return {name: value.copy() if value.__class__ is list else value
            for name, value in params.items()}
