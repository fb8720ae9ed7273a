"""Extension options: the per-roll settings an extension describes, checked like params.

An extension describes its settings once (:func:`~sidecar.hookspecs.sidecar_options`): which
rulesets it applies to and its fields, written like a ruleset's ``params`` (plus ``cost``).
The host checks each description when the plugins are loaded
(:func:`~sidecar.host.descriptions.options_problems`),
``welcome`` lists them (``welcome.options``) so clients build forms, and every request's
``options`` is checked against them before any hook sees the roll
(:func:`validate_options`): an unknown extension, an unknown key, a value of the wrong type
or range, or an extension that does not apply to the roll's ruleset is ``invalid_params``
naming the extension and the key. An extension loaded without a description still receives
whatever the request puts under its name (the contract's promise to plugins written before
descriptions existed); a name that is no loaded plugin at all is refused.

:func:`parse_option` turns the command line's ``ext.key=value`` into typed values from the
same descriptions.
"""

from __future__ import annotations

import json
from collections.abc import Container
from typing import Any

from sidecar.host.params import field_label, normalise_label, validate_params
from sidecar.host.typed import coerce_value
from sidecar.protocol.errors import ProtocolError


def listing(name: str, described: dict[str, Any]) -> dict[str, Any]:
    """One extension's options as ``welcome.options`` lists them."""
    return {"name": name, "label": described.get("label", name),
            "description": described.get("description", ""),
            "rulesets": described.get("rulesets"), "params": described["params"]}


def _refuse(extension: str, key: str | None, en: str, fr: str,
            spec: dict[str, Any] | None = None) -> ProtocolError:
    # ``details.param`` names both, as the extensions' own checks always did; the text
    # names a described key by its label first (``spec``, its description).
    param = f"options.{extension}" + (f".{key}" if key else "")
    named = field_label(param, spec)
    if named["fr"] == param:
        return ProtocolError("invalid_params", f"option '{param}': {en}",
                             fr=f"option « {param} » : {fr}", details={"param": param})
    return ProtocolError("invalid_params", f"option \"{named['en']}\" ('{param}'): {en}",
                         fr=f"option « {named['fr']} » ('{param}') : {fr}",
                         details={"param": param})


def validate_options(options: dict[str, Any], ruleset: str,
                     described: dict[str, dict[str, Any]],
                     loaded: Container[str]) -> dict[str, Any]:
    """Check a request's ``options`` for a roll of ``ruleset``; return them, with named
    values (an int's ``labels``) turned into numbers and choices typed by a label (« Viser »,
    "aim") into their id. Keys left out stay left out: the
    extension applies its own defaults, as before descriptions existed.

    :param described: extension name → its description (sound: see
        :func:`~sidecar.host.descriptions.options_problems`).
    :param loaded: every loaded plugin's name: one without a description gets its
        settings untouched.
    """
    checked: dict[str, Any] = {}
    for name, value in options.items():
        description = described.get(name)
        if description is None:
            if name not in loaded:
                known = ", ".join(sorted(described)) or "none"
                raise _refuse(name[:40], None, f"unknown extension (with options: {known})",
                              f"extension inconnue (avec des options : {known})")
            checked[name] = value  # no description: free-form, as the contract promises
            continue
        rulesets = description.get("rulesets")
        if rulesets is not None and ruleset not in rulesets:
            applies = ", ".join(rulesets)
            raise _refuse(name, None, f"does not apply to '{ruleset}' rolls (only {applies})",
                          f"ne s'applique pas aux jets de « {ruleset} » (seulement "
                          f"{applies})")
        if not isinstance(value, dict):
            raise _refuse(name, None, "must be a map of its settings ({} for the defaults)",
                          "doit être une table de ses réglages ({} pour les valeurs par "
                          "défaut)")
        schema = description["params"]
        for key in value:
            if key not in schema:
                known = ", ".join(schema) or "none"
                raise _refuse(name, str(key)[:40], f"unknown key (known: {known})",
                              f"clé inconnue (connues : {known})")
        for key, spec in schema.items():
            if spec.get("required") and value.get(key) is None:
                raise _refuse(name, key, "is required", "est obligatoire", spec)
        try:
            # Only the keys given: nothing is filled in, and a long description costs
            # nothing for a short request.
            valid = validate_params(value, {key: schema[key] for key in value})
        except ProtocolError as exc:
            key = (exc.details or {}).get("param", "")
            key = key.split(".", 1)[0]  # (a map's entry is named "key.entry")
            reason = exc.message.split("): " if "'): " in exc.message else ": ", 1)[-1]
            fr_text = exc.message_fr or exc.message
            reason_fr = fr_text.split("') : " if "') : " in fr_text else " : ", 1)[-1]
            raise _refuse(name, key, reason, reason_fr, schema.get(key)) from None
        checked[name] = {key: valid[key] for key in value if key in valid}
    return checked


