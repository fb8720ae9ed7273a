"""Errors the server itself answers (not the table core's): a store it cannot reach, a
table too busy on other processes, a table the store lost events of."""

from __future__ import annotations

import logging

from sidecar.protocol.errors import ProtocolError

log = logging.getLogger("sidecar.server")


def store_unavailable(*, full: bool = False) -> ProtocolError:
    """The error of a request while the shared store (Redis) cannot be reached, or is
    full (``full``: Redis refused the write for want of memory)."""
    if full:
        return ProtocolError(
            "store_unavailable", "the table's store (Redis) is full: nothing was written; "
            "the GM must give Redis more memory (docs/DEPLOY.md), then send the same "
            "request again", fr="le stockage des tables (Redis) est plein : rien n'a été "
            "enregistré ; le MJ doit donner plus de mémoire à Redis (docs/DEPLOY.md), puis "
            "renvoyez la même demande", details={"retry": True, "full": True})
    return ProtocolError(
        "store_unavailable", "the table's store (Redis) cannot be reached: nothing was "
        "written; send the same request again in a moment",
        fr="le stockage des tables (Redis) est injoignable : rien n'a été enregistré ; "
           "renvoyez la même demande dans un instant", details={"retry": True})


def lost_error() -> ProtocolError:
    """A table whose store lost its last events: read again, its members join again."""
    return ProtocolError(
        "store_unavailable", "the store lost this table's last events; the table was "
        "read again from it: join again", fr="le stockage a perdu les derniers "
        "événements de cette table ; elle a été relue : rejoignez-la",
        details={"retry": True})
