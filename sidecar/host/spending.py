"""What a roll as a character may spend: refusals never depend on the dice (contract §7,
clarified in 1.2).

A roll refused after its faces exist could be sent again until the dice spare the sheet
(a new ``client_seed`` even draws new provable faces). So the host holds two rules, for
every ruleset and extension alike:

1. **Before any die**, the plugins declare the most the request could take from the
   character's sheet (hook ``sidecar_max_spend``: the owner's and the extensions'
   answers, added up field by field); when the sheet cannot pay that, the request is
   refused with ``insufficient`` — the same answer whatever the faces would have been.
2. **Once a face is drawn**, the outcome is journaled whatever it shows: a spend that
   would leave a field's bounds is taken only as far as the sheet holds, and the outcome's
   notes say what was not taken. A request that drew no face may still be refused
   (``insufficient``, as before): there is nothing to learn from it.

Plain functions, no I/O; the pipeline calls the hooks (:func:`declared_most`) and the
table core applies rule 2 (:func:`taken_as_far_as_held`).
"""

from __future__ import annotations

from typing import Any

from sidecar.host.params import field_label
from sidecar.host.sheets import INT_MAX, INT_MIN, insufficient

#: The hook each plugin declares its most in.
HOOK = "sidecar_max_spend"


def declaration_problem(answer: Any, sheet: dict[str, Any]) -> str | None:
    """What is wrong with one plugin's ``sidecar_max_spend`` answer (``None``: sound)."""
    if answer is None:
        return None
    if not isinstance(answer, dict) or len(answer) > 64:
        return "sidecar_max_spend must return a map of sheet field to integer, or None"
    for name, amount in answer.items():
        if isinstance(amount, bool) or not isinstance(amount, int) \
                or not -2**31 <= amount < 2**31:
            return f"the most spent of '{str(name)[:40]}' is not an integer"
        spec = sheet.get(name) if isinstance(name, str) else None
        if amount > 0 and (spec is None or spec.get("type", "string") != "int"):
            return f"'{str(name)[:40]}' is not a number field of the sheet"
    return None


def add_declared(most: dict[str, int], answer: dict[str, int] | None) -> None:
    """Add one sound answer to the total ``most`` (amounts of 0 or less ignored)."""
    for name, amount in (answer or {}).items():
        if amount > 0:
            most[name] = most.get(name, 0) + amount


def refuse_unaffordable(sheet: dict[str, Any], values: Any, most: dict[str, int]) -> None:
    """``insufficient`` (``field``, ``have``, ``need``: the declared most) for the first
    field of ``most`` that ``values`` cannot pay without going below its ``min``."""
    for name, amount in most.items():
        spec = sheet[name]
        have = values.get(name, spec.get("default", 0))
        low = INT_MIN if spec.get("min") is None else spec["min"]
        if have - amount < low:
            raise insufficient(name, have, amount, low=True, spec=spec, sheet=sheet,
                               values=values)


def taken_as_far_as_held(sheet: dict[str, Any], values: Any, spend: dict[str, Any]
                         ) -> tuple[dict[str, Any], dict[str, int]]:
    """A spend the sheet cannot pay whole, taken only as far as ``values`` hold: each
    amount cut so that its field stays within its ``min`` and ``max`` (a field already
    past one is not pushed further). Returns the spend to apply and what was not taken
    (field → amount). A field that is not an integer field of the sheet is left as it is
    (the caller refuses it as the ruleset's mistake)."""
    taken: dict[str, Any] = {}
    unpaid: dict[str, int] = {}
    for name, amount in spend.items():
        spec = sheet.get(name) if isinstance(name, str) else None
        if (spec is None or spec.get("type", "string") != "int"
                or isinstance(amount, bool) or not isinstance(amount, int)):
            taken[name] = amount
            continue
        have = values.get(name, spec.get("default", 0))
        low = INT_MIN if spec.get("min") is None else spec["min"]
        high = INT_MAX if spec.get("max") is None else spec["max"]
        if amount > 0:
            cut = max(0, min(amount, have - low))
        else:
            cut = -max(0, min(-amount, high - have))
        taken[name] = cut
        if cut != amount:
            unpaid[name] = amount - cut
    return taken, unpaid


def unpaid_note(unpaid: dict[str, int], sheet: dict[str, Any] | None = None
                ) -> dict[str, str]:
    """The note an outcome carries when its spend was taken only as far as the sheet
    held (``{fr, en}``), each field named by its label in ``sheet``."""
    what = {locale: ", ".join(f"{field_label(name, (sheet or {}).get(name))[locale]} {amount}"
                              for name, amount in unpaid.items()) for locale in ("fr", "en")}
    return {"fr": "dépense prise seulement dans la mesure de la fiche, non prélevé : "
                  + what["fr"],
            "en": "spend taken only as far as the sheet holds, not taken: " + what["en"]}