# -- the command line's ``ext.key=value`` ------------------------------------------------

YES = ("", "true", "1", "yes", "oui", "vrai", "on")
NO = ("false", "0", "no", "non", "faux", "off")


def parse_option(text: str, described: dict[str, dict[str, Any]],
                 options: dict[str, Any]) -> None:
    """Add one ``--option`` to ``options``: ``ext.key=value`` (typed from ``ext``'s
    description), ``ext={json}`` (the whole settings), ``ext`` or ``ext=yes`` (the
    extension on, with its defaults: ``{}``), ``ext=no`` (left out). Raises ``ValueError``
    saying what is wrong, « français / English » (a command cuts it to its language);
    values the description refuses are left for the server to name.
    """
    target, sep, raw = text.partition("=")
    name, dot, key = target.strip().partition(".")
    if not name:
        raise ValueError(f"--option {text!r} : attendu ext.clé=valeur, ext={{json}} ou ext=oui"
                         f" / --option {text!r}: expected ext.key=value, ext={{json}} or ext=yes")
    description = described.get(name)
    if dot:
        if not key:
            raise ValueError(f"--option {text!r} : une clé après « {name}. »"
                             f" / --option {text!r}: a key after '{name}.'")
        if not sep:
            raise ValueError(f"--option {text!r} : attendu {name}.{key}=valeur"
                             f" / --option {text!r}: expected {name}.{key}=value")
        spec = (description or {}).get("params", {}).get(key)
        if description is not None and spec is None:
            known = ", ".join(description["params"])
            raise ValueError(f"--option {name}.{key} : clé inconnue de {name} (connues : "
                             f"{known or 'aucune'}) / --option {name}.{key}: unknown key of "
                             f"{name} (known: {known or 'none'})")
        settings = options.setdefault(name, {})
        if not isinstance(settings, dict):
            raise ValueError(f"--option {text!r} : {name} a déjà été donnée en entier"
                             f" / --option {text!r}: {name} was already given as a whole")
        if spec is not None and spec.get("type") == "list":
            # Repeated (or comma-separated) items add up: --option combat.options=viser
            # --option combat.options=charger
            items = settings.setdefault(key, [])
            items.extend(coerce_value(raw, spec))
        else:
            settings[key] = coerce_value(raw, spec)
        return
    value = raw.strip()
    if value.startswith(("{", "[", '"')) or (description is None and value not in YES + NO):
        try:
            whole = json.loads(value)
        except json.JSONDecodeError:
            raise ValueError(f"--option {name} : pas du JSON ({value[:40]!r}) ; écrivez "
                             f"{name}.clé=valeur, {name}={{json}} ou {name}=oui"
                             f" / --option {name}: not JSON ({value[:40]!r}); write "
                             f"{name}.key=value, {name}={{json}} or {name}=yes") from None
        if isinstance(whole, dict) and isinstance(options.get(name), dict):
            # After ext.key=value options: the JSON adds its keys, in either order.
            options[name].update(whole)
        else:
            options[name] = whole
    elif value.lower() in YES:
        options.setdefault(name, {})
    elif value.lower() in NO:
        options.pop(name, None)
    else:
        keys = ", ".join(description["params"]) if description else "?"
        raise ValueError(f"--option {name}={value[:40]} : écrivez {name}.clé=valeur (clés : "
                         f"{keys}), {name}={{json}} ou {name}=oui"
                         f" / --option {name}={value[:40]}: write {name}.key=value (keys: "
                         f"{keys}), {name}={{json}} or {name}=yes")


