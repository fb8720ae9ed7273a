"""Tables kept in Redis, shared by any number of ``sidecar serve`` processes.

``sidecar serve --store redis://HOST:PORT/DB`` (the ``redis`` extra). Every process keeps
the tables its members sit at in memory, as with the SQLite journal, and Redis decides:
each event is written by one Lua script (:data:`APPEND`) that, atomically,

1. checks the table is still at the ``seq`` the event was built on (compare-and-set: the
   spend, the seat, the open roll were checked against that very table; if another
   process wrote meanwhile, nothing is written and the process catches up and builds the
   event again — the dice it drew are never shown);
2. checks the request id was not resolved already (by any process);
3. writes the plugin state and the records it changes (seats, characters, asks, open
   rolls, epochs), appends the event to the table's stream (entry id ``<seq>-0``) and
   publishes its seq on the table's channel — unless the writer is the channel's only
   listener (a process alone at a table pays for no notice).

An outcome is sent only after the script's reply: what a member saw is in Redis (as
durable as Redis's persistence makes it: see docs/DEPLOY.md). The other processes serving
that table (each subscribes to the tables it serves, only) hear the channel, read the
stream from their last seq and fan out to their members; a process that missed notices
(its subscription dropped) reads every table it serves again when it reconnects. The
script goes through :mod:`sidecar.stores.resp` (a plain pipelined connection: a quarter of
redis-py's CPU per command); everything else through redis-py.

Keys of one table share a Redis Cluster hash tag (the table's name, percent-encoded):
``sidecar:{NAME}:meta`` (hash: seq, state), ``…:events`` (stream), ``…:req`` (hash:
request key → seq), ``…:r:<kind>`` (hash per record kind); ``sidecar:tables`` (a set of
names, for tools) is the only key outside a table's slot and is never written by a script.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import orjson

from sidecar.stores.base import (
    DuplicateRequest,
    Entry,
    Registry,
    Snapshot,
    StaleTable,
    StoreFull,
    StoreUnavailable,
)
from sidecar.stores.journal.schema import JournalError, encode, request_key
from sidecar.stores.resp import ConnectionLost, RespConnection, RespError
from sidecar.stores.visible import visible

log = logging.getLogger("sidecar.store")

#: The record kinds a table holds (one hash each).
RECORD_KINDS = ("seat", "character", "ask", "session", "open", "epoch")
#: The set of every table's name (for ``sidecar export``/``import`` and start-up).
TABLES_KEY = "sidecar:tables"
#: Announced to a table's watcher when its notices may have been missed (read it all).
ANY = 1 << 62
#: Stream entries read per round trip.
READ_BATCH = 500

APPEND = """
local meta = redis.call('HMGET', KEYS[1], 'seq', 'inc')
local seq = tonumber(meta[1] or '0')
local inc = meta[2] or ''
-- The table's incarnation (ARGV[12]: the writer's, '' when it knows none yet): another
-- one means Redis lost events the writer saw (emptied, restarted without its last
-- writes): the writer must read the table again.
if ARGV[12] ~= '' and ARGV[12] ~= inc then return {'lost', seq, inc} end
if seq ~= tonumber(ARGV[1]) then
  if seq > tonumber(ARGV[1]) then
    -- The events the writer missed, in the same reply: one round trip less to catch up.
    return {'stale', seq, redis.call('XRANGE', KEYS[2], (tonumber(ARGV[1]) + 1) .. '-0',
                                     '+', 'COUNT', 64), inc}
  end
  return {'stale', seq, {}, inc}
end
if inc == '' then
  inc = ARGV[13]
  redis.call('HSET', KEYS[1], 'inc', inc)
end
if ARGV[2] ~= '' then
  local done = redis.call('HGET', KEYS[3], ARGV[2])
  if done then return {'dup', tonumber(done)} end
end
local new = seq + 1
redis.call('HSET', KEYS[1], 'seq', new)
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'state', ARGV[4]) end
if ARGV[2] ~= '' then redis.call('HSET', KEYS[3], ARGV[2], new) end
local i = 15
for r = 1, tonumber(ARGV[14]) do
  if ARGV[i] == '1' then
    redis.call('HDEL', KEYS[3 + r], ARGV[i + 1])
  else
    redis.call('HSET', KEYS[3 + r], ARGV[i + 1], ARGV[i + 2])
  end
  i = i + 3
