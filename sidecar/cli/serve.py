"""``sidecar serve``: the table server's life as a command. It builds the
:class:`~sidecar.config.ServerConfig` from the options, starts the server, prints what to
paste to join (commands, links, a QR code for phones on the LAN) and, on SIGINT/SIGTERM,
stops it — within :data:`STOP_DEADLINE` seconds whatever plugins or clients do: a watchdog
thread ends the process with ``os._exit`` when a stuck plugin thread or a held event loop
would keep it alive.

Lazy imports: the server itself (:mod:`sidecar.server.connections`, about 80 ms with the
plugin host and stores) and the join link's module are imported by the functions that
start or describe a server, so ``sidecar --help`` and every other command do not pay for
them; ``uvloop`` because it is optional (``--loop uvloop``). All lie below the command
line: no import circle hides behind them."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import sidecar
from sidecar.cli.common import (
    DEFAULT,
    EXIT_ERROR,
    EXIT_OK,
    EXIT_USAGE,
    plugin_load_failure,
    sidecar_command,
    store_refused,
)
from sidecar.cli.errors import plain
from sidecar.cli.labels import colon, say
from sidecar.cli.render import print_qr
from sidecar.cli.tokens import TokensFileError, keep_tokens, tokens_path
from sidecar.config import ServerConfig
from sidecar.stores.base import StoreUnavailable

#: Seconds from SIGTERM/SIGINT to the end of the process, whatever clients or plugins do.
STOP_DEADLINE = 4.5


def cmd_serve(args: argparse.Namespace) -> int:
    """``sidecar serve``: the options (and ``$SIDECAR_*``) made a config, the server run
    until a signal; ends the process at once when a plugin thread would keep it alive."""
    config = ServerConfig(
        host=args.host, port=args.port, db=args.db or DEFAULT.db,
        plugins_dir=args.plugins_dir,
        allow_player_dice=args.allow_player_dice, origins=tuple(args.origin or ()),
        public_url=args.public_url or "", react_timeout=args.react_timeout,
        rate_limit=args.rate_limit, disabled_plugins=tuple(args.disable or ()),
        hello_timeout=args.hello_timeout, plugin_timeout=args.plugin_timeout,
        trusted_plugins=tuple(args.trust or ()), max_observers=args.max_observers,
        max_tables=args.max_tables,
        max_remembered_total_bytes=int(args.max_remembered_mib * 2**20),
        max_connections_per_address=args.max_connections_per_address,
        max_failed_hellos=args.max_failed_hellos,
        ssl_certfile=args.ssl_certfile, ssl_keyfile=args.ssl_keyfile, store=args.store)
    locale = args.locale  # (one language: its banner and messages, French by default)
    if store_refused(args):
        return EXIT_USAGE
    if args.max_tables < 1:
        print("sidecar: " + say(locale, "--max-tables doit valoir au moins 1",
                                "--max-tables must be at least 1"), file=sys.stderr)
        return EXIT_USAGE
    if args.max_remembered_mib < 0:
        print("sidecar: " + say(locale, "--max-remembered-mib ne peut être négatif",
                                "--max-remembered-mib cannot be negative"), file=sys.stderr)
        return EXIT_USAGE
    config.store = args.store
    if bool(args.ssl_certfile) != bool(args.ssl_keyfile):
        print("sidecar: " + say(locale, "le TLS demande --ssl-certfile et --ssl-keyfile",
                                "TLS needs both --ssl-certfile and --ssl-keyfile"),
              file=sys.stderr)
        return EXIT_USAGE
    _dice_options(config, args)
    # Unset tokens: those kept beside the journal, else the random ones ServerConfig made.
    gm_given = args.gm_token or os.environ.get("SIDECAR_GM_TOKEN")
    player_given = args.player_token or os.environ.get("SIDECAR_PLAYER_TOKEN")
    config.gm_token = gm_given or config.gm_token
    config.player_token = player_given or config.player_token
    if not (gm_given and player_given):
        kept = tokens_path(config, args.tokens_file)
        try:
            if kept is not None:
                keep_tokens(config, kept, gm_given=bool(gm_given),
                            player_given=bool(player_given), locale=locale)
        except TokensFileError as exc:
            print(f"sidecar: {exc}", file=sys.stderr)
            return EXIT_ERROR
        print(say(locale, f"jetons : gardés dans {kept} (les liens survivent à un "
                          "redémarrage)",
                  f"tokens: kept in {kept} (links survive a restart)") if kept is not None
              else say(locale, "jetons : nouveaux à chaque démarrage (--tokens-file CHEMIN, "
                               "ou --gm-token/--player-token, pour les garder)",
                       "tokens: new at each start (--tokens-file PATH, or "
                       "--gm-token/--player-token, to keep them)"), flush=True)
    logging.basicConfig(level=getattr(logging, args.log_level.upper()),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # The transport library's own handshake logs would print tracebacks for garbage input.
    logging.getLogger("websockets").setLevel(logging.WARNING)
    loop_factory = _loop_factory(args.loop)
    if loop_factory is None:
        print("sidecar: " + say(locale, "--loop uvloop demande uvloop",
                                "--loop uvloop needs uvloop")
              + ": pip install 'vtt-sidecar[fast]'", file=sys.stderr)
        return EXIT_USAGE
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        code = runner.run(serve_until_stopped(config, args.table, locale))
    if any(t.is_alive() and not t.daemon for t in threading.enumerate()
           if t is not threading.main_thread()):
        # A plugin call that never returns keeps a worker thread; the interpreter would
        # wait for it at exit. Everything acknowledged is journaled already: leave now.
        _hard_exit(code, say(locale, "sortie immédiate (fils de plugins bloqués "
                                     "abandonnés)",
                             "exiting now (abandoning stuck plugin threads)"))
    return code


def _dice_options(config: ServerConfig, args: argparse.Namespace) -> None:
    """Where faces come from (``--dice``, ``--keep-epochs``), into the config."""
    config.dice = args.dice
    config.reveal_on_stop = not args.keep_epochs


def _loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop ``serve --loop`` asks for: asyncio's own, or uvloop's (faster on
    many connections; an optional dependency). ``None`` when uvloop is not installed."""
    if name == "asyncio":
        return asyncio.new_event_loop
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


