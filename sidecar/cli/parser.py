"""The ``sidecar`` command line's argparse tree: every command, its options and help,
and the function that runs it (``set_defaults(func=…)``); :func:`parse_args` reads a
command line whose ``key=value`` words may come after options."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import sidecar
from sidecar.cli.admin import (
    cmd_ask,
    cmd_epoch_end,
    cmd_export,
    cmd_import,
    cmd_seat,
    cmd_session,
    cmd_sheet,
)
from sidecar.cli.common import DEFAULT, DEFAULT_URL
from sidecar.cli.localized import SidecarParser, locale_given, localize, run_locale
from sidecar.cli.play import cmd_answer, cmd_history, cmd_react, cmd_roll, cmd_watch
from sidecar.cli.serve import cmd_serve
from sidecar.cli.tools import cmd_new_plugin, cmd_odds, cmd_plugins, cmd_verify
from sidecar.config import ServerConfig
from sidecar.protocol.messages import LOCALES, MODES, ROLES


def _client_options(parser: argparse.ArgumentParser, default_role: str | None) -> None:
    """The options of every command that joins a table (``default_role`` ``None``: the
    role follows ``--token``, see :func:`sidecar.cli.connect._token_role`)."""
    parser.add_argument("--url", action="append", metavar="URL",
                        help=f"server WebSocket URL (default {DEFAULT_URL}, or $SIDECAR_URL); "
                             "several processes serving the same tables: repeat --url or "
                             "separate with commas (tried in turn, resumed on a drop)")
    parser.add_argument("--table", default="demo", help="table name (default demo)")
    parser.add_argument("--name", default=None,
                        help="your display name (default $USER, else « MJ » for a GM, « joueur » "
                             "otherwise, whatever --locale: a name is an identity)")
    parser.add_argument("--role", default=default_role, choices=ROLES,
                        help=f"default {default_role}" if default_role else
                        "default: player with --token, observer without")
    parser.add_argument("--token", help="GM or player token (or $SIDECAR_TOKEN)")
    _locale_option(parser)
    parser.add_argument("--json", action="store_true", help="print raw JSON messages")
    parser.add_argument("--text-frames", action="store_true",
                        help="speak JSON text frames instead of MessagePack")


def _locale_option(parser: argparse.ArgumentParser, *, before: bool = False) -> None:
    """``--locale``: the language the command speaks to its reader, one alone (French by
    default). ``before``: a command's group (``seat``, ``sheet``, ``ask``, ``session``)
    takes it before its sub-command too, as ``roll`` anywhere (:func:`parse_args`)."""
    if before:
        parser.add_argument("--locale", dest="locale_before", choices=LOCALES,
                            help="language of what is printed (default fr), here or "
                                 "after the sub-command")
        return
    parser.add_argument("--locale", default=LOCALES[0], choices=LOCALES,
                        help="language of what is printed (default %(default)s)")


def build_parser(locale: str = LOCALES[0]) -> argparse.ArgumentParser:
    """The whole tree: each command's options and the function that runs it, its help
    and usage errors in ``locale`` (written in English here, French in
    :mod:`sidecar.cli.help_fr`)."""
    parser = SidecarParser(
        prog="sidecar", description="vtt-sidecar: the table's authority on dice and rules.")
    parser.add_argument("--version", action="version", version=f"vtt-sidecar {sidecar.__version__}")
    parser.add_argument("--locale", dest="locale_top", choices=LOCALES,
                        help="language of the help and of what is printed (default fr), "
                             "here or after the command")
    sub = parser.add_subparsers(dest="command", required=True)

    _add_serve_command(sub)
    _add_plugins_command(sub)
    _add_roll_commands(sub)
    _add_seat_command(sub)
    _add_sheet_command(sub)
    _add_ask_commands(sub)
    _add_session_command(sub)
    _add_initiative_command(sub)
    _add_watch_commands(sub)
    _add_store_commands(sub)
    _add_odds_command(sub)
    _add_verify_commands(sub)
    _add_new_plugin_command(sub)
    _describe_commands(parser)
    return localize(parser, locale)


def _describe_commands(parser: argparse.ArgumentParser) -> None:
    """Each command's own ``--help`` opens with what it does: the line its parent's list
    gives it (``sidecar roll --help`` said only its usage)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                command = action.choices[choice.dest]
                command.description = command.description or choice.help
                _describe_commands(command)


