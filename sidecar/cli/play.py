"""A player's commands: ``roll`` (and, in a terminal, the choice of an open roll),
``react``, ``answer`` (an asked roll), ``watch`` and ``history``. Each joins the table
through :func:`~sidecar.cli.connect.joined` and prints what comes back with
:mod:`sidecar.cli.render`.

Lazy import: :class:`~sidecar.client.SidecarError` where a decision is asked in the
terminal, as :mod:`sidecar.cli.connect` does (the client is loaded only by a command that
joins); it lies below the command line, so no import circle hides behind it."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

from sidecar.cli.common import EXIT_OK, EXIT_USAGE, run
from sidecar.cli.connect import again_command, joined
from sidecar.cli.errors import plain
from sidecar.cli.labels import Labels, count, quoted, say, word
from sidecar.cli.render import (
    format_ask_event,
    format_error,
    format_event,
    format_outcome,
    param_defaults,
)
from sidecar.cli.terminal import as_json, shown
from sidecar.cli.values import parse_dice, parse_pairs, pick_choice
from sidecar.host.options import parse_options
from sidecar.protocol import requests


async def _roll(args: argparse.Namespace) -> int:
    async with joined(args) as (client, welcome):
        schema = next((r["params"] for r in welcome["rulesets"] if r["name"] == args.ruleset),
                      {})
        try:
            params = parse_pairs(args.params, schema)
            # Typed from the extensions' descriptions: combat.opponent_pep=3 is a number.
            options = parse_options(args.option, {o["name"]: o
                                                  for o in welcome.get("options") or []})
            dice = parse_dice(args.dice)
        except ValueError as exc:
            print(f"sidecar: {plain(exc, args.locale)}", file=sys.stderr)
            return EXIT_USAGE
        # Watch from before the roll: a decision taken elsewhere (a GM, the time) is seen.
        outcomes = client.outcomes()
        outcome = await client.roll(args.ruleset, params, label=args.label, mode=args.mode,
                                    options=options, dice=dice, character=args.character,
                                    targets=args.target or None)
        labels, again = Labels(welcome, args.locale), again_command(args)
        print(as_json(outcome) if args.json
              else format_outcome(outcome, args.locale, labels=labels,
                                  again=deciding(client, outcome, again)),
              flush=True)
        if (outcome.get("open") and client.may_decide(outcome) and not args.no_ask
                and not args.json and sys.stdin.isatty()):
            await _decide_in_terminal(client, outcome, outcomes, manual=dice is not None,
                                      locale=args.locale, labels=labels, again=again)
        return EXIT_OK


def deciding(client: Any, outcome: dict[str, Any],
             again: Callable[..., str]) -> Callable[..., str] | None:
    """``again`` (how to run ``react``) for an open roll this reader may decide — its
    roller, a GM —, else ``None``: no « décider : … » line under someone else's roll."""
    return again if client.may_decide(outcome) else None


