"""Checking verifiable dice: an ``export`` or a client's saved log, event by event.

:func:`check` reads events in order (raw journal events of ``sidecar export``, or the
messages a client received: ``welcome``, ``epoch``, ``outcome``, ``history`` pages) and
stops at the first one that does not check, naming its ``seq``, its roll and the field:

- events are in strictly increasing ``seq`` order (a client's log may hold an event
  again, from a history page: it must be the same one); an export's are 1, 2, 3… with none
  missing;
- an epoch's revealed seed hashes to the commitment announced before its rolls (the Merkle
  root of :mod:`sidecar.dice.provable`), and its settings (whether players may enter dice, the
  plugins its rolls were resolved by) are those it opened with, those its seed derives from;
- every roll made while an epoch was open is proven or entered by hand: a proof names that
  epoch's commitment, its position is the next of the epoch (the rolls that drew before it:
  none missing in an export; in an older epoch, its seq after the one that opened it), and
  its dice are exactly those the derivation gives (from the seed, or from the roll's own
  leaf key and path to the commitment, which a player's log holds) — a decision's, those
  of its open roll and then its own; dice entered by hand are a GM's, or a player's where
  the epoch's settings allow it, and name who entered them;
- with a :class:`~sidecar.tools.replay.Replay` holding plugins, every roll is resolved again and
  every field its rules compute is compared (see :mod:`sidecar.tools.replay`), as is what the
  server decides around them.

A roll's author (``by``) and ``mode`` enter no derivation: they are checked only against
what a roll follows (a decision's open roll, an answer's ask); a plain roll's are the
journal's word, and :attr:`Report.journal_word` counts them for the output to say so.

What cannot be checked is reported, never passed over (:attr:`Report.unchecked`): results
whose rules are not installed, a player's dice under an epoch that does not say whether
players could enter them, rolls made while no epoch was open (the server's dice were not
provable then)…
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sidecar.dice.provable import faces_of, leaf_key, root_from_path, settings_seed, tree
from sidecar.tools.replay import Mismatch, Replay, Unchecked
from sidecar.tools.words import in_locale, said


class Bad(Exception):
    """The first event that does not check: its seq, its roll and the field."""

    def __init__(self, seq: Any, why: str, *, roll: str | None = None,
                 field: str | None = None) -> None:
        self.seq, self.why, self.roll, self.field = seq, why, roll, field
        super().__init__(describe(seq, roll, field, why))

    def said(self, locale: str) -> str:
        """What went wrong, in ``locale`` (``str(bad)`` is the English)."""
        return describe(self.seq, self.roll, self.field, self.why, locale)


def describe(seq: Any, roll: str | None, field: str | None, why: str,
             locale: str = "en") -> str:
    """``seq 7: roll 3fa2…, field dice: why`` (what is known of it); in French
    (``locale="fr"``) « seq 7 : jet 3fa2…, champ dice : pourquoi »."""
    fr = locale == "fr"
    where = ", ".join(part for part in (
        f"{'jet' if fr else 'roll'} {roll}" if roll else "",
        f"{'champ' if fr else 'field'} {field}" if field else "") if part)
    colon = " : " if fr else ": "
    why = in_locale(why, locale)
    if isinstance(seq, str):  # « ? (ligne 1) »: a line where no seq could be read
        seq = in_locale(seq, locale)
    return f"seq {seq}{colon}{where}{colon}{why}" if where else f"seq {seq}{colon}{why}"


@dataclass
class Report:
    """What a check found: rolls whose faces checked, manual rolls, rolls whose epoch is
    not revealed yet, rolls whose computed fields were re-run, and what was not checked."""

    checked: int = 0
    manual: int = 0
    waiting: list[Any] = field(default_factory=list)
    rerun: int = 0
    epochs: set[int] = field(default_factory=set)
    #: ``(seq, roll, field, why)`` of everything that could not be checked.
    unchecked: list[tuple[Any, str | None, str, str]] = field(default_factory=list)
    rolls: int = 0
    #: Rolls whose author (``by``) and ``mode`` were checked against what they follow: a
    #: decision's against its open roll, an answer's against the ask (and the asked seat).
    followed: int = 0
    #: Rolls that answer no ask and decide nothing: their ``by`` and ``mode`` are in no
    #: derivation and no proof, so they are the journal's word (only a seat's existence,
    #: a character's owner, and — through the re-run — what the rules read of them, such
    #: as the name in ``text``, are checked).
    journal_word: int = 0

    #: Whether the file is an export (see :data:`EXPORT_LIMITS`).
    export: bool = False


#: What an export alone cannot show (printed with every export's verdict, in the reader's
#: language): the holder of the revealed seed could rewrite these consistently; players'
#: saved logs are the check.
EXPORT_LIMITS = {
    "fr": "ce qu'un export seul ne peut montrer : des événements retirés de la fin d'une "
          "époque (sa révélation renumérotée), un événement remplacé par un autre qui ne "
          "change rien de ce que lisent les règles (une fiche remise à ses propres "
          "valeurs…), et la graine client de chaque jet (la parole du serveur ici) — la "
          "parade : les journaux que les joueurs ont gardés eux-mêmes, `sidecar verify "
          "EXPORT --log JOURNAL_DU_JOUEUR` compare l'export à ce que ce joueur a reçu",
    "en": "what an export alone cannot show: events dropped from the end of an epoch (its "
          "reveal renumbered), an event replaced by one that changes nothing the rules "
          "read (a sheet set to its own values…), and each roll's client seed (the "
          "server's word here) — the defense is the players' own saved logs: `sidecar "
          "verify EXPORT --log PLAYER_LOG` checks the export against what that player "
          "received",
}


class OwnSeeds:
    """A client's log: whose it is (``welcome.epoch.by``; from a server that did not say,
    the roller of the live copies answering its requests: they echo their ``id``) and the
    client seed each of its ``welcome`` gave
    (``welcome.epoch.client``). The server draws that member's dice with that seed: a
    roll of theirs showing another was drawn with a seed the server chose."""

    def __init__(self, owner: tuple[Any, Any] | None, spans: list[tuple[int, str]]) -> None:
        self.owner, self.spans = owner, spans

    @classmethod
    def of(cls, seen: dict[int, dict[str, Any]], welcomes: list[dict[str, Any]]) -> OwnSeeds:
        spans = sorted((w["seq"], w["epoch"]["client"]) for w in welcomes
                       if isinstance(w.get("seq"), int)
                       and isinstance((w.get("epoch") or {}).get("client"), str))
        said = {(w["epoch"]["by"].get("name"), w["epoch"]["by"].get("role"))
                for w in welcomes if isinstance((w.get("epoch") or {}).get("by"), dict)}
        roles = {w.get("role") for w in welcomes}
        owners = said or {(e["by"].get("name"), e["by"].get("role")) for e in seen.values()
                          if e.get("type") == "outcome" and e.get("id") is not None
                          and not e.get(PAGE) and e.get("reacts_to") is None
                          and isinstance(e.get("by"), dict) and e["by"].get("role") in roles}
        return cls(owners.pop() if len(owners) == 1 else None, spans)

    def check(self, event: dict[str, Any], opened: dict[str, Any] | None,
              report: Report) -> None:
        """Whether ``event`` (``opened``: the open roll it decides) drew with the seed of
        the log's owner when it is theirs."""
        proof = event.get("proof")
        by = event.get("by") or {}
        if (self.owner is None or not self.spans or not isinstance(proof, dict)
                or "client" not in proof or (by.get("name"), by.get("role")) != self.owner):
            return
        seq = event["seq"]
        given = [client for at, client in self.spans if at < seq]
        if opened is not None and "client" in (opened.get("proof") or {}):
            # A decision draws with its open roll's seed (checked with that roll).
            given = [opened["proof"]["client"]]
        if not given:
            report.unchecked.append((seq, event.get("roll"), "proof.client", said(
                "made before this log's first welcome: the client seed of that connection "
                "is not in this file", "fait avant le premier welcome de ce journal : la "
                "graine client de cette connexion n'est pas dans ce fichier")))
        elif proof["client"] != given[-1]:
            client = repr(str(proof["client"])[:64])
            raise Bad(seq, said(f"drawn with the client seed {client}, not this log's own "
                                "(welcome.epoch.client): the server chose it",
                                f"tiré avec la graine client {client}, pas celle de ce "
                                "journal (welcome.epoch.client) : le serveur l'a choisie"),
                      roll=event.get("roll"), field="proof.client")


