"""How the terminal names things to its reader: one language when ``--locale`` is given
(the command line always gives one, French by default), a sheet's fields and an open
roll's choices by their labels rather than their keys (« Volonté du tour », « Acheter
1A (2 BB+) », not ``volonte_tour``, ``buy_1``).

A :class:`Labels` is made from the ``welcome`` (the rulesets' sheets) and learns the
choices of the open rolls it is shown, so that the decision printed after one names the
choice taken by its label."""

from __future__ import annotations

from typing import Any

from sidecar.cli.reserves import reserve_label, reserve_score
from sidecar.protocol.text import game_name, localized


def quoted(locale: str | None, text: Any) -> str:
    """``text`` quoted as its reader quotes: « text » in French (and in both languages),
    “text” in English."""
    return f"“{text}”" if locale == "en" else f"« {text} »"


def say(locale: str | None, fr: str, en: str) -> str:
    """``fr`` or ``en`` for a reader of ``locale``; both (``fr / en``) without one."""
    if locale == "en":
        return en
    if locale == "fr":
        return fr
    return fr if fr == en else f"{fr} / {en}"


def colon(locale: str | None) -> str:
    """A colon after a label: French sets it apart with a space."""
    return " : " if locale == "fr" else ": "


def label_text(label: Any, locale: str | None) -> str:
    """A ``{fr, en}`` label (or a plain string) in ``locale``; without one, as ``fr / en``
    (one of them when they read the same)."""
    if locale is not None:
        return localized(label or "", locale)
    if isinstance(label, dict):
        texts = [str(label[key]) for key in ("fr", "en") if label.get(key)]
        return " / ".join(dict.fromkeys(texts))
    return str(label or "")


class Labels:
    """The names a reader of ``locale`` knows things by: each ruleset's sheet fields
    (from ``welcome``) and the choices of the open rolls seen so far."""

    def __init__(self, welcome: dict[str, Any] | None = None, locale: str | None = None) -> None:
        self.locale = locale
        self.fields: dict[str, dict[str, Any]] = {}
        #: Each ruleset's title and params' descriptions, as the page's form reads them.
        self.titles: dict[str, Any] = {}
        self.params: dict[str, dict[str, Any]] = {}
        #: Each ruleset's sheet, as described (what tells a reserve from a score).
        self.sheets: dict[str, dict[str, Any]] = {}
        #: Each ruleset's own words (extension, issue 29): ``kind_labels`` (its outcome
        #: kinds, « Bourde ») and ``margin_labels`` (its margins, « MR » / « ME »).
        self.words: dict[str, dict[str, dict[str, Any]]] = {}
        for ruleset in (welcome or {}).get("rulesets") or ():
            if not isinstance(ruleset, dict):
                continue
            name = str(ruleset.get("name"))
            self.titles[name] = ruleset.get("title")
            if isinstance(ruleset.get("params"), dict):
                self.params[name] = {key: spec for key, spec in ruleset["params"].items()
                                     if isinstance(spec, dict)}
            for key in ("kind_labels", "margin_labels"):
                if isinstance(ruleset.get(key), dict):
                    self.words.setdefault(key, {})[name] = ruleset[key]
            if isinstance(ruleset.get("sheet"), dict):
                self.sheets[name] = ruleset["sheet"]
                self.fields[name] = {
                    field: spec.get("label") for field, spec in ruleset["sheet"].items()
                    if isinstance(spec, dict) and spec.get("label")}
        #: An open roll's seq → its choices' labels by name.
        self.choices: dict[Any, dict[str, Any]] = {}
        #: The characters' values as last seen (the welcome's, then each event's): the
        #: scores a reserve is shown out of.
        self.values: dict[str, dict[str, Any]] = {}
        for entry in (welcome or {}).get("characters") or ():
            if isinstance(entry, dict) and isinstance(entry.get("values"), dict):
                self.values[str(entry.get("character"))] = dict(entry["values"])

    def reserve(self, ruleset: Any, field: str,
                values: dict[str, Any]) -> tuple[str, int] | None:
        """``field`` when it is a reserve counted down from a score ``values`` know
        (:mod:`sidecar.cli.reserves`): its label without its hint, and the score."""
        score = reserve_score(self.sheets.get(str(ruleset), {}), field, values)
        if score is None:
            return None
        return reserve_label(self.field(ruleset, field)), values[score]

    def seen(self, character: Any, values: dict[str, Any]) -> dict[str, Any]:
        """``character``'s values as known, ``values`` (newer) over them; remembered."""
        known = {**self.values.get(str(character), {}), **values}
        if character:
            self.values[str(character)] = known
        return known

    def field(self, ruleset: Any, name: str) -> str:
        """A sheet field of ``ruleset`` by its label (its key when it has none)."""
        label = self.fields.get(str(ruleset), {}).get(name)
        return label_text(label, self.locale) if label else name

    def game(self, ruleset: Any) -> str:
        """A ruleset as people name it (« O'Ween's »: its title up to its dash), its key
        when the welcome did not describe it."""
        return game_name(self.titles.get(str(ruleset)), str(ruleset), self.locale or "fr")

    def own_word(self, ruleset: Any, key: str, name: str) -> str | None:
        """``ruleset``'s own word for ``name`` under ``key`` (``kind_labels``: an outcome
        kind; ``margin_labels``: ``success`` or ``failure``), ``None`` when it has none."""
        word = self.words.get(key, {}).get(str(ruleset), {}).get(name)
        return label_text(word, self.locale) if word else None

    def param(self, ruleset: Any, name: str) -> str:
        """A param of ``ruleset`` by its label (its key when it has none)."""
        label = self.params.get(str(ruleset), {}).get(name, {}).get("label")
        return label_text(label, self.locale) if label else name

    def param_value(self, ruleset: Any, name: str, value: Any) -> str:
        """A param's value as the form offers it: a choice by its label; yes or no."""
        spec = self.params.get(str(ruleset), {}).get(name, {})
        labels = spec.get("choice_labels") or {}
        if isinstance(labels, dict) and isinstance(value, str) and labels.get(value):
            return label_text(labels[value], self.locale)
        # A named level of an int param (« Moyen », sent as typed): its reader's name.
        names = spec.get("label_names") or {}
        if isinstance(names, dict) and isinstance(value, str) and names.get(value):
            return label_text(names[value], self.locale)
        if isinstance(value, bool):
            return say(self.locale, "oui", "yes") if value else say(self.locale, "non", "no")
        if isinstance(value, list):
            return ", ".join(self.param_value(ruleset, name, item) for item in value) or "—"
        return str(value)

    def learn(self, message: dict[str, Any]) -> None:
        """Remember an open roll's choices, for the decision that answers it."""
        if message.get("choices") and "seq" in message:
            self.choices[message["seq"]] = {
                choice.get("name"): choice.get("label") for choice in message["choices"]
                if isinstance(choice, dict)}

    def choice(self, reacts_to: Any, name: str) -> str:
        """The choice ``name`` taken on the open roll ``reacts_to``, by its label when the
        roll was seen (its name otherwise)."""
        label = self.choices.get(reacts_to, {}).get(name)
        return label_text(label, self.locale) if label else name


