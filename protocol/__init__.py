"""The vtt-sidecar wire protocol: message types, codec and validation.

Installed as ``sidecar.protocol`` (this folder stays at the repository's top level). A
Python client needs only it: it does not use the server's modules (importing it loads the
small ``sidecar`` package, and pluggy with it). The full specification is
``protocol/PROTOCOL.md``.
"""

if __name__ != "sidecar.protocol":
    # Run from the repository's root, the folder is also reachable as a bare ``protocol``:
    # a second copy would have its own ProtocolError class, which ``except`` would miss.
    raise ImportError(f"import the protocol as 'sidecar.protocol', not as '{__name__}'")

from sidecar.protocol.codec import MAX_FRAME_BYTES, decode, encode
from sidecar.protocol.errors import ERROR_CODES, ProtocolError
from sidecar.protocol.messages import (
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
