"""How the terminal shows what the server says: outcomes (their dice, choices and
decisions), journaled events of every kind, seats, sheets and asks, errors in one line,
odds with text bars, a link as a QR code. Everything remote goes through
:mod:`sidecar.cli.terminal` first (shown, never obeyed).

``print_qr`` imports ``segno`` when called: only ``seat add``/``rotate`` and a LAN
``serve`` draw a QR code, the other commands (and ``sidecar --help``) need not load it."""

from __future__ import annotations

import sys
from typing import Any

from sidecar.cli.terminal import for_terminal, shown
from sidecar.protocol.text import elide, localized

KIND_MARKS = {"botch": "✗✗", "failure": "✗", "narrow": "≈", "success": "✓", "critical": "✓✓"}


def format_die(die: dict[str, Any]) -> str:
    face = str(die["face"])
    if die.get("cancelled"):
        face = f"~{face}~"
    if die.get("raised_to"):
        face = f"{face}→{die['raised_to']}"
    return face


def format_value(value: Any) -> str:
    """A sheet value, short: lists joined by commas, maps as ``{name: value, …}``."""
    if value is None:  # before a character's creation
        return "—"
    if isinstance(value, bool):
        return "oui/yes" if value else "non/no"
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {v}" for k, v in value.items()) + "}"
    return str(value)


def format_values(values: dict[str, Any]) -> str:
    return " ".join(f"{field}={format_value(value)}" for field, value in values.items())


def format_spent(spent: dict[str, int], sheet: dict[str, Any]) -> str:
    """``{"bonbonus": 1}`` and the values after → ``bonbonus −1 → 2`` (a negative spend gives)."""
    parts = []
    for field, amount in spent.items():
        change = f"−{amount}" if amount >= 0 else f"+{-amount}"
        after = f" → {format_value(sheet[field])}" if field in sheet else ""
        parts.append(f"{field} {change}{after}")
    return ", ".join(parts)


def format_label(label: Any, locale: str | None = None) -> str:
    """A ``{fr, en}`` label in ``locale`` (the reader's ``--locale``); without one, as
    ``fr / en`` (one of them when they read the same)."""
    if locale is not None:
        return localized(label or "", locale)
    if isinstance(label, dict):
        texts = [str(label[key]) for key in ("fr", "en") if label.get(key)]
        return " / ".join(dict.fromkeys(texts))
    return str(label or "")


def format_choices(message: dict[str, Any], locale: str | None = None) -> list[str]:
    """An open roll's choices, numbered as ``sidecar roll`` asks for them, its default and
    how to decide (a blind roll's roller is not told that it is open)."""
    choices = message.get("choices")
    if not choices:
        return []
    lines = ["   choix / choices:"]
    for number, choice in enumerate(choices, 1):
        extra = f", {choice['dice']} dé(s) / dice" if choice.get("dice") else ""
        default = " [défaut / default]" if choice["name"] == message.get("default") else ""
        named = format_label(choice.get("label"), locale)
        lines.append(f"     {number}) {choice['name']} — {named}{extra}{default}")
    if message.get("default") is None:
        lines.append("     (sans décision le jet reste tel quel / without a decision the roll "
                     "stands as it is)")
    lines.append(f"   décider / decide: sidecar react {message.get('roll')} CHOIX/CHOICE")
    return lines


def format_decision(message: dict[str, Any]) -> str:
    """What a decision answers: the open outcome's seq, the choice, who took it."""
    who = message.get("reacted_by")
    by = (f"par / by {who.get('name')} ({who.get('role')})" if isinstance(who, dict)
          else "temps écoulé / time ran out" if "reacted_by" in message else "")
    choice = message.get("choice")
    taken = (f"choix / choice: {choice}" if choice
             else "aucun choix / no choice" if "choice" in message else "")
    return "   " + " — ".join(part for part in (f"réagit à / reacts to #{message['reacts_to']}",
                                                taken, by) if part)


