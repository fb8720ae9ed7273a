"""Small helpers for ruleset authors: the common result fields and one-line texts.

Every outcome carries ``success``, ``margin``, ``kind`` and ``label`` so that extensions
work across rulesets (RULES.md, conventions). These helpers keep those meanings identical
in every ruleset: a failure always has a margin ≤ −1.
"""

from __future__ import annotations

from typing import Any

from sidecar.model import Roll
from sidecar.protocol.text import elide, vowel_sound
from sidecar.protocol.text import heading as protocol_heading

__all__ = ["KIND_LABELS", "agree", "common", "elide", "heading", "name_params", "plural",
           "score_kind", "signed", "vowel_sound"]


def common(success: bool, margin: int, kind: str, fr: str, en: str,
           **fields: Any) -> dict[str, Any]:
    """A result map with the common fields first, then the ruleset's own ``fields``."""
    if not success:
        margin = min(margin, -1)
    return {"success": success, "margin": margin, "kind": kind,
            "label": {"fr": fr, "en": en}, **fields}


def score_kind(score: int, target: int, *, critical_at: int | None = 10) -> str:
    """The kind of a "score against target" roll: ``narrow`` when exactly met,
    ``critical`` when beaten by ``critical_at`` or more (``None``: never)."""
    if score < target:
        return "failure"
    if score == target:
        return "narrow"
    if critical_at is not None and score >= target + critical_at:
        return "critical"
    return "success"


#: (French, English) label of each kind, for rulesets whose kinds need no other name.
KIND_LABELS = {
    "botch": ("Échec critique", "Critical failure"),
    "failure": ("Échec", "Failure"),
    "narrow": ("Réussite de justesse", "Narrow success"),
    "success": ("Réussite", "Success"),
    "critical": ("Réussite éclatante", "Outstanding success"),
}


def heading(roll: Roll, *, colon: bool = True, locale: str = "fr") -> str:
    """``"Aengus — Escalade : "`` in French, ``"Aengus — Escalade: "`` in English
    (``locale``: the one ``sidecar_render_text`` is given), or ``"Aengus — "`` without a
    label: the roll's :func:`sidecar.protocol.text.heading`, which every one-line text
    starts with. Its name is :func:`who`'s."""
    return protocol_heading(who(roll), roll.label, colon=colon, locale=locale)


def who(roll: Roll) -> str:
    """Who a roll's text names: the character it is made as (« Aengus », whether its
    player or a GM rolls it), else the roller's name (``by.name``, which stays the
    roller's: contract §7)."""
    return roll.character or roll.by.get("name", "?")


def signed(value: int) -> str:
    """``+3``, ``-2``, ``+0``."""
    return f"{value:+d}"


def plural(count: int, word: str, words: str | None = None) -> str:
    """``"1 réussite"``, ``"3 réussites"`` (French plural from 2 up)."""
    return f"{count} {agree(count, word, words)}"


def agree(count: int, word: str, words: str | None = None) -> str:
    """The word alone, agreed with ``count`` as :func:`plural` does: ``"achetée"`` for 0
    or 1, ``"achetées"`` from 2 up (``"2A achetées"``, where the count is not the word's)."""
    return word if abs(count) < 2 else (words or word + "s")


def name_params(params: dict[str, dict[str, Any]],
                names: dict[str, tuple[str, str]]) -> dict[str, dict[str, Any]]:
    """Give parameters their short display names (``label: {fr, en}``), which forms show
    (the web table, a VTT) instead of the identifier; returns ``params``."""
    for key, (fr, en) in names.items():
        params[key]["label"] = {"fr": fr, "en": en}
    return params
