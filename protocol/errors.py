"""Error values of the wire protocol.

Every failure that reaches a client is a :class:`ProtocolError` carrying one of the
contract's codes. They are raised anywhere in the pipeline and turned into an ``error``
message at the edge, so a client never sees a traceback.
"""

from __future__ import annotations

from typing import Any

#: The contract's error codes (CONTRACT.md §5), in the order it lists them.
ERROR_CODES: tuple[str, ...] = (
    "bad_frame",
    "bad_message",
    "unknown_type",
    "unknown_ruleset",
    "invalid_params",
    "bad_dice",
    "forbidden",
    "not_joined",
    "rate_limited",
    "too_large",
    "plugin_error",
    "unsupported_protocol",
    "internal",
    # Contract 1.1: a roll or an adjustment would take a sheet's counter past its bounds.
    "insufficient",
    # Extension (PROTOCOL.md §5): the shared store (Redis) cannot be reached; nothing was
    # written, the connection stays open, and the same request may be sent again.
    "store_unavailable",
)


class ProtocolError(Exception):
    """A failure to report to the client that caused it.

    ``message`` is English; ``message_fr`` (when given) is what French-speaking clients
    read. ``details`` is a small JSON-compatible map (e.g. ``{"field": "pool"}``).
    ``close``: the WebSocket close code that follows this error (``None``: the connection
    stays open, the contract's rule except where it says otherwise). ``parsed``: the map a
    frame was parsed into, when the frame was refused for what it holds (its ``id`` is
    echoed).
    """

    parsed: dict[str, Any] | None = None

    def __init__(
        self,
        code: str,
        message: str,
        *,
        fr: str | None = None,
        details: dict[str, Any] | None = None,
        close: int | None = None,
    ) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.message_fr = fr
        self.details = details
        self.close = close

    def to_message(self, *, locale: str = "en", request_id: Any = None) -> dict[str, Any]:
        """The ``error`` message for this failure, in the client's locale.

        ``messages`` (an extension, PROTOCOL.md §5) holds both languages when the failure has
        both: a page whose member switches language shows a refusal already made in the new
        one (it cannot ask the server again for a refusal: the request is not resent).
        """
        text = self.message_fr if locale == "fr" and self.message_fr else self.message
        message = error_message(self.code, text, details=self.details, request_id=request_id)
        if self.message_fr and self.message_fr != self.message:
            message["messages"] = {"fr": self.message_fr, "en": self.message}
        return message

    def __repr__(self) -> str:
        return f"ProtocolError({self.code!r}, {self.message!r})"


#: What a yes-or-no value must be, as one error says it to a member of either language:
#: « oui ou non » to a French reader (the command line takes oui/non, the page a box),
#: true or false to an English one (a program's JSON).
MUST_BE_BOOL = {"en": "must be true or false", "fr": "doit être oui ou non"}


def bad_field(field: str, expected: str, *, fr: str | None = None) -> ProtocolError:
    """A ``bad_message`` error naming the missing or ill-typed field."""
    return ProtocolError(
        "bad_message",
        f"field '{field}': {expected}",
        fr=f"champ '{field}' : {fr or expected}",
        details={"field": field},
    )


def invalid_param(param: str, message: str, *, fr: str | None = None) -> ProtocolError:
    """An ``invalid_params`` error naming the parameter."""
    return ProtocolError(
        "invalid_params",
        f"parameter '{param}': {message}",
        fr=f"paramètre '{param}' : {fr or message}",
        details={"param": param},
    )


def plays_another(name: str, plays: dict[str, str], asked: dict[str, str],
                  field: str) -> ProtocolError:
    """``invalid_params`` on ``field``: the character ``name`` plays the game titled
    ``plays`` (``{"fr", "en"}``), not ``asked``'s. Both games said, their titles quoted
    as each reader quotes: a title mid-sentence keeps its capital (« pas à « L'échelle
    des dés » », “The dice ladder”), and « à » never meets a « Le » it should contract."""
    name = name[:64]
    return ProtocolError(
        "invalid_params",
        f"“{name}” plays “{plays['en']}”, not “{asked['en'][:40]}”",
        fr=f"« {name} » joue à « {plays['fr']} », pas à « {asked['fr'][:40]} »",
        details={"param": field, "field": field})


def error_message(code: str, text: str, *, details: dict[str, Any] | None = None,
                  request_id: Any = None) -> dict[str, Any]:
    """An ``error`` for the one client that caused it (``text`` already in its locale)."""
    message: dict[str, Any] = {"type": "error", "code": code, "message": text}
    if request_id is not None:
        message["id"] = request_id
    if details:
        message["details"] = details
    return message