def sheet_labels(welcome: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Each ruleset's sheet fields' labels, from a ``welcome``: ruleset → field → label
    (what the effects on a target are named by: « Blessures de Brady »)."""
    return {ruleset["name"]: {name: spec.get("label") or name
                              for name, spec in (ruleset.get("sheet") or {}).items()
                              if isinstance(spec, dict)}
            for ruleset in (welcome or {}).get("rulesets") or ()
            if isinstance(ruleset, dict) and "name" in ruleset}


def format_effects(message: dict[str, Any], locale: str | None = None,
                   labels: dict[str, Any] | None = None) -> list[str]:
    """What a roll aimed at characters did to them (contract §8): « Blessures de Brady :
    2 → 5 » when this reader sees the target's new values (its owner, a GM), « +3 »
    otherwise; ``labels``: the roll's ruleset's field → label (:func:`sheet_labels`)."""
    lines = []
    if message.get("targets"):
        lines.append("   cibles / targets: " + ", ".join(str(t) for t in message["targets"]))
    seen = message.get("target_sheets") or {}
    for name, deltas in (message.get("effects") or {}).items():
        for field, delta in (deltas or {}).items():
            label = localized((labels or {}).get(field) or field, locale or "fr")
            after = (seen.get(name) or {}).get(field)
            change = (f"{after - delta} → {after}" if isinstance(after, int)
                      and isinstance(delta, int) else f"{delta:+}" if isinstance(delta, int)
                      else str(delta))
            lines.append(f"   {name}'s {label}: {change}" if locale == "en"
                         else f"   {label} {elide('de', name)} : {change}")
    return lines


@for_terminal
def format_outcome(message: dict[str, Any], locale: str | None = None, *,
                   whole_sheet: bool = True,
                   labels: dict[str, dict[str, Any]] | None = None) -> str:
    """A readable block for one outcome (an open roll's choices, a decision's answer);
    ``locale``: the reader's, for the labels the message carries in both languages.
    ``whole_sheet``: the character's sheet after the roll too (``sidecar roll``); a log
    (``history``, ``watch``) says only what the roll changed: its spend and the values
    it left, not the sheet again under every roll. ``labels``: the sheets' field labels
    by ruleset (:func:`sheet_labels`), naming what the roll did to its targets."""
    result = message.get("result", {})
    if result.get("hidden"):
        # Neither open nor decided, for its roller: that would tell how the dice went.
        lines = [f"#{message['seq']} {message['text']}"]
        lines += format_answer(message)
        return "\n".join(lines)
    mark = KIND_MARKS.get(result.get("kind", ""), "")
    lines = [f"#{message['seq']} {mark} {message.get('text', '')}"]
    if message.get("dice"):
        lines.append("   dés/dice: " + " ".join(format_die(d) for d in message["dice"]))
    for note in message.get("notes", []):
        lines.append(f"   note: {note}")
    if message.get("mode", "public") != "public":
        lines.append(f"   mode: {message['mode']}")
    if message.get("character"):
        spent = message.get("spent") or {}
        sheet = message.get("sheet") or {}
        lines.append(f"   personnage / character: {message['character']} — dépensé / spent: "
                     + (format_spent(spent, sheet) if spent else "rien / nothing"))
        if sheet and whole_sheet:
            lines.append(f"   fiche / sheet: {format_values(sheet)}")
    lines += format_effects(message, locale, (labels or {}).get(message.get("ruleset")))
    if "reacts_to" in message:
        lines.append(format_decision(message))
    if message.get("open"):
        lines += format_choices(message, locale)
    lines += format_answer(message)
    return "\n".join(lines)


def format_answer(message: dict[str, Any]) -> list[str]:
    """What an answer to an ask adds: the ask it answers, an opposition's result."""
    lines = []
    if message.get("answers"):
        lines.append(f"   répond à la demande / answers ask {message['answers']}")
    if isinstance(message.get("opposition"), dict):
        lines.append(format_opposition(message["opposition"]))
    return lines


@for_terminal
def format_sheet_event(event: dict[str, Any]) -> str:
    """One journaled sheet event: what changed, before → after, and why."""
    who = (event.get("by") or {}).get("name")
    head = f"#{event.get('seq', '?')} fiche / sheet {event.get('op', '?')}"
    if event.get("what"):  # a refill: "turn" or "rest"
        head += f" {event['what']}"
    if event.get("character"):
        head += f" {event['character']}"
    if event.get("ruleset"):
        owner = event.get("owner")
        head += f" ({event['ruleset']}, place / seat: {owner if owner else '—'})"
    if event.get("removed"):
        head += " — supprimé / removed"
    if event.get("reason"):
        head += f" — « {event['reason']} »"
    if who:
        head += f" — par / by {who}"
    lines = [head]
    changed = event.get("changed") or {}
    if changed:
        lines.append("   " + ", ".join(f"{field} {format_value(pair[0])} → {format_value(pair[1])}"
                                       for field, pair in changed.items()
                                       if isinstance(pair, list | tuple) and len(pair) == 2))
    if event.get("values") and not event.get("removed"):
        lines.append(f"   fiche / sheet: {format_values(event['values'])}")
    return "\n".join(lines)


@for_terminal
def format_seat_event(event: dict[str, Any]) -> str:
    """A seat event as the GMs see it in the journal (never with its token)."""
    who = (event.get("by") or {}).get("name")
    line = f"#{event.get('seq', '?')} place / seat {event.get('op', '?')} {event.get('name', '')}"
    return line + (f" — par / by {who}" if who else "")


def format_params(params: dict[str, Any] | None) -> str:
    """``key=value`` pairs as typed on the command line."""
    return ", ".join(f"{key}={format_value(value)}" for key, value in (params or {}).items())


def format_asked(side: dict[str, Any], common: dict[str, Any] | None = None) -> str:
    """One asked side: its seat, its character, the params it has of its own (an opposed
    roll's: those that differ from the ask's ``common`` params)."""
    text = str(side.get("seat"))
    if side.get("character"):
        text += f" ({side['character']})"
    own = {key: value for key, value in (side.get("params") or {}).items()
           if (common or {}).get(key) != value}
    if own:
        text += f" [{format_params(own)}]"
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
                     defaults: dict[str, dict[str, Any]] | None = None) -> str:
    """An ask as the table sees it: who is asked, for what roll; or its cancellation.
    ``defaults`` (:func:`param_defaults`): params at their ruleset's default are left
    out — O'Ween's would print 17 of them for every ask."""
    who = (event.get("by") or {}).get("name")
    by = f" — par / by {who}" if who else ""
    seq = f"#{event['seq']} " if "seq" in event else ""
    if event.get("op") == "cancel":
        return f"{seq}demande / ask {event.get('ask')} annulée / cancelled{by}"
    kind = "opposition / opposed roll" if event.get("opposed") else "demande / ask"
    head = f"{seq}{kind} {event.get('ask')}: {event.get('ruleset')}"
    if event.get("label"):
        head += f" « {event['label']} »"
    sides = [format_asked(side, event.get("params")) for side in event.get("to") or ()]
    lines = [head + by, "   à / to: " + ", ".join(sides)]
    params = _not_default(event.get("params"), (defaults or {}).get(event.get("ruleset"), {}))
    if params:
        lines.append(f"   params: {format_params(params)}")
    if event.get("targets"):
        lines.append("   cibles / targets: " + ", ".join(str(t) for t in event["targets"]))
    if event.get("mode", "public") != "public":
        lines.append(f"   mode: {event['mode']}")
    answered = event.get("answered")
    if answered:
        lines.append("   ont répondu / answered: " + ", ".join(
            f"{seat} (#{side.get('seq')}{', ouvert / open' if side.get('open') else ''})"
            for seat, side in answered.items()))
    return "\n".join(lines)