end
redis.call('XADD', KEYS[2], new .. '-0', 'e', ARGV[3], 'm', ARGV[5], 'n', ARGV[6],
           'r', ARGV[7], 'a', ARGV[8], 'q', ARGV[2], 's', ARGV[4], 'c', ARGV[9], 'i', inc)
-- The notice, unless the writer is the channel's only listener (ARGV[11]: 1 when the
-- writing process listens to it itself): a lone process pays for no notice of its own.
if redis.call('PUBSUB', 'NUMSUB', ARGV[10])[2] > tonumber(ARGV[11]) then
  redis.call('PUBLISH', ARGV[10], new .. ' ' .. inc)
end
return {'ok', new, inc}
"""


RENEW = """
-- A process found Redis behind its table: a new incarnation, unless one was given since.
if (redis.call('HGET', KEYS[1], 'inc') or '') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'inc', ARGV[2])
end
return 1
"""


def table_tag(table: str) -> str:
    """A table's hash tag: its name percent-encoded (no ``{``, ``}`` or ``:`` left)."""
    return quote(table, safe="")


class Keys:
    """The Redis keys of one table (one Cluster slot: they share the hash tag)."""

    def __init__(self, table: str) -> None:
        base = f"sidecar:{{{table_tag(table)}}}"
        self.meta = base + ":meta"
        self.events = base + ":events"
        self.requests = base + ":req"
        self.channel = base + ":notify"
        self.base = base

    def record(self, kind: str) -> str:
        return f"{self.base}:r:{kind}"


def table_of_channel(channel: str) -> str | None:
    """The table a notice channel belongs to (None: not one of ours)."""
    if channel.startswith("sidecar:{") and channel.endswith("}:notify"):
        return unquote(channel[len("sidecar:{"):-len("}:notify")])
    return None