def _add_serve_command(sub: Any) -> None:
    """``serve``: the table server, its options by group."""
    serve = sub.add_parser("serve", help="run the table server")
    group = serve.add_argument_group("network")
    group.add_argument("--host", default=DEFAULT.host,
                       help=f"interface to listen on (default {DEFAULT.host}; 0.0.0.0 for "
                            "the LAN)")
    group.add_argument("--port", type=int, default=DEFAULT.port,
                       help=f"TCP port (default {DEFAULT.port})")
    group.add_argument("--ssl-certfile", metavar="PATH",
                       help="TLS certificate chain (PEM): serve wss:// and the page over "
                            "https:// (with --ssl-keyfile; needed by a Foundry behind HTTPS)")
    group.add_argument("--ssl-keyfile", metavar="PATH",
                       help="the private key (PEM) of --ssl-certfile")
    group = serve.add_argument_group("access")
    group.add_argument("--gm-token", help="GM secret (or $SIDECAR_GM_TOKEN; unset: the one "
                                          "kept in --tokens-file, random the first time)")
    group.add_argument("--player-token",
                       help="player secret (or $SIDECAR_PLAYER_TOKEN; unset: as --gm-token)")
    group.add_argument("--tokens-file", metavar="PATH",
                       help="where unset tokens are kept across restarts, mode 0600 "
                            "(default: beside the journal, DB.tokens; none for "
                            "--db :memory: or --store)")
    group.add_argument("--react-timeout", type=float, default=ServerConfig.react_timeout,
                       metavar="SECONDS",
                       help="how long an open roll waits for its roller's decision before "
                            "taking its default (default: %(default)s)")
    group.add_argument("--public-url", metavar="URL",
                       help="the web page's address as players reach it, where seat links "
                            "point (default: this server's address; on 0.0.0.0 this "
                            "machine's LAN address)")
    group.add_argument("--origin", action="append", metavar="ORIGIN",
                       help="allow this browser origin too (repeatable); the server's own "
                            "origin and localhost are always allowed")
    group.add_argument("--allow-player-dice", action="store_true",
                       help="players may enter physical dice (GMs always may)")
    _add_dice_options(serve)
    group = serve.add_argument_group("journal")
    group.add_argument("--db", metavar="PATH",
                       help=f"SQLite journal of every table (default ./{DEFAULT.db}; "
                            ":memory: forgets tables at stop)")
    group.add_argument("--store", metavar="redis://HOST:PORT/DB",
                       help="keep tables in Redis instead, shared by every sidecar serve "
                            "pointed at it (pip install 'vtt-sidecar[redis]'; "
                            "docs/DEPLOY.md); also unix:///PATH?db=N, rediss://; "
                            "default $SIDECAR_STORE")
    group = serve.add_argument_group("plugins")
    group.add_argument("--plugins-dir", metavar="DIR", help="load every *.py of DIR as a plugin")
    group.add_argument("--disable", action="append", metavar="NAME",
                       help="do not load this plugin (repeatable)")
    group.add_argument("--plugin-timeout", type=float, default=DEFAULT.plugin_timeout,
                       metavar="SECONDS",
                       help=f"deadline of a third-party hook call (default "
                            f"{DEFAULT.plugin_timeout:g}); 5 failures in 60 s disable a "
                            "plugin for the rest of the run")
    group.add_argument("--trust", action="append", metavar="NAME",
                       help="run this third-party plugin inline, like the built-ins (faster; "
                            "only for plugins you know never block; repeatable)")
    group = serve.add_argument_group("limits and timeouts")
    group.add_argument("--rate-limit", type=float, default=DEFAULT.rate_limit, metavar="N",
                       help="requests per second per connection, every frame counted, "
                            "burst 2N (0 = off; default "
                            f"{DEFAULT.rate_limit:g})")
    group.add_argument("--hello-timeout", type=float, default=DEFAULT.hello_timeout,
                       metavar="SECONDS",
                       help="time a new connection has to send hello (default "
                            f"{DEFAULT.hello_timeout:g})")
    group.add_argument("--max-tables", type=int, default=DEFAULT.max_tables, metavar="N",
                       help="open tables this process holds (a table is open while someone "
                            "sits at it); whoever would open one more is refused until one "
                            f"closes (default {DEFAULT.max_tables:,}: an idle table of 5 "
                            "costs about 94 KiB, its connections included, so a full server "
                            "stays near 0.5 GiB; see docs/DEPLOY.md)")
    group.add_argument("--max-remembered-mib", type=float,
                       default=DEFAULT.max_remembered_total_bytes / 2**20, metavar="MIB",
                       help="what all tables together remember of their requests, to "
                            "answer a repeated request id, in MiB as journaled (an event "
                            "is held in about 4 times that): past a quarter of it the oldest "
                            "events are let go of (their ids kept: a repeat reads the "
                            "journal), past all of it the oldest ids (their tables then ask "
                            "the journal about every request) (0 = no server-wide bound; "
                            f"default {DEFAULT.max_remembered_total_bytes / 2**20:g}, about "
                            f"{4 * DEFAULT.max_remembered_total_bytes / 2**20:g} MiB held)")
    group.add_argument("--max-observers", type=int, default=DEFAULT.max_observers,
                       metavar="N",
                       help="observers per table, counted apart from players and GMs "
                            f"(default {DEFAULT.max_observers})")
    group.add_argument("--max-connections-per-address", type=int,
                       default=DEFAULT.max_connections_per_address, metavar="N",
                       help="open connections one address may hold (0 = off; default "
                            f"{DEFAULT.max_connections_per_address}; raise it behind a "
                            "reverse proxy, where every client has the proxy's address)")
    group.add_argument("--max-failed-hellos", type=float,
                       default=DEFAULT.max_failed_hellos, metavar="N",
                       help="wrong tokens one address may send a minute before its joins are "
                            f"refused for a while (0 = off; default {DEFAULT.max_failed_hellos:g})")
    group = serve.add_argument_group("speed")
    group.add_argument("--loop", choices=("asyncio", "uvloop"), default="asyncio",
                       help="event loop: asyncio's own (default), or uvloop, faster with many "
                            "clients (pip install 'vtt-sidecar[fast]')")
    serve.add_argument("--table", default="demo",
                       help="table name used in the printed join details (default demo)")
    serve.add_argument("--log-level", default="info",
                       choices=("debug", "info", "warning", "error"),
                       help="how much the server logs (default %(default)s)")
    _locale_option(serve)
    serve.set_defaults(func=cmd_serve)


