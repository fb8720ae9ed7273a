"""Encoding and decoding of frames: MessagePack for binary frames, JSON for text frames.

This module is usable on its own by any Python client: it depends on nothing of the server.
Decoding is defensive: it accepts only JSON-compatible values (maps with string keys, lists,
strings, integers, floats, booleans, null), bounded in depth and size, and turns anything
else into a ``bad_frame`` error.
"""

from __future__ import annotations

import json
import math
from typing import Any

import msgpack

from sidecar.protocol.errors import ProtocolError

#: Largest frame accepted, in bytes (the server also refuses it at the transport, 1009).
MAX_FRAME_BYTES = 64 * 1024
#: Largest frame a client accepts from a server (1 MiB). A server's frames are bounded
#: by the lists they carry, which come in pages (``history``, ``sheet``/``seat``/``ask``
#: ``list``: 56 KiB; ``welcome``: its descriptions of the rulesets, plus 24 KiB of
#: characters and 24 KiB of asks), and no server sends one frame past the 1 MiB it lets a
#: client leave unread (it closes with 1013 instead). Clients set their WebSocket's own
#: limit to this too.
CLIENT_FRAME_BYTES = 1 << 20
#: Deepest nesting of maps and lists accepted in a message.
MAX_DEPTH = 16
#: Integers accepted: what MessagePack can carry, from the smallest signed 64-bit value to
#: the largest unsigned one. Fields stored or compared by the server (``seq``, ``after``,
#: ``resume``) are narrower: their parsers check the signed 64-bit range.
INT_MIN, INT_MAX = -(2**63), 2**64 - 1


def _bad_frame(reason: str) -> ProtocolError:
    return ProtocolError(
        "bad_frame",
        f"undecodable frame: {reason}",
        fr=f"trame illisible : {reason}",
    )


class _Refused:
    """A value the decoder read but the protocol refuses (a MessagePack extension, JSON's
    ``NaN``): kept in place until the whole frame is read, so that the error answering
    it can echo the frame's ``id`` like any other refusal of a parsed frame."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why


def _reject_ext(code: int, data: bytes) -> Any:
    return _Refused(f"MessagePack extension type {code} is not accepted")


def _reject_constant(name: str) -> Any:
    return _Refused(f"JSON constant {name} is not accepted")


def _not_unicode(field: str) -> ProtocolError:
    return ProtocolError(
        "bad_message",
        f"field '{field}': not valid Unicode text (lone surrogate)",
        fr=f"champ '{field}' : texte Unicode invalide (surrogat isolé)",
        details={"field": field},
    )


def _is_unicode(text: str) -> bool:
    """Whether ``text`` encodes to UTF-8: JSON's ``\\ud800`` escapes decode to lone
    surrogates, which no client can read back and no journal can store."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_value(value: Any, depth: int, path: str = "", text: bool = False) -> None:
    """Raise ``bad_frame`` unless ``value`` is a plain JSON-compatible tree.

    ``path`` names where ``value`` sits (``"options.combat.zone"``) for errors a client can
    fix; ``text`` asks for the string check that only JSON frames need (MessagePack's
    decoder already refuses invalid UTF-8).
    """
    if depth > MAX_DEPTH:
        raise _bad_frame(f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        if text and not _is_unicode(value):
            raise _not_unicode(path or "type")
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise _bad_frame("map keys must be strings")
            if text and not _is_unicode(key):
                raise _not_unicode(f"{path}.<key>" if path else "<key>")
            _check_value(item, depth + 1, f"{path}.{key}" if path else key, text)
    elif isinstance(value, list):
        for item in value:
            _check_value(item, depth + 1, path, text)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, _Refused):
        raise _bad_frame(value.why)
    elif isinstance(value, (bytes, bytearray)):
        raise _bad_frame("binary strings are not accepted; use UTF-8 strings")
    elif isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            raise _bad_frame("integer out of the 64-bit range")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise _bad_frame("non-finite number")
    else:
        raise _bad_frame(f"values of type {type(value).__name__} are not accepted")


def decode(frame: bytes | str, *, max_bytes: int = MAX_FRAME_BYTES) -> dict[str, Any]:
    """Decode one frame into a message map.

    ``bytes`` are MessagePack, ``str`` is JSON. Raises :class:`ProtocolError` with code
    ``too_large`` for a frame over ``max_bytes`` (a server reading a client's frame: 64
    KiB; a client reading a server's: :data:`CLIENT_FRAME_BYTES`), ``bad_frame`` when the
    frame cannot be decoded, and ``bad_message`` when it decodes to something other than
    a map. A frame parsed into a map that holds a value refused (a lone surrogate, an
    integer past 64 bits…) raises with that map as the error's ``parsed``.
    """
    if len(frame) > max_bytes:
        raise ProtocolError(
            "too_large",
            f"frame larger than {max_bytes} bytes",
            fr=f"trame de plus de {max_bytes} octets",
        )
    try:
        if isinstance(frame, (bytes, bytearray, memoryview)):
            value = msgpack.unpackb(
                frame,
                raw=False,
                strict_map_key=True,
                ext_hook=_reject_ext,
                timestamp=0,
            )
        else:
            value = json.loads(frame, parse_constant=_reject_constant)
    except ProtocolError:
        raise
    except RecursionError:
        raise _bad_frame(f"nested deeper than {MAX_DEPTH} levels") from None
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.StackError) as exc:
        raise _bad_frame(str(exc) or type(exc).__name__) from None
    except Exception as exc:  # msgpack raises a few more exotic types on garbage
        raise _bad_frame(type(exc).__name__) from None
    try:
        _check_value(value, 0, "", not isinstance(frame, (bytes, bytearray, memoryview)))
    except ProtocolError as exc:
        # The frame was parsed: what it holds goes with the error, so that the answer can
        # echo its ``id`` (a client waits for the answer to its request).
        exc.parsed = value if isinstance(value, dict) else None
        raise
    if not isinstance(value, dict):
        raise ProtocolError(
            "bad_message",
            "a message must be a map with a 'type' field",
            fr="un message doit être une table avec un champ 'type'",
            details={"field": "type"},
        )
    return value


def encode(message: dict[str, Any], *, binary: bool) -> bytes | str:
    """Encode a message map: MessagePack ``bytes`` when ``binary``, else a JSON ``str``."""
    if binary:
        return msgpack.packb(message, use_bin_type=True)
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