#: What a journaled event did, as the page's log says it (strings.js ``log.seat.*``,
#: ``log.sheet.*``), rather than the protocol's ``op``.
_WHAT = {
    ("seat", "add"): ("place ajoutée", "seat added"),
    ("seat", "remove"): ("place retirée", "seat removed"),
    ("seat", "rotate"): ("nouveau lien de place", "new seat link"),
    ("sheet", "new"): ("nouveau personnage", "new character"),
    ("sheet", "set"): ("fiche", "sheet"),
    ("sheet", "adjust"): ("ajustement", "adjustment"),
    ("sheet", "refill"): ("recharge", "refill"),
    ("sheet", "remove"): ("personnage supprimé", "character removed"),
    ("sheet", "effect"): ("effet du jet", "effect of roll"),
}
#: A refill's ``what``.
_REFILL = {"turn": ("du tour", "of the turn"), "rest": ("du repos", "of the rest")}


def event_what(kind: str, event: dict[str, Any], locale: str | None) -> str:
    """What a ``seat`` or ``sheet`` event did in words (« nouveau personnage », « place
    ajoutée »); its ``op`` for one this table does not know."""
    op = str(event.get("op", "?"))
    if kind == "sheet":
        changed = event.get("changed") or {}
        if event.get("removed"):
            op = "remove"
        elif op == "set" and changed and all(
                isinstance(pair, list | tuple) and pair and pair[0] is None
                for pair in changed.values()):
            op = "new"
    words = _WHAT.get((kind, op))
    if words and op == "refill" and event.get("what") in _REFILL:
        fr, en = _REFILL[event["what"]]
        words = (f"{words[0]} {fr}", f"{words[1]} {en}")
    text = say(locale, *words) if words else op
    if op == "refill" and event.get("what") and event["what"] not in _REFILL:
        text += f" {event['what']}"
    return text


#: A role, a mode and a distribution's ``of`` as the page words them (a distribution's:
#: entries.js ``NUMBER_WORDS``).
_WORDS = {
    "gm": ("MJ", "GM"), "player": ("joueur", "player"), "observer": ("observateur", "observer"),
    "blind": ("aveugle", "blind"), "self": ("privé", "self"), "public": ("public", "public"),
    "successes": ("réussites", "successes"), "total": ("total", "total"),
    "net": ("réussites nettes", "net successes"), "score": ("score", "score"),
    "value": ("valeur", "value"),
}


def word(locale: str | None, key: Any) -> str:
    """A role, mode or distribution's ``of`` in ``locale`` (the key itself when unknown)."""
    words = _WORDS.get(str(key))
    return say(locale, *words) if words else str(key)


def count(locale: str | None, number: Any, fr: str, en: str,
          fr_many: str | None = None, en_many: str | None = None) -> str:
    """``number`` and its noun, agreed: French singular for 0 and 1 (« 0 événement »),
    English for 1 only."""
    try:
        amount = int(number)
    except (TypeError, ValueError):
        return f"{number} " + say(locale, fr_many or fr + "s", en_many or en + "s")
    return f"{number} " + say(locale, fr if amount <= 1 else fr_many or fr + "s",
                              en if amount == 1 else en_many or en + "s")