def _add_plugins_command(sub: Any) -> None:
    """``plugins``: the plugins installed, or those of a running server."""
    plugins = sub.add_parser("plugins", help="list the plugins found, their rulesets and hooks")
    plugins.add_argument("--plugins-dir", metavar="DIR",
                         help="also load every *.py of DIR as a plugin")
    plugins.add_argument("--json", action="store_true", help="print JSON")
    _locale_option(plugins)
    plugins.add_argument("--url", action="append", metavar="URL",
                         help="ask a running server instead (shows failures and disabled "
                              "plugins); repeat or separate with commas for several")
    plugins.add_argument("--table", default="demo",
                         help="--url: the table joined, as an observer, to ask its server "
                              "(default demo; one that is open, else give --token)")
    plugins.add_argument("--token", help="a GM or player token (or $SIDECAR_TOKEN), needed "
                                         "when --table is not open yet")
    plugins.set_defaults(func=cmd_plugins)


def _add_roll_commands(sub: Any) -> None:
    """``roll`` and ``react`` (an open roll's decision)."""
    roll = sub.add_parser("roll", help="join a table, roll once, print the outcome")
    _ruleset_and_params(roll)
    _client_options(roll, "player")
    roll.add_argument("--mode", default=MODES[0], choices=MODES,
                      help="who sees the roll (default public): public everyone, gm the "
                           "roller and the GMs, blind the GMs alone (the roller sees "
                           "only that it was rolled), self the roller alone")
    roll.add_argument("--label", default="", help="what is attempted")
    roll.add_argument("--dice", help="physical dice faces, in order: 3,5,6")
    roll.add_argument("--option", action="append", default=[], metavar="EXT.KEY=VALUE",
                      help="an extension's per-roll setting, typed from its description "
                           "(`sidecar plugins` lists them): combat.options=aim "
                           "combat.zone=head; EXT=yes turns it on with its defaults "
                           "(blank_botch=yes), EXT={json} gives them all")
    roll.add_argument("--character", metavar="NAME",
                      help="roll as this character: the roll spends from its sheet (a "
                           "player: a character of your seat)")
    _target_option(roll)
    roll.add_argument("--no-ask", action="store_true",
                      help="an open roll: print its choices without asking which to take "
                           "(asked only in a terminal)")
    roll.set_defaults(func=cmd_roll, pairs="params")

    react = sub.add_parser("react", help="decide an open roll (its roller, or a GM): take "
                                         "one of its choices")
    react.add_argument("roll", metavar="ROLL", help="the open roll's id (its `roll`)")
    react.add_argument("choice", metavar="CHOICE", help="the name of one of its choices")
    _client_options(react, "player")
    react.add_argument("--dice", help="physical dice for the faces the choice draws: 4 or 3,5")
    react.set_defaults(func=cmd_react)


