"""Remote text on the command line's terminal: shown, never obeyed.

Everything the command line prints that came from elsewhere — names, labels, a plugin's
texts and notes, an error's message, an exported journal — goes through :func:`shown`
(text) or :func:`as_json` (``--json``): a ``\\x1b[2K``, a ``\\r``, an OSC 0 or 52 in
it is written out (``\\x1b``, ``\\x0d``), so it cannot hide, rewrite or forge lines on
the terminal, set its title or its clipboard. The server refuses such characters in names
and labels at the door already; this is for what gets past it (plugins, older journals,
another server).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, TypeVar

from sidecar.protocol.text import control_pattern, escaped

T = TypeVar("T")


def shown(value: T) -> T:
    """``value`` (a string, or a message's maps and lists) with every string and map key
    escaped for a terminal (see :func:`~sidecar.protocol.text.escaped`); other values as
    they are."""
    if isinstance(value, str):
        return escaped(value)  # type: ignore[return-value]
    if isinstance(value, dict):
        return {shown(key): shown(item) for key, item in value.items()}  # type: ignore[return-value]
    if isinstance(value, (list, tuple)):
        return type(value)(shown(item) for item in value)  # type: ignore[return-value]
    return value


def as_json(value: Any, **options: Any) -> str:
    """``value`` as one JSON text (``ensure_ascii=False``) whose strings keep their exact
    values, but with every control character as a ``\\uXXXX`` escape: still the same JSON
    for a program, nothing a terminal obeys."""
    # (Outside strings JSON has no such character: each one found is inside a string.)
    return control_pattern().sub(lambda found: f"\\u{ord(found.group()):04x}",
                                 json.dumps(value, ensure_ascii=False, **options))


def for_terminal(function: Callable[..., str]) -> Callable[..., str]:
    """Make a formatter of remote data print-safe: its arguments go through :func:`shown`
    first, so that the lines it adds are its own and the rest is shown, not obeyed."""
    @functools.wraps(function)
    def safe(*args: Any, **kwargs: Any) -> str:
        return function(*(shown(arg) for arg in args),
                        **{name: shown(value) for name, value in kwargs.items()})
    return safe
