"""Joining a table from the command line: the server's address from what a user pastes
(``ws://``, a page's ``http(s)://`` link, a bare ``host:port``; several for several
processes), what a pasted link says of the table and who joins, and :func:`joined`, which
yields a connected client and turns every connection or server error into one line and
an exit code.

Lazy imports, kept for ``sidecar --help`` and the offline commands (``odds``, ``verify``,
``export``…) to stay quick: :func:`joined` imports :mod:`sidecar.client` and ``websockets``
(about 25 ms) when a command actually joins. Both lie below the command line (nothing there
imports :mod:`sidecar.cli`), so no import circle hides behind them."""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from sidecar.cli.common import DEFAULT_URL, EXIT_CONNECT, EXIT_ERROR, CliExit, sidecar_command
from sidecar.cli.errors import nothing_listens, plain, refused_connection
from sidecar.cli.labels import colon, say
from sidecar.cli.render import format_error
from sidecar.protocol.messages import ROLES


def server_url(text: str) -> str:
    """The server's WebSocket address from what a user may paste: ``ws(s)://host:port/ws``
    as it is; a page's ``http(s)://`` address (a link the server printed, its query
    dropped) mapped to ``ws(s)://`` and its ``/ws``; a bare ``host:port`` or a missing
    path completed with ``ws://`` and ``/ws``. Raises ``ValueError`` (one line) for what
    is no server address."""
    text = text.strip()
    parts = urlsplit(text if "://" in text else f"ws://{text}")
    if "://" not in text and parts.hostname and parts.port is None and not parts.path:
        # A bare host: the sidecar's own port, not the web's 80.
        parts = urlsplit(f"ws://{text}:{urlsplit(DEFAULT_URL).port}")
    page = parts.scheme.lower() in ("http", "https")
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme.lower(), parts.scheme.lower())
    try:
        valid = scheme in ("ws", "wss") and bool(parts.hostname) and (parts.port or 1) > 0
    except ValueError:  # a port that is no number
        valid = False
    if not valid:
        raise ValueError(f"--url {text}: expected the server's address, e.g. {DEFAULT_URL} "
                         "(or its page's http://…)")
    path = parts.path.rstrip("/")
    if (page or not path) and not path.endswith("/ws"):
        # The page and the WebSocket share the server's address: the page is at "/"
        # (or under a proxy's prefix), its socket at "/ws" beside it.
        path += "/ws"
    return urlunsplit((scheme, parts.netloc, path, "", ""))


def url_texts(given: str | list[str] | None) -> list[str]:
    """The server addresses as typed: ``--url`` repeated and/or comma-separated (several
    processes serving the same tables), else ``$SIDECAR_URL`` (commas too), else the
    default; each is then read by :func:`server_url`."""
    texts = [given] if isinstance(given, str) else list(given or ())
    if not texts:
        texts = [os.environ.get("SIDECAR_URL") or DEFAULT_URL]
    found = [part.strip() for text in texts for part in text.split(",") if part.strip()]
    return found or [DEFAULT_URL]


def link_details(text: str) -> dict[str, str]:
    """What a page link given as ``--url`` says of the table and who joins: ``table``,
    ``role``, ``name`` from its query, and the token after ``#`` (``#token=…``: every link
    the sidecar makes; an older link's ``?token=`` too)."""
    parts = urlsplit(text.strip())
    found = {key: values[-1] for key, values in parse_qs(parts.query).items()
             if key in ("table", "token", "role", "name") and values}
    fragment = parse_qs(parts.fragment)
    if fragment.get("token"):
        found["token"] = fragment["token"][-1]
    if found.get("role") not in (None, *ROLES):
        found.pop("role")
    return found


