"""The store a server's settings name: the SQLite journal, or Redis for a ``redis://``,
``rediss://`` or ``unix://`` address."""

from __future__ import annotations

import os
from typing import Any

from sidecar.stores.base import Store
from sidecar.stores.sqlite import SqliteStore


def is_redis_url(value: str | None) -> bool:
    """Whether ``--store`` names a Redis server."""
    return bool(value) and str(value).startswith(("redis://", "rediss://", "unix://"))


def open_store(db: str | os.PathLike[str], store: str | None = None,
               **options: Any) -> Store:
    """The store a server's configuration names: Redis for ``--store redis://…``, else the
    SQLite journal at ``db``. ValueError for a ``--store`` that names nothing known."""
    if store is None or store == "" or store == "sqlite":
        return SqliteStore(db)
    if is_redis_url(store):
        from sidecar.stores.redis import RedisStore

        return RedisStore(store, **options)
    raise ValueError(f"--store : « {store} » n'est pas une adresse redis://HÔTE:PORT/BASE / "
                     f"'{store}' is not a redis://HOST:PORT/DB address")