def format_opposition(opposition: dict[str, Any]) -> str:
    """An opposed roll's result: each side's success and margin, the winner."""
    sides = []
    for side in opposition.get("sides") or ():
        name = side.get("seat")
        if side.get("character"):
            name += f" ({side['character']})"
        mark = "réussite / success" if side.get("success") else "échec / failure"
        margin = side.get("margin")
        sides.append(f"{name} {mark}" + (f", marge / margin {margin}"
                                         if margin is not None else ""))
    if opposition.get("draw"):
        verdict = "égalité / draw"
    elif opposition.get("winner") is None:
        verdict = "personne ne réussit / nobody succeeds"
    else:
        verdict = f"vainqueur / winner: {opposition['winner']}"
    return f"   opposition {opposition.get('ask')}: {'; '.join(sides)} — {verdict}"


@for_terminal
def format_session_event(event: dict[str, Any]) -> str:
    """A new game session (or, ``op: "turn"``, the table's next turn)."""
    who = (event.get("by") or {}).get("name")
    if event.get("op") == "turn":
        return (f"#{event.get('seq', '?')} tour / turn {event.get('turn')}"
                + (f" — par / by {who}" if who else ""))
    return (f"#{event.get('seq', '?')} nouvelle session / new session {event.get('number')}"
            + (f" — par / by {who}" if who else ""))


@for_terminal
def format_event(event: dict[str, Any],
                 defaults: dict[str, dict[str, Any]] | None = None,
                 locale: str | None = None,
                 labels: dict[str, dict[str, Any]] | None = None) -> str:
    """Any journaled event (``watch``, ``history``), in the reader's ``locale``;
    ``defaults`` as :func:`format_ask_event`'s, ``labels`` as :func:`format_outcome`'s."""
    kind = event.get("type")
    if kind == "ask":
        return format_ask_event(event, defaults)
    if kind == "session":
        return format_session_event(event)
    if kind == "sheet":
        return format_sheet_event(event)
    if kind == "seat":
        return format_seat_event(event)
    if kind == "epoch":
        return format_epoch_event(event)
    return format_outcome(event, locale, whole_sheet=False, labels=labels)


def _commitment(epoch: Any) -> str:
    commitment = str((epoch or {}).get("commitment") or "")
    return f"{commitment[:12]}…" if commitment else "—"