async def read_line(prompt: str) -> str:
    """One line typed in the terminal ("" at its end), read off the event loop by a daemon
    thread: a decision taken meanwhile elsewhere does not wait for the typist, and the
    command may end while the thread still waits for a line."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()

    def read() -> None:
        try:
            line = sys.stdin.readline()
        except (OSError, ValueError):
            line = ""
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
            loop.call_soon_threadsafe(lambda: future.done() or future.set_result(line))

    print(prompt, end="", flush=True)
    threading.Thread(target=read, daemon=True).start()
    return await future


async def _decide_in_terminal(client: Any, outcome: dict[str, Any],
                              outcomes: AsyncIterator[dict[str, Any]], *, manual: bool,
                              locale: str | None = None,
                              labels: Labels | None = None,
                              again: Callable[..., str] | None = None) -> None:
    """Ask in the terminal which choice to take and send the ``react``; the roll may be
    decided meanwhile (a GM, the default at ``expires``): then say so and stop."""
    from sidecar.client import SidecarError

    async def decided_elsewhere() -> dict[str, Any]:
        async for event in outcomes:
            if event.get("reacts_to") == outcome["seq"]:
                return event
        raise SidecarError("closed", "connection closed")

    watcher = asyncio.create_task(decided_elsewhere())
    try:
        while outcome.get("open") and client.choices_for(outcome):
            choices = client.choices_for(outcome)
            default = outcome.get("default")
            if default not in {c["name"] for c in choices}:
                default = None  # the default is a GM's choice: Enter leaves it to them
            hint = (say(locale, "Entrée", "Enter") + f" = {default}" if default
                    else say(locale, "Entrée = laisser ouvert", "Enter = leave it open"))
            reading = asyncio.ensure_future(read_line(
                say(locale, "Votre choix", "Your choice")
                + f" [1-{len(choices)}, {shown(hint)}]: "))
            await asyncio.wait({reading, watcher}, return_when=asyncio.FIRST_COMPLETED)
            if watcher.done():
                reading.cancel()
                print("\n" + say(locale, "Décidé ailleurs :", "Decided elsewhere:"))
                print(format_outcome(watcher.result(), locale, labels=labels,
                                     again=deciding(client, watcher.result(), again)),
                      flush=True)
                return
            answer = reading.result()
            if answer == "" or (not answer.strip() and default is None):
                # End of input, or Enter without a default: the roll waits for its time.
                run_ = again or (lambda *words: " ".join(("sidecar", *words)))
                print("\n" + say(locale, "Le jet reste ouvert : ", "The roll stays open: ")
                      + shown(run_("react", outcome["roll"], say(locale, "CHOIX", "CHOICE"))))
                return
            choice = pick_choice(answer, choices, default)
            if choice is None:
                print(shown(f"{quoted(locale, answer.strip())} ? 1-{len(choices)} "
                            f"({', '.join(c['name'] for c in choices)})"))
                continue
            faces = None
            if manual and choice.get("dice"):
                try:
                    faces = parse_dice(await read_line(
                        "Faces (" + count(locale, choice["dice"], "dé", "die", en_many="dice")
                        + "): "))
                except ValueError:
                    print("faces: " + say(locale, "3 ou 3,5", "3 or 3,5"))
                    continue
            try:
                decided = await client.react(outcome["roll"], choice["name"], faces)
            except SidecarError as exc:
                if exc.code not in ("bad_dice", "insufficient", "invalid_params"):
                    raise
                print(format_error(exc.code, exc.message, exc.details))
                continue  # the roll is still open: ask again
            print(format_outcome(decided, locale, labels=labels,
                                 again=deciding(client, decided, again)), flush=True)
            outcome = decided  # new choices: ask again
    finally:
        watcher.cancel()


async def _react(args: argparse.Namespace) -> int:
    try:
        dice = parse_dice(args.dice)
    except ValueError as exc:
        print(f"sidecar: {plain(exc, args.locale)}", file=sys.stderr)
        return EXIT_USAGE
    async with joined(args) as (client, welcome):
        decided = await _react_to(client, args, dice)
        labels = Labels(welcome, args.locale)
        if not args.json:
            await learn_open_roll(client, labels, decided)
        print(as_json(decided) if args.json
              else format_outcome(decided, args.locale, labels=labels,
                                  again=deciding(client, decided, again_command(args))))
        return EXIT_OK


async def learn_open_roll(client: Any, labels: Labels, event: dict[str, Any]) -> None:
    """Before a decision is shown: the open roll it decides, read from the history when
    this reader did not see it (a ``react`` of its own, a ``watch`` started after it),
    for the label of the choice taken (« Garder »); without it (refused, gone), the
    choice's name: the decision stands anyway."""
    from sidecar.client import SidecarError

    seq = event.get("reacts_to")
    if not isinstance(seq, int) or seq in labels.choices:
        return
    with contextlib.suppress(SidecarError):
        page = await client.request(requests.history_request(after=seq - 1, limit=1))
        for opened in page.get("events") or ():
            labels.learn(opened)


async def _react_to(client: Any, args: argparse.Namespace, dice: Any) -> dict[str, Any]:
    """Send the ``react``: its choice a name, or the number ``roll`` showed it under
    (« 2) Garder »), which the refusal's ``offered`` names (in the order shown)."""
    from sidecar.client import SidecarError

    try:
        return await client.react(args.roll, args.choice, dice)
    except SidecarError as exc:
        offered = (exc.details or {}).get("offered")
        if not (args.choice.isdigit() and isinstance(offered, list)
                and 1 <= int(args.choice) <= len(offered)):
            raise
    return await client.react(args.roll, offered[int(args.choice) - 1], dice)


def cmd_react(args: argparse.Namespace) -> int:
    return run(_react(args))


def cmd_roll(args: argparse.Namespace) -> int:
    return run(_roll(args))


async def _watch(args: argparse.Namespace) -> int:
    # A watcher outlives server restarts: it rejoins with resume and misses nothing.
    async with joined(args, reconnect=True) as (client, welcome):
        print(f"table {shown(welcome['table'])} (seq {welcome['seq']}) — Ctrl-C "
              + say(args.locale, "pour quitter", "to quit"), flush=True)
        count = 0
        defaults = param_defaults(welcome)
        labels, again = Labels(welcome, args.locale), again_command(args)
        async for event in client.events():
            if event["type"] == "presence":
                # Every CLI roll joins and leaves: two lines each, so shown on request only.
                if args.presence and not args.json:
                    # A seat open twice (phone and laptop) once, with ×2, as the page does.
                    seen = Counter(f"{m['name']} ({word(args.locale, m['role'])})"
                                   for m in event["members"])
                    names = shown(", ".join(name + (f" ×{times}" if times > 1 else "")
                                            for name, times in seen.items()))
                    print("   " + say(args.locale, "à la table : ", "at the table: ") + names,
                          flush=True)
                continue
            if not args.json:
                await learn_open_roll(client, labels, event)
            print(as_json(event) if args.json
                  else format_event(event, defaults, args.locale, labels,
                                    deciding(client, event, again)), flush=True)
            count += event["type"] == "outcome"
            if args.count and count >= args.count:
                break
        return EXIT_OK


