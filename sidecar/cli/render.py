"""How the terminal shows what the server says: outcomes (their dice, choices and
decisions), journaled events of every kind, seats, sheets and asks, errors in one line,
odds with text bars, a link as a QR code. Everything remote goes through
:mod:`sidecar.cli.terminal` first (shown, never obeyed).

Every formatter takes the reader's ``locale`` (``--locale``: French by default): its own
words are then in that language alone; without one (a program calling them), both, as
``fr / en``. ``labels`` (:class:`~sidecar.cli.labels.Labels`) names a sheet's fields and an
open roll's choices by their labels.

``print_qr`` imports ``segno`` when called: only ``seat add``/``rotate`` and a LAN
``serve`` draw a QR code, the other commands (and ``sidecar --help``) need not load it."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

from sidecar.cli.labels import Labels, count, event_what, label_text, quoted, say, word
from sidecar.cli.labels import colon as _c
from sidecar.cli.reserves import reserve_text
from sidecar.cli.terminal import for_terminal, shown
from sidecar.cli.typed import typed_line
from sidecar.protocol.text import elide

KIND_MARKS = {"botch": "✗✗", "failure": "✗", "narrow": "≈", "success": "✓", "critical": "✓✓"}


def format_die(die: dict[str, Any]) -> str:
    face = str(die["face"])
    if die.get("cancelled"):
        face = f"~{face}~"
    if die.get("raised_to"):
        face = f"{face}→{die['raised_to']}"
    return face


def format_value(value: Any, locale: str | None = None) -> str:
    """A sheet value, short: lists joined by commas, maps as ``{name: value, …}``."""
    if value is None:  # before a character's creation
        return "—"
    if isinstance(value, bool):
        return say(locale, "oui", "yes") if value else say(locale, "non", "no")
    if isinstance(value, list):
        return ",".join(str(item) for item in value) or "—"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {v}" for k, v in value.items()) + "}"
    return str(value)


def format_values(values: dict[str, Any], ruleset: Any = None,
                  labels: Labels | None = None) -> str:
    """A sheet's values, each field by its label when ``labels`` knows it (« Éclate (ECL)
    3 · Réserve ECL 2 / 3 », a reserve as what is left of its score, as the page shows
    it), else ``key=value`` as typed on the command line."""
    if labels is None:
        return " ".join(f"{field}={format_value(value)}" for field, value in values.items())

    def shown(field: str, value: Any) -> str:
        reserve = labels.reserve(ruleset, field, values)
        if reserve is not None:
            return f"{reserve[0]} {reserve_text(reserve[1], value)}"
        return f"{labels.field(ruleset, field)} {format_value(value, labels.locale)}"

    return " · ".join(shown(field, value) for field, value in values.items())


def format_spent(spent: dict[str, int], sheet: dict[str, Any], ruleset: Any = None,
                 labels: Labels | None = None) -> str:
    """``{"bonbonus": 1}`` and the values after → ``BB+ −1 → 2`` (a negative spend
    gives); each field by its label when ``labels`` knows it, less the gloss the sheet
    shows beside it (« Réserve ENC (0 = pleine) »: the sheet's, not a change's), a
    reserve's value as what is left of its score (« Réserve ENC −1 → 2 / 3 »), and one
    minus sign, U+2212, for the change and the value after alike (issue 29)."""
    parts = []
    for field, amount in spent.items():
        change = f"−{amount}" if amount >= 0 else f"+{-amount}"
        reserve = labels.reserve(ruleset, field, sheet) if labels is not None else None
        if reserve is not None and field in sheet:  # (what is left: « −1 → 2 / 3 »)
            parts.append(f"{reserve[0]} {change} → {reserve_text(reserve[1], sheet[field])}")
            continue
        after = f" → {_signed(format_value(sheet[field]))}" if field in sheet else ""
        named = labels.field(ruleset, field) if labels is not None else field
        parts.append(f"{_GLOSS.sub('', named)} {change}{after}")
    return ", ".join(parts)


#: A label's trailing gloss of its scale, « (0 = pleine) »: not « (ECL) », a short name.
_GLOSS = re.compile(r"\s*\([^()]*=[^()]*\)$")


def _signed(value: str) -> str:
    """``-1`` written with the minus sign of the change beside it (``−1``)."""
    return "−" + value[1:] if value[:1] == "-" and value[1:].isdigit() else value


def format_label(label: Any, locale: str | None = None) -> str:
    """A ``{fr, en}`` label in ``locale`` (the reader's ``--locale``); without one, as
    ``fr / en`` (one of them when they read the same)."""
    return label_text(label, locale)


def format_choices(message: dict[str, Any], locale: str | None = None,
                   again: Callable[..., str] | None = None) -> list[str]:
    """An open roll's choices, numbered as ``sidecar roll`` asks for them, its default and
    how to decide (a blind roll's roller is not told that it is open): ``again`` writes
    that command as the reader runs it (:func:`sidecar.cli.connect.again_command`);
    without it, no such line — given only to a reader who may decide (an onlooker's
    ``watch`` is not told to decide someone else's roll)."""
    choices = message.get("choices")
    if not choices:
        return []
    lines = ["   " + say(locale, "choix", "choices") + _c(locale).rstrip()]
    for number, choice in enumerate(choices, 1):
        named = format_label(choice.get("label"), locale)
        named = _dice_drawn(choice.get("dice"), named, locale)
        default = (" [" + say(locale, "défaut", "default") + "]"
                   if choice["name"] == message.get("default") else "")
        # The label alone (its number is what ``react`` and the prompt take); a choice
        # without a label by its name.
        lines.append(f"     {number}) {named or choice['name']}{default}")
    if message.get("default") is None:
        lines.append("     (" + say(locale, "sans décision le jet reste tel quel",
                                    "without a decision the roll stands as it is") + ")")
    if again is not None:  # (only for a reader who may decide: the roller, a GM)
        lines.append("   " + say(locale, "décider", "decide") + _c(locale)
                     + again("react", str(message.get("roll")), say(locale, "CHOIX", "CHOICE")))
    return lines


def _dice_drawn(dice: Any, label: str, locale: str | None) -> str:
    """A choice's label with the dice it draws, as the page says them (« (2 dés) »), once:
    as it is when it says them already (« Style point, free style (2 dice) »), inside its
    own parentheses when it ends with some (« Relancer (1 point de chance ; 2 dés) »)."""
    if not label or not isinstance(dice, int) or isinstance(dice, bool) or dice <= 0:
        return label
    if re.search(rf"\b{dice} (dés|dé|dice|die)\b", label):
        return label
    drawn = count(locale, dice, "dé", "die", en_many="dice")
    if label.endswith(")"):  # never « (…) (2 dés) »
        return label[:-1] + (" ; " if locale != "en" else "; ") + drawn + ")"
    return f"{label} ({drawn})"


def format_decision(message: dict[str, Any], locale: str | None = None,
                    labels: Labels | None = None) -> str:
    """What a decision answers: the open outcome's seq, the choice (by its label when the
    open roll was seen), who took it."""
    who = message.get("reacted_by")
    by = (say(locale, "par", "by") + f" {who.get('name')} ({word(locale, who.get('role'))})"
          if isinstance(who, dict)
          else say(locale, "temps écoulé", "time ran out") if "reacted_by" in message else "")
    choice = message.get("choice")
    if choice and labels is not None:
        choice = labels.choice(message.get("reacts_to"), choice)
    taken = (say(locale, "choix", "choice") + _c(locale) + f"{choice}" if choice
             else say(locale, "aucun choix", "no choice") if "choice" in message else "")
    reacts = say(locale, "réagit à", "reacts to") + f" #{message['reacts_to']}"
    return "   " + " — ".join(part for part in (reacts, taken, by) if part)


def in_sentence(label: str) -> str:
    """A field's label as a sentence names it: without the form's hint in parentheses
    (« Réserve ECL (0 = pleine) » → « Réserve ECL », as in « Réserve ECL d'Ogre : -1 »)."""
    short = re.sub(r"\s*\([^()]*\)$", "", label)
    return short or label


def format_effects(message: dict[str, Any], locale: str | None = None,
                   labels: Labels | None = None) -> list[str]:
    """What a roll aimed at characters did to them (contract §8): « Blessures de Brady :
    2 → 5 » when this reader sees the target's new values (its owner, a GM), « +3 »
    otherwise; ``labels`` names the fields (the roll's ruleset's sheet)."""
    lines = []
    if message.get("targets"):
        lines.append("   " + say(locale, "cibles", "targets") + _c(locale)
                     + ", ".join(str(t) for t in message["targets"]))
    seen = message.get("target_sheets") or {}
    ruleset = message.get("ruleset")
    for name, deltas in (message.get("effects") or {}).items():
        values = (labels.seen(name, seen.get(name) or {}) if labels is not None
                  else seen.get(name) or {})
        for field, delta in (deltas or {}).items():
            label = in_sentence(labels.field(ruleset, field) if labels is not None else field)
            after = (seen.get(name) or {}).get(field)
            reserve = (labels.reserve(ruleset, field, values)
                       if labels is not None and isinstance(after, int)
                       and isinstance(delta, int) else None)
            change = (reserve_text(reserve[1], after, after - delta) if reserve is not None
                      else f"{after - delta} → {after}" if isinstance(after, int)
                      and isinstance(delta, int) else f"{delta:+}" if isinstance(delta, int)
                      else str(delta))
            lines.append(f"   {name}'s {label}: {change}" if locale == "en"
                         else f"   {label} {elide('de', name)} : {change}")
    return lines


@for_terminal
def format_outcome(message: dict[str, Any], locale: str | None = None, *,
                   whole_sheet: bool = False, labels: Labels | None = None,
                   again: Callable[..., str] | None = None) -> str:
    """A readable block for one outcome (an open roll's choices, a decision's answer);
    ``locale``: the reader's, for the labels the message carries in both languages and
    the terminal's own words. ``whole_sheet``: the character's sheet after the roll too;
    by default only what the roll changed (its spend and the values it left, not the
    whole sheet again under every roll: a roll's changes to its own sheet are its spend).
    ``labels``: the sheet's fields and the choices by their labels (it learns this roll's
    choices);
    ``again``: how the reader runs ``react`` (:func:`format_choices`)."""
    if labels is not None:
        labels.learn(message)
    result = message.get("result", {})
    if result.get("hidden"):
        # Neither open nor decided, for its roller: that would tell how the dice went.
        lines = [f"#{message['seq']} {message['text']}"]
        lines += format_answer(message, locale, labels)
        return "\n".join(lines)
    # A mark says how the roll went against a target: a total without one (``dice``
    # with ``target`` empty) is no success, whatever kind the ruleset files it under.
    judged = result.get("judged") is not False and not (
        "target" in result and result["target"] is None)
    mark = KIND_MARKS.get(result.get("kind", ""), "") if judged else ""
    lines = [f"#{message['seq']} " + (f"{mark} " if mark else "") + str(message.get("text", ""))]
    if message.get("dice"):
        lines.append("   " + say(locale, "dés", "dice") + _c(locale)
                     + " ".join(format_die(d) for d in message["dice"]))
    typed = typed_line(message.get("manual"), len(message.get("dice") or []), locale)
    if typed:  # (which faces a person typed, as the page marks them: PROTOCOL.md §3)
        lines.append("   " + typed)
    for note in message.get("notes", []):
        lines.append("   note" + _c(locale) + str(note))
    if message.get("mode", "public") != "public":
        lines.append("   mode" + _c(locale) + word(locale, message["mode"]))
    if message.get("character"):
        spent = message.get("spent") or {}
        sheet = message.get("sheet") or {}
        if labels is not None:  # (the scores its reserves are shown out of)
            sheet = labels.seen(message["character"], sheet)
        ruleset = message.get("ruleset")
        lines.append("   " + say(locale, "personnage", "character")
                     + _c(locale) + f"{message['character']} — "
                     + say(locale, "dépensé", "spent") + _c(locale)
                     + (format_spent(spent, sheet, ruleset, labels) if spent
                        else say(locale, "rien", "nothing")))
        if sheet and whole_sheet:
            lines.append("   " + say(locale, "fiche", "sheet") + _c(locale)
                         + format_values(sheet, ruleset, labels))
    lines += format_effects(message, locale, labels)
    if "reacts_to" in message:
        lines.append(format_decision(message, locale, labels))
    if message.get("open"):
        lines += format_choices(message, locale, again)
    lines += format_answer(message, locale, labels)
    return "\n".join(lines)


def format_answer(message: dict[str, Any], locale: str | None = None,
                  labels: Labels | None = None) -> list[str]:
    """What an answer to an ask adds: the ask it answers, an opposition's result."""
    lines, words = [], margin_words(message.get("ruleset"), labels)
    if message.get("answers"):
        lines.append("   " + say(locale, "répond à la demande", "answers ask")
                     + f" {message['answers']}")
    if isinstance(message.get("opposition"), dict):
        lines.append(format_opposition(message["opposition"], locale, words))
    if isinstance(message.get("cooperation"), dict):
        lines.append(format_cooperation(message["cooperation"], locale, words))
    return lines


def _game(ruleset: Any, labels: Labels | None) -> str:
    """A game as the page names it, by its title (« O'Ween's »), not its key (``oweens``)."""
    return labels.game(ruleset) if labels is not None else str(ruleset)


@for_terminal
def format_sheet_event(event: dict[str, Any], locale: str | None = None,
                       labels: Labels | None = None) -> str:
    """One journaled sheet event: what changed, before → after, and why."""
    who = (event.get("by") or {}).get("name")
    head = f"#{event.get('seq', '?')} " + event_what("sheet", event, locale)
    if event.get("character"):
        head += f" {event['character']}"
    if event.get("ruleset"):
        owner = event.get("owner")
        head += (f" ({_game(event['ruleset'], labels)}, " + say(locale, "place", "seat")
                 + _c(locale) + f"{owner if owner else '—'})")
    if event.get("reason"):
        head += " — " + quoted(locale, event["reason"])
    if who:
        head += " — " + say(locale, "par", "by") + f" {who}"
    lines = [head]
    ruleset = event.get("ruleset")
    changed = {field: pair for field, pair in (event.get("changed") or {}).items()
               if isinstance(pair, list | tuple) and len(pair) == 2}
    if changed and all(pair[0] is None for pair in changed.values()):
        # A new character: its fields once, those it has a value for (not 13 « — → »).
        made = {field: pair[1] for field, pair in changed.items()
                if pair[1] not in (None, "", [], {})}
        if labels is not None:
            labels.seen(event.get("character"), made)
        if made:
            lines.append("   " + format_values(made, ruleset, labels))
    elif changed:
        # The scores its reserves are shown out of: this event's, else as last seen.
        values = {**(event.get("values") or {}),
                  **{field: pair[1] for field, pair in changed.items()}}
        if labels is not None:
            values = labels.seen(event.get("character"), values)

        def change(field: str, before: Any, after: Any) -> str:
            reserve = labels.reserve(ruleset, field, values) if labels is not None else None
            if reserve is not None:
                return f"{reserve[0]} {reserve_text(reserve[1], after, before)}"
            return ((labels.field(ruleset, field) if labels is not None else field)
                    + f" {format_value(before, locale)} → {format_value(after, locale)}")

        lines.append("   " + ", ".join(change(field, *pair) for field, pair in changed.items()))
    elif event.get("values") and not event.get("removed"):
        lines.append("   " + say(locale, "fiche", "sheet") + _c(locale)
                     + format_values(event["values"], ruleset, labels))
    return "\n".join(lines)


@for_terminal
def format_seat_event(event: dict[str, Any], locale: str | None = None) -> str:
    """A seat event as the GMs see it in the journal (never with its token)."""
    who = (event.get("by") or {}).get("name")
    line = (f"#{event.get('seq', '?')} " + event_what("seat", event, locale)
            + f" {event.get('name', '')}")
    return line + (" — " + say(locale, "par", "by") + f" {who}" if who else "")


def format_params(params: dict[str, Any] | None, ruleset: Any = None,
                  labels: Labels | None = None) -> str:
    """Params as people read them when ``labels`` knows the game (« Caractéristique ECL ·
    Difficulté 3 », the page's words: a choice by its label, a flag on by its label
    alone), else ``key=value`` pairs as typed on the command line."""
    if labels is None:
        return ", ".join(f"{key}={format_value(value)}" for key, value in (params or {}).items())
    return " · ".join(
        labels.param(ruleset, key) + ("" if value is True
                                      else f" {labels.param_value(ruleset, key, value)}")
        for key, value in (params or {}).items())


def format_asked(side: dict[str, Any], common: dict[str, Any] | None = None,
                 ruleset: Any = None, labels: Labels | None = None) -> str:
    """One asked side: its seat, its character, the params it has of its own (an opposed
    roll's: those that differ from the ask's ``common`` params), by their labels when
    ``labels`` knows ``ruleset``. A GM's NPC's side (no seat) is its character's name."""
    text = side_title(side)
    own = {key: value for key, value in (side.get("params") or {}).items()
           if (common or {}).get(key) != value}
    if own:
        text += f" [{format_params(own, ruleset, labels)}]"
    return text


def param_defaults(welcome: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Each ruleset's params that have a default, from a ``welcome``: ruleset → name →
    default (what an ask need not print: the server fills every param in)."""
    return {ruleset["name"]: {name: spec["default"]
                              for name, spec in (ruleset.get("params") or {}).items()
                              if isinstance(spec, dict) and "default" in spec}
            for ruleset in (welcome or {}).get("rulesets") or ()
            if isinstance(ruleset, dict) and "name" in ruleset}


def _not_default(params: dict[str, Any] | None, defaults: dict[str, Any]) -> dict[str, Any]:
    missing = object()
    return {key: value for key, value in (params or {}).items()
            if defaults.get(key, missing) != value}


@for_terminal
def format_ask_event(event: dict[str, Any],
                     defaults: dict[str, dict[str, Any]] | None = None,
                     locale: str | None = None, labels: Labels | None = None) -> str:
    """An ask as the table sees it: who is asked, for what roll; or its cancellation.
    ``defaults`` (:func:`param_defaults`): params at their ruleset's default are left
    out — O'Ween's would print 17 of them for every ask; ``labels``: the params by
    their labels (:func:`format_params`)."""
    who = (event.get("by") or {}).get("name")
    by = " — " + say(locale, "par", "by") + f" {who}" if who else ""
    seq = f"#{event['seq']} " if "seq" in event else ""
    if event.get("op") == "cancel":
        return (f"{seq}" + say(locale, "demande", "ask") + f" {event.get('ask')} "
                + say(locale, "annulée", "cancelled") + by)
    kind = (say(locale, "opposition", "opposed roll") if event.get("opposed")
            else say(locale, "coopération", "cooperative roll") if event.get("cooperative")
            else say(locale, "demande", "ask"))
    head = f"{seq}{kind} {event.get('ask')}{_c(locale)}{_game(event.get('ruleset'), labels)}"
    if event.get("label"):
        head += " " + quoted(locale, event["label"])
    ruleset = event.get("ruleset")
    sides = [format_asked(side, event.get("params"), ruleset, labels)
             for side in event.get("to") or ()]
    lines = [head + by, "   " + say(locale, "à", "to") + _c(locale) + ", ".join(sides)]
    params = _not_default(event.get("params"), (defaults or {}).get(ruleset, {}))
    if params:
        lines.append("   " + say(locale, "paramètres", "params") + _c(locale)
                     + format_params(params, ruleset, labels))
    if event.get("targets"):
        lines.append("   " + say(locale, "cibles", "targets") + _c(locale)
                     + ", ".join(str(t) for t in event["targets"]))
    if event.get("mode", "public") != "public":
        lines.append("   mode" + _c(locale) + word(locale, event["mode"]))
    answered = event.get("answered")
    if answered:
        opened = ", " + say(locale, "ouvert", "open")
        lines.append("   " + say(locale, "ont répondu", "answered") + _c(locale) + ", ".join(
            f"{seat} (#{side.get('seq')}{opened if side.get('open') else ''})"
            for seat, side in answered.items()))
    return "\n".join(lines)


def side_title(side: dict[str, Any]) -> str:
    """A side as a list names it: « Léa (Strengal) », a GM's NPC's « Krull » (no seat)."""
    if side.get("seat") is None and side.get("character"):
        return str(side["character"])
    text = str(side.get("seat"))
    if side.get("character"):
        text += f" ({side['character']})"
    return text


def side_name(sides: Any, seat: Any) -> str:
    """Who a side of an opposition or a cooperation is, for people: its character when it
    rolled as one (« Ervald », as the page names it), else its seat."""
    for side in sides or ():
        if isinstance(side, dict) and side.get("seat") == seat and side.get("character"):
            return str(side["character"])
    return str(seat)


def side_result(side: dict[str, Any], success: Any, margin: Any, locale: str | None,
                words: dict[str, str | None]) -> str:
    """One side's result as its roll said it (its result's ``label``: « Bourde », not
    « échec ») and its margin in its ruleset's word (``words``: ``success`` and
    ``failure`` → « MR » / « ME », a failure's as its shortfall), else « marge »."""
    label = side.get("label")
    mark = (label_text(label, locale) if label else
            say(locale, "réussite", "success") if success else say(locale, "échec", "failure"))
    if margin is None:
        return mark
    word = words.get("success" if success else "failure")
    if word:
        return f"{mark}, {word} {margin if success else -margin}"
    return f"{mark}, " + say(locale, "marge", "margin") + f" {margin}"


def margin_words(ruleset: Any, labels: Labels | None) -> dict[str, str | None]:
    """``ruleset``'s words for a margin (its description's ``margin_labels``)."""
    if labels is None:
        return {}
    return {name: labels.own_word(ruleset, "margin_labels", name)
            for name in ("success", "failure")}


def format_opposition(opposition: dict[str, Any], locale: str | None = None,
                      words: dict[str, str | None] | None = None) -> str:
    """An opposed roll's result: each side's result and margin (``words``: the ruleset's
    margin words, :func:`margin_words`), the winner (by its character when it rolled as
    one)."""
    sides = []
    for side in opposition.get("sides") or ():
        sides.append(f"{side_title(side)} " + side_result(
            side, side.get("success"), side.get("margin"), locale, words or {}))
    if opposition.get("draw"):
        verdict = say(locale, "égalité", "draw")
    elif opposition.get("winner_character"):
        # (The winning side's character: a GM's NPC wins with no seat, winner null.)
        verdict = (say(locale, "vainqueur", "winner") + _c(locale)
                   + str(opposition["winner_character"]))
    elif opposition.get("winner") is None:
        verdict = say(locale, "personne ne réussit", "nobody succeeds")
    else:
        verdict = (say(locale, "vainqueur", "winner") + _c(locale)
                   + side_name(opposition.get("sides"), opposition["winner"]))
    # (French sets its semicolon apart with a space, as its colon.)
    between = " ; " if locale == "fr" else "; "
    return (f"   opposition {opposition.get('ask')}{_c(locale)}{between.join(sides)}"
            f" — {verdict}")


def format_cooperation(cooperation: dict[str, Any], locale: str | None = None,
                       words: dict[str, str | None] | None = None) -> str:
    """A cooperative roll's result: the best roll, the one that counts, as it said it."""
    best = side_name(cooperation.get("sides"), cooperation.get("best"))
    side = next((side for side in cooperation.get("sides") or ()
                 if isinstance(side, dict) and side.get("seat") == cooperation.get("best")), {})
    if cooperation.get("best") is None and cooperation.get("best_character"):
        # (A GM's NPC rolled best: its side has no seat.)
        best = str(cooperation["best_character"])
        side = next((side for side in cooperation.get("sides") or ()
                     if isinstance(side, dict) and side.get("character") == best), {})
    return ("   " + say(locale, "coopération", "cooperation")
            + f" {cooperation.get('ask')}{_c(locale)}"
            + say(locale, "le meilleur jet compte", "the best roll counts") + f" — {best} "
            + side_result(side, cooperation.get("success"), cooperation.get("margin"),
                          locale, words or {}))


@for_terminal
def format_session_event(event: dict[str, Any], locale: str | None = None) -> str:
    """A new game session (or, ``op: "turn"``, the table's next turn)."""
    who = (event.get("by") or {}).get("name")
    by = " — " + say(locale, "par", "by") + f" {who}" if who else ""
    if event.get("op") == "turn":
        return (f"#{event.get('seq', '?')} " + say(locale, "tour", "turn")
                + f" {event.get('turn')}" + by)
    return (f"#{event.get('seq', '?')} " + say(locale, "nouvelle séance", "new session")
            + f" {event.get('number')}" + by)


@for_terminal
def format_event(event: dict[str, Any],
                 defaults: dict[str, dict[str, Any]] | None = None,
                 locale: str | None = None, labels: Labels | None = None,
                 again: Callable[..., str] | None = None) -> str:
    """Any journaled event (``watch``, ``history``), in the reader's ``locale``;
    ``defaults`` as :func:`format_ask_event`'s, ``labels`` and ``again`` as
    :func:`format_outcome`'s."""
    kind = event.get("type")
    if kind == "ask":
        return format_ask_event(event, defaults, locale, labels)
    if kind == "session":
        return format_session_event(event, locale)
    if kind == "initiative":
        from sidecar.cli.initiative_text import format_initiative_event
        return format_initiative_event(event, locale, labels)
    if kind == "sheet":
        return format_sheet_event(event, locale, labels)
    if kind == "seat":
        return format_seat_event(event, locale)
    if kind == "epoch":
        return format_epoch_event(event, locale)
    return format_outcome(event, locale, whole_sheet=False, labels=labels, again=again)


def _commitment(epoch: Any) -> str:
    commitment = str((epoch or {}).get("commitment") or "")
    return f"{commitment[:12]}…" if commitment else "—"


@for_terminal
def format_epoch_event(event: dict[str, Any], locale: str | None = None) -> str:
    """An epoch of provable dice opened (its commitment), or ended (its rolls, the next
    one's commitment)."""
    epoch = event.get("epoch") or {}
    number = epoch.get("number", "?")
    head = f"#{event.get('seq', '?')} "
    if event.get("op") == "start":
        return head + say(locale, f"époque de dés n° {number} ouverte, engagement "
                                  f"{_commitment(epoch)}",
                          f"dice epoch {number} opened, commitment {_commitment(epoch)}")
    # ``events``: every event between its opening and this one (rolls, seats, sheets).
    # An epoch a restart ends at once (other settings) held none: said in words.
    events = event.get("events", "?")
    fr, en = (("aucun événement", "no events") if events == 0
              else (count("fr", events, "événement", ""), count("en", events, "", "event")))
    line = head + say(locale, f"époque de dés n° {number} close : {fr}, graine révélée",
                      f"dice epoch {number} closed: {en}, seed revealed")
    following = event.get("next")
    if isinstance(following, dict):
        line += ("\n   " + say(locale, "suivante", "next") + _c(locale)
                 + f"{following.get('number', '?')}, "
                 + say(locale, "engagement", "commitment") + f" {_commitment(following)}")
    return line


def format_error(code: str, message: str, details: dict[str, Any] | None = None) -> str:
    """One line for a server error: its message first (it says what is wrong, in
    ``--locale``), the protocol's ``code`` only as a trailing hint for scripts and bug
    reports; its lines joined, the rest shown, not obeyed."""
    return shown(f"sidecar: {' '.join(message.split())} [{code}]")


def print_qr(link: str, out: Any = None) -> None:
    """The link as a QR code drawn in the terminal, for a phone to scan."""
    import segno

    segno.make(link).terminal(out=out or sys.stdout, compact=True)


@for_terminal
def format_seat_link(reply: dict[str, Any], locale: str | None = None) -> str:
    """A seat's link and token, as ``seat add`` and ``seat rotate`` print them."""
    name = reply["name"]
    head = (say(locale, f"Nouveau lien {elide('de', name)}", f"{name}'s new link")
            if reply.get("op") == "rotate"
            else say(locale, f"Place {elide('de', name)}", f"{name}'s seat"))
    return (f"{head}{_c(locale)}{reply['link']}\n"
            f"  " + say(locale, "jeton", "token") + f"{_c(locale)}{reply['token']} ("
            + say(locale, "montré une seule fois : `sidecar seat rotate` en refait un",
                  "shown once: `sidecar seat rotate` makes a new one") + ")")


@for_terminal
def format_seats(seats: list[dict[str, Any]], locale: str | None = None) -> str:
    """The table's seats: who is online (on how many connections), their characters."""
    if not seats:
        return say(locale, "aucune place", "no seats")
    lines = []
    for seat in seats:
        online = seat.get("online") or 0
        state = (say(locale, "en ligne", "online") + f" ({online})" if online
                 else say(locale, "absent", "offline"))
        characters = ", ".join(seat.get("characters") or []) or "—"
        lines.append(f"{seat['name']:<20} {state:<24} "
                     + say(locale, "personnages", "characters") + f"{_c(locale)}{characters}")
    return "\n".join(lines)


@for_terminal
def format_sheets(characters: list[dict[str, Any]], labels: Labels | None = None) -> str:
    """The table's characters, each with its sheet (its fields by their labels when
    ``labels`` knows them)."""
    locale = labels.locale if labels is not None else None
    if not characters:
        return say(locale, "aucun personnage", "no characters")
    lines = []
    for entry in characters:
        owner = entry.get("owner") or "—"
        # Already rolled this turn (the GMs' list says it): a flag, never a refusal.
        acted = (" — " + say(locale, "a agi ce tour", "acted this turn")
                 if entry.get("acted") else "")
        lines.append(f"{entry['character']} ({_game(entry.get('ruleset', '?'), labels)}, "
                     + say(locale, "place", "seat") + f"{_c(locale)}{owner}){acted}")
        lines.append("   " + format_values(entry.get("values") or {}, entry.get("ruleset"),
                                           labels))
    return "\n".join(lines)
