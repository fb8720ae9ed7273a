"""Re-playing a table's journal: every roll resolved again, as ``sidecar verify`` checks it.

The dice of a provable table prove its faces (:mod:`sidecar.tools.verify`); what the rules made of
them is proven by doing it again. :class:`Replay` takes a table's events in seq order and
keeps what the server kept — the seats, each character's values (sheets, spends), the game
session and turn, the plugins' per-table state, the open rolls and the open asks — and
resolves each roll again with the installed plugins: its faces, its params as asked, its
options, its character's values as they stood, the decision taken. Every field the rules
compute is compared with the stored one (``params``, ``dice``, ``result``, ``applied``,
``notes``, ``spent``, ``sheet``, ``choices``, ``text``), and so is what the server decides
around them: a roll by a seat names a seat of the table; a roll as a character is by its
owner's seat or a GM, never ``self``; a decision is taken on a roll still open, with a
choice it offered and the dice that choice draws, by its roller, a GM or the seat that plays
the character of a public roll (a GM's choice by a GM, a blind roll by a GM), keeping the
roll's author, params and mode; an answer is the asked seat's, with the ask's ruleset,
params, label, mode and options; an opposed or cooperative ask's verdict follows from its
answers.

What cannot be re-run here is said, never passed over: :class:`Unchecked` names the field
and why (a ruleset or an extension not installed, another version than the server's, an
extension that failed on the server, events before it missing from a client's log).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from sidecar.host.guard import deep_copy
from sidecar.host.pipeline import Resolution, RollPipeline
from sidecar.host.plugins import PluginHost
from sidecar.host.sheets import apply_delta
from sidecar.host.spending import taken_as_far_as_held, unpaid_note
from sidecar.model import Outcome, Roll
from sidecar.protocol.deciding import may_decide
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.text import localized
from sidecar.table.asksides import side_for, side_key
from sidecar.table.core import cooperate, oppose
from sidecar.table.visibility import identity
from sidecar.tools.overrides import made_under_rule
from sidecar.tools.words import MISSING_BEFORE, Said, override_refused, said

#: The end of the note an outcome carries about an extension that failed on it (see
#: :func:`sidecar.host.pipeline.failure_note`): such a roll was resolved without that extension.
FAILED_NOTE = "failed and was left out of this roll"

#: The result's fields compared first (then the others, by name).
COMMON = ("success", "margin", "kind", "label")


class Mismatch(Exception):
    """A field of an event that is not what the table's rules and events give."""

    def __init__(self, field: str, why: str) -> None:
        super().__init__(f"{field}: {why}")
        self.field, self.why = field, why


class Unchecked(Mismatch):
    """A field this replay cannot check, and why (said, never passed over)."""


def _refused(error: ProtocolError) -> Said:
    """The rules refuse an event here: the server's refusal, in both languages."""
    return said(f"its rules refuse it here ({error.code}: {error.message})",
                f"ses règles le refusent ici ({error.code} : "
                f"{error.message_fr or error.message})")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


#: Said of what a run without plugins (``--no-rerun``) does not check.
NOT_RERUN = said("not re-run (--no-rerun)", "pas rejoué (--no-rerun)")


def _not_installed(kind: str, name: str) -> Said:
    """A ruleset or an extension this replay does not have."""
    if kind == "ruleset":
        return said(f"the ruleset '{name}' is not installed here",
                    f"le jeu de règles « {name} » n'est pas installé ici")
    return said(f"the extension '{name}' is not installed here",
                f"l'extension « {name} » n'est pas installée ici")


def _no_character(name: str) -> Said:
    return said(f"no character '{name}' at this table",
                f"aucun personnage « {name} » à cette table")


def _rules_give(value: Any) -> Said:
    return said(f"its rules give {_short(value)}", f"ses règles donnent {_short(value)}")


def _both(why: str) -> Said:
    """``why`` as a two-language reason (a plain one is the same in both)."""
    return why if isinstance(why, Said) else said(why, why)


def _first_difference(stored: dict[str, Any], computed: dict[str, Any]) -> str | None:
    """The first key of a result whose value differs (the common fields first)."""
    keys = [k for k in COMMON if k in stored or k in computed]
    keys += sorted((set(stored) | set(computed)) - set(COMMON))
    return next((key for key in keys if stored.get(key) != computed.get(key)), None)