async def serve_until_stopped(config: ServerConfig, table: str, locale: str = "fr") -> int:
    """Start the server, print how to join, serve until SIGINT/SIGTERM (a second one, or
    :data:`STOP_DEADLINE` passed, ends the process at once), stop; its exit code. What
    keeps it from starting is said in one line; everything in ``locale``."""
    from sidecar.host.plugins import PluginLoadError
    from sidecar.server.collector import CollectorPolicy
    from sidecar.server.connections import SidecarServer
    from sidecar.stores.journal import JournalError

    try:
        server = SidecarServer(config)
    except PluginLoadError as exc:
        print(plugin_load_failure(exc, locale), file=sys.stderr)
        return EXIT_ERROR
    except (JournalError, ValueError) as exc:
        print(f"sidecar: {plain(exc, locale)}", file=sys.stderr)
        return EXIT_ERROR
    try:
        server.ssl_context()  # a missing or mismatched certificate, said as such
    except OSError as exc:
        print("sidecar: " + say(locale, "certificat TLS inutilisable",
                                "cannot use the TLS certificate")
              + colon(locale) + plain(exc, locale), file=sys.stderr)
        await server.stop()
        return EXIT_ERROR
    try:
        await server.start()
        # Everything loaded so far lives as long as the server, and so do most objects
        # that survive a full collection: kept out of the cyclic collector's way, its
        # pauses stay short however many players are connected (tail latency, issue 28).
        collector = CollectorPolicy(asyncio.get_running_loop(), config.gc_thaw_every)
        collector.install()
    except StoreUnavailable as exc:  # (its text names the store, password hidden)
        print(f"sidecar: {plain(exc, locale)}", file=sys.stderr)
        await server.stop()
        return EXIT_ERROR
    except OSError as exc:
        print("sidecar: " + say(locale, f"impossible d'écouter sur {config.host}:{config.port}",
                                f"cannot listen on {config.host}:{config.port}")
              + f"{colon(locale)}{exc.strerror or exc}", file=sys.stderr)
        await server.stop()
        return EXIT_ERROR
    # Handlers first: whoever reads the banner may signal us right away.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_signal(signum: int, frame: Any) -> None:
        # A plain handler, not loop.add_signal_handler: it runs even while something
        # holds the event loop, and arms a watchdog that ends the process whatever blocks.
        if stop.is_set():  # a second Ctrl-C: the operator means it
            _hard_exit(EXIT_ERROR, say(locale, "sortie immédiate (second signal)",
                                       "exiting now (second signal)"))
        loop.call_soon_threadsafe(stop.set)
        _arm_watchdog(STOP_DEADLINE, locale)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    plugins = ", ".join(f"{p.name} {p.version}".strip() for p in server.host.plugins.values())
    said = colon(locale)
    print(f"plugins{said}{plugins or say(locale, 'aucun', 'none')}")
    if config.store:
        # (« store: redis://… », its password hidden: said in this run's language.)
        kind, _, where = server.store.described.partition(": ")
        print(say(locale, {"store": "stockage"}.get(kind, kind), kind) + f"{said}{where}")
    else:
        print(f"journal{said}{config.db}" + (
            say(locale, " (tables oubliées à l'arrêt)", " (tables forgotten at stop)")
            if config.db == ":memory:" else ""))
    print(say(locale, "boucle d'événements", "event loop")
          + f"{said}{type(loop).__module__.split('.')[0]}")
    print(join_details(server, config, table, await table_game(server, table), locale),
          flush=True)
    _print_join_qr(server.core.public_url, config, table, locale)
    await stop.wait()
    print("sidecar: " + say(locale, "arrêt (connexions fermées avec 1001)",
                            "stopping (connections closed with 1001)"), flush=True)
    collector.uninstall()
    await server.stop()
    if any(not task.done() for task in server.host.abandoned):
        # An async hook that ignores its cancellation never ends, and asyncio would wait
        # for it at exit. Everything acknowledged is journaled already: leave now.
        _hard_exit(EXIT_OK, say(locale, "sortie immédiate (tâches de plugins sourdes à "
                                        "leur annulation abandonnées)",
                                "exiting now (abandoning plugin tasks that ignore their "
                                "cancellation)"))
    return EXIT_OK