@contextlib.asynccontextmanager
async def joined(args: argparse.Namespace, *, role: str | None = None,
                  name: str | None = None, reconnect: bool = False,
                  or_player: bool = False,
                  unopened: Callable[[str, str | None], str] | None = None,
                  ) -> AsyncIterator[tuple[Any, dict[str, Any]]]:
    """Join the table of ``args`` and yield (client, welcome); connection and server
    errors become exit codes, and the client is closed however the command ends.
    ``or_player``: a token refused for the GM role joins again as a player (``sheet list``
    or ``ask list`` without ``--role``, « pour tous »: a seat's token lists its own
    characters, its own asks). ``unopened``: what to say, in place of the server's refusal,
    when the table is not open and an observer may not open it (given the table and the
    locale) — what the command joined for, said plainly."""
    from websockets.exceptions import WebSocketException

    from sidecar.client import SidecarClient, SidecarError

    role = role or args.role
    locale = getattr(args, "locale", "fr")
    # Observers need no token, but one lets them open a table nobody has opened yet.
    token = getattr(args, "token", None) or os.environ.get("SIDECAR_TOKEN")
    table = args.table
    texts = url_texts(args.url)
    link: dict[str, str] = {}
    for text in reversed(texts):  # a page link's details, the first link's first
        link.update(link_details(text))
    if link.get("table") and table == "demo":  # (the default: the link's table instead)
        table = link["table"]
    if token is None and link.get("token"):
        # A link pasted whole (serve's lines, a seat's link) says who joins with its token.
        token = link["token"]
        role = link.get("role") or ("player" if role in (None, "observer") else role)
        name = name or link.get("name")
    inferred = role is None  # watch, history: the role follows the token (_token_role)
    role = _token_role(token) if inferred else role
    try:
        urls = [server_url(text) for text in texts]
    except ValueError as exc:
        print(f"sidecar: {plain(exc, locale)}", file=sys.stderr)
        raise CliExit(EXIT_CONNECT) from None
    where = ", ".join(urls)

    def client_as(member: str) -> Any:
        return SidecarClient(urls, table=table, name=member, role=role,
                             token=token, locale=getattr(args, "locale", "fr"),
                             binary=not getattr(args, "text_frames", False),
                             reconnect=reconnect)

    # Without --name nor $USER (Windows, a service): « MJ » for a GM, « joueur » otherwise,
    # whatever --locale: a name is who rolls (once-a-session rewards count by it), so one GM
    # token run in English and in French must stay one member, not « GM » and « MJ ».
    client = client_as(name or args.name or os.environ.get("USER")
                       or ("MJ" if role == "gm" else "joueur"))
    try:
        try:
            welcome = await client.connect()
        except SidecarError as exc:
            if or_player and role == "gm" and _gm_refused(exc):
                # One more hello, as the player the token may be (then as its seat).
                role, inferred = "player", True
                await client.close()
                client = client_as(name or args.name or os.environ.get("USER") or "joueur")
                try:
                    welcome = await client.connect()
                except SidecarError as again:
                    exc = again
                else:
                    exc = None
            if exc is not None:
                seat = _seat_to_join(exc, client.hello["name"]) if inferred else None
                if seat is None:
                    raise exc from None
                client = client_as(seat)
                welcome = await client.connect()
        if inferred and role == "player":
            print("sidecar: " + say(getattr(args, "locale", "fr"), *_PLAYER_VIEW_NOTE),
                  file=sys.stderr, flush=True)
    except SidecarError as exc:
        hint = _token_hint(exc, token, getattr(args, "locale", "fr"))
        if unopened is not None and exc.code == "forbidden" and role == "observer" \
                and (exc.details or {}).get("table") == table:
            hint = "sidecar: " + unopened(table, locale)
        print(hint or format_error(exc.code, exc.message, exc.details), file=sys.stderr)
        raise CliExit(EXIT_ERROR) from None
    except OSError as exc:
        if refused_connection(exc):  # (said plainly, not « [Errno 111] Connect call… »)
            print("sidecar: " + nothing_listens(
                ", ".join(urlsplit(url).netloc for url in urls), locale), file=sys.stderr)
            raise CliExit(EXIT_CONNECT) from None
        print("sidecar: " + say(locale, f"connexion impossible à {where}",
                                f"cannot connect to {where}") + colon(locale)
              + plain(exc, locale) + tls_hint(client.url, exc, locale), file=sys.stderr)
        raise CliExit(EXIT_CONNECT) from None
    except WebSocketException as exc:  # something answers there, but not a sidecar
        print("sidecar: " + say(locale, f"connexion impossible à {where}",
                                f"cannot connect to {where}") + colon(locale)
              + handshake_problem(exc) + tls_hint(client.url, exc, locale), file=sys.stderr)
        raise CliExit(EXIT_CONNECT) from None
    try:
        yield client, welcome
    except SidecarError as exc:
        print(format_error(exc.code, exc.message, exc.details), file=sys.stderr)
        raise CliExit(EXIT_ERROR) from None
    finally:
        await client.close()


