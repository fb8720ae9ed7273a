"""Targets (contract §8): an action aimed at other characters reads their sheets and
changes them.

- A roll, an odds request or an ask names up to eight ``targets``: any character of the
  table, whoever plays it (a GM's NPC too); an unknown one is ``invalid_params``
  (``field: "targets"``). The hooks see copies of their values, read at the roll's turn.
- What the dice did to them (``outcome.effects``) is checked like a spend (a character
  not among the roll's targets, a field that is not a number field of its sheet, an
  amount that is not an integer: the plugin's ``plugin_error``) and **never refused**
  for its size: each field is taken as far as its ``min``/``max`` allow. The targets'
  records are written with the outcome, in the same journal write as the roller's spend.
- Who sees the new values: the GMs and each target's owner seat (``target_sheets`` on
  the outcome, filtered per reader by :func:`sidecar.table.visibility.plan`). When the
  roll's mode hides it from that owner, the next event is a ``sheet`` event (``op:
  "effect"``, ``reason`` naming the roll's seq) for that seat alone — whether the dice
  changed its values or not (a miss: the same values, ``changed`` empty), so the seq it
  takes tells the roller nothing —: the values, not the roll; what it shows is kept in
  the target's record by the roll's own write (``Character.notify``), so a server
  killed before the notice tells it at the table's next change. A blind roll made by
  the target's own owner shows them nothing (the values would tell the result):
  the owner keeps seeing what they last saw, as with a blind spend.
- One open roll per character as its roller; who acted this turn (``Character.acted``).
"""

from __future__ import annotations

from typing import Any

from sidecar.host.sheets import INT_MAX, INT_MIN, Character, diff
from sidecar.model import Roll
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.events import sheet_event
from sidecar.table.basis import CoreBasis
from sidecar.table.effects import Pending, RollTicket
from sidecar.table.ownership import decides, sheet_audience
from sidecar.table.tables import Member, Table
from sidecar.table.visibility import FULL, audience, identity

#: Most fields one effect may name for one character.
MAX_EFFECT_FIELDS = 64

Records = tuple[tuple[str, str, Any], ...]


def unknown_target(name: str) -> ProtocolError:
    """``invalid_params`` naming ``targets``: no character ``name`` at this table."""
    return ProtocolError("invalid_params", f"no character '{name[:64]}' at this table",
                         fr=f"pas de personnage « {name[:64]} » à cette table",
                         details={"param": "targets", "field": "targets",
                                  "name": name[:64]})


def check_targets(table: Table, names: tuple[str, ...] | list[str]) -> None:
    """Refuse a target that is not a character of ``table`` (any member who may roll
    may name any character: an NPC owned by no seat as well)."""
    for name in names:
        if name not in table.characters:
            raise unknown_target(name)


def target_copies(table: Table, names: Any) -> dict[str, dict[str, Any]]:
    """What the hooks see as ``roll.targets``: each target's ruleset and a copy of its
    values as they are now (a target removed meanwhile is left out)."""
    copies = {}
    for name in names:
        character = table.characters.get(name)
        if character is not None:
            copies[name] = {"ruleset": character.ruleset, "values": character.copy_values()}
    return copies


def readable_targets(table: Table, member: Member, names: Any) -> list[str]:
    """The targets whose sheets ``member`` may read: every one for a GM, those its seat
    owns for a player. Free odds read only these (the others are given to the hooks as
    absent, a target without a sheet): odds journal nothing, so odds read at a sheet the
    member may not see would tell its values for free (the roll itself reads every target:
    its outcome shows what it shows)."""
    if member.role == "gm":
        return list(names)
    mine = f"seat:{member.seat}" if member.seat else None
    return [name for name in names if mine is not None and name in table.characters
            and sheet_audience(table, table.characters[name].owner) == mine]


def open_roll_of(table: Table, character: str) -> int | None:
    """The seq of the open roll made as ``character``, if one is waiting for a decision."""
    for event in table.open_rolls.values():
        if event.get("character") == character:
            return int(event["seq"])
    return None


def hidden_from(member: Member, event: dict[str, Any]) -> bool:
    """Whether ``member`` may not see all of the open roll ``event`` — a GM's ``gm`` or
    ``blind`` roll made as the member's character, the member's own ``blind`` roll —:
    then whether it is open is its dice's secret, kept from the member."""
    return audience(event["mode"], member.key, identity(event["by"])) != FULL


