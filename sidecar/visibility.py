"""Who may see what of an outcome, decided before anything leaves the server.

``public``: everyone at the table. ``gm``: the roller and the GMs. ``blind``: the GMs see it
all; the roller gets the outcome with ``result`` replaced by ``{"hidden": true}``, no dice,
no notes and no extension names (they could give the result away); nobody else gets
anything. ``self``: the roller only.
"""

from __future__ import annotations

from typing import Any

FULL = "full"
HIDDEN = "hidden"


def audience(mode: str, viewer: tuple[str, str], roller: tuple[str, str]) -> str | None:
    """What ``viewer`` (name, role) may see of a roll by ``roller``: FULL, HIDDEN or None."""
    is_roller = viewer == roller
    is_gm = viewer[1] == "gm"
    if mode == "public":
        return FULL
    if mode == "gm":
        return FULL if is_roller or is_gm else None
    if mode == "blind":
        if is_gm:
            return FULL
        return HIDDEN if is_roller else None
    if mode == "self":
        return FULL if is_roller else None
    return None


HIDDEN_TEXT = {
    "fr": "{who} — {what}jet à l'aveugle, résultat caché",
    "en": "{who} — {what}blind roll, result hidden",
}


def outcome_view(event: dict[str, Any], view: str, locale: str,
                 request_id: Any = None) -> dict[str, Any]:
    """The ``outcome`` message one viewer receives for a journaled outcome ``event``.

    ``event`` holds every field of the full outcome with ``text`` as ``{"fr", "en"}``.
    """
    message = {
        "type": "outcome",
        "seq": event["seq"],
        "roll": event["roll"],
        "table": event["table"],
        "by": event["by"],
        "ruleset": event["ruleset"],
        "params": event["params"],
        "label": event["label"],
        "mode": event["mode"],
    }
    if request_id is not None:
        message["id"] = request_id
    if view == FULL:
        message.update(
            dice=event["dice"],
            result=event["result"],
            applied=event["applied"],
            notes=event["notes"],
            text=event["text"].get(locale) or event["text"]["fr"],
        )
    else:
        what = f"{event['label']} : " if event["label"] else ""
        message.update(
            dice=[],
            result={"hidden": True},
            applied=[],
            notes=[],
            text=HIDDEN_TEXT[locale].format(who=event["by"]["name"], what=what),
        )
    return message