def _ruleset_and_params(parser: argparse.ArgumentParser) -> None:
    """``roll``'s and ``odds``'s words: the game, then its params."""
    parser.add_argument("ruleset", help="the game (its ruleset: `sidecar plugins` lists "
                                        "them)")
    parser.add_argument("params", nargs="*", metavar="key=value",
                        help="the roll's params, typed by its ruleset: difficulty=3")


def _target_option(parser: Any) -> None:
    """``--target NAME`` (repeatable): a character the action is aimed at (contract §8)."""
    parser.add_argument("--target", action="append", default=[], metavar="NAME",
                        dest="target",
                        help="aim at this character (repeatable): the rules read its sheet "
                             "and the dice change it (wounds, reserve); a GM's NPC too")


def _add_seat_command(sub: Any) -> None:
    """``seat add|remove|rotate|list`` (GM)."""
    seat = sub.add_parser("seat", help="GM: players' own seats (each its token and link)")
    _locale_option(seat, before=True)
    seats = seat.add_subparsers(dest="seat_command", required=True)
    for op, text in (("add", "give a player a seat; prints the join link and its QR code"),
                     ("remove", "remove a seat (its token stops working, its connections "
                                "close)"),
                     ("rotate", "give a seat a new token and link (a lost link)")):
        command = seats.add_parser(op, help=text)
        command.add_argument("seat", metavar="SEAT", help="the player's name at the table")
        _client_options(command, "gm")
        if op != "remove":
            command.add_argument("--no-qr", action="store_true",
                                 help="print the link without its QR code")
        command.set_defaults(func=cmd_seat)
    command = seats.add_parser("list", help="the seats, who is online, their characters")
    _client_options(command, "gm")
    command.set_defaults(func=cmd_seat)


def _add_sheet_command(sub: Any) -> None:
    """``sheet set|adjust|refill|remove|list``: characters and their sheets."""
    sheet = sub.add_parser("sheet", help="characters and their sheets (GM; `list` for anyone)")
    _locale_option(sheet, before=True)
    sheets = sheet.add_subparsers(dest="sheet_command", required=True)
    set_ = sheets.add_parser("set", help="create a character or change some values")
    set_.add_argument("character", metavar="CHARACTER", help="the character's name")
    set_.add_argument("values", nargs="*", metavar="field=value",
                      help="typed by the ruleset's sheet; a map entry as skills.Escalade=5 "
                           "or the whole map as JSON; a reserve counted from its score "
                           "(O'Ween's reserve_ecl, shown “2 / 3”) as the points lost: "
                           "reserve_ecl=-1 for one lost, 0 for full")
    set_.add_argument("--ruleset", help="the character's ruleset (needed to create one)")
    owner = set_.add_mutually_exclusive_group()
    owner.add_argument("--owner", metavar="SEAT", help="give the character to this seat")
    owner.add_argument("--no-owner", action="store_true",
                       help="the GM's own character (no seat)")
    set_.set_defaults(func=cmd_sheet, pairs="values")
    adjust = sheets.add_parser("adjust", help="add to or take from integer fields "
                                              "(a journaled adjustment, undone by its opposite)")
    adjust.add_argument("character", metavar="CHARACTER", help="the character's name")
    adjust.add_argument("delta", nargs="*", metavar="field=+N",
                        help="what to add (+N) or take (-N), field by field: wounds=-1")
    adjust.set_defaults(func=cmd_sheet, pairs="delta")
    refill = sheets.add_parser("refill", help="a new turn or a rest: counters back to their "
                                              "default")
    refill.add_argument("what", choices=("turn", "rest"),
                        help="turn: the counters of a turn; rest: those of a rest")
    refill.add_argument("character", nargs="?", metavar="CHARACTER",
                        help="default: every character of the table")
    refill.set_defaults(func=cmd_sheet)
    remove = sheets.add_parser("remove", help="delete a character (its events stay)")
    remove.add_argument("character", metavar="CHARACTER", help="the character's name")
    remove.set_defaults(func=cmd_sheet)
    for command in (set_, adjust, refill, remove):
        _client_options(command, "gm")
        command.add_argument("--reason", help="why (kept in the journal)")
    listing = sheets.add_parser("list", help="the characters you may see (a seat: its own)")
    _client_options(listing, None)
    for action in listing._actions:  # (whether --role was given: see cli.admin._sheet)
        if action.dest == "role":
            action.help = "default gm, else player (a seat's token: its own characters)"
    listing.set_defaults(func=cmd_sheet)


