"""An async Python client for a sidecar table (what ``sidecar roll``, ``watch``, ``seat`` and
``sheet`` use).

Example (``examples/roll_and_watch.py`` is a runnable version)::

    async with SidecarClient("ws://127.0.0.1:8765/ws", table="demo", name="Aengus",
                             role="player", token="…", reconnect=True) as client:
        odds = await client.odds("bloodlust", {"pool": 5, "difficulty": 7})
        outcome = await client.roll("bloodlust", {"pool": 5, "difficulty": 7})
        print(f"{odds['p_success']:.0%} →", outcome["text"])
        async for outcome in client.outcomes():
            print(outcome["text"])

Seats and characters (``protocol/PROTOCOL.md`` §7): a GM gives a player a seat
(:meth:`SidecarClient.add_seat` returns its own token and join link) and a character
(:meth:`SidecarClient.set_sheet`); the player joins with the seat's token under the seat's
name and rolls as the character (``roll(..., character="Aengus")``): the outcome carries
``spent`` and ``sheet``, and :attr:`SidecarClient.characters` follows every change this
client may see (it starts from the welcome's first page of characters: at a table of
hundreds, ``welcome["characters_more"]`` says to call :meth:`SidecarClient.sheets` for
all of them). Every list comes in pages, and the client pages through: ``sheets()``,
``seats()``, ``list_asks()``, and the open asks past the welcome's first page
(``asks_more``), listed by :meth:`SidecarClient.connect`. Frames up to 1 MiB are read
(``CLIENT_FRAME_BYTES``: a welcome carries the rulesets' descriptions and may pass 64
KiB). Not enough left to spend raises :class:`SidecarError` ``insufficient``
(``details``: ``field``, ``have``, ``need``).

Targets (``protocol/PROTOCOL.md`` §8): ``roll``, ``odds`` and ``ask`` take ``targets=
["Brady"]``, the characters the action is aimed at (an NPC of the GM's too): the outcome
carries ``targets`` and ``effects``, and for their owners and the GMs ``target_sheets``,
which :attr:`SidecarClient.characters` follows, as it follows the ``sheet`` event (``op:
"effect"``) that tells an owner what a roll hidden from it did to its character.

Open rolls (decide after seeing the dice): an outcome may come back ``open`` with
``choices`` (``[{name, label, dice}]``), a ``default`` and an ``expires`` time; the roller
or a GM decides with :meth:`SidecarClient.react`, which returns the decision — a new
outcome with ``reacts_to`` (the open outcome's ``seq``), ``choice`` and ``reacted_by``
(``None`` when time ran out and the default was taken)::

    outcome = await client.roll("luck", {"target": 7, "second_chance": True})
    if outcome.get("open"):
        decided = await client.react(outcome["roll"], "reroll")

:meth:`SidecarClient.open_rolls` yields the open rolls this client may decide as they
arrive (its own, or all of them for a GM), and :attr:`SidecarClient.open` holds those
still waiting for a decision.

Asked rolls and sessions (``protocol/PROTOCOL.md`` §7.4–7.5): a GM asks seats or
characters for a roll (:meth:`SidecarClient.ask`, ``opposed=True`` for an opposed roll with
``each`` side's own params), cancels it (:meth:`SidecarClient.cancel_ask`) and starts game
sessions (:meth:`SidecarClient.start_session`) and orders a scene's initiative from the
sheets (:meth:`SidecarClient.initiative`, §7.7); an asked seat answers with
:meth:`SidecarClient.answer` (the ask's ruleset and params apply). :attr:`SidecarClient.asks`
holds the open asks this client may answer (a GM: every open ask, its ``answered`` map
filling as answers arrive)::

    ask = await gm.ask(["Alice", "Ysolde"], "luck", {"target": 5}, label="Perception")
    # … on Alice's side:
    outcome = await alice.answer(ask["ask"])      # outcome["answers"] == ask["ask"]

The outcome that settles an opposed roll's last side carries ``opposition`` (``sides``,
``winner``, ``draw``).

With ``reconnect=True`` a dropped connection is reopened by itself (backing off up to 5 s)
and joined with ``resume`` = the last ``seq`` seen: the server replays what was missed, in
order, each event once, and :meth:`events` goes on as if nothing happened. Rolls left
unanswered by the drop are re-sent with the same ``id``; the server's idempotency makes
sure they are never rolled twice.

Several servers (``sidecar serve`` processes sharing one store): give a list of URLs,
``SidecarClient(["ws://a:8765/ws", "ws://b:8765/ws"], …)``. :meth:`connect` joins through
the first that answers; with ``reconnect=True`` a drop moves to the next URL in turn and
resumes there from the last ``seq`` seen, each event still received once. :attr:`url` is
the one in use. Each URL is opened with the table in its query (``…/ws?table=crypte``, see
:func:`table_url`): a load balancer in front of those processes hashes on it, so that every
member of one table reaches the same process (cheaper; any process would do).

A sidecar serving TLS (``sidecar serve --ssl-certfile … --ssl-keyfile …``) is reached at
``wss://…/ws``; a self-signed certificate is trusted with ``ssl=``
``ssl.create_default_context(cafile="cert.pem")``.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import logging
import random
import secrets
import ssl as ssl_module
from collections.abc import AsyncIterator, Sequence
from typing import Any
from urllib.parse import parse_qsl, quote

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from sidecar.protocol import requests
from sidecar.protocol.codec import CLIENT_FRAME_BYTES, decode, encode
from sidecar.protocol.deciding import may_decide
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.text import normalized

log = logging.getLogger("sidecar.client")

#: Errors after which reconnecting cannot help: the server closed on purpose.
FATAL_CODES = frozenset({"forbidden", "unsupported_protocol", "bad_message"})
#: Journaled events (they carry a ``seq``) that :meth:`SidecarClient.events` yields.
JOURNALED = frozenset({"outcome", "sheet", "seat", "ask", "session", "initiative",
                       "epoch"})
#: Failures of one server's address (nothing listening, not a WebSocket, a handshake
#: that stalled, a connection cut during the join): the next URL may do better.
UNREACHABLE = (OSError, InvalidHandshake, ConnectionClosed, TimeoutError)
#: ``set_sheet(owner=KEEP)``: leave the character's owner as it is.
KEEP: Any = object()


#: Server URL → (``welcome.catalogue``, its rulesets, extensions and options): what this
#: process's clients already hold, echoed in ``hello`` so a server sends it once
#: (PROTOCOL.md §2). In memory only: a digest that no longer matches is sent again whole.
_CATALOGUES: dict[str, tuple[str, dict[str, Any]]] = {}
_DESCRIBED = ("rulesets", "extensions", "options")


def forget_catalogues() -> None:
    """Empty the descriptions cached per server URL (the next welcome of each is whole)."""
    _CATALOGUES.clear()


def _with_catalogue(url: str, welcome: dict[str, Any]) -> dict[str, Any]:
    """``welcome`` whole: the cached descriptions put back when the server left them out
    (it did so because the hello echoed their digest), or cached when it sent them."""
    digest = welcome.get("catalogue")
    if not isinstance(digest, str):
        return welcome
    if "rulesets" in welcome:
        _CATALOGUES[url] = (digest, {key: welcome.get(key) or [] for key in _DESCRIBED})
        return welcome
    cached = _CATALOGUES.get(url)
    if cached is not None and cached[0] == digest:
        # Copies: a caller changing its welcome must not change the next one's.
        return {**welcome, **copy.deepcopy(cached[1])}
    return welcome


def table_url(url: str, table: str) -> str:
    """``url`` with ``table=<table>`` added to its query, percent-encoded as RFC 3986 says
    (UTF-8, everything but letters, digits and ``-._~`` encoded: the JavaScript client's
    ``tableUrl`` writes the same bytes, so a load balancer hashing on the parameter sends
    both to one process). A URL that names a ``table`` already is returned unchanged.
    The server ignores the query: the ``table`` of ``hello`` is the one joined."""
    rest, hash_, fragment = url.partition("#")
    base, question, query = rest.partition("?")
    if any(key == "table" for key, _ in parse_qsl(query, keep_blank_values=True)):
        return url
    joined = f"{query}&" if query and not query.endswith("&") else query
    return f"{base}?{joined}table={quote(table, safe='')}{hash_}{fragment}"


def is_open(outcome: dict[str, Any]) -> bool:
    """An outcome that waits for a decision (``open``), whether or not its choices show."""
    return outcome.get("type") == "outcome" and outcome.get("open") is True


def _names(names: Sequence[str] | str | None) -> list[str] | None:
    """Targets as the wire wants them: a list of names (one name given alone is one)."""
    if names is None:
        return None
    return [names] if isinstance(names, str) else list(names)


def _once_only(message: dict[str, Any]) -> bool:
    """A request whose answer carries a secret shown once (a seat's new token): never
    re-sent after a drop, as a repeated id would answer it without the secret."""
    return message.get("type") == "seat" and message.get("op") in ("add", "rotate")


class SidecarError(Exception):
    """An ``error`` message from the server (``code``, ``message``, ``details``), or
    ``closed`` when the connection ended before a reply."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.details = details or {}


class OpenRolls:
    """What :meth:`SidecarClient.open_rolls` returns: an async iterator of open outcomes
    this client may decide; ``aclose()`` stops watching."""

    def __init__(self, client: SidecarClient) -> None:
        self.client = client
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    def __aiter__(self) -> OpenRolls:
        return self

    async def __anext__(self) -> dict[str, Any]:
        while True:
            event = await self.queue.get()
            if event is None:
                self.queue.put_nowait(None)  # ended: every later call ends too
                await self.aclose()
                raise StopAsyncIteration
            if self.client.open.get(event["roll"]) is event:
                return event

    async def aclose(self) -> None:
        """Stop watching (the iterator then ends)."""
        with contextlib.suppress(ValueError):
            self.client._open_queues.remove(self.queue)
        self.queue.put_nowait(None)


class Asks(dict[str, dict[str, Any]]):
    """:attr:`SidecarClient.asks`: the open asks this client may answer, by ask id, kept
    up to date from the events; calling it (``await client.asks()``) asks the server for
    its list instead (each ask with ``answered``)."""

    def __init__(self, client: SidecarClient) -> None:
        super().__init__()
        self._client = client

    async def __call__(self) -> list[dict[str, Any]]:
        return await self._client.list_asks()


class SidecarClient:
    """One connection to one table. Requests are matched to replies by ``id``; everything
    the table streams (outcomes, presence) is available from :meth:`events`.

    ``url`` is one server's WebSocket URL or a list of them (processes serving the same
    tables): connecting tries them in order, a reconnection moves on to the next."""

    def __init__(self, url: str | Sequence[str], *, table: str, name: str, role: str = "player",
                 token: str | None = None, locale: str = "fr", binary: bool = True,
                 resume: int | None = None, reconnect: bool = False,
                 max_delay: float = 5.0, ssl: ssl_module.SSLContext | None = None,
                 client_seed: str | None = None) -> None:
        urls = [url] if isinstance(url, str) else list(url)
        if not urls or not all(isinstance(each, str) and each for each in urls):
            raise ValueError("url: one WebSocket URL or a non-empty list of them")
        #: Every server URL given, in the order they are tried.
        self.urls: list[str] = urls
        self._index = 0
        #: TLS context for a ``wss://`` URL (e.g. one trusting a self-signed certificate:
        #: ``ssl.create_default_context(cafile=PATH)``); None: the system's trust store.
        self.ssl = ssl
        # Its own seed for verifiable dice (one per client unless given; a server with
        # secure dice ignores it).
        # (In the form the server keeps names in, NFC: the welcome and the events then
        # name this client as it was named here.)
        self.hello: dict[str, Any] = requests.hello_request(
            table=normalized(table), name=normalized(name), role=role, locale=locale,
            client_seed=client_seed or secrets.token_hex(16), token=token)
        self.binary = binary
        self.reconnect = reconnect
        self.max_delay = max_delay
        #: The last ``seq`` received; the next join resumes after it.
        self.last_seq: int | None = resume
        self.welcome: dict[str, Any] = {}
        #: Size of the last welcome's frame as received (its descriptions left out when
        #: this process held them already).
        self.welcome_bytes = 0
        #: The characters this client may see, by name (``{character, ruleset, owner,
        #: values}``): from ``welcome``, then every sheet event and outcome ``sheet``.
        self.characters: dict[str, dict[str, Any]] = {}
        #: Open rolls seen and not decided yet, by ``roll`` id: their latest open outcome.
        self.open: dict[str, dict[str, Any]] = {}
        self._open_queues: list[asyncio.Queue[dict[str, Any] | None]] = []
        #: Open asks this client may answer, by ask id (a GM: every open ask), each the
        #: ask as listed — with ``answered``: ``{seat: side}``, filled as answers arrive
        #: (a GM's NPC's side under the NPC's name).
        self.asks = Asks(self)
        #: The table's game session number, when an event or the welcome told it.
        self.session: int | None = None
        self._ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        # Request ids are idempotency keys the server remembers (across restarts): they
        # must not repeat between processes, so each client has a random prefix.
        self._prefix = secrets.token_hex(6)
        self._pending: dict[Any, tuple[dict[str, Any], asyncio.Future[dict[str, Any]]]] = {}
        self._events: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._closing = False
        self._finished = False
        # Set while joined: requests made during a reconnection wait for the new join.
        self._ready = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        """The server URL in use (or tried last): one of :attr:`urls`."""
        return self.urls[self._index]

    # -- connection -------------------------------------------------------------------------

    async def connect(self) -> dict[str, Any]:
        """Open the connection and join through the first of :attr:`urls` that answers;
        returns ``welcome``. Raises :class:`SidecarError` when a server refuses for good
        (``forbidden``…), else the last URL's failure when none could be joined."""
        self._closing = False
        self._finished = False
        for tried in range(len(self.urls)):
            if tried:
                self._index = (self._index + 1) % len(self.urls)
            try:
                await self._join()
                break
            except SidecarError as error:
                if error.code in FATAL_CODES or tried == len(self.urls) - 1:
                    raise
            except UNREACHABLE:
                if tried == len(self.urls) - 1:
                    raise
        self._reader = asyncio.create_task(self._read())
        await self._more_asks()
        return self.welcome

    async def _join(self) -> None:
        tls = {"ssl": self.ssl} if self.ssl is not None and self.url.startswith("wss://") else {}
        # The table in the query: a load balancer keeps a table's members on one process.
        self._ws = await connect(table_url(self.url, self.hello["table"]),
                                 max_size=CLIENT_FRAME_BYTES, compression=None, **tls)
        hello = {**self.hello, "id": f"{self._prefix}-hello"}
        if self.last_seq is not None:
            hello["resume"] = self.last_seq
        if self.url in _CATALOGUES:  # the descriptions held already: not sent again
            hello["catalogue"] = _CATALOGUES[self.url][0]
        await self._ws.send(encode(hello, binary=self.binary))
        frame = await self._ws.recv()
        reply = decode(frame, max_bytes=CLIENT_FRAME_BYTES)
        if reply.get("type") == "error":
            await self._ws.close()
            raise SidecarError(reply["code"], reply.get("message", ""), reply.get("details"))
        self.welcome_bytes = len(frame)
        reply = _with_catalogue(self.url, reply)
        self.welcome = reply
        self.characters = {entry["character"]: dict(entry)
                           for entry in reply.get("characters") or ()
                           if isinstance(entry, dict) and "character" in entry}
        self.asks.clear()
        for entry in reply.get("asks") or ():
            if isinstance(entry, dict) and isinstance(entry.get("ask"), str):
                self._open_ask(entry)
        if isinstance(reply.get("session"), int):
            self.session = reply["session"]
        if self.last_seq is None:
            self.last_seq = reply.get("seq", 0)
        elif reply.get("seq", 0) < self.last_seq:
            # The table is behind what this client saw: the server's store lost events
            # (docs/DEPLOY.md). Its next events reuse those numbers: follow the table.
            log.warning("table %r is at #%s, behind #%s seen here: the server lost events; "
                        "following it from there", self.hello["table"], reply.get("seq", 0),
                        self.last_seq)
            self.last_seq = reply.get("seq", 0)
        # Rolls cut off by a drop: same id again, so the server answers without rerolling.
        for message, future in self._pending.values():
            if future.done():
                continue
            if _once_only(message):
                # Its answer again would come without the token, shown once: fail it
                # (a GM who lost a seat's link rotates the seat).
                future.set_exception(SidecarError("closed", "connection lost before the "
                                                  "reply (seat rotate gives a new link)"))
            else:
                await self._ws.send(encode(message, binary=self.binary))
        self._ready.set()

    async def _read(self) -> None:
        while True:
            assert self._ws is not None
            try:
                async for frame in self._ws:
                    try:
                        message = decode(frame, max_bytes=CLIENT_FRAME_BYTES)
                    except ProtocolError as error:
                        # A frame this client cannot read: no request can be matched to it.
                        # Dropped like a connection (rejoined when reconnecting), so that
                        # no request waits for it for ever.
                        log.error("undecodable frame from %s (%s): connection closed",
                                  self.url, error.message)
                        await self._ws.close(1002, "undecodable frame")
                        break
                    self._dispatch(message)
            except ConnectionClosed:
                pass
            self._ready.clear()
            if self._closing or not self.reconnect or not await self._rejoin():
                break
        self._finished = True
        self._ready.set()  # nothing to wait for any more: requests fail at once
        self._events.put_nowait(None)
        for queue in self._open_queues:
            queue.put_nowait(None)
        for _, future in self._pending.values():
            if not future.done():
                future.set_exception(SidecarError("closed", "connection closed"))

    async def _rejoin(self) -> bool:
        """Reconnect with resume, each try on the next of :attr:`urls` (the one that
        dropped comes last), backing off after each full round; False once it cannot
        succeed."""
        delay = 0.25
        attempt = 0
        while not self._closing:
            # Jitter spreads the reconnections of everyone a dead process dropped.
            await asyncio.sleep(delay * random.uniform(0.75, 1.25))
            attempt += 1
            if attempt % len(self.urls) == 0:
                delay = min(self.max_delay, delay * 2)
            self._index = (self._index + 1) % len(self.urls)
            try:
                await self._join()
                if self.welcome.get("asks_more"):
                    # (The reader is this very task: the rest of the asks come beside it.)
                    task = asyncio.create_task(self._more_asks())
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
                return True
            except SidecarError as error:
                if error.code in FATAL_CODES:
                    return False
            except UNREACHABLE:
                continue
        return False

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        seq = message.get("seq")
        if kind in JOURNALED and isinstance(seq, int) and not message.get("duplicate"):
            if self.last_seq is None or seq > self.last_seq:
                self.last_seq = seq
                self._track(message)
                self._track_open(message)
                self._track_ask(message)
                self._events.put_nowait(message)
        elif kind == "presence":
            self._events.put_nowait(message)
        elif kind == "asks":
            self._listed_asks(message.get("asks") or ())
        rid = message.get("id")
        entry = self._pending.get(rid) if rid is not None else None
        if entry is not None and not entry[1].done():
            entry[1].set_result(message)

    def _track(self, event: dict[str, Any]) -> None:
        """Keep :attr:`characters` as the events say (in ``seq`` order, each once)."""
        self._track_targets(event)
        name = event.get("character")
        if not isinstance(name, str):
            return
        if event["type"] == "sheet":
            if event.get("removed") or event.get("op") == "remove":
                self.characters.pop(name, None)
            elif event.get("op") == "effect":
                # What a roll hidden from this seat did to its character: new values
                # only, the character stays whose it was.
                self._known(name, event.get("ruleset"))["values"] = event.get("values")
            else:
                self.characters[name] = {key: event.get(key) for key in
                                         ("character", "ruleset", "owner", "values")}
        elif event["type"] == "outcome" and isinstance(event.get("sheet"), dict):
            # A roll seen without the sheet's events (a public roll of another seat's
            # character): its values are known, its owner is not.
            self._known(name, event.get("ruleset"))["values"] = event["sheet"]

    def _track_targets(self, event: dict[str, Any]) -> None:
        """A roll aimed at characters this client may see (their owner, a GM): the new
        values it left them (``target_sheets``, contract §8)."""
        changed = event.get("target_sheets") if event["type"] == "outcome" else None
        if not isinstance(changed, dict):
            return
        for name, values in changed.items():
            if isinstance(name, str) and isinstance(values, dict):
                self._known(name, None)["values"] = values

    def _known(self, name: str, ruleset: Any) -> dict[str, Any]:
        """The entry of :attr:`characters` for ``name``, made when it was not known (its
        values are then known, its owner is not)."""
        return self.characters.setdefault(name, {"character": name, "ruleset": ruleset})

    def _track_open(self, event: dict[str, Any]) -> None:
        """Keep :attr:`open` as the outcomes say: an open outcome waits, its decision (the
        next outcome of the same ``roll``) ends the wait unless it offers choices again."""
        if event["type"] != "outcome" or not isinstance(event.get("roll"), str):
            return
        roll_id = event["roll"]
        if is_open(event):
            self.open[roll_id] = event
            if self.may_decide(event):
                for queue in self._open_queues:
                    queue.put_nowait(event)
        elif "reacts_to" in event:
            self.open.pop(roll_id, None)

    def _track_ask(self, event: dict[str, Any]) -> None:
        """Keep :attr:`asks` as the events say: an ask opens (for this client when it is a
        GM or one of the asked seats), is cancelled, is answered (a seat's own answer
        ends its wait; a GM's ends when every side is settled)."""
        kind = event.get("type")
        if kind == "session" and isinstance(event.get("number"), int):
            self.session = event["number"]
        elif kind == "ask":
            ask_id = event.get("ask")
            if event.get("op") == "cancel":
                self.asks.pop(ask_id, None)
            elif event.get("op") == "open" and isinstance(ask_id, str):
                self._open_ask(event)
        elif kind == "outcome" and event.get("answers") in self.asks:
            ask_id = event["answers"]
            entry = self.asks[ask_id]
            seat = (event.get("by") or {}).get("name")
            if self.hello.get("role") != "gm":
                if seat == self.hello["name"]:
                    self.asks.pop(ask_id, None)
                return
            result = event.get("result") or {}
            key = side_seat = seat
            by = event.get("by") or {}
            if by.get("role") == "gm" and not by.get("seat"):
                # A GM answered a GM's NPC's side: keyed by the NPC's name, as the server's
                # ``answered`` (PROTOCOL.md §7.5), its seat none.
                npc = next((t for t in entry.get("to") or () if isinstance(t, dict)
                            and t.get("seat") is None
                            and t.get("character") == event.get("character")), None)
                if npc is not None:
                    key, side_seat = npc["character"], None
            entry["answered"][key] = {
                "seat": side_seat, "character": event.get("character"), "seq": event["seq"],
                "roll": event.get("roll"), "open": is_open(event),
                "success": result.get("success"), "margin": result.get("margin")}
            settled = (len(entry["answered"]) >= len(entry.get("to") or ())
                       and not any(side.get("open") for side in entry["answered"].values()))
            if settled or "opposition" in event:
                self.asks.pop(ask_id, None)

    def _open_ask(self, event: dict[str, Any]) -> None:
        """An ask opened (its event, or an entry of the welcome's ``asks``): followed in
        :attr:`asks` when this client may answer it."""
        entry = {key: value for key, value in event.items()
                 if key not in ("id", "seq", "duplicate", "op", "type")}
        entry.setdefault("answered", {})
        if self._may_answer(entry):
            self.asks[event["ask"]] = entry

    def _listed_asks(self, listed: Any) -> None:
        """A page of ``ask list`` (as it arrives, in order with the events): the asks not
        followed yet join :attr:`asks`. Those followed already are as the page says: every
        event since they were listed or opened has been applied to them."""
        for entry in listed:
            if not isinstance(entry, dict) or not isinstance(entry.get("ask"), str):
                continue
            if entry["ask"] not in self.asks:
                ask = {key: value for key, value in entry.items() if key not in ("seq", "op")}
                ask.setdefault("answered", {})
                if self._may_answer(ask):
                    self.asks[entry["ask"]] = ask

    async def _more_asks(self) -> None:
        """After a welcome that says ``asks_more``: the other open asks, page by page
        (each fills :attr:`asks` as it arrives)."""
        listed = self.welcome.get("asks") or []
        if not self.welcome.get("asks_more") or not listed:
            return
        try:
            await self._ask_pages(listed[-1].get("seq", 0))
        except SidecarError as error:  # the connection ended meanwhile: the next welcome
            log.info("open asks not listed (%s)", error)

    async def _ask_pages(self, after: int) -> list[dict[str, Any]]:
        asks: list[dict[str, Any]] = []
        while True:
            page = await self.request(requests.list_asks_request(after=after))
            asks += page["asks"]
            if not page.get("more") or not page["asks"]:
                return asks
            after = page["next"]

    def _may_answer(self, ask: dict[str, Any]) -> bool:
        """A GM follows every ask; a seat the asks naming it that it has not answered."""
        if self.hello.get("role") == "gm":
            return True
        name = self.hello.get("name")
        return (any(isinstance(t, dict) and t.get("seat") == name for t in ask.get("to") or ())
                and name not in (ask.get("answered") or {}))

    def may_decide(self, outcome: dict[str, Any]) -> bool:
        """Whether this client may ``react`` to an open outcome: it shows choices this
        client may take (a blind roll's roller is not even told that it is open; a ``gm:
        true`` choice is a GM's alone), and this client is a GM, the roller, or the seat
        that plays the character of a public roll (:func:`sidecar.protocol.deciding.
        may_decide`, the server's rule)."""
        if not is_open(outcome) or not self.choices_for(outcome):
            return False
        name, by = self.hello.get("name"), outcome.get("by") or {}
        seat = self.welcome.get("seat") is True
        character = self.characters.get(outcome.get("character") or "") or {}
        return may_decide(role=str(self.hello.get("role")), mode=str(outcome.get("mode")),
                          roller=by.get("name") == name,
                          plays=seat and character.get("owner") == name)

    def choices_for(self, outcome: dict[str, Any]) -> list[dict[str, Any]]:
        """The open outcome's choices this client's role may take: all of them for a GM,
        those without ``gm: true`` for a player."""
        choices = [c for c in outcome.get("choices") or () if isinstance(c, dict)]
        if self.hello.get("role") == "gm":
            return choices
        return [c for c in choices if c.get("gm") is not True]

    # -- requests ---------------------------------------------------------------------------

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a request and wait for the reply carrying its ``id``."""
        assert self._ws is not None, "call connect() first"
        await self._ready.wait()
        if self._finished:
            raise SidecarError("closed", "connection closed")
        rid = message.setdefault("id", f"{self._prefix}-{next(self._ids)}")
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = (message, future)
        try:
            try:
                await self._ws.send(encode(message, binary=self.binary))
            except ConnectionClosed:
                if not self.reconnect:
                    raise SidecarError("closed", "connection closed") from None
                # Sent again by _join once reconnected.
            reply = await future
        finally:
            self._pending.pop(rid, None)
        if reply.get("type") == "error":
            raise SidecarError(reply["code"], reply.get("message", ""), reply.get("details"))
        return reply

    async def roll(self, ruleset: str, params: dict[str, Any] | None = None, *,
                   label: str = "", mode: str = "public",
                   options: dict[str, Any] | None = None,
                   dice: list[int] | None = None, id: str | None = None,
                   character: str | None = None,
                   targets: Sequence[str] | None = None) -> dict[str, Any]:
        """Roll and return this client's copy of the outcome. ``id`` (optional) is the
        request id: the same id never rolls twice. ``character``: roll as that character
        (the outcome carries ``spent`` and ``sheet``; ``insufficient`` when the sheet
        lacks what the roll spends, and then nothing is rolled). ``targets``: the
        characters the action is aimed at (contract §8): the outcome carries ``targets``
        and ``effects``, and — for their owners and the GMs — ``target_sheets``."""
        return await self.request(requests.roll_request(
            ruleset=ruleset, params=params, label=label, mode=mode, options=options or {},
            dice=dice, id=id, character=character, targets=_names(targets)))

    async def react(self, roll: str | dict[str, Any], choice: str,
                    dice: list[int] | None = None, *, id: str | None = None) -> dict[str, Any]:
        """Decide an open roll: ``roll`` is its ``roll`` id (or the open outcome itself),
        ``choice`` the name of one of its ``choices``, ``dice`` the physical faces the choice
        draws (exactly its ``dice`` count; rules as for :meth:`roll`). Returns this
        client's copy of the decision: an outcome with ``reacts_to``, ``choice``,
        ``reacted_by``, and ``open``/``choices`` again when the ruleset offers more.
        ``bad_message`` for an unknown or already decided roll or an unknown choice,
        ``forbidden`` for another player's roll, ``insufficient`` when the sheet lacks
        what the choice spends (the roll stays open)."""
        roll_id = roll["roll"] if isinstance(roll, dict) else roll
        return await self.request(requests.react_request(roll=roll_id, choice=choice,
                                                         dice=dice, id=id))

    # -- asked rolls and sessions (GM asks, seats answer) ----------------------------------

    async def ask(self, to: list[str] | str, ruleset: str,
                  params: dict[str, Any] | None = None, *, label: str = "",
                  mode: str = "public", options: dict[str, Any] | None = None,
                  opposed: bool = False, each: dict[str, dict[str, Any]] | None = None,
                  id: str | None = None, cooperative: bool = False,
                  targets: Sequence[str] | None = None) -> dict[str, Any]:
        """Ask seats or characters (``to``: their names) for a roll (GM only). Returns the
        ``ask`` event (``ask`` its id, ``to`` as ``[{seat, character}]``, params with their
        defaults). ``opposed=True``: the sides are compared when the last one answers;
        ``cooperative=True``: every side rolls and only the best roll counts;
        ``each`` gives a side (by its name in ``to``) its own params over ``params``;
        ``targets``: the characters the answers are aimed at (an NPC of the GM's…)."""
        return await self.request(requests.ask_request(
            to=[to] if isinstance(to, str) else list(to), ruleset=ruleset, params=params,
            label=label, mode=mode, options=options, opposed=opposed, each=each, id=id,
            cooperative=cooperative, targets=_names(targets)))

    async def cancel_ask(self, ask: str | dict[str, Any]) -> dict[str, Any]:
        """Cancel an open ask (GM only): its ``cancel`` event; ``bad_message`` when it is
        not open any more."""
        ask_id = ask["ask"] if isinstance(ask, dict) else ask
        return await self.request(requests.cancel_ask_request(ask=ask_id))

    async def list_asks(self) -> list[dict[str, Any]]:
        """The open asks as the server lists them (a GM: all; a seat: those naming it),
        each with ``answered``: ``{seat: side}``; every page of them."""
        return await self._ask_pages(0)

    async def answer(self, ask: str | dict[str, Any], dice: list[int] | None = None, *,
                     id: str | None = None, character: str | None = None) -> dict[str, Any]:
        """Answer an ask as an asked seat: a roll carrying ``answers`` (the ask's ruleset,
        params, label and mode apply; ``dice`` are physical faces where allowed). Returns
        the outcome (``answers``, and ``opposition`` when it settles an opposed roll).
        ``forbidden`` when this seat was not asked, ``bad_message`` once answered or when
        the ask is closed. A GM answers a GM's NPC's side as that NPC: ``character`` (its
        ``to`` entry ``{"seat": None, "character": …}``)."""
        ask_id = ask["ask"] if isinstance(ask, dict) else ask
        known = ask if isinstance(ask, dict) else self.asks.get(ask_id)
        ruleset = (known or {}).get("ruleset")
        if ruleset is None:  # not followed here (yet): the server's list says
            listed = {a["ask"]: a for a in await self.list_asks()}
            ruleset = (listed.get(ask_id) or {}).get("ruleset", "")
        return await self.request(requests.roll_request(ruleset=ruleset, answers=ask_id,
                                                        dice=dice, id=id, character=character))

    async def start_session(self, *, id: str | None = None) -> dict[str, Any]:
        """Start a new game session (GM only): the public ``session`` event (``number``)."""
        return await self.request(requests.session_request(id=id))

    async def initiative(self, characters: Sequence[str], *, claims: Sequence[str] = (),
                         bagage: Sequence[str] = (), id: str | None = None) -> dict[str, Any]:
        """Order ``characters`` (of one ruleset) for a scene from their sheets (GM only,
        ``PROTOCOL.md`` §7.7): those in ``claims`` spend to take the initiative (O'Ween's:
        1 BB+ each), those in ``bagage`` have a relevant bagage (the tie-break). The public
        ``initiative`` event: ``order`` (groups that act together), ``spent``."""
        entries: list[str | dict[str, Any]] = [
            {"character": name, "claim": name in claims, "bagage": name in bagage}
            if name in claims or name in bagage else name for name in characters]
        return await self.request(requests.initiative_request(characters=entries, id=id))

    def options_for(self, ruleset: str) -> list[dict[str, Any]]:
        """The extensions' option descriptions (``welcome.options``) that apply to rolls of
        ``ruleset``: what a form for ``roll(options=...)`` offers."""
        return [described for described in self.welcome.get("options") or []
                if described.get("rulesets") is None or ruleset in described["rulesets"]]

    def parse_options(self, texts: list[str]) -> dict[str, Any]:
        """``["combat.options=viser", "combat.zone=tête", "blank_botch=yes"]`` → the
        ``options`` of a roll, each value typed from ``welcome.options`` (as the command
        line's ``--option``); ``ValueError`` for a key the extension does not have."""
        from sidecar.host.options import parse_options
        return parse_options(texts, {described["name"]: described
                                     for described in self.welcome.get("options") or []})

    async def odds(self, ruleset: str, params: dict[str, Any] | None = None,
                   options: dict[str, Any] | None = None, *,
                   character: str | None = None,
                   targets: Sequence[str] | None = None) -> dict[str, Any]:
        """The exact odds of a roll (nothing is rolled), as ``character`` if given, against
        the sheets of ``targets`` (what a rule reads of the opponent)."""
        return await self.request(requests.odds_request(
            ruleset=ruleset, params=params, options=options, character=character,
            targets=_names(targets)))

    # -- seats (GM only) --------------------------------------------------------------------

    async def add_seat(self, name: str) -> dict[str, Any]:
        """Give a player a seat: the reply holds its ``token``, ``link`` and ``qr`` (shown
        this once: a lost link is remade with :meth:`rotate_seat`)."""
        return await self.request(requests.seat_request(op="add", name=name))

    async def remove_seat(self, name: str) -> dict[str, Any]:
        """Remove a seat: its token stops working and its connections close."""
        return await self.request(requests.seat_request(op="remove", name=name))

    async def rotate_seat(self, name: str) -> dict[str, Any]:
        """Give a seat a new token and link (the old ones stop working at once)."""
        return await self.request(requests.seat_request(op="rotate", name=name))

    async def seats(self) -> list[dict[str, Any]]:
        """The table's seats: ``[{name, online, characters}, …]``, every page of them; a
        seat owning more characters than its entry lists (``characters_more``) gets them
        all from :meth:`sheets`."""
        seats: list[dict[str, Any]] = []
        after = ""
        while True:
            page = await self.request(requests.list_seats_request(after=after))
            seats += page["seats"]
            if not page.get("more") or not page["seats"]:
                break
            after = page["next"]
        if any(seat.get("characters_more") for seat in seats):
            owned: dict[str, list[str]] = {}
            for entry in await self.sheets():
                owned.setdefault(entry.get("owner") or "", []).append(entry["character"])
            for seat in seats:
                if seat.pop("characters_more", False):
                    seat["characters"] = sorted(owned.get(seat["name"], ()))
        return seats

    # -- characters -------------------------------------------------------------------------

    async def set_sheet(self, character: str, ruleset: str,
                        values: dict[str, Any] | None = None, *, owner: Any = KEEP,
                        reason: str | None = None, id: str | None = None) -> dict[str, Any]:
        """Create a character or change the values given (GM only). ``owner``: a seat's
        name, ``None`` for the GM's own character, or left out to keep it as it is."""
        return await self.request(requests.set_sheet_request(
            character=character, ruleset=ruleset, values=values,
            owner=None if owner is KEEP else owner, keep_owner=owner is KEEP, reason=reason,
            id=id))

    async def adjust_sheet(self, character: str, delta: dict[str, int], *,
                           reason: str | None = None, id: str | None = None) -> dict[str, Any]:
        """Add ``delta`` to integer fields (GM only): ``{"bonbonus": 2}`` gives, ``-1`` takes;
        ``insufficient`` when a value would leave its bounds."""
        return await self.request(requests.adjust_sheet_request(
            character=character, delta=delta, reason=reason, id=id))

    async def refill(self, what: str = "turn", character: str | None = None, *,
                     reason: str | None = None, id: str | None = None) -> dict[str, Any]:
        """A new ``"turn"`` or a ``"rest"``: counters marked so go back to their default
        (GM only). For ``character``, returns its sheet event; for every character of the
        table, ``{type: "sheets", characters}`` after it (each change is its own event)."""
        return await self.request(requests.refill_request(
            what=what, character=character, reason=reason, id=id))

    async def remove_sheet(self, character: str, *, reason: str | None = None,
                           id: str | None = None) -> dict[str, Any]:
        """Delete a character (GM only; its events stay in the journal)."""
        return await self.request(requests.remove_sheet_request(
            character=character, reason=reason, id=id))

    async def sheets(self) -> list[dict[str, Any]]:
        """The characters this client may see: ``[{character, ruleset, owner, values}, …]``
        (all of them for a GM, the seat's own for a seat), every page of them."""
        characters: list[dict[str, Any]] = []
        after = ""
        while True:
            page = await self.request(requests.list_sheets_request(after=after))
            characters += page["characters"]
            if not page.get("more"):
                return characters
            after = page["next"]

    async def history(self, after: int = 0, limit: int = 100) -> dict[str, Any]:
        """One page of the table's journal as this client may see it
        (``events``, ``more``, ``next``)."""
        return await self.request(requests.history_request(after=after, limit=limit))

    # -- streams ----------------------------------------------------------------------------

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        """Journaled events — outcomes, sheet, seat, ask and session events — (each ``seq`` once,
        replayed ones included) and presence messages as they arrive, until the connection
        closes for good."""
        while True:
            event = await self._events.get()
            if event is None:
                self._events.put_nowait(None)  # later iterators end too
                return
            yield event

    async def outcomes(self) -> AsyncIterator[dict[str, Any]]:
        """Only the outcomes of :meth:`events`."""
        async for event in self.events():
            if event.get("type") == "outcome":
                yield event

    def open_rolls(self) -> OpenRolls:
        """The open outcomes this client may decide (:meth:`may_decide`): those already in
        :attr:`open`, then each as it arrives (replayed ones included), until the
        connection closes for good or the iterator's ``aclose()``. An outcome decided
        before it is taken from here (by a GM, or its default at ``expires``) is skipped.
        It watches from this call on, and runs beside :meth:`events`: neither takes from
        the other."""
        stream = OpenRolls(self)
        for event in self.open.values():
            if self.may_decide(event):
                stream.queue.put_nowait(event)
        if self._finished:
            stream.queue.put_nowait(None)
        self._open_queues.append(stream.queue)
        return stream

    async def drop(self) -> None:
        """Break the connection as a network failure would (it reconnects if enabled)."""
        if self._ws is not None and self._ws.transport is not None:
            self._ws.transport.abort()

    async def close(self) -> None:
        self._closing = True
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            await self._reader

    async def __aenter__(self) -> SidecarClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()