def redacted(url: str) -> str:
    """``url`` as printed (banner, logs): its password, if any, replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is not None:
        user = parts.username or ""
        host = parts.netloc.rpartition("@")[2]
        parts = parts._replace(netloc=f"{user}:***@{host}")
    if "password=" in parts.query:  # redis://host/0?password=…, which redis-py reads too
        query = "&".join("password=***" if item.startswith("password=") else item
                         for item in parts.query.split("&"))
        parts = parts._replace(query=query)
    return urlunsplit(parts)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _audience(value: str | None) -> str:
    # "" is an audience (seat events: the GMs only), distinct from none at all.
    return "-" if value is None else "+" + value


def _entry_event(fields: dict[bytes, bytes]) -> dict[str, Any]:
    return orjson.loads(fields[b"e"])


def _entry_visible(fields: dict[bytes, bytes], name: str, role: str) -> bool:
    audience = _text(fields[b"a"])
    return visible(_text(fields[b"m"]), _text(fields[b"n"]), _text(fields[b"r"]),
                   None if audience == "-" else audience[1:], name, role)


def _unavailable(exc: BaseException) -> StoreUnavailable:
    if type(exc).__name__ == "AuthenticationError":  # Redis is there: it refuses us
        return StoreUnavailable(f"Redis refuse l'utilisateur ou le mot de passe / Redis "
                                f"refused the user or password ({exc})")
    return StoreUnavailable(f"Redis injoignable / Redis unreachable ({exc})")


#: Connections a process opens to Redis at most; requests beyond wait for one (a burst of
#: joins after a process died must queue, not fail).
MAX_CONNECTIONS = 64


class RedisStore:
    """Tables in Redis (see the module's text); one per server process."""

    def __init__(self, url: str, *, connect_timeout: float = 2.0,
                 timeout: float = 5.0) -> None:
        try:
            import redis.asyncio as redis
            from redis import exceptions
        except ImportError:
            raise ValueError("--store redis://… demande le client Redis : pip install "
                             "'vtt-sidecar[redis]' / --store redis://… needs the Redis "
                             "client: pip install 'vtt-sidecar[redis]'") from None
        self.url = url
        self.described = f"store: {redacted(url)}"
        self._errors = (exceptions.ConnectionError, exceptions.TimeoutError, OSError,
                        exceptions.BusyLoadingError)
        self._response_error = exceptions.ResponseError
        self._full = exceptions.OutOfMemoryError
        self._auth = exceptions.AuthenticationError
        parts = urlsplit(url)
        # (For unix:// the path is the socket's, and the database is ?db=N.)
        database = parts.path.strip("/") if parts.scheme in ("redis", "rediss") else ""
        if database and not database.isdigit():
            raise ValueError(f"--store : la base Redis est un numéro, pas « {database} » "
                             f"(redis://HÔTE:PORT/0) / the Redis database is a number, not "
                             f"'{database}' (redis://HOST:PORT/0)")
        try:
            # A bounded pool that makes requests wait for a free connection (redis-py's
            # default pool fails past 100 at once: "Too many connections"). No
            # health_check_interval: a clock read and a branch on every command, tens of
            # µs with redis-py; a dead connection fails its command, the next takes a
            # new one.
            pool = redis.BlockingConnectionPool.from_url(
                url, max_connections=MAX_CONNECTIONS, timeout=timeout,
                socket_connect_timeout=connect_timeout, socket_timeout=timeout)
            self.client = redis.Redis(connection_pool=pool)
        except ValueError as exc:
            raise ValueError(f"--store : {exc}") from None
        self._append = self.client.register_script(APPEND)
        self._renew = self.client.register_script(RENEW)
        #: Each table's incarnation as this process knows it (see APPEND).
        self._incs: dict[str, str] = {}
        #: Told when a notice shows a table's incarnation changed (Redis lost events).
        self.lost: Callable[[str, int], None] | None = None
        # The script of every event goes through a plain pipelined connection (see
        # sidecar.stores.resp: a quarter of redis-py's CPU per command); TLS keeps redis-py.
        settings = redis.connection.parse_url(url)
        self._fast: RespConnection | None = (
            RespConnection(settings, timeout=timeout, connect_timeout=connect_timeout)
            if RespConnection.usable(settings) else None)
        #: Each table's plugin state as last stored (JSON), to skip rewriting it.
        self._states: dict[str, str] = {}
        self._known: set[str] = set()  # tables already added to TABLES_KEY
        self._watched: dict[str, Callable[[str, int], None]] = {}
        self._listener: asyncio.Task[None] | None = None
        #: The notices' subscription now (None: being made again), and the lock every
        #: (un)subscribe takes: one command at a time on its connection.
        self._pubsub: Any = None
        self._subscribing = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        #: The tables whose channel the subscription holds now (confirmed).
        self._subscribed: set[str] = set()
        self._wanted = asyncio.Event()  # a first table to watch
        self._lost = False  # the subscription was lost (said when it is back)
        #: Whether the notices' subscription is up now.
        self.listening = False
        self._closed = False

    # -- connecting ---------------------------------------------------------------------

    async def open(self, tables: Registry | None = None, *,
                   changed: Callable[[str, int], None] | None = None,
                   added: Callable[[Any], None] | None = None,
                   lost: Callable[[str, int], None] | None = None,
                   sweep: Callable[[], Awaitable[None]] | None = None) -> None:
        shown = redacted(self.url)
        try:
            await self.client.ping()
        except self._auth as exc:
            raise StoreUnavailable(f"Redis refuse l'utilisateur ou le mot de passe de {shown} "
                                   f"/ Redis refused the user or password of {shown} "
                                   f"({exc})") from None
        except self._errors:
            raise StoreUnavailable(f"Redis injoignable à {shown} — démarrez-le ou corrigez "
                                   f"--store / Redis unreachable at {shown} — start it or "
                                   "fix --store") from None
        except self._response_error as exc:
            # Redis answers but refuses the URL's database (out of range), the user…:
            # the same one line at start-up, not a traceback.
            raise StoreUnavailable(f"Redis refuse {shown} / Redis refused {shown} "
                                   f"({exc})") from None
        await self._check_settings()
        self._listener = asyncio.get_running_loop().create_task(self._listen())
        if tables is not None:
            tables.forgotten = self.forget
            if changed is not None:
                hear = changed

                def held(table: Any) -> None:  # a table read into memory: hear of it
                    self.watch(table.name, hear)
                    if added is not None:
                        added(table)
                tables.added = held
        self.lost = lost
        if sweep is not None:
            self._spawn(sweep())

    async def _check_settings(self) -> None:
        """Warn at start-up about the Redis settings that lose history (docs/DEPLOY.md §5);
        a Redis that does not let CONFIG be read (a managed one) is not checked."""
        try:
            found = {}
            for name in ("appendonly", "maxmemory-policy"):
                found.update({_text(k): _text(v)
                              for k, v in (await self.client.config_get(name)).items()})
        except (*self._errors, self._response_error):
            return
        if found.get("appendonly") == "no":
            log.warning("Redis: appendonly is off — a crash of Redis loses every event since "
                        "its last snapshot; turn AOF on (docs/DEPLOY.md §5)")
        policy = found.get("maxmemory-policy")
        if policy not in (None, "noeviction"):
            log.warning("Redis: maxmemory-policy is %s — Redis may evict tables' history "
                        "when full; use noeviction (docs/DEPLOY.md §5)", policy)

    async def close(self) -> None:
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        if self._listener is not None:
            self._listener.cancel()
            try:
                await self._listener
            except (asyncio.CancelledError, Exception):
                pass
        if self._fast is not None:
            await self._fast.close()
        try:
            await self.client.aclose()
        except self._errors:
            pass

    async def _listen(self) -> None:
        """Hear the notices of the tables this process serves (one channel each: a
        process is not woken by tables it does not serve); when the subscription is made
        again, every watched table is announced (notices may have been missed)."""
        delay = 0.1
        while not self._closed:
            if not self._watched:
                self._wanted.clear()
                await self._wanted.wait()
                continue
            pubsub = self.client.pubsub()
            try:
                async with self._subscribing:
                    watched = list(self._watched)
                    await pubsub.subscribe(*(Keys(table).channel for table in watched))
                    self._pubsub = pubsub
                if delay > 0.1 or self._lost:
                    log.warning("Redis: back; reading every table served here again")
                self._lost = False
                self.listening, delay = True, 0.1
                for table in watched:  # written meanwhile, unheard: read them
                    changed = self._watched.get(table)
                    if changed is not None:
                        changed(table, ANY)
                while True:
                    message = await pubsub.get_message(timeout=5.0)
                    if message is None:
                        continue
                    kind = message.get("type")
                    table = table_of_channel(_text(message["channel"]))
                    if kind == "subscribe" and table in self._watched:
                        # Confirmed: Redis counts this process among the channel's
                        # listeners for every script that comes after (see APPEND).
                        self._subscribed.add(table)
                    if kind != "message":
                        continue
                    changed = self._watched.get(table) if table is not None else None
                    if changed is not None:
                        number, _, inc = _text(message["data"]).partition(" ")
                        known = self._incs.get(table, "")
                        if inc and known and inc != known:
                            if self.lost is not None:
                                self.lost(table, int(number))
                            continue
                        if inc and not known:
                            self._incs[table] = inc  # (a table begun by another process)
                        changed(table, int(number))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away (or anything else): never stop hearing
                if self.listening:
                    log.warning("Redis: notices lost (%s); reconnecting", exc)
                    self._lost = True
                elif not isinstance(exc, self._errors):
                    log.exception("Redis: the notices' subscription failed")
                self.listening = False
            finally:
                self._pubsub = None
                self._subscribed = set()
                try:
                    await pubsub.aclose()
                except Exception:  # the connection is gone already
                    pass
            await asyncio.sleep(delay)  # Redis away: try again, slower each time
            delay = min(delay * 2, 2.0)

    async def _subscription(self, table: str, subscribe: bool) -> None:
        """(Un)subscribe one table's channel on the subscription as it is now (made again
        later, it subscribes every watched table anyway)."""
        async with self._subscribing:
            pubsub = self._pubsub
            if pubsub is None or (table in self._watched) != subscribe:
                return
            try:
                if subscribe:
                    await pubsub.subscribe(Keys(table).channel)  # confirmed in _listen
                else:
                    self._subscribed.discard(table)
                    await pubsub.unsubscribe(Keys(table).channel)
            except Exception:
                return  # the listener sees the connection fail and starts again
        changed = self._watched.get(table)
        if subscribe and changed is not None:
            changed(table, ANY)  # written before the subscription took: read them

    # -- loading ------------------------------------------------------------------------

    async def load(self, table: str) -> Snapshot:
        keys = Keys(table)

        async def read() -> list[Any]:
            # Not a MULTI (refused by a full Redis, which still serves reads): the seq is
            # read first and last, and every write moves it, so equal seqs mean nothing
            # was written in between; else read again.
            for _ in range(10):
                async with self.client.pipeline(transaction=False) as pipe:
                    pipe.hget(keys.meta, "seq")
                    pipe.hget(keys.meta, "state")
                    for kind in RECORD_KINDS:
                        pipe.hgetall(keys.record(kind))
                    pipe.hget(keys.meta, "inc")
                    pipe.hget(keys.meta, "seq")
                    replies = await pipe.execute()
                if replies[0] == replies[-1]:
                    return replies[:-1]
            raise StoreUnavailable(f"table {table!r} kept changing while read")
        replies = await self._read(read)
        seq = int(replies[0] or 0)
        state: dict[str, Any] = {}
        if replies[1]:
            self._states[table] = _text(replies[1])
            try:
                loaded = orjson.loads(replies[1])
                state = loaded if isinstance(loaded, dict) else {}
            except ValueError:
                log.error("Redis: the plugin state of table %r is unreadable; the table "
                          "starts with an EMPTY state", table)
        records: dict[str, dict[str, Any]] = {}
        if replies[-1]:
            # (Only a table that has one: the names of hellos that fail must not pile up.)
            self._incs[table] = _text(replies[-1])
        for kind, found in zip(RECORD_KINDS, replies[2:-1], strict=True):
            for name, body in found.items():
                try:
                    records.setdefault(kind, {})[_text(name)] = orjson.loads(body)
                except ValueError:
                    log.error("Redis: the %s %r of table %r is unreadable; left out", kind,
                              _text(name), table)
        return seq, state, records

    # -- writing ------------------------------------------------------------------------

    def _script(self, event: dict[str, Any], state: dict[str, Any] | None,
                records: tuple[tuple[str, str, Any], ...],
                expected: int) -> tuple[str, str, list[str], list[Any]]:
        """The table, its state's JSON, and the keys and arguments of :data:`APPEND` for
        one event (``state`` None: not written)."""
        row = encode(event, state if state is not None else {}, records)
        table = row.table
        keys = Keys(table)
        state_text = ("" if state is None or self._states.get(table) == row.state
                      else row.state)
        # Request ids are per member (another member's id 1 is not a repeat of mine).
        request = (f"{row.roller_role}\x1f{row.roller_name}\x1f{row.request_id}"
                   if row.request_id is not None else "")
        changes = orjson.dumps([[kind, name, value] for kind, name, value in records]).decode()
        argv: list[Any] = [expected, request, row.body, state_text, row.mode,
                           row.roller_name, row.roller_role, _audience(row.audience),
                           changes, keys.channel, 1 if table in self._subscribed else 0,
                           self._incs.get(table, ""), secrets.token_hex(8),
                           len(row.records)]
        record_keys = []
        for kind, name, body in row.records:
            record_keys.append(keys.record(kind))
            argv += ["1", name, ""] if body is None else ["0", name, body]
        return table, row.state, [keys.meta, keys.events, keys.requests, *record_keys], argv

    async def append(self, event: dict[str, Any], state: dict[str, Any],
                     records: tuple[tuple[str, str, Any], ...], *, expected: int) -> None:
        table, state_text, keys, argv = self._script(event, state, records, expected)
        try:
            if self._fast is not None:
                reply = await self._run_fast(keys, argv)
            else:
                reply = await self._append(keys=keys, args=argv)
        except self._errors as exc:
            raise _unavailable(exc) from None
        except self._full as exc:
            raise StoreFull(f"Redis est plein / Redis is full ({exc})") from None
        except self._response_error as exc:
            # Redis refused the write itself (a read-only replica…): nothing was written.
            raise JournalError(f"Redis refused the event: {exc}") from None
        outcome, seq = _text(reply[0]), int(reply[1])
        if outcome == "lost":
            raise StaleTable(seq, lost=True)
        if outcome == "stale" and seq < expected:
            # Redis holds fewer events than this process saw acknowledged (restarted
            # without its last writes): a new incarnation makes every other process
            # holding the table read it again too.
            self.renew(table)
            raise StaleTable(seq, lost=True)
        if outcome in ("ok", "stale") and (table in self._watched or table in self._incs):
            self._incs[table] = _text(reply[-1])  # (a "dup" reply carries no incarnation)
        if outcome == "stale":
            missed = None
            if len(reply) > 2:
                missed = [self._entry(table, dict(zip(flat[::2], flat[1::2], strict=True)))
                          for _, flat in reply[2]]
            raise StaleTable(seq, missed)
        if outcome == "dup":
            raise DuplicateRequest(seq)
        self._states[table] = state_text
        await self._list(table)

    async def _run_fast(self, keys: list[str], argv: list[Any]) -> Any:
        """:data:`APPEND` on the plain connection; Redis's errors as redis-py raises them
        (so :meth:`append` handles both paths alike)."""
        from redis import exceptions

        command = ("EVALSHA", self._append.sha, len(keys), *keys, *argv)
        try:
            try:
                return await self._fast.call(*command)  # type: ignore[union-attr]
            except RespError as exc:
                if not str(exc).startswith("NOSCRIPT"):
                    raise
                # Redis restarted (its script cache is empty): load it, run it (NOSCRIPT
                # means it did not run).
                await self.client.script_load(APPEND)
                return await self._fast.call(*command)  # type: ignore[union-attr]
        except ConnectionLost as exc:
            raise exceptions.ConnectionError(str(exc)) from None
        except RespError as exc:
            text = str(exc)
            if text.startswith("OOM"):
                raise exceptions.OutOfMemoryError(text) from None
            if text.startswith(("LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN")):
                # Redis is starting (loading its AOF) or busy: unavailable for now.
                raise exceptions.BusyLoadingError(text) from None
            raise exceptions.ResponseError(text) from None

    async def _list(self, table: str) -> None:
        if table not in self._known:
            self._known.add(table)
            try:
                await self.client.sadd(TABLES_KEY, table)
            except self._errors:
                self._known.discard(table)  # listed next time: only tools read it

    async def import_events(self, events: list[dict[str, Any]], state: dict[str, Any],
                            records: tuple[tuple[str, str, Any], ...],
                            batch: int = 200) -> None:
        """Write a whole table's events 1…N (``sidecar import``): the state and the
        records with the last one; pipelined, each still checked by :data:`APPEND`
        (StaleTable if another writer took the table meanwhile)."""
        for start in range(0, len(events), batch):
            chunk = events[start:start + batch]
            try:
                async with self.client.pipeline(transaction=False) as pipe:
                    for event in chunk:
                        last = event is events[-1]
                        _, _, keys, argv = self._script(
                            event, state if last else None, records if last else (),
                            event["seq"] - 1)
                        await self._append(keys=keys, args=argv, client=pipe)
                    replies = await pipe.execute()
            except self._errors as exc:
                raise _unavailable(exc) from None
            for reply in replies:
                if _text(reply[0]) != "ok":
                    raise StaleTable(int(reply[1]))
        if events:
            await self._list(events[0]["table"])

    # -- other processes' events --------------------------------------------------------

    def watch(self, table: str, changed: Callable[[str, int], None]) -> None:
        new = table not in self._watched
        self._watched[table] = changed
        if new:
            self._wanted.set()
            self._spawn(self._subscription(table, True))

    def forget(self, table: str) -> None:
        if self._watched.pop(table, None) is not None:
            self._spawn(self._subscription(table, False))
        self._states.pop(table, None)
        self._incs.pop(table, None)

    def renew(self, table: str) -> None:
        """This process found Redis behind its copy of ``table``: give the table a new
        incarnation (unless another process did), so every other process holding the old
        one reads it again at its next write or notice."""
        old = self._incs.get(table, "")
        if not old:
            return  # (Redis was emptied: the next first write gives a new one)

        async def renew() -> None:
            try:
                await self._renew(keys=[Keys(table).meta], args=[old, secrets.token_hex(8)])
            except (*self._errors, self._response_error) as exc:
                log.warning("Redis: table %r could not be given a new incarnation (%s)",
                            table, exc)
        self._spawn(renew())

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _read(self, call: Callable[[], Any]) -> Any:
        """A read, tried twice: after Redis came back, the first use of each pooled
        connection fails (closed by the server). Writes are never retried this way."""
        try:
            return await call()
        except self._errors:
            pass
        try:
            return await call()
        except self._errors as exc:
            raise _unavailable(exc) from None

    async def _range(self, table: str, after: int, upto: int | None,
                     count: int) -> list[tuple[bytes, dict[bytes, bytes]]]:
        return await self._read(lambda: self.client.xrange(
            Keys(table).events, min=f"{after + 1}-0",
            max="+" if upto is None else f"{upto}-0", count=count))

    async def since(self, table: str, after: int) -> list[Entry]:
        found: list[Entry] = []
        while True:
            batch = await self._range(table, after, None, READ_BATCH)
            known = self._incs.get(table, "")
            for _, fields in batch:
                inc = _text(fields.get(b"i", b""))
                if inc and known and inc != known:
                    raise StaleTable(after, lost=True)  # the stream was written anew
                if inc and not known and table in self._watched:
                    known = self._incs[table] = inc
                found.append(self._entry(table, fields))
                after = found[-1][0]["seq"]
            if len(batch) < READ_BATCH:
                return found

    def _entry(self, table: str, fields: dict[bytes, bytes]) -> Entry:
        """One stream entry as the server applies it."""
        state_text = _text(fields[b"s"])
        state = None
        if state_text:
            state = orjson.loads(state_text)
            self._states[table] = state_text
        changes = tuple((kind, name, value) for kind, name, value
                        in orjson.loads(fields[b"c"]))
        return _entry_event(fields), state, changes, len(fields[b"e"])

    # -- reading ------------------------------------------------------------------------

    async def _visible(self, table: str, name: str, role: str, after: int,
                       upto: int | None, limit: int | None) -> tuple[int, list[Any]]:
        """Visible events in (after, upto]: how many (up to ``limit``), and which."""
        count, events = 0, []
        while limit is None or count < limit:
            batch = await self._range(table, after, upto, READ_BATCH)
            for entry_id, fields in batch:
                after = int(_text(entry_id).split("-")[0])
                if _entry_visible(fields, name, role):
                    count += 1
                    if limit is not None:
                        events.append(_entry_event(fields))
                        if count >= limit:
                            break
            if len(batch) < READ_BATCH:
                break
        return count, events

    async def count(self, table: str, name: str, role: str, after: int, upto: int) -> int:
        return (await self._visible(table, name, role, after, upto, None))[0]

    async def page(self, table: str, name: str, role: str, after: int, upto: int | None,
                   limit: int) -> list[dict[str, Any]]:
        return (await self._visible(table, name, role, after, upto, limit))[1]

    async def event(self, table: str, seq: int) -> dict[str, Any] | None:
        found = await self._range(table, seq - 1, seq, 1)
        return _entry_event(found[0][1]) if found else None

    async def find_request(self, table: str, name: str, role: str,
                           request_id: Any) -> dict[str, Any] | None:
        key = request_key(request_id)
        if key is None:
            return None
        seq = await self._read(lambda: self.client.hget(Keys(table).requests,
                                                        f"{role}\x1f{name}\x1f{key}"))
        if seq is None:
            return None
        return await self.event(table, int(seq))

    async def tables(self) -> list[tuple[str, int]]:
        """Every table in the store with its last seq."""
        try:
            names = sorted(_text(name) for name in await self.client.smembers(TABLES_KEY))
            async with self.client.pipeline(transaction=False) as pipe:
                for name in names:
                    pipe.hget(Keys(name).meta, "seq")
                seqs = await pipe.execute()
        except self._errors as exc:
            raise _unavailable(exc) from None
        return [(name, int(seq or 0)) for name, seq in zip(names, seqs, strict=True)]

    async def newest_tables(self, limit: int) -> list[str]:
        return []  # (a set of names and streams numbered by seq: no order in time)

    async def ended_at_stop(self, held: Iterable[str]) -> list[str]:
        return []  # the other processes keep serving them: the GM ends an epoch

    async def tables_with(self, kind: str) -> list[str]:
        try:
            names = sorted(_text(name) for name in await self.client.smembers(TABLES_KEY))
            async with self.client.pipeline(transaction=False) as pipe:
                for name in names:
                    pipe.exists(Keys(name).record(kind))
                found = await pipe.execute()
        except self._errors as exc:
            raise _unavailable(exc) from None
        return [name for name, present in zip(names, found, strict=True) if present]