def hidden_open_roll(table: Table, character: str, member: Member) -> str | None:
    """The id of the open roll made as ``character`` when it is hidden from ``member``
    (:func:`hidden_from`): the member's roll as the character takes its default first
    instead of being refused (the refusal would tell the member what the dice decided,
    contract §7, 1.2)."""
    for roll_id, event in table.open_rolls.items():
        if event.get("character") == character and hidden_from(member, event):
            return roll_id
    return None


def refuse_if_open(table: Table, character: str, member: Member | None = None) -> None:
    """``invalid_params`` (``field: "character"``, ``open``: its seq) when ``character``
    already has a roll waiting for a decision: a second one would be rolled against the
    values the first has not spent yet. Told as ``member`` may act on it: « décidez-le
    d'abord » to who may decide it, else that a GM must, or that it waits for the GM's
    decision when only choices marked ``gm`` are left (issue 29). Not when that roll is
    hidden from ``member`` (:func:`hidden_open_roll`): it takes its default first."""
    if not table.open_rolls:
        return
    event = next((e for e in table.open_rolls.values() if e.get("character") == character),
                 None)
    if event is None or (member is not None and hidden_from(member, event)):
        return
    seq = int(event["seq"])
    choices = event.get("choices") or ()
    if member is not None and member.role != "gm" and choices \
            and all(c.get("gm") is True for c in choices):
        # Only the GM's choices are left (the ladder's « réussi, mais… »): « décidez-le »
        # would send the player to a react the server refuses her.
        en, fr = "it waits for the GM's decision", "il attend la décision du MJ"
    elif member is None or decides(table, member, event):
        en, fr = "decide it first", "décidez-le d'abord"
    else:
        en, fr = "a GM must decide it", "le MJ doit le décider"
    raise ProtocolError(
        "invalid_params", f"'{character[:64]}' already has an open roll (#{seq}): {en}",
        fr=f"« {character[:64]} » a déjà un jet ouvert (n°{seq}) : {fr}",
        details={"param": "character", "field": "character", "open": seq})


def _effect_error(roll: Roll, problem: str, fr: str) -> ProtocolError:
    return ProtocolError(
        "plugin_error", f"the roll's effects are wrong: {problem}",
        fr=f"les effets du jet sont invalides : {fr}", details={"ruleset": roll.ruleset})


def _bounded(spec: dict[str, Any], have: int, delta: int) -> int:
    """``delta`` cut so that ``have`` stays within the field's bounds (a value already
    past one is not pushed further)."""
    low = INT_MIN if spec.get("min") is None else spec["min"]
    high = INT_MAX if spec.get("max") is None else spec["max"]
    if delta < 0:
        return -max(0, min(-delta, have - low))
    return max(0, min(delta, high - have))