class Replay:
    """A table replayed event by event (call :meth:`take` in seq order, then
    :meth:`close`). ``host_factory(left_out)``: a plugin host without the plugins named
    (those the server did not run); ``None``: no plugin is run, only what the server
    decides around the rules is checked, and every result is said not re-run."""

    def __init__(self, host_factory: Callable[[tuple[str, ...]], PluginHost] | None) -> None:
        self.host_factory = host_factory
        self.seats: dict[str, str | None] = {}  # name → seat id (None: not recorded)
        self.characters: dict[str, dict[str, Any]] = {}  # name → {ruleset, owner, values}
        self.session = 0
        self.turn = 0
        self.state: dict[str, dict[str, Any]] = {}
        self.open: dict[str, dict[str, Any]] = {}  # roll id → its open outcome event
        self.asks: dict[str, dict[str, Any]] = {}  # ask id → {event, answered}
        self._pipelines: dict[tuple[str, ...], RollPipeline] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    def close(self) -> None:
        if self._loop is not None:
            self._loop.close()
            self._loop = None
        for pipeline in self._pipelines.values():
            pipeline.host.shutdown()

    # -- events -------------------------------------------------------------------------

    def take(self, event: dict[str, Any], *, settings: dict[str, Any] | None = None,
             faces: list[list[int]] | None = None, manual: tuple[bool, ...] = (False,),
             gap: bool = False) -> bool:
        """Take the next event. An outcome is checked and, when its rules are installed,
        re-run: ``faces`` are the candidates for the faces it drew (one, except for hand
        entered dice whose place among the open roll's cannot be told), ``manual`` whether
        they were entered by hand (both tried when unknown), ``settings`` its epoch's.
        ``gap``: events before it are missing (a client's log), so a difference may come
        from them (:class:`Unchecked`, not :class:`Mismatch`). Returns whether the roll's
        computed fields were re-run and found equal."""
        kind = event.get("type")
        if kind == "seat":
            if event.get("op") == "remove":
                self.seats.pop(event["name"], None)
            else:
                self.seats[event["name"]] = event.get("seat_id")
        elif kind == "sheet":
            if event.get("op") == "effect":
                pass  # (a notice: the values a roll's effects left, already counted)
            elif event.get("op") == "remove" or event.get("removed"):
                self.characters.pop(event["character"], None)
            else:
                self.characters[event["character"]] = {
                    "ruleset": event["ruleset"], "owner": event.get("owner"),
                    "values": deep_copy(event.get("values") or {})}
        elif kind == "session":
            self._session(event, gap)
        elif kind == "ask":
            if event.get("op") == "open":
                self.asks[event["ask"]] = {"event": event, "answered": {}}
            elif event.get("op") == "cancel":
                self.asks.pop(event["ask"], None)
        elif kind == "initiative":
            self._initiative(event, gap)
        elif kind == "outcome":
            return self._outcome(event, settings, faces or [[]], manual, gap)
        return False

    def _session(self, event: dict[str, Any], gap: bool) -> None:
        """A new session is numbered after the last, a new turn after the last (of the
        session): an event put in a roll's place must fit the count."""
        turn = event.get("op") == "turn"
        number, count = int(event["number"]), int(event["turn"]) if turn else None
        expected = (self.session, self.turn + 1) if turn else (self.session + 1, None)
        self.session = number
        if turn:
            self.turn = int(event["turn"])
        if (number, count) != expected and not gap:
            field = "turn" if turn and number == expected[0] else "number"
            next_one = expected[1] if field == "turn" else expected[0]
            raise Mismatch(field, said(
                f"the table's next {'turn' if turn else 'session'} is {next_one}",
                f"{'le prochain tour' if turn else 'la prochaine séance'} de la table est "
                f"{'le' if turn else 'la'} n° {next_one}"))

    def _initiative(self, event: dict[str, Any], gap: bool) -> None:
        """An initiative: ordered again from the entries it was asked for, the characters'
        values and the plugins' state; its claims spend like a roll."""
        try:
            self._order(event, gap)
        finally:
            for name, amounts in (event.get("spent") or {}).items():
                character = self.characters.get(name)
                if character is not None and amounts:
                    character["values"] = self._spend(character, amounts)

    def _order(self, event: dict[str, Any], gap: bool) -> None:
        pipeline = self._pipeline(None)
        entries = event.get("entries")
        if pipeline is None:
            raise Unchecked("order", NOT_RERUN)
        if not isinstance(entries, list):
            raise Unchecked("order", said(
                "not recomputed: the entries it was asked for are not in this file (a "
                "journal written before they were kept)", "pas recalculé : les entrées "
                "demandées ne sont pas dans ce fichier (un journal écrit avant qu'elles "
                "soient gardées)"))
        if event["ruleset"] not in pipeline.host.rulesets:
            raise Unchecked("order", _not_installed("ruleset", event["ruleset"]))
        asked = []
        for entry in entries:
            character = self.characters.get(entry["character"])
            if character is None:
                why = _no_character(entry["character"])
                raise Unchecked("order", why) if gap else Mismatch("entries", why)
            asked.append({**entry, "sheet": deep_copy(character["values"])})
        roll = pipeline.prepare_plain(event["ruleset"], table=event["table"],
                                      by=dict(event["by"]))
        roll.session, roll.turn = self.session, self.turn
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        try:
            answer = self._loop.run_until_complete(
                pipeline.initiative(roll, asked, self.state))
        except ProtocolError as error:
            raise Mismatch("entries", _refused(error)) from None
        claims = [entry["character"] for entry in entries if entry.get("claim")]
        for field, value in (("order", answer["order"]), ("spent", answer["spend"]),
                             ("claims", claims)):
            if event.get(field) != value:
                why = _rules_give(value)
                raise Unchecked(field, why + MISSING_BEFORE) if gap else Mismatch(field, why)

    def _spend(self, character: dict[str, Any], spend: dict[str, int]) -> dict[str, Any]:
        host = self._host()
        if host is None:  # (no plugin here: the amounts taken as they are)
            return {**character["values"], **{name: character["values"].get(name, 0) - amount
                                               for name, amount in spend.items()}}
        schema = host.sheet_schema(character["ruleset"])
        try:
            values, _ = apply_delta(schema, character["values"], spend, sign=-1,
                                    where="spend")
        except ProtocolError as error:
            raise Mismatch("spent", said(
                f"the sheet cannot pay it ({error.message})", "la fiche ne peut pas le "
                f"payer ({error.message_fr or error.message})")) from None
        return values

    # -- outcomes ------------------------------------------------------------------------

    def _outcome(self, event: dict[str, Any], settings: dict[str, Any] | None,
                 faces: list[list[int]], manual: tuple[bool, ...], gap: bool) -> bool:
        def wrong(field: str, why: Said) -> Mismatch:
            # Without the events before it, what is not found may simply not be shown.
            return Unchecked(field, why + MISSING_BEFORE) if gap else Mismatch(field, why)

        opened = self._decision(event, faces, wrong) if event.get("reacts_to") is not None \
            else None
        if opened is None:
            self._author(event, wrong, gap)
        values = self._character(event, opened, wrong)
        unchecked: Unchecked | None = None
        resolution = None
        try:
            if opened is not None and event.get("choice") is None:
                self._closed(event, opened, values)
            else:
                resolution = self._rerun(event, opened, values, settings, faces, manual, gap)
        except Unchecked as why:
            unchecked = why
        # What the server kept of it, as stored (it checked, or it was said unchecked).
        if resolution is not None:
            self.state = resolution.state
        name = event.get("character")
        if name in self.characters and isinstance(event.get("sheet"), dict):
            self.characters[name]["values"] = deep_copy(event["sheet"])
        self._effects(event, wrong)
        if opened is not None:
            self.open.pop(event["roll"], None)
        if event.get("open"):
            self.open[event["roll"]] = event
        self._answered(event, opened, wrong)
        if unchecked is not None:
            raise unchecked
        return resolution is not None or opened is not None

    def _effects(self, event: dict[str, Any], wrong: Callable[[str, str], Mismatch]) -> None:
        """What a roll did to its targets (contract §8): each applied delta added to the
        target's values, which must be what the event says they became
        (``target_sheets``, where this file holds them) and within the sheet's bounds."""
        effects = event.get("effects")
        if not effects:
            return
        if not isinstance(effects, dict):
            raise Mismatch("effects", said("a map of character to {field: delta}",
                                           "une table de personnage à {champ: écart}"))
        sheets = event.get("target_sheets") or {}
        host = self._host()
        for name, delta in effects.items():
            if name not in (event.get("targets") or ()):
                raise Mismatch("effects", said(f"'{name}' is not a target of the roll",
                                               f"« {name} » n'est pas une cible du jet"))
            character = self.characters.get(name)
            if character is None:
                raise wrong("effects", f"no character '{name}' at this table")
            values = dict(character["values"])
            schema = host.sheet_schema(character["ruleset"]) if host is not None else {}
            for field, amount in delta.items():
                spec = schema.get(field, {})
                values[field] = values.get(field, spec.get("default", 0)) + amount
                low, high = spec.get("min"), spec.get("max")
                if (low is not None and values[field] < low) \
                        or (high is not None and values[field] > high):
                    raise Mismatch("effects", said(
                        f"'{name}': {field} would leave its bounds",
                        f"« {name} » : {field} sortirait de ses bornes"))
            character["values"] = values
            told = sheets.get(name)
            if isinstance(told, dict) and told.get("values", values) != values:
                raise Mismatch("target_sheets", said(
                    f"'{name}': its effects leave {_short(values)}",
                    f"« {name} » : ses effets laissent {_short(values)}"))

    def _author(self, event: dict[str, Any], wrong: Callable[[str, str], Mismatch],
                gap: bool) -> None:
        """A roll's author: a seat of the table (with its id, in an export), the asked
        seat when it answers an ask, with the ask's roll. (A player's log has no seat
        event: its seats are not known there.)"""
        by = event["by"]
        seat = by.get("seat")
        if seat and not (gap and by["name"] not in self.seats):
            if by["name"] not in self.seats:
                raise Mismatch("by", said(f"'{by['name']}' has no seat at this table",
                                          f"« {by['name']} » n'a pas de place à cette "
                                          "table"))
            known = self.seats[by["name"]]
            if isinstance(seat, str) and known is not None and seat != known:
                raise Mismatch("by", said(f"'{by['name']}' is not the seat of this id",
                                          f"« {by['name']} » n'est pas la place de cet "
                                          "identifiant"))
        ask_id = event.get("answers")
        if ask_id is None:
            return
        entry = self.asks.get(ask_id)
        if entry is None:
            raise wrong("answers", said(f"no ask '{ask_id}' open at this table (unknown, "
                                        "cancelled or answered by all)",
                                        f"aucune demande « {ask_id} » ouverte à cette table "
                                        "(inconnue, annulée ou répondue par tous)"))
        ask = entry["event"]
        # (A GM answers a GM's NPC's side, as that character: never without it.)
        target = side_for(ask["to"], by["name"], gm=by.get("role") == "gm", seated=bool(seat),
                          character=event.get("character") or "")
        if target is None:
            raise Mismatch("by", said(f"'{by['name']}' was not asked (ask {ask_id})",
                                      f"« {by['name']} » n'a pas été sollicité (demande "
                                      f"{ask_id})"))
        if side_key(target) in entry["answered"]:
            who = side_key(target)
            raise Mismatch("answers", said(f"'{who}' already answered ask {ask_id}",
                                           f"« {who} » a déjà répondu à la demande "
                                           f"{ask_id}"))
        expected = {"ruleset": ask["ruleset"], "label": ask["label"],
                    "mode": ask["roll_mode"], "options": ask.get("options") or {},
                    "asked_params": target.get("params") or ask["params"]}
        stored = {"ruleset": event["ruleset"], "label": event["label"],
                  "mode": event["mode"], "options": event.get("options") or {},
                  "asked_params": event.get("asked_params", event["params"])}
        for key, value in expected.items():
            if stored[key] != value:
                field = "params" if key == "asked_params" else key
                raise Mismatch(field, said(
                    f"an answer to ask {ask_id} is rolled as asked: {_short(value)}, not "
                    f"{_short(stored[key])}", f"une réponse à la demande {ask_id} se lance "
                    f"comme demandé : {_short(value)}, pas {_short(stored[key])}"))
        if target.get("character") and event.get("character") != target["character"]:
            raise Mismatch("character", said(
                f"ask {ask_id} asked '{by['name']}' to roll as '{target['character']}'",
                f"la demande {ask_id} demandait à « {by['name']} » de lancer en tant que "
                f"« {target['character']} »"))

    def _decision(self, event: dict[str, Any], faces: list[list[int]],
                  wrong: Callable[[str, str], Mismatch]) -> dict[str, Any]:
        """The open roll a decision is taken on, after checking the decision against it."""
        opened = self.open.get(event["roll"])
        if opened is None or opened["seq"] != event["reacts_to"]:
            raise wrong("reacts_to", said(
                f"roll {event['roll']} is not open at seq {event['reacts_to']} (unknown, or "
                "already decided)", f"le jet {event['roll']} n'est pas ouvert au seq "
                f"{event['reacts_to']} (inconnu, ou déjà décidé)"))
        for key in ("by", "ruleset", "params", "label", "mode", "answers"):
            if event.get(key) != opened.get(key):
                raise Mismatch(key, said(
                    f"a decision keeps its roll's {key} ({_short(opened.get(key))})",
                    f"une décision garde le {key} de son jet ({_short(opened.get(key))})"))
        if event.get("character") not in (None, opened.get("character")):
            made_as = _short(opened.get("character"))
            raise Mismatch("character", said(f"the roll was made as {made_as}",
                                             f"le jet a été fait en tant que {made_as}"))
        choice, reactor = event.get("choice"), event.get("reacted_by")
        default = opened.get("default")
        if choice is None:
            # The server closes a roll with no choice when its time runs out: one without a
            # default, or one whose default could not be taken (then noted on it).
            if reactor is not None or (default is not None
                                       and len(event.get("notes") or ())
                                       != len(opened["notes"]) + 1):
                raise Mismatch("choice", said(
                    "only the server closes a roll with no choice, when its time runs out: "
                    "without a default, or noting why its default could not be taken",
                    "seul le serveur ferme un jet sans choix, quand son temps est écoulé : "
                    "sans défaut, ou en notant pourquoi son défaut n'a pas pu être pris"))
            return opened
        offered = {c["name"]: c for c in opened.get("choices") or []}
        if choice not in offered:
            listed = ", ".join(offered)
            raise Mismatch("choice", said(f"'{choice}' was not offered (offered: {listed})",
                                          f"« {choice} » n'était pas proposé (proposés : "
                                          f"{listed})"))
        if reactor is None:
            if choice != default:
                raise Mismatch("choice", said(
                    f"the server takes the default ('{default}') when time runs out, not "
                    "this one", f"le serveur prend le défaut (« {default} ») quand le "
                    "temps est écoulé, pas celui-ci"))
        elif reactor.get("role") != "gm":
            if opened.get("mode") == "blind":
                # Its roller does not know how it fell: the server lets only a GM decide.
                raise Mismatch("reacted_by", said("only a GM decides a blind roll",
                                                  "seul un MJ décide d'un jet à l'aveugle"))
            character = self.characters.get(opened.get("character") or "") or {}
            if not may_decide(role=reactor.get("role", ""), mode=opened.get("mode", ""),
                              roller=identity(reactor) == identity(opened["by"]),
                              plays=bool(reactor.get("seat"))
                              and character.get("owner") == reactor.get("name")):
                raise Mismatch("reacted_by", said(
                    "only the roller, a GM, or the character's player on a public roll "
                    "decides it", "seuls celui qui a lancé, un MJ, ou le joueur du "
                    "personnage sur un jet public en décident"))
            if offered[choice].get("gm") is True:
                raise Mismatch("choice", said(f"only a GM takes '{choice}'",
                                              f"seul un MJ prend « {choice} »"))
        drawn = {len(candidate) for candidate in faces}
        wanted = offered[choice].get("dice", 0)
        if drawn and wanted not in drawn:
            raise Mismatch("choice", said(
                f"'{choice}' draws {wanted} dice, this decision drew {min(drawn)}",
                f"« {choice} » tire {wanted} dés, cette décision en a tiré {min(drawn)}"))
        return opened

    def _character(self, event: dict[str, Any], opened: dict[str, Any] | None,
                   wrong: Callable[[str, str], Mismatch]) -> dict[str, Any] | None:
        """The values of the character a roll is made as, as they stand before it."""
        name = event.get("character")
        if name is None:
            return None
        character = self.characters.get(name)
        if character is None:
            raise wrong("character", _no_character(name))
        if character["ruleset"] != event["ruleset"]:
            raise Mismatch("character", said(f"'{name}' plays {character['ruleset']}",
                                             f"« {name} » joue à {character['ruleset']}"))
        if opened is None:
            by = event["by"]
            if by.get("role") != "gm" and not (by.get("seat")
                                               and character["owner"] == by["name"]):
                owner = character["owner"]
                raise Mismatch("by", said(
                    f"'{name}' is {owner or 'nobody'}'s character, not {by['name']}'s (only "
                    "its seat or a GM rolls as it)", f"« {name} » est le personnage "
                    + (f"de la place « {owner} »" if owner else "de personne")
                    + f", pas de « {by['name']} » (seuls sa place ou un MJ lancent en tant "
                    "que lui)"))
            if event["mode"] == "self":
                raise Mismatch("mode", said("a roll as a character is never 'self'",
                                            "un jet en tant que personnage n'est jamais "
                                            "« Moi seul »"))
        if not isinstance(event.get("spent"), dict) or not isinstance(event.get("sheet"),
                                                                      dict):
            raise Mismatch("spent", said(
                "a roll as a character records what it spent and the values it left "
                "(spent, sheet)", "un jet en tant que personnage note ce qu'il a dépensé et "
                "les valeurs qu'il a laissées (spent, sheet)"))
        return character["values"]

    def _closed(self, event: dict[str, Any], opened: dict[str, Any],
                values: dict[str, Any] | None) -> None:
        """A roll closed as it stood when its time ran out: nothing drawn, nothing new."""
        # (A roll whose default could not be taken also notes why, after its notes.)
        notes = opened["notes"] + list(event.get("notes") or ())[len(opened["notes"]):][:1]
        expected = {"dice": [], "result": opened["result"], "applied": opened["applied"],
                    "notes": notes}
        if values is not None:
            expected.update(spent={}, sheet=values)
        for key, value in expected.items():
            if event.get(key) != value:
                raise Mismatch(key, said(
                    "a roll closed when its time ran out keeps its result as it stood and "
                    "draws nothing", "un jet fermé quand son temps est écoulé garde son "
                    "résultat tel quel et ne tire rien"))

    # -- the rules, again ----------------------------------------------------------------

    def _host(self) -> PluginHost | None:
        pipeline = self._pipeline(None)
        return pipeline.host if pipeline is not None else None

    def _pipeline(self, settings: dict[str, Any] | None) -> RollPipeline | None:
        """The pipeline with the plugins the server ran (as its epoch's settings say;
        every installed one when they do not)."""
        if self.host_factory is None:
            return None
        if () not in self._pipelines:
            self._pipelines[()] = RollPipeline(self.host_factory(()))
        ran = (settings or {}).get("plugins")
        if not isinstance(ran, dict):
            return self._pipelines[()]
        left_out = tuple(sorted(set(self._pipelines[()].host.plugins) - set(ran)))
        if left_out not in self._pipelines:
            self._pipelines[left_out] = RollPipeline(self.host_factory(left_out))
        return self._pipelines[left_out]

    def _rerun(self, event: dict[str, Any], opened: dict[str, Any] | None,
               values: dict[str, Any] | None, settings: dict[str, Any] | None,
               faces: list[list[int]], manual: tuple[bool, ...], gap: bool) -> Resolution:
        pipeline = self._pipeline(settings)
        if pipeline is None:
            raise Unchecked("result", NOT_RERUN)
        host = pipeline.host
        ruleset = event["ruleset"]
        if ruleset not in host.rulesets:
            raise Unchecked("result", _not_installed("ruleset", ruleset))
        options = (opened or event).get("options") or {}
        missing = sorted({*event.get("applied", []), *options} - set(host.plugins))
        if missing:
            raise Unchecked("applied", _not_installed("extension", missing[0]))
        failed = [note for note in event.get("notes", []) if FAILED_NOTE in localized(note, "en")]
        if failed:
            raise Unchecked("result", said(
                "an extension failed on the server on this roll (its note says so): what "
                "it would have done is unknown", "une extension a échoué sur le serveur "
                "pour ce jet (sa note le dit) : ce qu'elle aurait fait est inconnu"))
        first: Mismatch | None = None
        # A player's override of what the sheet supplies is the journal's word only in a
        # roll made before the rule (sidecar.tools.overrides).
        ruled = made_under_rule(event, settings, host) if opened is None else None
        for candidate in faces:
            for by_hand in manual:
                try:
                    resolution = self._resolve(pipeline, event, opened, values, candidate,
                                               by_hand, journaled=ruled is None)
                except ProtocolError as error:
                    if ruled is not None and error.code == "forbidden":
                        # (refused before any die, whatever the faces)
                        raise Mismatch(
                            str((error.details or {}).get("field") or "params"),
                            override_refused(*ruled, error.message,
                                             error.message_fr or error.message)) from None
                    problem: Mismatch | None = Mismatch(
                        "dice" if error.code == "bad_dice" else
                        str((error.details or {}).get("field") or "params"),
                        _refused(error))
                else:
                    problem = self._compare(event, opened, values, resolution)
                if problem is None:
                    return resolution
                first = first or problem
        assert first is not None
        ran = (settings or {}).get("plugins")
        if isinstance(ran, dict):
            owner = host.ruleset_owner(ruleset)
            involved = {owner, *event.get("applied", []), *options} - {None}
            here = host.versions()
            other = sorted(name for name in involved
                           if name in ran and here.get(name) != ran[name])
            if other:
                name = other[0]
                raise Unchecked(first.field, _both(first.why) + said(
                    f" — but the server ran {name} {ran[name]}, this is {here.get(name)}",
                    f" — mais le serveur avait {name} {ran[name]}, celui-ci "
                    f"{here.get(name)}"))
        if gap:
            raise Unchecked(first.field, _both(first.why) + said(
                " (events before it are not in this file: the table's state may have "
                "differed)", " (les événements qui le précèdent ne sont pas dans ce fichier "
                ": l'état de la table a pu être autre)"))
        raise first

    def _resolve(self, pipeline: RollPipeline, event: dict[str, Any],
                 opened: dict[str, Any] | None, values: dict[str, Any] | None,
                 faces: list[int], manual: bool, *, journaled: bool = True) -> Resolution:
        """Resolve ``event`` again (``opened``: the open roll it decides). ``journaled``:
        a player's value overriding the sheet's is taken as the journal's word."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        sheet = deep_copy(values) if values is not None else None
        if opened is None:
            roll = pipeline.prepare(
                event["ruleset"], deep_copy(event.get("asked_params", event["params"])),
                options=deep_copy(event.get("options") or {}), table=event["table"],
                by=dict(event["by"]), label=event["label"], mode=event["mode"],
                manual=manual)
            roll.character, roll.sheet = event.get("character"), sheet
            roll.session, roll.turn = self.session, self.turn
            roll.targets = self._targets(event)
            roll.asked = "answers" in event
            roll.journaled = journaled  # (a player's typed value, accepted then: its word)
            return self._loop.run_until_complete(
                pipeline.run(roll, dice=faces, table_state=self.state))
        roll = Roll(ruleset=opened["ruleset"], params=deep_copy(opened["params"]),
                    options=deep_copy(opened.get("options") or {}), table=opened["table"],
                    by=dict(opened["by"]), label=opened["label"], mode=opened["mode"],
                    manual=manual, character=event.get("character"), sheet=sheet,
                    session=self.session, turn=self.turn, targets=self._targets(event),
                    asked="answers" in opened, removed=self._removed(opened),
                    journaled=True)
        outcome = Outcome(result=deep_copy(opened["result"]), dice=deep_copy(opened["dice"]),
                          notes=list(opened["notes"]), applied=list(opened["applied"]),
                          choices=deep_copy(opened["choices"]), default=opened.get("default"))
        return self._loop.run_until_complete(
            pipeline.react(roll, outcome, event["choice"], faces, self.state))

    def _removed(self, opened: dict[str, Any]) -> tuple[str, ...]:
        """``roll.removed`` of a decision: the open roll's characters removed since."""
        names = [opened["character"]] if opened.get("character") else []
        return tuple(name for name in names + list(opened.get("targets") or ())
                     if name not in self.characters)

    def _targets(self, event: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """``roll.targets`` as the server gave them: their values before this event."""
        return {name: {"ruleset": self.characters[name]["ruleset"],
                       "values": deep_copy(self.characters[name]["values"])}
                for name in event.get("targets") or () if name in self.characters}

    def _compare(self, event: dict[str, Any], opened: dict[str, Any] | None,
                 values: dict[str, Any] | None, resolution: Resolution) -> Mismatch | None:
        """The first field of ``event`` its rules do not give (``None``: all of them)."""
        outcome = resolution.outcome
        params = resolution.roll.params
        if opened is None and params != event["params"]:
            key = _first_difference(event["params"], params)
            made, stored = _short(params.get(key)), _short(event["params"].get(key))
            return Mismatch(f"params.{key}", said(
                f"its extensions make it {made}, not {stored}",
                f"ses extensions en font {made}, pas {stored}"))
        if outcome.dice != event["dice"]:
            faces = [d.get("face") for d in outcome.dice]
            if faces != [d.get("face") for d in event["dice"]]:
                return Mismatch("dice", said(
                    f"its rules show {len(faces)} dice {_short(faces)}",
                    f"ses règles montrent {len(faces)} dés {_short(faces)}"))
            index = next(i for i, die in enumerate(outcome.dice) if die != event["dice"][i])
            shown, stored = _short(outcome.dice[index]), _short(event["dice"][index])
            return Mismatch("dice", said(
                f"its rules show die #{index + 1} as {shown}, not {stored}",
                f"ses règles montrent le dé n° {index + 1} ainsi : {shown}, pas {stored}"))
        key = _first_difference(event["result"], outcome.result)
        if key is not None:
            return Mismatch(f"result.{key}", _rules_give(outcome.result.get(key))
                            + said(f", not {_short(event['result'].get(key))}",
                                   f", pas {_short(event['result'].get(key))}"))
        notes, spend = list(outcome.notes), outcome.spend
        if values is not None and spend:
            # As the server does (contract §7: never refused after the dice): a spend the
            # sheet cannot pay whole is taken as far as it holds, and a note says so.
            spend, notes = self._held(event["character"], values, spend, notes)
        for name, value in (("applied", outcome.applied), ("notes", notes)):
            if event.get(name, []) != value:
                return Mismatch(name, _rules_give(value))
        if values is not None:
            spent = {name: amount for name, amount in spend.items() if amount}
            if event["spent"] != spent:
                return Mismatch("spent", said(f"its rules spend {_short(spent)}",
                                              f"ses règles dépensent {_short(spent)}"))
            character = self.characters[event["character"]]
            after = self._spend(character, spend) if spend else values
            if event["sheet"] != after:
                return Mismatch("sheet", said(f"the values left are {_short(after)}",
                                              f"les valeurs laissées sont {_short(after)}"))
        if "targets" in event:
            problem = self._compare_effects(event, outcome.effects)
            if problem is not None:
                return problem
        choices = outcome.choices
        if bool(event.get("open")) != (choices is not None) \
                or event.get("choices") != choices \
                or (choices is not None and event.get("default") != outcome.default):
            return Mismatch("choices", said(f"its rules offer {_short(choices)}",
                                            f"ses règles proposent {_short(choices)}"))
        text = event.get("text")
        written = said(f"its rules write {_short(resolution.text)}",
                       f"ses règles écrivent {_short(resolution.text)}")
        if isinstance(text, dict) and text != resolution.text:
            return Mismatch("text", written)
        if isinstance(text, str) and text not in resolution.text.values():
            return Mismatch("text", written)
        return None

    def _compare_effects(self, event: dict[str, Any], effects: Any) -> Mismatch | None:
        """The effects the server applied: the rules' own, each taken as far as the
        target's bounds allow (never refused)."""
        host = self._host()
        if host is None or not isinstance(effects, dict):
            return None
        applied: dict[str, dict[str, int]] = {}
        for name, delta in effects.items():
            character = self.characters.get(name)
            if character is None or not isinstance(delta, dict):
                return Mismatch("effects", said(f"its rules aim at {_short(name)}",
                                                f"ses règles visent {_short(name)}"))
            schema = host.sheet_schema(character["ruleset"])
            values = dict(character["values"])
            # (the server's rule: `_bounded`, as a spend taken as far as the sheet holds)
            taken, _ = taken_as_far_as_held(schema, values,
                                            {f: -a for f, a in delta.items()})
            cut = {field: -amount for field, amount in taken.items() if amount}
            if cut:
                applied[name] = cut
        if (event.get("effects") or {}) != applied:
            return Mismatch("effects", said(f"its rules do {_short(applied)}",
                                            f"ses règles font {_short(applied)}"))
        return None

    def _held(self, name: str, values: dict[str, Any], spend: dict[str, Any],
              notes: list[str]) -> tuple[dict[str, Any], list[str]]:
        """The spend the server took of ``spend`` (:func:`taken_as_far_as_held`) and the
        notes it journaled (the host's note added when some was not taken)."""
        host = self._host()
        if host is None:
            return spend, notes
        schema = host.sheet_schema(self.characters[name]["ruleset"])
        taken, unpaid = taken_as_far_as_held(schema, values, spend)
        return taken, [*notes, unpaid_note(unpaid)] if unpaid else notes

    # -- asks ----------------------------------------------------------------------------

    def _answered(self, event: dict[str, Any], opened: dict[str, Any] | None,
                  wrong: Callable[[str, str], Mismatch]) -> None:
        """An answer's side of its ask (as the server keeps it); once every side answered
        and none waits for a decision, the ask's verdict, which the event must carry."""
        ask_id = event.get("answers")
        entry = self.asks.get(ask_id) if ask_id is not None else None
        expected: dict[str, Any] = {}
        if entry is not None:
            ask = entry["event"]
            by = event["by"]
            target = side_for(ask["to"], by["name"], gm=by.get("role") == "gm",
                              seated=bool(by.get("seat")), character=event.get("character") or "")
            if target is None:
                return  # (a decision on an answer whose ask no longer names it)
            as_character = target.get("character") if opened is None else event.get("character")
            result = event["result"]
            side = {"seat": target["seat"], "character": as_character, "seq": event["seq"],
                    "roll": event["roll"], "open": bool(event.get("open")),
                    "success": bool(result.get("success")), "margin": result.get("margin", 0)}
            if isinstance(result.get("label"), dict):
                side["label"] = result["label"]
            answered = {**entry["answered"], side_key(target): side}
            settled = (len(answered) == len(ask["to"])
                       and not any(other["open"] for other in answered.values()))
            if settled:
                del self.asks[ask_id]
                sides = [answered[side_key(t)] for t in ask["to"]]
                if ask.get("opposed"):
                    expected["opposition"] = oppose(ask_id, sides)
                elif ask.get("cooperative"):
                    expected["cooperation"] = cooperate(ask_id, sides)
            else:
                entry["answered"] = answered
        elif ask_id is not None and opened is None:
            return  # (said by _author)
        for key in ("opposition", "cooperation"):
            if event.get(key) not in _older_forms(expected.get(key)):
                if entry is None:
                    raise wrong(key, said("its ask is not open here",
                                          "sa demande n'est pas ouverte ici"))
                raise Mismatch(key, said(
                    f"its ask's answers give {_short(expected.get(key))}",
                    f"les réponses à sa demande donnent {_short(expected.get(key))}"))


#: What an opposition or a cooperation tells since the GM's NPCs may answer an ask (issue
#: 29 follow-up): a journal written before holds its verdict without them.
NAMED_WINNER = ("winner_character", "best_character")


def _older_forms(judged: dict[str, Any] | None) -> list[dict[str, Any] | None]:
    """``judged`` as the journal holds it now, and as older journals hold the same
    verdict: without its sides' ``label``, without its winner's character, or both."""
    if not isinstance(judged, dict):
        return [judged]
    unnamed = {key: value for key, value in judged.items() if key not in NAMED_WINNER}
    return [judged, _unlabelled(judged), unnamed, _unlabelled(unnamed)]


def _unlabelled(judged: dict[str, Any] | None) -> dict[str, Any] | None:
    """An opposition or cooperation as a journal older than its sides' ``label``
    (issue 29) holds it: the same judgement, without them."""
    if not isinstance(judged, dict):
        return judged
    return {**judged, "sides": [{key: value for key, value in side.items() if key != "label"}
                                for side in judged.get("sides") or ()]}