async def _pick_ask(client: Any, locale: str | None = None, prompt: bool = True,
                    npc: str | None = None) -> str | None:
    """The ask to answer when none is named: the only one pending, or the one picked in
    a terminal (unless ``prompt`` is false: ``--no-ask``); ``None`` (and why, printed)
    otherwise. ``npc``: a GM answers for that NPC — the asks whose side it is, unanswered."""
    pending = [ask for ask in client.asks.values() if npc is None or any(
        isinstance(side, dict) and side.get("seat") is None and side.get("character") == npc
        for side in ask.get("to") or ()) and npc not in (ask.get("answered") or {})]
    if not pending:
        print("sidecar: " + say(locale, "aucune demande à laquelle répondre", "no ask to answer"),
              file=sys.stderr)
        return None
    if len(pending) == 1:
        return pending[0]["ask"]
    for number, ask in enumerate(pending, 1):
        print(f"{number}) " + format_ask_event(ask, param_defaults(client.welcome), locale,
                                               Labels(client.welcome, locale))
              .replace("\n", "\n   "))
    if not (prompt and sys.stdin.isatty()):
        print("sidecar: " + say(locale, "plusieurs demandes, laquelle ? sidecar answer ASK_ID",
                                "several asks: sidecar answer ASK_ID"), file=sys.stderr)
        return None
    while True:
        line = (await read_line(say(locale, "Quelle demande", "Which ask")
                                + f" [1-{len(pending)}]: ")).strip()
        if not line:
            return None
        if line.isdigit() and 1 <= int(line) <= len(pending):
            return pending[int(line) - 1]["ask"]
        if line in client.asks:
            return line
        print(f"{quoted(locale, line)} ? 1-{len(pending)}")


async def _answer(args: argparse.Namespace) -> int:
    try:
        dice = parse_dice(args.dice)
    except ValueError as exc:
        print(f"sidecar: {plain(exc, args.locale)}", file=sys.stderr)
        return EXIT_USAGE
    if args.role is None:
        # A seat answers its own side; a GM a GM's NPC's side, named by --character.
        args.role = "gm" if args.character else "player"
    async with joined(args) as (client, welcome):
        ask_id = args.ask or await _pick_ask(client, args.locale, not args.no_ask,
                                             args.character)
        if ask_id is None:
            return EXIT_USAGE
        outcomes = client.outcomes()  # a decision taken elsewhere is seen
        outcome = await client.answer(ask_id, dice, character=args.character)
        labels, again = Labels(welcome, args.locale), again_command(args)
        print(as_json(outcome) if args.json
              else format_outcome(outcome, args.locale, labels=labels,
                                  again=deciding(client, outcome, again)),
              flush=True)
        if (outcome.get("open") and client.may_decide(outcome) and not args.no_ask
                and not args.json and sys.stdin.isatty()):
            await _decide_in_terminal(client, outcome, outcomes, manual=dice is not None,
                                      locale=args.locale, labels=labels, again=again)
        return EXIT_OK


def cmd_answer(args: argparse.Namespace) -> int:
    return run(_answer(args))


def cmd_watch(args: argparse.Namespace) -> int:
    try:
        return run(_watch(args))
    except KeyboardInterrupt:
        return EXIT_OK


async def decided_rolls(client: Any, after: int) -> set[Any]:
    """The ``seq`` of every open roll decided after ``after``: the ``reacts_to`` of the
    journal's decisions, every history page read (a decision may be pages after its roll;
    a reader sees the decisions of every open roll it sees, contract §7)."""
    decided: set[Any] = set()
    while True:
        page = await client.request(requests.history_request(after=after, limit=500))
        decided |= {event.get("reacts_to") for event in page["events"]
                    if event.get("reacts_to") is not None}
        after = page["next"]
        if not page["more"]:
            return decided


async def _history(args: argparse.Namespace) -> int:
    async with joined(args) as (client, welcome):
        after = args.after
        defaults = param_defaults(welcome)
        labels, again = Labels(welcome, args.locale), again_command(args)
        # A roll decided since is open no more: no « décider » under it. Its decision comes
        # later in the journal, maybe pages later: the rolls decided are read first (the
        # welcome says nothing of open rolls), and those decided meanwhile as pages come.
        decided = set() if args.json else await decided_rolls(client, after)
        while True:
            page = await client.request(requests.history_request(after=after, limit=500))
            decided |= {event.get("reacts_to") for event in page["events"]}
            for event in page["events"]:
                if not args.json:
                    await learn_open_roll(client, labels, event)
                print(as_json(event) if args.json
                      else format_event(event, defaults, args.locale, labels,
                                        None if event.get("seq") in decided
                                        else deciding(client, event, again)))
            after = page["next"]
            if not page["more"]:
                return EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    return run(_history(args))