class Targeting(CoreBasis):
    """Targets changed by a roll (a base of :class:`~sidecar.table.rolling.Rolling`)."""

    def apply_effects(self, table: Table, roll: Roll, effects: Any, seq: int
                      ) -> tuple[dict[str, dict[str, int]], dict[str, Any], Records, list[str]]:
        """What ``effects`` (the outcome's) do to the roll's targets: the deltas applied,
        the ``target_sheets`` the event keeps (per target: its values after, the seat
        that reads them, what its owner is shown when it differs), the records to write
        with the event, and the targets whose owner is told by a ``sheet`` ``effect``
        event after it (``seq``: the roll's). Nothing is changed in the table."""
        if not isinstance(effects, dict):
            raise _effect_error(roll, "not a map of character to {field: integer}",
                                "pas une table de personnage à {champ: entier}")
        for name, delta in effects.items():
            if name not in roll.targets:
                raise _effect_error(roll, f"'{str(name)[:64]}' is not a target of the roll",
                                    f"« {str(name)[:64]} » n'est pas une cible du jet")
            if not isinstance(delta, dict) or len(delta) > MAX_EFFECT_FIELDS:
                raise _effect_error(roll, f"the effect on '{name[:64]}' is not a map of "
                                    "field to integer", f"l'effet sur « {name[:64]} » n'est "
                                    "pas une table de champ à entier")
        applied: dict[str, dict[str, int]] = {}
        sheets: dict[str, Any] = {}
        records: Records = ()
        notices: list[str] = []
        roller = identity(roll.by)
        for name in roll.targets:
            character = table.characters.get(name)
            if character is None:
                continue
            schema = self.catalogue.sheet_schema(character.ruleset)
            before = character.values
            after = dict(before)
            taken: dict[str, int] = {}
            for field, amount in (effects.get(name) or {}).items():
                spec = schema.get(field) if isinstance(field, str) else None
                if spec is None or spec.get("type", "string") != "int":
                    raise _effect_error(
                        roll, f"'{str(field)[:40]}' is not a number field of the sheet of "
                        f"'{name[:64]}'", f"« {str(field)[:40]} » n'est pas un champ "
                        f"numérique de la fiche de « {name[:64]} »")
                if isinstance(amount, bool) or not isinstance(amount, int) \
                        or not -2**31 <= amount < 2**31:
                    raise _effect_error(roll, f"the effect on '{field[:40]}' is not an integer",
                                        f"l'effet sur « {field[:40]} » n'est pas un entier")
                have = after.get(field, spec.get("default", 0))
                cut = _bounded(spec, have, amount)
                if cut:
                    after[field] = have + cut
                    taken[field] = taken.get(field, 0) + cut
            if taken:
                applied[name] = taken
            seat = sheet_audience(table, character.owner)
            entry: dict[str, Any] = {"values": after, "audience": seat}
            sheets[name] = entry
            hidden = bool(character.owner is not None and seat) and audience(
                roll.mode, (character.owner, seat), roller) is None
            if not taken and not hidden:
                continue
            # A roll hidden from the target's owner tells them by a notice hit or miss (a
            # miss: the same values, nothing changed): a notice only on a hit would tell
            # the roller the result by the seq it takes (a gap in their history).
            # What the owner's seat knows of the values — those it was last shown, or what
            # a notice still to be told will show it — with this effect's deltas: an
            # effect does not reveal a blind spend.
            last_shown = character.shown if character.shown is not None else before
            known = character.notify["values"] if character.notify is not None \
                else character.shown
            owner_values = after
            if known is not None:
                owner_values = dict(known)
                for field, cut in taken.items():
                    spec = schema[field]
                    have = owner_values.get(field, spec.get("default", 0))
                    owner_values[field] = have + _bounded(spec, have, cut)
                if owner_values != after:
                    entry["shown"] = owner_values
            notify = character.notify
            if character.owner is None or not seat:
                shown, notify = character.shown, None  # (the GMs' alone)
            else:
                sees = audience(roll.mode, (character.owner, seat), roller)
                if sees == FULL:  # told by this outcome's target_sheets
                    shown, notify = (None if owner_values == after else owner_values), None
                else:
                    shown = last_shown  # (a blind roll of its own: nothing told, as a spend)
                    if hidden:
                        # Told by a sheet event after the outcome; what it will show is
                        # kept with the roll's own write: a server killed before the notice
                        # is stored tells it at the table's next change.
                        notices.append(name)
                        notify = {"seq": seq, "by": roll.by, "values": owner_values,
                                  "changed": diff(last_shown, owner_values)}
            record = Character(name, character.ruleset, character.owner, after, shown,
                               character.acted, notify).to_record()
            records += (("character", name, record),)
        return applied, sheets, records, notices

    def effect_notice(self, table: Table, name: str) -> Pending | None:
        """The ``sheet`` event (``op: "effect"``) that shows a target's owner its new
        values when the roll's mode hid the roll from them (the caller holds the table's
        turn; numbered after the table's last event). ``None`` when there is nothing to
        tell (told already — by another process —, or the character was removed)."""
        character = table.characters.get(name)
        notify = table.notices.get(name)
        if character is None or notify is None:
            return None
        told = notify["values"]
        event = sheet_event(
            seq=table.seq + 1, table=table.name, by=notify["by"], request_id=None,
            op="effect", character=name, ruleset=character.ruleset, owner=character.owner,
            values=told, changed=notify["changed"], reason=f"#{notify['seq']}",
            audience=sheet_audience(table, character.owner))
        # The owner now knows these values (another event may have changed the character
        # since the outcome: then it keeps being shown these).
        shown = None if told == character.values else told
        record = Character(name, character.ruleset, character.owner, character.values,
                           shown, character.acted)  # (told: nothing pending)
        ticket = RollTicket(table, Member(name="", role="gm"), None, None, None)
        return self._pending(ticket, event, (("character", name, record.to_record()),),
                             echo=False)