def again_command(args: argparse.Namespace) -> Callable[..., str]:
    """How this reader runs another command at the same table, for the lines a command
    prints to paste (an open roll's ``react``): ``sidecar`` as it runs here (the venv's
    script when it is not on PATH, :func:`~sidecar.cli.common.sidecar_command`), then
    the options that joined — those typed, as typed; what came from the environment
    (``$SIDECAR_URL``, ``$SIDECAR_TOKEN``) or a default is left to it again."""
    options: list[str] = []
    for url in args.url or ():
        options += ["--url", url]
    if args.table != "demo":
        options += ["--table", args.table]
    if args.name:
        options += ["--name", args.name]
    if args.role == "gm":
        options += ["--role", "gm"]
    if args.token:
        options += ["--token", args.token]
    if args.locale != "fr":
        options += ["--locale", args.locale]

    def command(*words: str) -> str:
        return " ".join([sidecar_command(), *(shlex.quote(str(w)) for w in (*words, *options))])
    return command


def _token_hint(exc: Any, token: str | None, locale: str) -> str:
    """What to do when the server wants a token none was given for (a seat's, or the
    GM's with ``--role gm``), said whole in ``locale`` rather than the server's « champ
    'token' est obligatoire » (refused before the hello's locale was read, so French)."""
    details = exc.details or {}
    if token is not None or "token" not in (details.get("field"), details.get("param")):
        return ""
    return "sidecar: " + say(locale, "il faut un jeton — donnez --token : celui de votre place, "
                                     "ou celui du MJ avec --role gm (ou $SIDECAR_TOKEN)",
                             "a token is needed — give --token: your seat's, or the GM's "
                             "with --role gm (or $SIDECAR_TOKEN)")


#: Said when ``watch`` or ``history`` join as a player because a token was given.
_PLAYER_VIEW_NOTE = ("vue de joueur (--role gm : celle du MJ)",
                     "a player's view (--role gm: the GM's)")


def _token_role(token: str | None) -> str:
    """The role of ``watch`` and ``history`` when no ``--role`` is given: a token (the
    players', a seat's, or the GM's) joins as a player — it sees that player's own secret
    rolls; trying ``gm`` first would count a player's token as a wrong guess against the
    address (``--max-failed-hellos``), so the GM's view is asked for with ``--role gm``.
    No token: an observer."""
    return "player" if token else "observer"


def _gm_refused(exc: Any) -> bool:
    """A hello refused because its token is not the GM's (not some other refusal)."""
    said = str(getattr(exc, "message", ""))
    return exc.code == "forbidden" and ("GM role" in said or "rôle de MJ" in said)


def _seat_to_join(exc: Any, name: str) -> str | None:
    """A seat's token used under another name is refused with the seat's name: join again
    under it (once). ``None`` for any other refusal."""
    seat = (exc.details or {}).get("seat") if exc.code == "forbidden" else None
    return seat if isinstance(seat, str) and seat and seat != name else None


def handshake_problem(exc: Exception) -> str:
    """One line for a WebSocket handshake that failed: what answered, and what to check."""
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    if status is not None:
        return (f"the server answered HTTP {status}, not a WebSocket: is this the "
                f"sidecar's address (ws://HOST:PORT/ws)?")
    return f"{' '.join(str(exc).split())} (is this the sidecar's address, ws://HOST:PORT/ws?)"


def tls_hint(url: str, exc: BaseException, locale: str | None = None) -> str:
    """What to try when a connection failed over (or for want of) TLS."""
    text = str(exc)
    if "CERTIFICATE_VERIFY_FAILED" in text:
        return " — " + say(locale, "certificat non reconnu : SSL_CERT_FILE=cert.pem sidecar … "
                                   "(docs/DEPLOY.md)",
                           "untrusted certificate: SSL_CERT_FILE=cert.pem sidecar … "
                           "(docs/DEPLOY.md)")
    if url.startswith("ws://") and "valid HTTP response" in text:
        return " — " + say(locale, "serveur en TLS ? essayez ", "a TLS server? try ") \
            + url.replace("ws://", "wss://", 1)
    return ""
