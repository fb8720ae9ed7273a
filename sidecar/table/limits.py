"""Size bounds on what a client can make the server store and send (amplification).

A client's strings end up in events that are journaled, remembered, and sent to every
member, sometimes several times over once extensions copy them into notes and texts. The
checks here bound each input string where it enters (``params`` and ``options``, at any
depth), and the encoded size of one event before it is numbered, so a roll that would be
too big is refused and changes nothing.
"""

from __future__ import annotations

from typing import Any

import orjson

from sidecar.protocol.codec import encode
from sidecar.protocol.errors import ProtocolError, invalid_param


def _long_string(value: Any, limit: int, path: str) -> str | None:
    """The path of the first string longer than ``limit`` characters in ``value``."""
    if isinstance(value, str):
        return path if len(value) > limit else None
    if isinstance(value, dict):
        for key, item in value.items():
            if len(key) > limit:
                return f"{path}.{key[:40]}…"
            found = _long_string(item, limit, f"{path}.{key}")
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _long_string(item, limit, f"{path}[{index}]")
            if found:
                return found
    return None


def check_strings(params: dict[str, Any], options: dict[str, Any], limit: int) -> None:
    """Refuse a request with a string over ``limit`` characters in ``params``
    (``invalid_params`` naming the parameter) or anywhere in ``options`` (``too_large``
    naming the path)."""
    for name, value in params.items():
        if _long_string(value, limit, name) or len(name) > limit:
            raise invalid_param(name[:40], f"strings are at most {limit} characters",
                                fr=f"les chaînes ont au plus {limit} caractères")
    found = _long_string(options, limit, "options")
    if found:
        raise ProtocolError(
            "too_large", f"'{found}': strings in options are at most {limit} characters",
            fr=f"« {found} » : les chaînes des options ont au plus {limit} caractères",
            details={"field": found, "max_chars": limit})


def encoded_size(message: dict[str, Any], binary: bool = True) -> int:
    """Length of ``message`` encoded as a binary (MessagePack) or text (JSON) frame."""
    return len(encode(message, binary=binary))


def check_event_size(event: dict[str, Any], limit: int) -> int:
    """Refuse (``too_large``) an event larger than ``limit`` bytes once encoded; return its
    size."""
    try:
        # Measured as the journal stores it (JSON, by orjson: about a microsecond).
        size = len(orjson.dumps(event))
    except (OverflowError, TypeError, ValueError) as exc:
        # What plugins return is validated elsewhere; here it only must not be stored.
        raise ProtocolError(
            "internal", f"this roll's outcome cannot be encoded ({exc}); nothing was stored",
            fr=f"le résultat de ce jet ne peut pas être encodé ({exc}) ; rien n'a été "
               "enregistré") from None
    if size > limit:
        raise ProtocolError(
            "too_large", f"this roll's outcome would take {size} bytes (at most {limit})",
            fr=f"le résultat de ce jet ferait {size} octets (au plus {limit})",
            details={"bytes": size, "max_bytes": limit})
    return size
