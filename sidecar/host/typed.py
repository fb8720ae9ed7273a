"""What a person types as ``key=value`` (the command line's params, sheet values and
options, the Python client's option texts), turned into the type a description asks for.

Kept apart from the command line so that the options' parser and the Python client,
which both take typed text, need nothing of the CLI.
"""

from __future__ import annotations

import json
from typing import Any


def coerce_value(text: str, spec: dict[str, Any] | None) -> Any:
    """Turn the text of ``key=value`` into the type the parameter description asks for."""
    kind = (spec or {}).get("type")
    lowered = text.strip().lower()
    if kind == "bool" or (kind is None and lowered in ("true", "false", "oui", "non")):
        if lowered in ("true", "1", "yes", "oui", "vrai", "on"):
            return True
        if lowered in ("false", "0", "no", "non", "faux", "off"):
            return False
        return text
    if kind == "list":
        return [item.strip() for item in text.split(",") if item.strip()]
    if kind == "map":
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text  # the server names the field and what it expects
    if kind in ("int", None):
        try:
            return int(text)
        except ValueError:
            return text
    return text
