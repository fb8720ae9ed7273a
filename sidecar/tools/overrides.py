"""Whether a journaled roll was made under the rule « a param the sheet supplies may not
differ from the sheet's in a player's roll » (docs/RULESETS.md): then a player's override
in it is no journal's word — the server should have refused it — and a re-run refuses it
as the server would have.

The rule came with the built-in rulesets 1.1. A roll's event does not record its
ruleset's version; an epoch of verifiable dice does (its settings' ``plugins``, bound to
its seed): a roll made under an epoch that records the owner at 1.1 or later was made
under the rule. A roll with no such record (secure dice, an epoch from before settings
named the plugins) stays the journal's word, as does a third-party ruleset's.
"""

from __future__ import annotations

from typing import Any

from sidecar.host.registry import Registry

#: The built-ins' version that brought the rule.
RULE_SINCE = (1, 1)


def _version(text: Any) -> tuple[int, ...] | None:
    try:
        return tuple(int(part) for part in str(text).split("."))
    except ValueError:
        return None


def made_under_rule(event: dict[str, Any], settings: dict[str, Any] | None,
                    host: Registry) -> tuple[str, str] | None:
    """``(plugin, version)`` when ``event`` — a roll, not a decision — is a player's own
    roll (not a GM's, not an answer to a GM's ask) of a built-in ruleset that its epoch
    records at :data:`RULE_SINCE` or later; else ``None`` (its overrides stay the
    journal's word)."""
    if (event.get("by") or {}).get("role") == "gm" or "answers" in event:
        return None
    ran = (settings or {}).get("plugins")
    owner = host.ruleset_owner(event.get("ruleset", ""))
    if not isinstance(ran, dict) or owner is None or owner not in ran:
        return None
    info = host.plugins.get(owner)
    version = _version(ran[owner])
    if info is None or not info.trusted or version is None or version < RULE_SINCE:
        return None
    return owner, str(ran[owner])
