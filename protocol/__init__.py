"""The vtt-sidecar wire protocol: message types, codec and validation.

Import this package alone to write a Python client; it does not depend on the server.
The full specification is ``protocol/PROTOCOL.md``.
"""

from protocol.codec import MAX_FRAME_BYTES, decode, encode
from protocol.errors import ERROR_CODES, ProtocolError
from protocol.messages import (
    KINDS,
    MODES,
    PROTOCOL_VERSION,
    ROLES,
    Hello,
    OddsRequest,
    RollRequest,
    parse_request,
)

__all__ = [
    "ERROR_CODES",
    "KINDS",
    "MAX_FRAME_BYTES",
    "MODES",
    "PROTOCOL_VERSION",
    "ROLES",
    "Hello",
    "OddsRequest",
    "ProtocolError",
    "RollRequest",
    "decode",
    "encode",
    "parse_request",
]