def _add_ask_commands(sub: Any) -> None:
    """``ask open|cancel|list`` (GM) and ``answer`` (a seat)."""
    ask = sub.add_parser("ask", help="GM: ask seats or characters for a roll (an opposed "
                                     "roll with --opposed, a cooperative one with "
                                     "--cooperative)")
    _locale_option(ask, before=True)
    asks = ask.add_subparsers(dest="ask_command", required=True)
    open_ = asks.add_parser("open", help="ask for a roll: sidecar ask open Alice Ysolde "
                                         "--ruleset oweens characteristic=ECL difficulty=3")
    open_.add_argument("targets", nargs="*", metavar="SEAT_OR_CHARACTER|key=value",
                       help="the seats or characters asked, and the roll's params")
    open_.add_argument("--ruleset", required=True, help="the game of the asked roll")
    open_.add_argument("--label", default="", help="what is attempted")
    open_.add_argument("--mode", default=MODES[0], choices=[m for m in MODES if m != "self"],
                       help="who sees the asked rolls (default public), as for roll")
    together = open_.add_mutually_exclusive_group()
    together.add_argument("--opposed", action="store_true",
                          help="an opposed roll: the sides are compared when the last answers")
    together.add_argument("--cooperative", action="store_true",
                          help="a cooperative roll: every side rolls, only the best roll "
                               "counts (two names at least)")
    open_.add_argument("--each", nargs="+", action="append", default=[],
                       metavar="NAME key=value",
                       help="one side's own params (repeatable): --each Krull code=4D+1")
    _target_option(open_)
    open_.set_defaults(func=cmd_ask, pairs="targets")
    cancel = asks.add_parser("cancel", help="cancel an open ask")
    cancel.add_argument("ask", metavar="ASK_ID", help="the ask's id (`ask list` gives it)")
    cancel.set_defaults(func=cmd_ask)
    listing = asks.add_parser("list", help="the open asks and who answered (a seat: its own)")
    listing.set_defaults(func=cmd_ask)
    for command in (open_, cancel):
        _client_options(command, "gm")
    _client_options(listing, None)
    for action in listing._actions:  # (whether --role was given: see cli.admin._ask_command)
        if action.dest == "role":
            action.help = "default gm, else player (a seat's token: its own asks)"

    answer = sub.add_parser("answer", help="a seat: answer an ask (the asked roll; asks "
                                           "which one in a terminal when no id is given); "
                                           "a GM: answer a GM's NPC's side (--character)")
    answer.add_argument("ask", nargs="?", metavar="ASK_ID",
                        help="the ask's id (`ask list` gives it)")
    # (Its role: player, or gm with --character — see cli.play._answer.)
    _client_options(answer, None)
    for action in answer._actions:  # (see cli.play._answer)
        if action.dest == "role":
            action.help = "default player; gm with --character (a GM answers an NPC's side)"
    answer.add_argument("--character", metavar="NPC",
                        help="a GM answers the side of this NPC of the ask (as it; the GM's "
                             "role unless --role says otherwise)")
    answer.add_argument("--dice", help="physical dice faces, in order: 3,5,6")
    answer.add_argument("--no-ask", action="store_true",
                        help="ask nothing, as roll's: several asks pending, list them; the "
                             "asked roll left open, print its choices (asked only in a "
                             "terminal)")
    answer.set_defaults(func=cmd_answer)