def parse_options(texts: list[str], described: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Every ``--option`` of a command line, in order (see :func:`parse_option`)."""
    options: dict[str, Any] = {}
    for text in texts:
        parse_option(text, described, options)
    return options


def _both(value: Any, locale: str | None = None) -> str:
    """A label in ``locale``; without one, French first, then English when it differs:
    ``Zone visée / Aimed zone``."""
    if isinstance(value, dict):
        fr, en = str(value.get("fr") or ""), str(value.get("en") or "")
        if locale in ("fr", "en"):
            return (fr if locale == "fr" else en) or fr or en
        return f"{fr} / {en}" if fr and en and fr != en else fr or en
    return "" if value is None else str(value)


#: An option's type as ``sidecar plugins`` says it, French then English.
_KINDS: dict[str, tuple[str, str]] = {
    "string": ("texte", "string"), "int": ("entier", "int"), "bool": ("booléen", "bool"),
    "list": ("liste", "list"), "number": ("nombre", "number"),
}


def describe(name: str, description: dict[str, Any], locale: str | None = None) -> list[str]:
    """One line per key of an extension's options, for ``sidecar plugins``:
    ``combat.opponent_pep=<int 0–50>  Peps de l'adversaire`` (in ``locale``; without one,
    in both languages)."""
    def say(fr: str, en: str) -> str:
        return _both({"fr": fr, "en": en}, locale)

    colon = " : " if locale == "fr" else ": "
    rulesets = description.get("rulesets")
    where = (say("jeux de règles", "rulesets") + colon + ", ".join(rulesets) if rulesets
             else say("tous les jeux", "every ruleset"))
    semicolon = " ; " if locale == "fr" else "; "
    # Settings are per roll: an extension acts on the rolls that name it, its keys'
    # defaults then (« default true » read as « on by default », issue 29).
    asked = say(f"inactive sauf si un jet la demande{colon}--option {name}=oui ou ",
                f"off unless a roll asks for it{colon}--option {name}=yes or ")
    keyed = say(f"--option {name}.CLÉ=VALEUR", f"--option {name}.KEY=VALUE")
    lines = [f"options ({where}{semicolon}{asked}{keyed}){colon.rstrip()}"]
    for key, spec in description["params"].items():
        kind = spec.get("type", "string")
        # The type in the run's language (« <texte : melee, ranged> »), as the list's.
        shape = say(*_KINDS.get(kind, (kind, kind)))
        if spec.get("items") == "int":
            item = spec.get("item", {})
            bounds = f"{item.get('min', '')}–{item.get('max', '')}"
            shape = say(f"liste d'entiers {bounds}, séparés par des virgules",
                        f"list of int {bounds}, comma-separated")
        if "min" in spec or "max" in spec:
            shape += f" {spec.get('min', '')}–{spec.get('max', '')}"
        cost = spec.get("cost")
        named = _choice_names(spec, locale)
        if isinstance(spec.get("choices"), list):
            shape += colon + ", ".join(
                f"{named(c)} ({cost[c]})" if isinstance(cost, dict) and c in cost else named(c)
                for c in spec["choices"])
        elif isinstance(cost, int):
            shape += ", " + say("coût", "cost") + f" {cost}"
        if "default" in spec:
            shape += ", " + say("défaut", "default") + " " + _default(
                spec["default"] if locale == "fr" else named(spec["default"]), locale)
        label = _both(spec.get("label"), locale)
        lines.append(f"  {name}.{key}=<{shape}>" + (f"  {label}" if label else ""))
    return lines


def _choice_names(spec: dict[str, Any], locale: str | None) -> Any:
    """How ``sidecar plugins`` names a choice: in English by its English label (« Aim »,
    typed back as such: :func:`~sidecar.host.params.resolve_choice`), else by its id — the
    French one people type (``viser``) —, glossed in French by its French label when that
    says more (``melee (au contact)``)."""
    labels = spec.get("choice_labels")

    def named(choice: Any) -> Any:
        said = labels.get(choice) if isinstance(labels, dict) and locale in ("en", "fr") \
            else None
        text = said.get(locale) if isinstance(said, dict) else None
        if not isinstance(text, str) or not text:
            return choice
        if locale == "fr":
            # The id is what one types; its French label glosses it when it says more
            # (« melee (au contact) »; not « desarmer (Désarmer) »), issue 29.
            return choice if normalise_label(text) == normalise_label(str(choice)) \
                else f"{choice} ({text})"
        return text
    return named


def _default(value: Any, locale: str | None) -> str:
    """A default as ``sidecar plugins`` shows it: in French, « dice » and oui/non (both
    typed back: :data:`YES`, :data:`NO`); else as JSON."""
    if locale == "fr":
        if isinstance(value, bool):
            return "oui" if value else "non"
        if isinstance(value, str):
            return f"« {value} »"
    return json.dumps(value, ensure_ascii=False)