#: Marks the events that came in a ``history`` page (see :func:`events_of`).
PAGE = "_from_history"


def events_of(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The events of a JSON Lines file: one event (or message) per line; a ``history``
    page stands for its events. Every journaled event (one with a ``seq``: seats, sheets,
    asks… too) is kept, since each takes its place in the epoch's positions; messages
    without one (presence, errors…) are skipped."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = said(f"? (line {number})", f"? (ligne {number})")  # (no seq read)
        try:
            message = json.loads(line)
        except ValueError:
            raise Bad(where, said("not JSON", "pas du JSON")) from None
        if not isinstance(message, dict):
            raise Bad(where, said("not an event", "pas un événement"))
        if message.get("type") == "history":
            for event in message.get("events", []):
                yield {**event, PAGE: True}
        elif message.get("type") == "welcome" or isinstance(message.get("seq"), int):
            yield message


def interleaves(shown: list[tuple[Any, Any]], first: list[tuple[Any, Any]],
                second: list[tuple[Any, Any]]) -> bool:
    """Whether ``shown`` is exactly ``first`` and ``second`` merged, each in its order
    (a decision shows its open roll's dice and its own, each ruleset in its order)."""
    if len(shown) != len(first) + len(second):
        return False
    reachable = {0}  # how many of `first` were taken, after each die shown
    for index, die in enumerate(shown):
        reachable = {i + 1 for i in reachable if i < len(first) and first[i] == die} | {
            i for i in reachable if index - i < len(second) and second[index - i] == die}
        if not reachable:
            return False
    return True


def new_faces(shown: list[int], earlier: list[int], limit: int = 16) -> list[list[int]]:
    """The faces a decision may have added to its open roll's (``earlier``): all it shows
    (a ruleset may show only the new ones), or ``shown`` without ``earlier`` taken out in
    order, every way it can be (at most ``limit``)."""
    found: list[list[int]] = []

    def walk(i: int, j: int, rest: list[int]) -> None:
        if len(found) >= limit:
            return
        if j == len(earlier):
            found.append(rest + shown[i:])
            return
        if i == len(shown):
            return
        if shown[i] == earlier[j]:
            walk(i + 1, j + 1, rest)
        walk(i + 1, j, [*rest, shown[i]])

    walk(0, 0, [])
    return [shown, *(faces for faces in found if faces != shown)]


@dataclass
class Epochs:
    """What the file says of its epochs: commitments, settings, seeds, the seq that
    opened each, and when each was open (an epoch is open from the event that opens it
    until its reveal)."""

    commitments: dict[int, str] = field(default_factory=dict)
    settings: dict[int, Any] = field(default_factory=dict)
    seeds: dict[int, bytes] = field(default_factory=dict)
    bases: dict[int, int] = field(default_factory=dict)
    #: (seq, epoch open after it or None), in seq order.
    changes: list[tuple[int, int | None]] = field(default_factory=list)
    #: Positions used so far, by epoch (epochs whose positions count the rolls that drew).
    drawn: dict[int, int] = field(default_factory=dict)
    #: (seq of the reveal, epoch) of epochs whose settings no nonce binds to the seed.
    unbound: list[tuple[int, int]] = field(default_factory=list)

    def announce(self, seq: Any, epoch: dict[str, Any]) -> None:
        number = epoch["number"]
        if self.commitments.setdefault(number, epoch["commitment"]) != epoch["commitment"]:
            raise Bad(seq, said(f"epoch {number} changed its commitment",
                                f"l'époque {number} a changé d'engagement"), field="epoch")
        if "settings" in epoch:
            if self.settings.setdefault(number, epoch["settings"]) != epoch["settings"]:
                raise Bad(seq, said(f"epoch {number} changed its settings",
                                    f"l'époque {number} a changé de réglages"),
                          field="settings")

    def open_at(self, seq: int) -> tuple[bool, int | None]:
        """Whether the file says which epoch was open at ``seq``, and which (``None``:
        none)."""
        known, number = False, None
        for at, opened in self.changes:
            if at >= seq:
                break
            known, number = True, opened
        return known, number


def _epochs(seen: dict[int, dict[str, Any]], welcomes: list[dict[str, Any]]) -> Epochs:
    epochs = Epochs()
    for welcome in welcomes:
        if welcome.get("epoch"):
            epochs.announce("welcome", welcome["epoch"])
            if isinstance(welcome.get("seq"), int):
                epochs.changes.append((welcome["seq"], welcome["epoch"]["number"]))
    for seq in sorted(seen):
        event = seen[seq]
        if event.get("type") != "epoch":
            continue
        epoch = event["epoch"]
        epochs.announce(seq, epoch)
        number = epoch["number"]
        if event.get("op") == "start":
            epochs.bases.setdefault(number, seq)
            epochs.changes.append((seq, number))
        elif event.get("op") == "reveal":
            nxt = event.get("next")
            if nxt:
                epochs.announce(seq, nxt)
                epochs.bases.setdefault(nxt["number"], seq)
            epochs.changes.append((seq, nxt["number"] if nxt else None))
            base = epochs.bases.get(number)
            if base is not None and event.get("events") != seq - base - 1:
                # (What a truncation that renumbers its reveal leaves right: said above.)
                count = seq - base - 1
                raise Bad(seq, said(f"epoch {number} numbered {count} events between the "
                                    "one that opened it and its reveal",
                                    f"l'époque {number} a numéroté {count} événements entre "
                                    "celui qui l'a ouverte et sa révélation"),
                          field="events")
            if "seed" in event:
                seed = bytes.fromhex(event["seed"])
                if tree(seed).root != epochs.commitments[number]:
                    raise Bad(seq, said(f"the seed of epoch {number} is not the one "
                                        "committed", f"la graine de l'époque {number} n'est "
                                        "pas celle de son engagement"), field="seed")
                _bound(seq, event, number, seed, epochs)
                epochs.seeds[number] = seed
    epochs.changes.sort(key=lambda change: change[0])
    return epochs


def same_event(event: dict[str, Any]) -> dict[str, Any]:
    """What two copies of one event in a client's log share: all of it but the history
    page's mark, the request id a live copy echoes, and the key and path a history page
    adds to a proof after the reveal."""
    kept = {k: v for k, v in event.items() if k not in (PAGE, "id", "duplicate")}
    if isinstance(kept.get("proof"), dict):
        kept["proof"] = {k: v for k, v in kept["proof"].items() if k not in ("key", "path")}
    return kept


def _bound(seq: int, event: dict[str, Any], number: int, seed: bytes, epochs: Epochs) -> None:
    """The revealed seed derives from the nonce and the settings the epoch announced
    (:func:`~sidecar.dice.provable.settings_seed`): settings changed afterwards (players'
    dice allowed, say) would need another seed, hence another commitment and other faces
    for every roll of the epoch. A reveal without a nonce leaves them unbound (said)."""
    settings = epochs.settings.get(number)
    if "nonce" not in event:
        if settings is not None:
            epochs.unbound.append((seq, number))
        return
    if settings is None:
        raise Bad(seq, said(f"epoch {number} has a nonce but announced no settings",
                            f"l'époque {number} a un nonce mais n'a annoncé aucun réglage"),
                  field="settings")
    if settings_seed(bytes.fromhex(event["nonce"]), settings) != seed:
        raise Bad(seq, said(f"the seed of epoch {number} is not derived from the settings "
                            "it announced (they were changed)", f"la graine de l'époque "
                            f"{number} ne vient pas des réglages annoncés (ils ont été "
                            "changés)"), field="settings")


def read_events(events: Iterable[dict[str, Any]]) -> tuple[dict[int, dict[str, Any]],
                                                     list[dict[str, Any]], bool]:
    """The events by seq (each once), the welcomes, and whether the file is an export."""
    seen: dict[int, dict[str, Any]] = {}
    welcomes = []
    last = 0
    for event in events:
        kind = event.get("type")
        if kind == "welcome":
            welcomes.append(event)
            continue
        seq = event.get("seq")
        if not isinstance(seq, int):
            raise Bad(seq, said("no seq", "pas de seq"), roll=event.get("roll"), field="seq")
        if seq in seen:
            # A client's log holds some events twice (live, then in a history page
            # that adds each roll's key after the reveal): the very same event. Anywhere
            # else (an export, the live lines of a log) a seq is there once.
            first = seen[seq]
            if not (event.get(PAGE) or first.get(PAGE)):
                raise Bad(seq, said("this seq is there twice (each event has its own)",
                                    "ce seq est là deux fois (chaque événement a le sien)"),
                          roll=event.get("roll"), field="seq")
            if same_event(first) != same_event(event):
                raise Bad(seq, said("two different events have this seq",
                                    "deux événements différents ont ce seq"),
                          roll=event.get("roll"), field="seq")
            if "key" in (event.get("proof") or {}):
                first["proof"] = event["proof"]
            continue
        if not event.get(PAGE):
            # Lines of an export, live messages of a log: in seq order (a history page
            # may bring back earlier events a client did not receive live).
            if seq <= last:
                raise Bad(seq, said(f"out of order (after seq {last})",
                                    f"dans le désordre (après le seq {last})"),
                          roll=event.get("roll"), field="seq")
            last = seq
        seen[seq] = dict(event)
    outcomes = [e for e in seen.values() if e.get("type") == "outcome"]
    export = bool(outcomes) and all(isinstance(e.get("text"), dict) for e in outcomes)
    if export:
        # An export (its outcomes keep both languages' texts) holds every event: seqs
        # 1, 2, 3… with none missing (a missing one could hide a roll drawn and dropped).
        for expected, seq in enumerate(sorted(seen), 1):
            if seq != expected:
                raise Bad(seq, said(f"seq {expected} is missing before it",
                                    f"le seq {expected} manque avant lui"),
                          roll=seen[seq].get("roll"), field="seq")
    return seen, welcomes, export


def check(events: Iterable[dict[str, Any]], *, replay: Replay | None = None) -> Report:
    """Check ``events`` in order; raises :class:`Bad` at the first that does not check.

    ``replay``: re-runs each roll with its plugins (``None``: a replay without plugins,
    which checks what the server decides around the rules and says results not re-run)."""
    seen, welcomes, export = read_events(events)
    epochs = _epochs(seen, welcomes)
    report = Report(export=export)
    for seq, number in epochs.unbound:
        report.unchecked.append((seq, None, "settings", said(
            f"epoch {number}'s settings are not bound to its seed (its reveal has no nonce: "
            "opened before seeds were derived from them)", f"les réglages de l'époque "
            f"{number} ne sont pas liés à sa graine (sa révélation n'a pas de nonce : ouverte "
            "avant que les graines en dérivent)")))
    seeds = OwnSeeds.of(seen, welcomes)
    own = replay is None
    replay = replay if replay is not None else Replay(None)
    gap = False
    previous = 0
    try:
        for seq in sorted(seen):
            event = seen[seq]
            # Once an event is missing (hidden from a log's reader), the table's state
            # after it is not all known here.
            gap = gap or seq != previous + 1
            previous = seq
            if event.get("type") == "outcome" and event.get("result") == {"hidden": True}:
                gap = True  # a blind roll's roller sees that it happened, not how
                continue
            roll = event.get("roll")
            try:
                if event.get("type") == "outcome":
                    report.rolls += 1
                    if event.get("reacts_to") is not None or event.get("answers") is not None:
                        report.followed += 1
                    else:
                        report.journal_word += 1
                    faces, manual, settings = _proven(event, seen, epochs, report, export)
                    seeds.check(event, seen.get(event["reacts_to"]) if event.get(
                        "reacts_to") is not None else None, report)
                    if replay.take(event, settings=settings, faces=faces, manual=manual,
                                   gap=gap):
                        report.rerun += 1
                else:
                    replay.take(event, gap=gap)
            except Unchecked as why:
                report.unchecked.append((seq, roll, why.field, why.why))
            except Mismatch as bad:
                raise Bad(seq, bad.why, roll=roll, field=bad.field) from None
    finally:
        if own:
            replay.close()
    return report


def _proven(event: dict[str, Any], seen: dict[int, dict[str, Any]], epochs: Epochs,
            report: Report, export: bool
            ) -> tuple[list[list[int]], tuple[bool, ...], dict[str, Any] | None]:
    """Check a roll's proof (or why it has none); returns the candidates for the faces it
    drew, whether they were entered by hand, and its epoch's settings."""
    seq, roll = event["seq"], event.get("roll")
    opened = seen.get(event["reacts_to"]) if event.get("reacts_to") is not None else None
    shown = [(d.get("sides"), d.get("face")) for d in event.get("dice", [])
             if isinstance(d, dict)]
    earlier = [(d.get("sides"), d.get("face")) for d in (opened or {}).get("dice", [])
               if isinstance(d, dict)]
    faces = new_faces([f for _, f in shown], [f for _, f in earlier]) if opened \
        else [[f for _, f in shown]]
    known, number = epochs.open_at(seq)
    settings = epochs.settings.get(number) if number is not None else None
    proof = event.get("proof")
    if proof is None:
        if event.get("reacts_to") is not None and event.get("choice") is None \
                and not event.get("dice"):
            return [[]], (False,), settings  # closed when its time ran out: no die drawn
        if known and number is not None:
            raise Bad(seq, said(f"no proof, though epoch {number} was open: every roll of "
                                "a provable table is proven or marked as entered by hand",
                                f"pas de preuve, alors que l'époque {number} était ouverte : "
                                "chaque jet d'une table prouvable est prouvé ou marqué "
                                "entré à la main"), roll=roll, field="proof")
        report.unchecked.append((seq, roll, "dice", said(
            "no proof: made while no epoch was open (the server's dice were not provable "
            "then)", "pas de preuve : fait quand aucune époque n'était ouverte (les dés du "
            "serveur n'étaient pas prouvables alors)") if export or known else said(
            "no proof, and this file does not say which epoch was open", "pas de preuve, et "
            "ce fichier ne dit pas quelle époque était ouverte")))
        return faces, (False, True), settings
    if proof.get("manual"):
        _entered_by_hand(event, proof, number, settings, report)
        report.manual += 1
        return faces, (True,), settings
    number_of_proof, position = proof["epoch"], proof["position"]
    if known and number_of_proof != number:
        raise Bad(seq, said(f"its proof names epoch {number_of_proof}, epoch {number} was "
                            "open", f"sa preuve nomme l'époque {number_of_proof}, l'époque "
                            f"{number} était ouverte"),
                  roll=roll, field="proof.epoch")
    number = number_of_proof
    settings = epochs.settings.get(number)
    if epochs.commitments.setdefault(number, proof["commitment"]) != proof["commitment"]:
        raise Bad(seq, said(f"not the commitment of epoch {number}",
                            f"pas l'engagement de l'époque {number}"), roll=roll,
                  field="proof.commitment")
    # Positions count the rolls that drew, 0, 1, 2…: in an export (every event) none is
    # missing — a roll taken out, or replaced by another event, leaves a hole — in a log
    # (some hidden from its reader) they only increase. An epoch opened before they did
    # (its settings do not say `positions: drawn`) numbered every event: a position is
    # then the roll's seq after the event that opened its epoch. Either way the server
    # cannot pass one over to draw other faces, nor use one twice.
    expected = epochs.drawn.get(number, 0)
    counted = position == expected if export else position >= expected
    epochs.drawn[number] = position + 1
    if (settings or {}).get("positions") == "drawn":
        if not counted:
            raise Bad(seq, said(f"position {position} in epoch {number}, where the rolls "
                                f"before it drew {expected} (none missing, none twice)",
                                f"position {position} dans l'époque {number}, où les jets "
                                f"d'avant en ont tiré {expected} (aucune ne manque, aucune "
                                "deux fois)"), roll=roll,
                      field="proof.position")
    elif epochs.bases.setdefault(number, seq - position - 1) != seq - position - 1 \
            and not (settings is None and counted):
        raise Bad(seq, said(f"position {position} is not this event's place in epoch "
                            f"{number}", f"la position {position} n'est pas la place de cet "
                            f"événement dans l'époque {number}"),
                  roll=roll, field="proof.position")
    seed = epochs.seeds.get(number)
    if seed is not None:
        key = leaf_key(seed, position)
    elif "key" in proof:
        key = bytes.fromhex(proof["key"])
        if root_from_path(key, position, proof.get("path", [])) != epochs.commitments[number]:
            raise Bad(seq, said("its key does not lead to the epoch's commitment",
                                "sa clé ne mène pas à l'engagement de l'époque"), roll=roll,
                      field="proof.key")
    else:
        report.waiting.append(seq)
        return faces, (False,), settings
    drawn = list(zip(proof["sides"], faces_of(key, str(proof["client"]), position,
                                              list(proof["sides"])), strict=True))
    # Exactly the dice drawn, in order; a decision may show its open roll's dice too
    # (all of them, each in its order): no die added, none moved.
    if shown != drawn and not (opened and interleaves(shown, earlier, drawn)):
        faces_drawn = ", ".join(f"d{s}:{f}" for s, f in drawn)
        raise Bad(seq, said(
            f"{len(shown)} {'die' if len(shown) == 1 else 'dice'} shown, the proof draws "
            f"{len(drawn)} ({faces_drawn})"
            + (f" after the open roll's {len(earlier)}" if opened else "")
            + ": its dice are not the ones derived",
            f"{len(shown)} {'dé montré' if len(shown) < 2 else 'dés montrés'}, la preuve en "
            f"tire {len(drawn)} ({faces_drawn})"
            + (f" après les {len(earlier)} du jet ouvert" if opened else "")
            + " : ses dés ne sont pas ceux qui en dérivent"), roll=roll, field="dice")
    report.checked += 1
    report.epochs.add(number)
    return [[face for _, face in drawn]], (False,), settings


def _entered_by_hand(event: dict[str, Any], proof: dict[str, Any], number: int | None,
                     settings: dict[str, Any] | None, report: Report) -> None:
    """Dice entered by hand: by the roller (or the one deciding), a GM, or a player where
    the epoch's settings let players enter dice."""
    seq, roll = event["seq"], event.get("roll")
    by = proof.get("by") or {}
    author = event.get("reacted_by") if event.get("reacts_to") is not None else event["by"]
    if not author or (by.get("name"), by.get("role")) != (author.get("name"),
                                                          author.get("role")):
        raise Bad(seq, said("dice entered by hand name who entered them: the one who rolled "
                            "(or decided)", "des dés entrés à la main nomment qui les a "
                            "entrés : celui qui a lancé (ou décidé)"), roll=roll,
                  field="proof.by")
    if by.get("role") == "gm" or number is None:
        return
    if settings is None:
        report.unchecked.append((seq, roll, "proof", said(
            f"dice entered by a player, and epoch {number} does not say whether players "
            "could (its settings are missing)", f"des dés entrés par un joueur, et l'époque "
            f"{number} ne dit pas si les joueurs le pouvaient (ses réglages manquent)")))
    elif settings.get("player_dice") is not True:
        raise Bad(seq, said(f"dice entered by a player, and players may not enter dice on "
                            f"this server (epoch {number}'s settings)", "des dés entrés par "
                            "un joueur, et les joueurs ne peuvent pas entrer de dés sur ce "
                            f"serveur (réglages de l'époque {number})"), roll=roll,
                  field="proof")
