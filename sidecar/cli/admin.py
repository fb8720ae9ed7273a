"""The GM's commands: seats (``seat``), characters (``sheet``), asked rolls (``ask``),
game sessions (``session``), verifiable dice epochs (``epoch end``), and moving a table's
journal out of and into a store (``export``, ``import``).

Lazy imports: :mod:`sidecar.stores.transfer` and :mod:`sidecar.stores.journal` (the
SQLite and Redis readers and writers) in ``export``/``import`` only, and the client's
``KEEP`` in ``sheet set``, so that ``sidecar --help`` and the commands that never touch a
store do not load them. All lie below the command line: no import circle hides behind
them."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from sidecar.cli.common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, run, store_refused, usage
from sidecar.cli.connect import joined
from sidecar.cli.errors import plain
from sidecar.cli.labels import Labels, say
from sidecar.cli.labels import count as counted
from sidecar.cli.render import (
    format_ask_event,
    format_seat_link,
    format_seats,
    format_session_event,
    format_sheet_event,
    format_sheets,
    param_defaults,
    print_qr,
)
from sidecar.cli.terminal import as_json, shown
from sidecar.cli.values import parse_delta, parse_pairs, parse_sheet_values, split_targets
from sidecar.protocol import requests
from sidecar.stores.base import StoreUnavailable


async def _seat(args: argparse.Namespace) -> int:
    async with joined(args) as (client, _):
        if args.seat_command == "list":
            seats = await client.seats()
            print(as_json(seats) if args.json else format_seats(seats, args.locale))
            return EXIT_OK
        call = {"add": client.add_seat, "remove": client.remove_seat,
                "rotate": client.rotate_seat}[args.seat_command]
        reply = await call(args.seat)
        if args.json:
            print(as_json(reply))
        elif args.seat_command == "remove":
            print(say(args.locale, f"Place « {shown(reply['name'])} » supprimée",
                      f"Seat “{shown(reply['name'])}” removed") + f" (#{reply.get('seq')})")
        else:
            print(format_seat_link(reply, args.locale), flush=True)
            if not args.no_qr:
                print_qr(reply["link"])
        return EXIT_OK


def cmd_seat(args: argparse.Namespace) -> int:
    return run(_seat(args))


async def _sheet(args: argparse.Namespace) -> int:
    listing = args.sheet_command == "list"
    # ``list`` is for anyone: without --role, the GM's view, else the token's player's.
    async with joined(args, role=args.role or "gm",
                      or_player=listing and args.role is None) as (client, welcome):
        command = args.sheet_command
        if command == "list":
            characters = await client.sheets()
            print(as_json(characters) if args.json
                  else format_sheets(characters, Labels(welcome, args.locale)))
            return EXIT_OK
        reason = args.reason
        if command == "set":
            known = client.characters.get(args.character) or {}
            ruleset = args.ruleset or known.get("ruleset")
            if not ruleset:
                return usage("--ruleset" + say(args.locale, f" : « {args.character} » est un "
                                                            "nouveau personnage",
                                               f": “{args.character}” is a new character"))
            sheet = next((r.get("sheet") for r in welcome.get("rulesets", [])
                          if r.get("name") == ruleset), None)
            try:
                values = parse_sheet_values(args.values, sheet, known.get("values"))
            except ValueError as exc:
                return usage(plain(exc, args.locale))
            from sidecar.client import KEEP

            # Neither --owner nor --no-owner: the owner stays as it is.
            owner = None if args.no_owner else (args.owner or KEEP)
            reply = await client.set_sheet(args.character, ruleset, values, owner=owner,
                                           reason=reason)
        elif command == "adjust":
            try:
                delta = parse_delta(args.delta)
            except ValueError as exc:
                return usage(plain(exc, args.locale))
            if not delta:
                return usage("sheet adjust: field=+N… ?")
            reply = await client.adjust_sheet(args.character, delta, reason=reason)
        elif command == "refill":
            reply = await client.refill(args.what, args.character, reason=reason)
        else:
            reply = await client.remove_sheet(args.character, reason=reason)
        if args.json:
            print(as_json(reply))
        elif reply.get("type") == "sheets":  # a refill of every character: all of them after
            print(format_sheets(reply.get("characters") or [], Labels(welcome, args.locale)))
        else:
            print(format_sheet_event(reply, args.locale, Labels(welcome, args.locale)))
        return EXIT_OK


def cmd_sheet(args: argparse.Namespace) -> int:
    return run(_sheet(args))


async def _ask_command(args: argparse.Namespace) -> int:
    # ``list`` is for anyone, as ``sheet list``: without --role, a seat's token (refused
    # as the GM's) joins as that player and lists its own asks.
    listing = args.ask_command == "list"
    async with joined(args, role=args.role or "gm",
                      or_player=listing and args.role is None) as (client, welcome):
        command = args.ask_command
        if command == "list":
            asks = await client.asks()
            if args.json:
                print(as_json(asks))
            elif not asks:
                print(say(args.locale, "aucune demande ouverte", "no open ask"))
            for ask in [] if args.json else asks:
                print(format_ask_event(ask, param_defaults(welcome), args.locale,
                                       Labels(welcome, args.locale)))
            return EXIT_OK
        if command == "cancel":
            reply = await client.cancel_ask(args.ask)
        else:
            names, pairs = split_targets(args.targets)
            if not names:
                return usage("ask open: SEAT_OR_CHARACTER… ?")
            schema = next((r["params"] for r in welcome["rulesets"]
                           if r["name"] == args.ruleset), {})
            try:
                params = parse_pairs(pairs, schema)
                each = {}
                for side in args.each:
                    if side[0] not in names:
                        return usage(f"--each {side[0]}" + say(
                            args.locale, f" : pas parmi {', '.join(names)}",
                            f": not among {', '.join(names)}"))
                    each[side[0]] = parse_pairs(side[1:], schema)
            except ValueError as exc:
                return usage(plain(exc, args.locale))
            reply = await client.ask(names, args.ruleset, params, label=args.label,
                                     mode=args.mode, opposed=args.opposed, each=each or None,
                                     cooperative=args.cooperative,
                                     targets=args.target or None)
        print(as_json(reply) if args.json
              else format_ask_event(reply, param_defaults(welcome), args.locale,
                                     Labels(welcome, args.locale)))
        return EXIT_OK


def cmd_ask(args: argparse.Namespace) -> int:
    return run(_ask_command(args))


async def _session(args: argparse.Namespace) -> int:
    async with joined(args) as (client, _):
        reply = await client.start_session()
        print(as_json(reply) if args.json
              else format_session_event(reply, args.locale))
        return EXIT_OK


def cmd_session(args: argparse.Namespace) -> int:
    return run(_session(args))


def cmd_export(args: argparse.Namespace) -> int:
    # Read-only: works beside a server running on the same journal (it never takes the
    # writer's lock) or on the same Redis. Unreadable rows come out as events marked
    # "unreadable".
    if store_refused(args):
        return EXIT_USAGE
    return _run_transfer(_export_table(args), args.locale)


def _run_transfer(work: Any, locale: str) -> int:
    from sidecar.stores.journal import JournalError
    from sidecar.stores.transfer import TransferError

    try:
        return asyncio.run(work)
    except (TransferError, JournalError, ValueError) as exc:
        print(f"sidecar: {plain(exc, locale)}", file=sys.stderr)
    except StoreUnavailable as exc:
        text = str(exc)
        if "Redis injoignable /" in text:  # (a read's failure: say what to do)
            text = say(locale, "Redis injoignable — démarrez-le ou corrigez --store",
                       "Redis unreachable — start it or fix --store")
        print(f"sidecar: {text}", file=sys.stderr)
    except OSError as exc:
        print(f"sidecar: {plain(exc, locale)}", file=sys.stderr)
    return EXIT_ERROR


async def _export_table(args: argparse.Namespace) -> int:
    """``export``: a table's events, from the journal or Redis; ``--whole`` adds what
    ``import`` needs (a header with state and records, and request ids)."""
    from sidecar.stores.transfer import read_redis, read_sqlite

    if args.store:
        head, events = await read_redis(args.store, args.table)
    else:
        head, events = read_sqlite(args.db, args.table)
    from sidecar.stores.journal import JournalError

    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    count = 0
    try:
        # The same JSON either way; its control characters as \uXXXX escapes, so that an
        # export read on a terminal (to stdout, or `cat` of the file) obeys none of them.
        if args.whole:
            out.write(as_json(head) + "\n")
        for event in events:
            if not args.whole:
                event.pop("request_id", None)  # (what `import` needs; a plain export not)
            out.write(as_json(event) + "\n")
            count += 1
    except JournalError as exc:  # a damaged file: say how far it got
        if args.store:
            raise
        raise JournalError(f"{exc} (after {count} events; `sqlite3 {args.db} .recover` may "
                           "save more)") from None
    finally:
        if args.output:
            out.close()
    if args.output:
        print(say(args.locale, f"{count} événements écrits dans {args.output}",
                  f"{count} events written to {args.output}"), file=sys.stderr)
    return EXIT_OK


async def _import_table(args: argparse.Namespace) -> int:
    from sidecar.stores.transfer import parse, write_redis, write_sqlite

    with open(args.file, encoding="utf-8") as lines:
        head, events = parse(lines)
    if args.store:
        count = await write_redis(args.store, head, events, args.table)
        where = args.store
    else:
        count = await write_sqlite(args.db, head, events, args.table)
        where = args.db
    name = args.table or head["table"]
    print(say(args.locale, f"table « {name} » : {count} événements importés dans {where}",
              f"table '{name}': {count} events imported into {where}"), file=sys.stderr)
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    if store_refused(args):
        return EXIT_USAGE
    return _run_transfer(_import_table(args), args.locale)


async def _epoch_end(args: argparse.Namespace) -> int:
    async with joined(args) as (client, _):
        reply = await client.request(requests.epoch_request())
        if args.json:
            print(as_json(reply))
        else:
            reply = shown(reply)
            number, events = reply["epoch"]["number"], reply["events"]
            print(say(args.locale, f"époque {number} close après "
                                   f"{counted('fr', events, 'événement', '')}",
                      f"epoch {number} ended after {counted('en', events, '', 'event')}"))
            print(say(args.locale, "graine", "seed") + f" {reply.get('seed', '?')}")
            print(say(args.locale, "prochain engagement", "next commitment")
                  + f" {reply['next']['commitment']}")
        return EXIT_OK


def cmd_epoch_end(args: argparse.Namespace) -> int:
    return run(_epoch_end(args))