def _add_session_command(sub: Any) -> None:
    """``session start`` (GM)."""
    session = sub.add_parser("session", help="GM: game sessions")
    _locale_option(session, before=True)
    sessions = session.add_subparsers(dest="session_command", required=True)
    start = sessions.add_parser("start", help="start a new game session (what lasts a "
                                              "session starts over)")
    _client_options(start, "gm")
    start.set_defaults(func=cmd_session)


def _add_initiative_command(sub: Any) -> None:
    """``initiative NAME…`` (GM, PROTOCOL.md §7.7)."""
    from sidecar.cli.initiative import cmd_initiative

    initiative = sub.add_parser("initiative", help="GM: order a scene's initiative from the "
                                                   "characters' sheets")
    initiative.add_argument("characters", nargs="+", metavar="CHARACTER",
                            help="the scene's characters (of one ruleset)")
    initiative.add_argument("--claim", action="append", metavar="CHARACTER",
                            help="this character's player spends to take the initiative "
                                 "(O'Ween's: 1 BB+); repeat for several")
    initiative.add_argument("--bagage", action="append", metavar="CHARACTER",
                            help="this character has a relevant bagage (ties); repeat for "
                                 "several")
    _client_options(initiative, "gm")
    initiative.set_defaults(func=cmd_initiative)


def _add_watch_commands(sub: Any) -> None:
    """``watch`` (live) and ``history`` (past events)."""
    watch = sub.add_parser("watch", help="print a table's outcomes as they arrive")
    _client_options(watch, None)
    watch.add_argument("--count", type=int, default=0, help="stop after N outcomes")
    watch.add_argument("--presence", action="store_true",
                       help="also print who is at the table each time someone joins or leaves")
    watch.set_defaults(func=cmd_watch)

    history = sub.add_parser("history", help="print a table's past events (as your role may "
                             "see them)")
    _client_options(history, None)
    history.add_argument("--after", type=int, default=0, help="start after this seq")
    history.set_defaults(func=cmd_history)


def _add_store_commands(sub: Any) -> None:
    """``export`` and ``import``: a table out of and into a store."""
    export = sub.add_parser("export", help="write a table's whole journal as JSON Lines "
                            "(read from the journal file: everything, secret rolls included)")
    export.add_argument("--table", required=True, help="the table to export")
    export.add_argument("--db", metavar="PATH", help=f"default ./{DEFAULT.db}")
    export.add_argument("--store", metavar="redis://HOST:PORT/DB",
                        help="read the table from Redis instead of the journal file")
    export.add_argument("--whole", action="store_true",
                        help="also the table's state, seats, characters and request ids: "
                             "what `sidecar import` needs to move it to another store")
    export.add_argument("--output", "-o", metavar="FILE", help="default: standard output")
    _locale_option(export)
    export.set_defaults(func=cmd_export)

    imp = sub.add_parser("import", help="write a table exported with `export --whole` into "
                         "a journal file or Redis (the table must have no event there)")
    imp.add_argument("file", metavar="FILE", help="a file written by `export --whole`")
    imp.add_argument("--db", metavar="PATH",
                     help="the journal to write (no server running on it)")
    imp.add_argument("--store", metavar="redis://HOST:PORT/DB",
                     help="write into Redis instead (servers may be running on it)")
    imp.add_argument("--table", metavar="NAME", help="import under another name")
    _locale_option(imp)
    imp.set_defaults(func=cmd_import)


def _add_odds_command(sub: Any) -> None:
    """``odds``: exact odds computed locally."""
    odds = sub.add_parser("odds", help="exact odds of a roll, computed locally")
    _ruleset_and_params(odds)
    odds.add_argument("--plugins-dir", metavar="DIR",
                      help="also load every *.py of DIR as a plugin")
    _locale_option(odds)
    odds.add_argument("--option", action="append", default=[], metavar="EXT.KEY=VALUE",
                      help="an extension's per-roll setting, as for roll")
    odds.add_argument("--json", action="store_true", help="print JSON")
    group = odds.add_argument_group(
        "at a table", "asked of a running server instead (any of these): a table "
                      "character's odds against its sheet as it stands now")
    group.add_argument("--character", metavar="NAME",
                       help="as this character: its dice, reserve and bagages from its live "
                            "sheet (a player: a character of your seat)")
    _target_option(group)
    group.add_argument("--url", action="append", metavar="URL",
                       help=f"server WebSocket URL (default {DEFAULT_URL}, or $SIDECAR_URL)")
    group.add_argument("--table", help="table name (default demo)")
    group.add_argument("--token", help="GM or player token (or $SIDECAR_TOKEN)")
    group.add_argument("--name", default=None,
                       help="your display name (default $USER, else « MJ » for a GM, « joueur » "
                            "otherwise, whatever --locale: a name is an identity)")
    group.add_argument("--role", default="player", choices=ROLES,
                       help="default player (a GM's character, or any as a GM: --role gm)")
    group.add_argument("--text-frames", action="store_true", help=argparse.SUPPRESS)
    odds.set_defaults(func=cmd_odds, pairs="params")