@for_terminal
def format_epoch_event(event: dict[str, Any]) -> str:
    """An epoch of provable dice opened (its commitment), or ended (its rolls, the next
    one's commitment)."""
    epoch = event.get("epoch") or {}
    number = epoch.get("number", "?")
    head = f"#{event.get('seq', '?')} "
    if event.get("op") == "start":
        return (head + f"époque de dés {number} ouverte, engagement {_commitment(epoch)} / "
                f"dice epoch {number} started, commitment {_commitment(epoch)}")
    events = event.get("events", "?")
    line = (head + f"époque de dés {number} close, {events} événement(s), graine révélée / "
            f"dice epoch {number} ended, {events} event(s), seed revealed")
    following = event.get("next")
    if isinstance(following, dict):
        line += (f"\n   suivante / next: {following.get('number', '?')}, engagement / "
                 f"commitment {_commitment(following)}")
    return line


def format_error(code: str, message: str, details: dict[str, Any] | None = None) -> str:
    """One line for a server error (its message says what is wrong, in ``--locale``):
    its lines joined, the rest shown, not obeyed."""
    return shown(f"sidecar: {code}: {' '.join(message.split())}")


def format_odds(odds: dict[str, Any], width: int = 30) -> str:
    """Each kind's probability as a percentage with a text bar; a roll with no verdict
    (``judged: false``, a ``dice`` total without a target) only its distribution."""
    if odds.get("judged") is False:
        return "\n".join(format_distribution(odds.get("distribution"), width)
                         or ["sans seuil, pas de verdict / no target, no verdict"])
    names = {"botch": "échec critique / botch", "failure": "échec / failure",
             "narrow": "de justesse / narrow", "success": "réussite / success",
             "critical": "critique / critical"}
    lines = [f"P(réussite / success) = {odds['p_success'] * 100:.2f} %"]
    for kind, p in odds["kinds"].items():
        if p == 0 and kind != "success":
            continue  # (a kind this roll cannot give)
        bar = "█" * round(p * width)
        lines.append(f"  {names.get(kind, kind):<24} {p * 100:6.2f} % {bar}")
    lines += format_distribution(odds.get("distribution"), width)
    return "\n".join(lines)


def format_distribution(distribution: Any, width: int = 30, most: int = 40) -> list[str]:
    """The distribution of a roll's values (``distribution.of``: e.g. its total), one line
    a value; a long one as its range, mean and most likely values."""
    if not isinstance(distribution, dict) or not distribution.get("values"):
        return []
    values = [(v, p) for v, p in distribution["values"] if isinstance(p, (int, float))]
    of = distribution.get("of", "value")
    lines = [f"  distribution ({of}) :"]
    peak = max(p for _, p in values) or 1
    shown = values
    if len(values) > most:
        mean = sum(v * p for v, p in values if isinstance(v, (int, float)))
        lines.append(f"    {values[0][0]} … {values[-1][0]}, moyenne / mean {mean:.2f}")
        shown = sorted(sorted(values, key=lambda vp: -vp[1])[:10])
    for value, p in shown:
        lines.append(f"    {value!s:>6}  {p * 100:6.2f} % {'█' * round(p / peak * width)}")
    return lines


def print_qr(link: str, out: Any = None) -> None:
    """The link as a QR code drawn in the terminal, for a phone to scan."""
    import segno

    segno.make(link).terminal(out=out or sys.stdout, compact=True)


@for_terminal
def format_seat_link(reply: dict[str, Any]) -> str:
    """A seat's link and token, as ``seat add`` and ``seat rotate`` print them."""
    name = reply["name"]
    head = (f"Nouveau lien {elide('de', name)} / {name}'s new link" if reply.get("op") == "rotate"
            else f"Place {elide('de', name)} / {name}'s seat")
    return (f"{head}: {reply['link']}\n"
            f"  jeton / token: {reply['token']} (montré une seule fois / shown once: "
            "`sidecar seat rotate` en refait un / makes a new one)")


@for_terminal
def format_seats(seats: list[dict[str, Any]]) -> str:
    if not seats:
        return "aucune place / no seats"
    lines = []
    for seat in seats:
        online = seat.get("online") or 0
        state = f"en ligne / online ({online})" if online else "absent / offline"
        characters = ", ".join(seat.get("characters") or []) or "—"
        lines.append(f"{seat['name']:<20} {state:<24} personnages / characters: {characters}")
    return "\n".join(lines)


@for_terminal
def format_sheets(characters: list[dict[str, Any]]) -> str:
    if not characters:
        return "aucun personnage / no characters"
    lines = []
    for entry in characters:
        owner = entry.get("owner") or "—"
        # Already rolled this turn (the GMs' list says it): a flag, never a refusal.
        acted = " — a agi ce tour / acted this turn" if entry.get("acted") else ""
        lines.append(f"{entry['character']} ({entry.get('ruleset', '?')}, place / seat: "
                     f"{owner}){acted}")
        lines.append(f"   {format_values(entry.get('values') or {})}")
    return "\n".join(lines)