def _hard_exit(code: int, why: str) -> None:
    """End the process now, saying ``why`` (in the run's language): stuck plugin threads
    or a held event loop are not waited for."""
    with contextlib.suppress(Exception):
        print(f"sidecar: {why}", file=sys.stderr, flush=True)
        sys.stdout.flush()
        logging.shutdown()
    os._exit(code)


def _arm_watchdog(seconds: float, locale: str) -> None:
    timer = threading.Timer(seconds, _hard_exit, (EXIT_ERROR, say(
        locale, f"sortie immédiate (pas arrêté en {seconds} s)",
        f"exiting now (not stopped within {seconds} s)")))
    timer.daemon = True
    timer.start()


#: A roll of each built-in game to paste, as ``serve`` suggests it.
EXAMPLE_ROLLS = {"oweens": "oweens dice=3 difficulty=2", "bloodlust": "bloodlust pool=5",
                 "ladder": "ladder level=3 difficulty=11",
                 "d6code": "d6code code=3D+1 difficulty=10",
                 "seuil": "seuil level=3 threshold=10", "dice": "dice expr=2d6"}


#: Tables whose characters ``serve`` reads to say which game the journal plays (a
#: suggestion only: a host's journal of thousands of tables is not read whole at start).
GAME_TABLES_READ = 50


def _game_of(records: dict[str, Any]) -> tuple[str | None, int]:
    """A table's game (its characters' most common ruleset) and how many characters
    play it."""
    games = Counter(str(record.get("ruleset")) for record in
                    (records.get("character") or {}).values()
                    if isinstance(record, dict) and record.get("ruleset"))
    return games.most_common(1)[0] if games else (None, 0)


async def table_game(server: Any, table: str) -> str | None:
    """The game ``serve`` suggests rolling at ``table``: the one its characters play;
    else the journal's: its newest table's that has characters (a store that keeps no
    order, Redis: the game most tables play, then the one with most characters); else
    ``dice``, the plain roller, which is no game anybody would have to have chosen
    (``None`` when it is not loaded either: no roll is suggested). Never Bloodlust at an
    O'Ween's table, nor any game nobody chose."""
    try:
        game, _ = _game_of((await server.store.load(table))[2])
        for other in await server.store.newest_tables(GAME_TABLES_READ):
            if game is not None:
                break
            game, _ = _game_of((await server.store.load(other))[2])
        if game is None:
            game = await _most_played(server.store)
    except Exception:  # a suggestion only: never a reason not to serve
        game = None
    if game is None:
        rulesets = {listing.get("name") for listing in server.host.ruleset_listing()}
        game = "dice" if "dice" in rulesets else None
    return game


