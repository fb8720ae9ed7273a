"""``sidecar odds`` as the page shows odds: what is asked (the game by its title, the
params by their labels), each outcome kind under the page's own word for it, every
probability rounded and written as the page writes it (``app.js`` ``percent``: a decimal
comma in French), with text bars; the successes as the parts of the chance to succeed (« dont : »).

The page's outcome words live in its ``strings.js`` (``kind.*``), which the command line
cannot read: :data:`KIND_WORDS` holds the same words, and a test checks they agree."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from sidecar.cli.labels import Labels, say, word
from sidecar.cli.labels import colon as _c
from sidecar.cli.terminal import shown

#: Each outcome kind as the page names it (strings.js ``kind.*``), French then English.
KIND_WORDS = {
    "botch": ("Échec critique", "Critical failure"),
    "failure": ("Échec", "Failure"),
    "narrow": ("De justesse", "Narrow"),
    "success": ("Réussite", "Success"),
    "critical": ("Éclatante", "Outstanding"),
}

#: The kinds the chance to succeed adds up, listed under it as its parts.
SUCCESSES = ("narrow", "success", "critical")
#: The words that head them (strings.js ``odds.parts``), French then English.
PARTS_WORDS = ("dont :", "of which:")


def decimal(text: str, locale: str | None) -> str:
    """A number written with a dot, as ``locale`` writes it (a comma in French)."""
    return text.replace(".", ",") if locale == "fr" else text


def percent(p: float, locale: str | None = None) -> str:
    """A probability as the page writes it: 0 and 100 whole, « < 0,1 % » below a
    thousandth, one decimal below 10 %, none above — rounded half up, as JavaScript's
    ``toFixed`` rounds the same double. English sets no space before the sign ("33%",
    "< 0.1%"); French does (« 33 % »)."""
    sign = "%" if locale == "en" else " %"
    if p == 0:
        return "0" + sign
    if p == 1:
        return "100" + sign
    if p < 0.001:
        return f"< {decimal('0.1', locale)}{sign}"
    places = Decimal("0.1") if p < 0.1 else Decimal("1")
    return decimal(str(Decimal(p * 100).quantize(places, rounding=ROUND_HALF_UP)),
                   locale) + sign


def odds_heading(ruleset: str, params: dict[str, Any], labels: Labels,
                 character: str | None = None) -> str:
    """What the odds are of: « Aengus — O'Ween's : Caractéristique ECL · Difficulté 4 »
    (``params``: those worth saying, the defaults left out by the caller)."""
    asked = " · ".join(f"{labels.param(ruleset, key)} {labels.param_value(ruleset, key, value)}"
                       for key, value in params.items())
    head = (f"{character} — " if character else "") + labels.game(ruleset)
    return shown(head + (_c(labels.locale) + asked if asked else ""))


def format_odds(odds: dict[str, Any], width: int = 30, locale: str | None = None,
                labels: Labels | None = None, ruleset: str | None = None) -> str:
    """Each kind's probability, under the page's word for it — ``ruleset``'s own when it
    names it (its description's ``kind_labels``, which ``labels`` read: O'Ween's
    « Bourde », as its roll's badge says) —, with a text bar; a roll with no verdict
    (``judged: false``, a ``dice`` total without a target) only its distribution."""
    if odds.get("judged") is False:
        return "\n".join(format_distribution(odds.get("distribution"), width, locale=locale)
                         or [say(locale, "sans seuil, pas de verdict", "no target, no verdict")])
    lines = ["P(" + say(locale, "réussite", "success") + ") = "
             + percent(odds["p_success"], locale)]
    kinds = odds["kinds"]
    # The successes first, as the headline's parts (« dont : », indented), then the rest:
    # a row « Réussite 2,8 % » beside « P(réussite) = 14 % » read as a contradiction.
    parts = [kind for kind in SUCCESSES if kind in kinds]
    if parts:
        lines.append("  " + say(locale, *PARTS_WORDS))
    rows = []
    for kind in parts + [kind for kind in kinds if kind not in SUCCESSES]:
        p = kinds[kind]
        if p == 0 and kind != "success":
            continue  # (a kind this roll cannot give)
        own = labels.own_word(ruleset, "kind_labels", kind) if labels is not None else None
        name = (own if own else
                say(locale, *KIND_WORDS[kind]) if kind in KIND_WORDS else kind)
        rows.append((("    " if kind in SUCCESSES else "  ") + name, p))
    # (A ruleset's own word may be longer than the page's: the column makes room for it.)
    room = max([26, *(len(row) for row, _ in rows)])
    for row, p in rows:
        lines.append(f"{row:<{room}} {percent(p, locale):>7} "
                     f"{'█' * round(p * width)}".rstrip())
    lines += format_distribution(odds.get("distribution"), width, locale=locale)
    return "\n".join(lines)


def format_distribution(distribution: Any, width: int = 30, most: int = 40,
                        locale: str | None = None) -> list[str]:
    """The distribution of a roll's values (``distribution.of``: e.g. its total), one line
    a value; a long one as its range, mean and most likely values."""
    if not isinstance(distribution, dict) or not distribution.get("values"):
        return []
    values = [(v, p) for v, p in distribution["values"] if isinstance(p, (int, float))]
    of = distribution.get("of", "value")
    lines = [f"  distribution ({word(locale, of)})" + _c(locale).rstrip()]
    peak = max(p for _, p in values) or 1
    chosen = values
    if len(values) > most:
        mean = sum(v * p for v, p in values if isinstance(v, (int, float)))
        lines.append(f"    {values[0][0]} … {values[-1][0]}, " + say(locale, "moyenne", "mean")
                     + f" {decimal(f'{mean:.2f}', locale)}")
        chosen = sorted(sorted(values, key=lambda vp: -vp[1])[:10])
    for value, p in chosen:
        lines.append(f"    {value!s:>6}  {percent(p, locale):>7} "
                     f"{'█' * round(p / peak * width)}".rstrip())
    return lines
