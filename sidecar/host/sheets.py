"""Characters and their sheets: values checked against a ruleset's sheet, spends,
adjustments and refills. Plain functions, no I/O.

A ruleset describes its sheet like its params (see ``sidecar_sheet`` in
:mod:`sidecar.hookspecs`). A character's values are only ever changed by a journaled
event — a GM's ``sheet`` request or a roll's ``spend`` — so the values are always what the
character's events add up to. Every change is computed here first, whole, and refused
(``invalid_params``, ``insufficient``) before anything is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sidecar.host.params import field_label, labelled, validate_params
from sidecar.host.reserves import reserve_left, reserve_score
from sidecar.protocol.errors import ProtocolError, invalid_param
from sidecar.protocol.text import elide

#: Most characters one table may have.
MAX_CHARACTERS = 1000

#: The bounds of a counter whose sheet gives none: what every client can read (and the
#: journal store) as an integer.
INT_MIN, INT_MAX = -2**63, 2**63 - 1


@dataclass
class Character:
    """One character of a table: its ruleset, the seat that plays it, its values."""

    name: str
    ruleset: str
    owner: str | None
    values: dict[str, Any]
    #: The values as the owner's seat last saw them, when a roll it could not see (a
    #: GM's secret roll as this character, the seat's own blind roll) changed them since;
    #: ``None`` when the owner knows the current values.
    shown: dict[str, Any] | None = None
    #: The table's turn (``Table.turns``) in which it last rolled as its roller
    #: (« un personnage ne peut faire qu'une action par tour »: the GMs see who acted).
    acted: int | None = None
    #: What its owner's seat is still to be told of effects a roll hidden from it made
    #: (contract §8: ``seq``, ``by``, ``values``, ``changed``): the ``sheet`` ``effect``
    #: event that tells it; ``None`` when nothing is pending.
    notify: dict[str, Any] | None = None

    def to_record(self) -> dict[str, Any]:
        """How the journal keeps it."""
        record = {"character": self.name, "ruleset": self.ruleset, "owner": self.owner,
                  "values": self.values}
        if self.shown is not None:
            record["shown"] = self.shown
        if self.acted is not None:
            record["acted"] = self.acted
        if self.notify is not None:
            record["notify"] = self.notify
        return record

    def view(self, *, gm: bool) -> dict[str, Any]:
        """How ``list`` and ``welcome`` show it: a GM sees the values, the owner what it
        has been shown of them (a blind roll's spend stays hidden like its result)."""
        values = self.values if gm or self.shown is None else self.shown
        return {"character": self.name, "ruleset": self.ruleset, "owner": self.owner,
                "values": values}

    def copy_values(self) -> dict[str, Any]:
        """A copy of the values that shares nothing mutable with them: what a roll's hooks
        get as ``roll.sheet``. Sheet values nest one level at most (a ``list`` of strings,
        a ``map`` of numbers or strings), so a copy of each container is a deep copy —
        several times cheaper than a general one, on every roll as a character."""
        return {name: value.copy() if value.__class__ in (dict, list) else value
                for name, value in self.values.items()}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Character:
        # (The record is the journal's or a new one made for this change: the values are
        # this character's own, never shared with an event a plugin could change.)
        return cls(record["character"], record["ruleset"], record.get("owner"),
                   record.get("values") or {}, record.get("shown"), record.get("acted"),
                   record.get("notify"))


def prefixed(error: ProtocolError, prefix: str) -> ProtocolError:
    """``error`` with its parameter named under ``prefix`` (``values.level``)."""
    details = dict(error.details or {})
    name = details.get("param")
    if name is not None:
        details["param"] = f"{prefix}.{name}"
        error.message = error.message.replace(f"'{name}'", f"'{prefix}.{name}'", 1)
        if error.message_fr:
            error.message_fr = error.message_fr.replace(f"'{name}'", f"'{prefix}.{name}'", 1)
    error.details = details
    return error


def checked_values(sheet: dict[str, Any], given: dict[str, Any],
                   current: dict[str, Any] | None = None) -> dict[str, Any]:
    """The values after a ``set``: ``given`` over ``current`` (or the defaults), every
    one checked against ``sheet``; ``invalid_params`` naming ``values.<field>``."""
    merged = dict(current or {})
    merged.update(given)
    # Fields a sheet no longer has (a plugin updated) are dropped, not refused, unless given.
    merged = {name: value for name, value in merged.items()
              if name in sheet or name in given}
    try:
        return validate_params(merged, sheet)
    except ProtocolError as error:
        name = (error.details or {}).get("param")
        error = prefixed(error, "values")
        if isinstance(name, str) and isinstance(sheet.get(name), dict):
            # (the field's label first, as a roll's params: « Chance » ('values.chance'))
            error = labelled(error, f"values.{name}", sheet[name])
        raise error from None


def insufficient(field: str, have: Any, need: Any, *, low: bool,
                 spec: dict[str, Any] | None = None, sheet: dict[str, Any] | None = None,
                 values: dict[str, Any] | None = None) -> ProtocolError:
    """The ``insufficient`` error: ``field`` has ``have``, the change needs ``need``. Its
    text names the field by its label in ``spec`` (the sheet's description of it), as the
    table reads it; ``details.field`` keeps the key. A reserve kept as its gap to a score
    (``sheet`` and ``values`` tell) is said as what is left of it, « 1 / 3 », as the page
    and the CLI show it, not its gap (« il en reste -2 »); ``details`` keep the numbers."""
    named = field_label(field, spec)
    score = reserve_score(sheet, field, values or {}) if sheet else None
    shown = f"{reserve_left(values[score], have)} / {values[score]}" if score and values \
        else have
    if low:
        en = f"not enough \"{named['en']}\": {shown} left, {need} needed"
        fr = (f"pas assez {elide('de', '« ' + named['fr'] + ' »')} : il en reste {shown}, "
              f"il en faut {need}")
    else:
        en = f"\"{named['en']}\" cannot go past its maximum: {have} now, {need} more asked"
        fr = (f"« {named['fr']} » ne peut dépasser son maximum : {have} maintenant, {need} de "
              "plus demandé")
    return ProtocolError("insufficient", en, fr=fr,
                         details={"field": field, "have": have, "need": need})


def _numbers(sheet: dict[str, Any]) -> dict[str, str]:
    """The sheet's number fields as people and the command line name them, for an error
    that names a field the sheet lacks: « numériques : Chance (chance), … »."""
    fields = [(field_label(name, spec), name) for name, spec in sheet.items()
              if isinstance(spec, dict) and spec.get("type", "string") == "int"]
    return {
        "fr": "numériques : " + ", ".join(f"{n['fr']} ({k})" if n["fr"] != k else k
                                          for n, k in fields),
        "en": "numbers: " + ", ".join(f"{n['en']} ({k})" if n["en"] != k else k
                                      for n, k in fields)}


def apply_delta(sheet: dict[str, Any], values: dict[str, Any], delta: dict[str, Any], *,
                sign: int, where: str) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The values after taking ``sign * amount`` of each field of ``delta`` (``sign`` -1:
    a roll's ``spend``; +1: a GM's ``adjust``), and what changed (field → [before, after]).

    An amount that is not an integer, or a field that is not an integer field of the sheet,
    is ``invalid_params`` naming ``<where>.<field>``; a value it would leave past the
    field's ``min`` or ``max`` (without them, the 64-bit range) is ``insufficient``.
    Nothing is changed in ``values``."""
    after = dict(values)
    changed: dict[str, list[Any]] = {}
    for name, amount in delta.items():
        spec = sheet.get(name) if isinstance(name, str) else None
        if spec is None or spec.get("type", "string") != "int":
            numbers = _numbers(sheet)
            raise labelled(invalid_param(
                f"{where}.{name}", f"is not a number field of this sheet ({numbers['en']})",
                fr=f"n'est pas un champ numérique de cette fiche ({numbers['fr']})"),
                f"{where}.{name}", spec)
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise labelled(invalid_param(f"{where}.{name}", "must be an integer",
                                         fr="doit être un entier"), f"{where}.{name}", spec)
        have = after.get(name, spec.get("default", 0))
        new = have + sign * amount
        low = INT_MIN if spec.get("min") is None else spec["min"]
        high = INT_MAX if spec.get("max") is None else spec["max"]
        if new < low:
            raise insufficient(name, have, abs(amount), low=True, spec=spec, sheet=sheet,
                               values=after)
        if new > high:
            raise insufficient(name, have, abs(amount), low=False, spec=spec)
        if new != have:
            after[name] = new
            before = changed[name][0] if name in changed else have
            changed[name] = [before, new]
    return after, changed


def refilled(sheet: dict[str, Any], values: dict[str, Any], what: str
             ) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The values after a new turn (``what`` ``"turn"``: fields marked ``refill:
    "turn"``) or a rest (``"rest"``: those marked ``"rest"`` or ``"turn"``): each back to
    its default. Returns the values and what changed."""
    kinds = ("turn",) if what == "turn" else ("turn", "rest")
    after = dict(values)
    changed: dict[str, list[Any]] = {}
    for name, spec in sheet.items():
        if spec.get("refill") in kinds and "default" in spec:
            have = after.get(name)
            if have != spec["default"]:
                after[name] = spec["default"]
                changed[name] = [have, spec["default"]]
    return after, changed


def diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[Any]]:
    """Field → [before, after] for every value that differs."""
    return {name: [before.get(name), value] for name, value in after.items()
            if before.get(name) != value}