async def _most_played(store: Any) -> str | None:
    """The game most of the store's tables play (the one with most characters among
    equals), for a store that cannot say which table is newest."""
    votes: Counter[str] = Counter()
    characters: Counter[str] = Counter()
    for table in (await store.tables_with("character"))[:GAME_TABLES_READ]:
        found, many = _game_of((await store.load(table))[2])
        if found is not None:
            votes[found] += 1
            characters[found] += many
    return max(votes, key=lambda name: (votes[name], characters[name])) if votes else None


def join_details(server: Any, config: ServerConfig, table: str,
                 game: str | None = None, locale: str = "fr") -> str:
    """What ``serve`` prints to paste, in ``locale``: the commands and links that join
    ``table`` as a GM, a player, a watcher, a browser, and (on ``0.0.0.0``) from the LAN;
    the roll suggested is one of ``game`` (:func:`table_game`), none without one."""
    from sidecar.table.joinlink import join_link

    url = server.url
    page = url.replace("wss://", "https://", 1).replace("ws://", "http://", 1).rsplit("/ws", 1)[0]
    run = sidecar_command()
    example = EXAMPLE_ROLLS.get(game, game) if game else None

    def row(fr: str, en: str) -> str:
        # Labels in one column: French sets the colon apart after the padding (« MJ    : »),
        # English puts it right after the word and pads after it (« GM:    »).
        if locale == "en":
            return f"  {en + ':':<14} "
        return f"  {say(locale, fr, en):<13}{colon(locale)}"

    lines = [
        f"vtt-sidecar {sidecar.__version__} — WebSocket {url} — page {page}/",
        "",
        say(locale, "Rejoindre la table", "Join the table") + colon(locale).rstrip(),
    ]
    if example:
        lines += [
            f"{row('MJ', 'GM')}{run} roll {example} --url {url} --table {table} "
            f"--role gm --token {config.gm_token}",
            f"{row('Joueur', 'Player')}{run} roll {example} --url {url} --table {table} "
            f"--token {config.player_token}",
        ]
    lines += [
        f"{row('Regarder', 'Watch')}{run} watch --url {url} --table {table} "
        f"--token {config.player_token}",
        f"{row('Navigateur', 'Browser')}{join_link(page, table, config.player_token)}",
        f"{row('Navigateur MJ', 'Browser GM')}"
        f"{join_link(page, table, config.gm_token, role='gm')}",
        f"{row('Place', 'Seat')}{run} seat add {say(locale, 'NOM', 'NAME')} --url {url} "
        f"--table {table} --token {config.gm_token}",
        "    " + say(locale, "(un jeton et un lien par joueur : seuls ses jets secrets "
                            "restent à lui)",
                    "(one token and link per player: only seats keep secret rolls private)"),
    ]
    if config.host in ("0.0.0.0", "", "::"):
        port = server.port
        addresses = lan_addresses()
        routed = getattr(getattr(server, "core", None), "public_url", "")
        if not addresses and routed and "//127." not in routed:
            # The host name resolves to no LAN address: the one the system routes through.
            addresses = [routed.split("//", 1)[1].rsplit(":", 1)[0]]
        scheme = "https" if url.startswith("wss://") else "http"
        for address in addresses or [say(locale, "<adresse-IP-de-ce-PC>", "<this-PC's-IP>")]:
            lines.append(row("Réseau local", "LAN")
                         + join_link(f"{scheme}://{address}:{port}", table,
                                     config.player_token))
    else:
        lines.append("  " + say(locale, "(--host 0.0.0.0 ouvre la table aux téléphones du "
                                        "réseau local)",
                                "(--host 0.0.0.0 opens the table to phones on the LAN)"))
    return "\n".join(lines)


def _print_join_qr(page_url: str, config: ServerConfig, table: str, locale: str) -> None:
    """On a server open to the LAN, the players' join link once more, as a QR code that
    phones scan (the GM's page shows the same one)."""
    from sidecar.table.joinlink import join_link, open_to_lan

    if not open_to_lan(config) or not config.player_token:
        return
    link = join_link(page_url, table, config.player_token)
    print("\n" + say(locale, "Téléphones : scannez", "Phones: scan") + f" — {link}",
          flush=True)
    print_qr(link)
    sys.stdout.flush()


def lan_addresses() -> list[str]:
    """This machine's non-loopback IPv4 addresses, as other devices on the LAN reach it."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return []
    return sorted({info[4][0] for info in infos if not info[4][0].startswith("127.")})