def _add_new_plugin_command(sub: Any) -> None:
    """``new-plugin NAME``: a plugin project, ready to install and test."""
    new = sub.add_parser("new-plugin", help="write a new plugin project (a ruleset or an "
                         "extension), ready to pip install and test")
    new.add_argument("name", metavar="NAME", help="the plugin's name, e.g. pbta-moves")
    new.add_argument("--kind", choices=("ruleset", "extension"),
                     help="what it is (default: asked in a terminal, else ruleset)")
    new.add_argument("--directory", metavar="DIR",
                     help="where to write it (default: ./NAME; must not exist)")
    _locale_option(new)
    new.set_defaults(func=cmd_new_plugin)


def _add_dice_options(serve: argparse.ArgumentParser) -> None:
    """``serve``'s options for where faces come from (verifiable dice)."""
    group = serve.add_argument_group("dice")
    group.add_argument("--dice", choices=("secure", "provable"), default=ServerConfig.dice,
                       help="provable: derived from a committed seed per table, revealed "
                            "when its epoch ends, so anyone can check every face (the "
                            "default); secure: the OS's random numbers alone, no proof "
                            "(default: %(default)s)")
    group.add_argument("--keep-epochs", action="store_true",
                       help="with --dice provable: a clean stop does not end (reveal) the "
                            "tables' epochs")


def _add_verify_commands(sub: Any) -> None:
    """``verify`` (check an export or a saved log) and ``epoch end`` (GM)."""
    verify = sub.add_parser("verify", help="check verifiable dice: an export or a client's "
                            "saved log (JSON Lines), after its epochs' reveal")
    verify.add_argument("file", help="JSON Lines file ('-': standard input)")
    verify.add_argument("--no-rerun", action="store_true",
                        help="do not re-run the installed rulesets on the faces")
    verify.add_argument("--plugins-dir", metavar="DIR",
                        help="also load the plugins of DIR, as `serve --plugins-dir` did")
    verify.add_argument("--log", metavar="FILE", action="append",
                        help="a player's own saved log: every event of it must be in the "
                             "export as she received it (repeatable)")
    _locale_option(verify)
    verify.set_defaults(func=cmd_verify)
    epoch = sub.add_parser("epoch", help="GM: verifiable dice epochs")
    epoch_sub = epoch.add_subparsers(dest="op", required=True)
    end = epoch_sub.add_parser("end", help="end the current epoch: reveal its seed (every "
                               "roll of it becomes checkable) and commit to a new one")
    _client_options(end, "gm")
    end.set_defaults(func=cmd_epoch_end)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, options and ``key=value``s (or ``ask open``'s names) in any
    order, for every command that takes them (those whose parser sets ``pairs``)."""
    words = sys.argv[1:] if argv is None else argv
    # The language is known before argparse meets a -h (it prints the help at once).
    parser = build_parser(run_locale(words))
    args, extra = parser.parse_known_args(argv)
    if hasattr(args, "locale"):
        # `seat --locale en add`, `sidecar --locale en roll …`: the sub-command's own
        # default (fr) must not win over a --locale before it; the last one given does.
        before = getattr(args, "locale_before", None) or getattr(args, "locale_top", None)
        if locale_given(words):
            args.locale = run_locale(words)
        elif before is not None:  # (an abbreviation: --loc en)
            args.locale = before
    if extra:
        # argparse takes a command's trailing words only before the first option: those
        # after one (`roll bloodlust --locale en difficulty=9`) join the others, in order.
        # (parse_intermixed_args would, but it refuses parsers with subcommands.)
        pairs = getattr(args, "pairs", None)
        if not pairs or any(item.startswith("-") for item in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        getattr(args, pairs).extend(extra)
    return args
