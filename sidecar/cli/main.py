"""The ``sidecar`` command: ``serve``, ``plugins``, ``roll``, ``react``, ``watch``,
``history``, ``export``, ``odds``, the GM's ``seat`` and ``sheet`` (seats and
characters), asked rolls (the GM's ``ask``, a seat's ``answer``), ``session`` and
``new-plugin`` (a plugin project, from :mod:`sidecar.tools.scaffold`)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import os
import re
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import sidecar
from sidecar.cli.terminal import as_json, for_terminal, shown
from sidecar.config import ServerConfig
from sidecar.host.options import describe as describe_options
from sidecar.host.options import parse_options
from sidecar.host.typed import coerce_value
from sidecar.protocol.messages import LOCALES, MODES, ROLES

#: ``ServerConfig``'s defaults: the one source of every default ``sidecar serve`` shows
#: (tokens are random per run, so none is taken from here).
DEFAULT = ServerConfig(gm_token="", player_token="")
DEFAULT_URL = f"ws://{DEFAULT.host}:{DEFAULT.port}/ws"

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_CONNECT = 0, 1, 2, 3


# -- parameters given as key=value ---------------------------------------------------------

def parse_pairs(pairs: list[str], schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """``["pool=5", "willpower=oui"]`` → ``{"pool": 5, "willpower": True}``."""
    params: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            required = [k for k, spec in (schema or {}).items()
                        if isinstance(spec, dict) and spec.get("required")]
            hint = (f" (« {required[0]}={pair} » ?)" if len(required) == 1 else "")
            raise ValueError(f"attendu clé=valeur / expected key=value, reçu / got "
                             f"'{pair}'{hint}")
        key, value = pair.split("=", 1)
        params[key.strip()] = coerce_value(value, (schema or {}).get(key.strip()))
    return params


def _map_values_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The description of a ``map`` field's values (``values: "int"`` or a description)."""
    values = spec.get("values", "int")
    return values if isinstance(values, dict) else {"type": values}


def parse_sheet_values(pairs: list[str], sheet: dict[str, Any] | None,
                       current: dict[str, Any] | None = None) -> dict[str, Any]:
    """``sheet set`` values: ``["pep=3", "skills.Escalade=5", 'skills={"Nager": 2}']`` →
    ``{"pep": 3, "skills": {…}}``, typed by the sheet description (``welcome.rulesets[].
    sheet``). ``field.key=value`` sets one entry of a ``map`` field and keeps the others
    the character already has (``current``: its values)."""
    sheet = sheet or {}
    current = current or {}
    values: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"expected field=value, got '{pair}'")
        key, text = (part.strip() for part in pair.split("=", 1))
        field, dot, entry = key.partition(".")
        spec = sheet.get(field) or {}
        if dot and spec.get("type") == "map" and entry:
            if not isinstance(values.get(field), dict):
                known = current.get(field)
                values[field] = dict(known) if isinstance(known, dict) else {}
            values[field][entry] = coerce_value(text, _map_values_spec(spec))
        else:
            values[key] = coerce_value(text, sheet.get(key))
    return values


def parse_delta(pairs: list[str]) -> dict[str, int]:
    """``sheet adjust`` changes: ``["bonbonus=+2", "wounds=-1"]`` →
    ``{"bonbonus": 2, "wounds": -1}``."""
    delta: dict[str, int] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        try:
            if not sep or not key.strip():
                raise ValueError
            delta[key.strip()] = int(text.strip())
        except ValueError:
            raise ValueError(f"expected field=+N or field=-N, got '{pair}'") from None
    return delta


# -- printing ------------------------------------------------------------------------------

KIND_MARKS = {"botch": "✗✗", "failure": "✗", "narrow": "≈", "success": "✓", "critical": "✓✓"}


def format_die(die: dict[str, Any]) -> str:
    face = str(die["face"])
    if die.get("cancelled"):
        face = f"~{face}~"
    if die.get("raised_to"):
        face = f"{face}→{die['raised_to']}"
    return face


def format_value(value: Any) -> str:
    """A sheet value, short: lists joined by commas, maps as ``{name: value, …}``."""
    if value is None:  # before a character's creation
        return "—"
    if isinstance(value, bool):
        return "oui/yes" if value else "non/no"
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {v}" for k, v in value.items()) + "}"
    return str(value)


def format_values(values: dict[str, Any]) -> str:
    return " ".join(f"{field}={format_value(value)}" for field, value in values.items())


def format_spent(spent: dict[str, int], sheet: dict[str, Any]) -> str:
    """``{"bonbonus": 1}`` and the values after → ``bonbonus −1 → 2`` (a negative spend gives)."""
    parts = []
    for field, amount in spent.items():
        change = f"−{amount}" if amount >= 0 else f"+{-amount}"
        after = f" → {format_value(sheet[field])}" if field in sheet else ""
        parts.append(f"{field} {change}{after}")
    return ", ".join(parts)


def format_label(label: Any) -> str:
    """A ``{fr, en}`` label as ``fr / en`` (one of them when they read the same)."""
    if isinstance(label, dict):
        texts = [str(label[key]) for key in ("fr", "en") if label.get(key)]
        return " / ".join(dict.fromkeys(texts))
    return str(label or "")


def format_choices(message: dict[str, Any]) -> list[str]:
    """An open roll's choices, numbered as ``sidecar roll`` asks for them, its default and
    how to decide (a blind roll's roller is not told that it is open)."""
    choices = message.get("choices")
    if not choices:
        return []
    lines = ["   choix / choices:"]
    for number, choice in enumerate(choices, 1):
        extra = f", {choice['dice']} dé(s) / dice" if choice.get("dice") else ""
        default = " [défaut / default]" if choice["name"] == message.get("default") else ""
        lines.append(f"     {number}) {choice['name']} — {format_label(choice.get('label'))}"
                     f"{extra}{default}")
    if message.get("default") is None:
        lines.append("     (sans décision le jet reste tel quel / without a decision the roll "
                     "stands as it is)")
    lines.append(f"   décider / decide: sidecar react {message.get('roll')} CHOIX/CHOICE")
    return lines


def format_decision(message: dict[str, Any]) -> str:
    """What a decision answers: the open outcome's seq, the choice, who took it."""
    who = message.get("reacted_by")
    by = (f"par / by {who.get('name')} ({who.get('role')})" if isinstance(who, dict)
          else "temps écoulé / time ran out" if "reacted_by" in message else "")
    choice = message.get("choice")
    taken = (f"choix / choice: {choice}" if choice
             else "aucun choix / no choice" if "choice" in message else "")
    return "   " + " — ".join(part for part in (f"réagit à / reacts to #{message['reacts_to']}",
                                                taken, by) if part)


@for_terminal
def format_outcome(message: dict[str, Any]) -> str:
    """A readable block for one outcome (an open roll's choices, a decision's answer)."""
    result = message.get("result", {})
    if result.get("hidden"):
        # Neither open nor decided, for its roller: that would tell how the dice went.
        lines = [f"#{message['seq']} {message['text']}"]
        lines += format_answer(message)
        return "\n".join(lines)
    mark = KIND_MARKS.get(result.get("kind", ""), "")
    lines = [f"#{message['seq']} {mark} {message.get('text', '')}"]
    if message.get("dice"):
        lines.append("   dés/dice: " + " ".join(format_die(d) for d in message["dice"]))
    for note in message.get("notes", []):
        lines.append(f"   note: {note}")
    if message.get("mode", "public") != "public":
        lines.append(f"   mode: {message['mode']}")
    if message.get("character"):
        spent = message.get("spent") or {}
        sheet = message.get("sheet") or {}
        lines.append(f"   personnage / character: {message['character']} — dépensé / spent: "
                     + (format_spent(spent, sheet) if spent else "rien / nothing"))
        if sheet:
            lines.append(f"   fiche / sheet: {format_values(sheet)}")
    if "reacts_to" in message:
        lines.append(format_decision(message))
    if message.get("open"):
        lines += format_choices(message)
    lines += format_answer(message)
    return "\n".join(lines)


def format_answer(message: dict[str, Any]) -> list[str]:
    """What an answer to an ask adds: the ask it answers, an opposition's result."""
    lines = []
    if message.get("answers"):
        lines.append(f"   répond à la demande / answers ask {message['answers']}")
    if isinstance(message.get("opposition"), dict):
        lines.append(format_opposition(message["opposition"]))
    return lines


@for_terminal
def format_sheet_event(event: dict[str, Any]) -> str:
    """One journaled sheet event: what changed, before → after, and why."""
    who = (event.get("by") or {}).get("name")
    head = f"#{event.get('seq', '?')} fiche / sheet {event.get('op', '?')}"
    if event.get("what"):  # a refill: "turn" or "rest"
        head += f" {event['what']}"
    if event.get("character"):
        head += f" {event['character']}"
    if event.get("ruleset"):
        owner = event.get("owner")
        head += f" ({event['ruleset']}, place / seat: {owner if owner else '—'})"
    if event.get("removed"):
        head += " — supprimé / removed"
    if event.get("reason"):
        head += f" — « {event['reason']} »"
    if who:
        head += f" — par / by {who}"
    lines = [head]
    changed = event.get("changed") or {}
    if changed:
        lines.append("   " + ", ".join(f"{field} {format_value(pair[0])} → {format_value(pair[1])}"
                                       for field, pair in changed.items()
                                       if isinstance(pair, list | tuple) and len(pair) == 2))
    if event.get("values") and not event.get("removed"):
        lines.append(f"   fiche / sheet: {format_values(event['values'])}")
    return "\n".join(lines)


@for_terminal
def format_seat_event(event: dict[str, Any]) -> str:
    """A seat event as the GMs see it in the journal (never with its token)."""
    who = (event.get("by") or {}).get("name")
    line = f"#{event.get('seq', '?')} place / seat {event.get('op', '?')} {event.get('name', '')}"
    return line + (f" — par / by {who}" if who else "")


def format_params(params: dict[str, Any] | None) -> str:
    """``key=value`` pairs as typed on the command line."""
    return ", ".join(f"{key}={format_value(value)}" for key, value in (params or {}).items())


def format_asked(side: dict[str, Any], common: dict[str, Any] | None = None) -> str:
    """One asked side: its seat, its character, the params it has of its own (an opposed
    roll's: those that differ from the ask's ``common`` params)."""
    text = str(side.get("seat"))
    if side.get("character"):
        text += f" ({side['character']})"
    own = {key: value for key, value in (side.get("params") or {}).items()
           if (common or {}).get(key) != value}
    if own:
        text += f" [{format_params(own)}]"
    return text


@for_terminal
def format_ask_event(event: dict[str, Any]) -> str:
    """An ask as the table sees it: who is asked, for what roll; or its cancellation."""
    who = (event.get("by") or {}).get("name")
    by = f" — par / by {who}" if who else ""
    seq = f"#{event['seq']} " if "seq" in event else ""
    if event.get("op") == "cancel":
        return f"{seq}demande / ask {event.get('ask')} annulée / cancelled{by}"
    kind = "opposition / opposed roll" if event.get("opposed") else "demande / ask"
    head = f"{seq}{kind} {event.get('ask')}: {event.get('ruleset')}"
    if event.get("label"):
        head += f" « {event['label']} »"
    sides = [format_asked(side, event.get("params")) for side in event.get("to") or ()]
    lines = [head + by, "   à / to: " + ", ".join(sides)]
    if event.get("params"):
        lines.append(f"   params: {format_params(event['params'])}")
    if event.get("mode", "public") != "public":
        lines.append(f"   mode: {event['mode']}")
    answered = event.get("answered")
    if answered:
        lines.append("   ont répondu / answered: " + ", ".join(
            f"{seat} (#{side.get('seq')}{', ouvert / open' if side.get('open') else ''})"
            for seat, side in answered.items()))
    return "\n".join(lines)


def format_opposition(opposition: dict[str, Any]) -> str:
    """An opposed roll's result: each side's success and margin, the winner."""
    sides = []
    for side in opposition.get("sides") or ():
        name = side.get("seat")
        if side.get("character"):
            name += f" ({side['character']})"
        mark = "réussite / success" if side.get("success") else "échec / failure"
        margin = side.get("margin")
        sides.append(f"{name} {mark}" + (f", marge / margin {margin}"
                                         if margin is not None else ""))
    if opposition.get("draw"):
        verdict = "égalité / draw"
    elif opposition.get("winner") is None:
        verdict = "personne ne réussit / nobody succeeds"
    else:
        verdict = f"vainqueur / winner: {opposition['winner']}"
    return f"   opposition {opposition.get('ask')}: {'; '.join(sides)} — {verdict}"


@for_terminal
def format_session_event(event: dict[str, Any]) -> str:
    """A new game session (or, ``op: "turn"``, the table's next turn)."""
    who = (event.get("by") or {}).get("name")
    if event.get("op") == "turn":
        return (f"#{event.get('seq', '?')} tour / turn {event.get('turn')}"
                + (f" — par / by {who}" if who else ""))
    return (f"#{event.get('seq', '?')} nouvelle session / new session {event.get('number')}"
            + (f" — par / by {who}" if who else ""))


@for_terminal
def format_event(event: dict[str, Any]) -> str:
    """Any journaled event (``watch``, ``history``)."""
    kind = event.get("type")
    if kind == "ask":
        return format_ask_event(event)
    if kind == "session":
        return format_session_event(event)
    if kind == "sheet":
        return format_sheet_event(event)
    if kind == "seat":
        return format_seat_event(event)
    return format_outcome(event)


def format_error(code: str, message: str, details: dict[str, Any] | None = None) -> str:
    """One line for a server error (its message says what is wrong, in ``--locale``):
    its lines joined, the rest shown, not obeyed."""
    return shown(f"sidecar: {code}: {' '.join(message.split())}")


def format_odds(odds: dict[str, Any], width: int = 30) -> str:
    """Each kind's probability as a percentage with a text bar."""
    names = {"botch": "échec critique / botch", "failure": "échec / failure",
             "narrow": "de justesse / narrow", "success": "réussite / success",
             "critical": "critique / critical"}
    lines = [f"P(réussite / success) = {odds['p_success'] * 100:.2f} %"]
    for kind, p in odds["kinds"].items():
        if p == 0 and kind != "success":
            continue  # (a kind this roll cannot give)
        bar = "█" * round(p * width)
        lines.append(f"  {names.get(kind, kind):<24} {p * 100:6.2f} % {bar}")
    lines += format_distribution(odds.get("distribution"), width)
    return "\n".join(lines)


def format_distribution(distribution: Any, width: int = 30, most: int = 40) -> list[str]:
    """The distribution of a roll's values (``distribution.of``: e.g. its total), one line
    a value; a long one as its range, mean and most likely values."""
    if not isinstance(distribution, dict) or not distribution.get("values"):
        return []
    values = [(v, p) for v, p in distribution["values"] if isinstance(p, (int, float))]
    of = distribution.get("of", "value")
    lines = [f"  distribution ({of}) :"]
    peak = max(p for _, p in values) or 1
    shown = values
    if len(values) > most:
        mean = sum(v * p for v, p in values if isinstance(v, (int, float)))
        lines.append(f"    {values[0][0]} … {values[-1][0]}, moyenne / mean {mean:.2f}")
        shown = sorted(sorted(values, key=lambda vp: -vp[1])[:10])
    for value, p in shown:
        lines.append(f"    {value!s:>6}  {p * 100:6.2f} % {'█' * round(p / peak * width)}")
    return lines


# -- commands ------------------------------------------------------------------------------

def lan_addresses() -> list[str]:
    """This machine's non-loopback IPv4 addresses, as other devices on the LAN reach it."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return []
    return sorted({info[4][0] for info in infos if not info[4][0].startswith("127.")})


def sidecar_command() -> str:
    """How to run ``sidecar`` as this one runs, for the lines ``serve`` prints to paste:
    ``sidecar`` when that is on PATH and the same script, else the script beside this
    interpreter (``.venv/bin/sidecar``: the venv was not activated), else ``python -m
    sidecar``; relative to the working directory when inside it."""
    import shlex
    import shutil
    from pathlib import Path

    def shown(path: Path) -> str:
        with contextlib.suppress(ValueError):
            path = path.relative_to(Path.cwd())
        return shlex.quote(str(path))

    bin_dir = Path(sys.executable).parent
    script = next((bin_dir / name for name in ("sidecar", "sidecar.exe")
                   if (bin_dir / name).is_file()), None)
    found = shutil.which("sidecar")
    if script is None:
        return f"{shown(Path(sys.executable))} -m sidecar"
    if found and Path(found).resolve() == script.resolve():
        return "sidecar"
    return shown(script)


def _join_details(server: Any, config: ServerConfig, table: str) -> str:
    from sidecar.table.joinlink import join_link

    url = server.url
    page = url.replace("wss://", "https://", 1).replace("ws://", "http://", 1).rsplit("/ws", 1)[0]
    run = sidecar_command()
    lines = [
        f"vtt-sidecar {sidecar.__version__} — WebSocket {url} — page {page}/",
        "",
        "Rejoindre la table / join the table:",
        f"  MJ / GM     : {run} roll bloodlust pool=5 --url {url} --table {table} "
        f"--role gm --token {config.gm_token}",
        f"  Joueur      : {run} roll bloodlust pool=5 --url {url} --table {table} "
        f"--token {config.player_token}",
        f"  Regarder    : {run} watch --url {url} --table {table} "
        f"--token {config.player_token}",
        f"  Navigateur  : {join_link(page, table, config.player_token)}",
        f"  Navigateur MJ: {join_link(page, table, config.gm_token, role='gm')}",
        f"  Place / seat : {run} seat add NOM --url {url} --table {table} "
        f"--token {config.gm_token}",
        "    (un jeton et un lien par joueur : seuls ses jets secrets restent à lui / "
        "one token and link per player: only seats keep secret rolls private)",
    ]
    if config.host in ("0.0.0.0", "", "::"):
        port = server.port
        addresses = lan_addresses()
        routed = getattr(getattr(server, "core", None), "public_url", "")
        if not addresses and routed and "//127." not in routed:
            # The host name resolves to no LAN address: the one the system routes through.
            addresses = [routed.split("//", 1)[1].rsplit(":", 1)[0]]
        scheme = "https" if url.startswith("wss://") else "http"
        for address in addresses or ["<adresse-IP-de-ce-PC / this-PC's-IP>"]:
            lines.append("  Réseau local / LAN: "
                         + join_link(f"{scheme}://{address}:{port}", table,
                                     config.player_token))
    else:
        lines.append("  (--host 0.0.0.0 ouvre la table aux téléphones du réseau local / "
                     "opens the table to phones on the LAN)")
    return "\n".join(lines)


def _print_join_qr(page_url: str, config: ServerConfig, table: str) -> None:
    """On a server open to the LAN, the players' join link once more, as a QR code that
    phones scan (the GM's page shows the same one)."""
    from sidecar.table.joinlink import join_link, open_to_lan

    if not open_to_lan(config) or not config.player_token:
        return
    link = join_link(page_url, table, config.player_token)
    print(f"\nTéléphones : scannez / phones: scan — {link}", flush=True)
    print_qr(link)
    sys.stdout.flush()


def plugin_load_failure(exc: Exception) -> str:
    """A plugin load error as one line (a plugin's own message may hold newlines),
    French then English like the rest of the command line."""
    line = ("sidecar: impossible de charger les plugins / cannot load plugins: "
            + " ".join(str(exc).split()))
    plugin = getattr(exc, "plugin", None)
    if plugin:
        # One broken plugin need not stop the table: say how to leave it out.
        line += (f" — pour servir sans lui / to serve without it: --disable {plugin}")
    return line


async def _serve(config: ServerConfig, table: str) -> int:
    from sidecar.host.plugins import PluginLoadError
    from sidecar.server.connections import SidecarServer
    from sidecar.stores.base import StoreUnavailable
    from sidecar.stores.journal import JournalError

    try:
        server = SidecarServer(config)
    except PluginLoadError as exc:
        print(plugin_load_failure(exc), file=sys.stderr)
        return EXIT_ERROR
    except (JournalError, ValueError) as exc:
        print(f"sidecar: {exc}", file=sys.stderr)
        return EXIT_ERROR
    try:
        server.ssl_context()  # a missing or mismatched certificate, said as such
    except OSError as exc:
        print(f"sidecar: cannot use the TLS certificate: {exc}", file=sys.stderr)
        await server.stop()
        return EXIT_ERROR
    try:
        await server.start()
        # Everything loaded so far lives as long as the server: keep it out of the
        # cyclic collector's way, so collections during play stay short (tail latency).
        gc.freeze()
    except StoreUnavailable as exc:  # (its text names the store, password hidden)
        print(f"sidecar: {exc}", file=sys.stderr)
        await server.stop()
        return EXIT_ERROR
    except OSError as exc:
        print(f"sidecar: cannot listen on {config.host}:{config.port}: {exc.strerror or exc}",
              file=sys.stderr)
        await server.stop()
        return EXIT_ERROR
    # Handlers first: whoever reads the banner may signal us right away.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_signal(signum: int, frame: Any) -> None:
        # A plain handler, not loop.add_signal_handler: it runs even while something
        # holds the event loop, and arms a watchdog that ends the process whatever blocks.
        if stop.is_set():  # a second Ctrl-C: the operator means it
            _hard_exit(EXIT_ERROR, "second signal")
        loop.call_soon_threadsafe(stop.set)
        _arm_watchdog(STOP_DEADLINE)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    plugins = ", ".join(f"{p.name} {p.version}".strip() for p in server.host.plugins.values())
    print(f"plugins: {plugins or 'none'}")
    if config.store:
        print(server.store.described)
    else:
        print(f"journal: {config.db}" + (" (tables forgotten at stop)"
                                         if config.db == ":memory:" else ""))
    print(f"event loop: {type(loop).__module__.split('.')[0]}")
    print(_join_details(server, config, table), flush=True)
    _print_join_qr(server.core.public_url, config, table)
    await stop.wait()
    print("sidecar: stopping (connections closed with 1001)", flush=True)
    await server.stop()
    if any(not task.done() for task in server.host.abandoned):
        # An async hook that ignores its cancellation never ends, and asyncio would wait
        # for it at exit. Everything acknowledged is journaled already: leave now.
        _hard_exit(EXIT_OK, "abandoning plugin tasks that ignore their cancellation")
    return EXIT_OK


#: Seconds from SIGTERM/SIGINT to the end of the process, whatever clients or plugins do.
STOP_DEADLINE = 4.5


def _hard_exit(code: int, why: str) -> None:
    """End the process now: stuck plugin threads or a held event loop are not waited for."""
    with contextlib.suppress(Exception):
        print(f"sidecar: exiting now ({why})", file=sys.stderr, flush=True)
        sys.stdout.flush()
        logging.shutdown()
    os._exit(code)


def _arm_watchdog(seconds: float) -> None:
    import threading

    timer = threading.Timer(seconds, _hard_exit, (EXIT_ERROR, f"not stopped within {seconds} s"))
    timer.daemon = True
    timer.start()


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


def _add_dice_options(serve: argparse.ArgumentParser) -> None:
    """``serve``'s options for where faces come from (verifiable dice)."""
    group = serve.add_argument_group("dice")
    group.add_argument("--dice", choices=("secure", "provable"), default=ServerConfig.dice,
                       help="secure: the OS's random numbers; provable: derived from a "
                            "committed seed per table, revealed when its epoch ends, so "
                            "anyone can check every face (default: %(default)s)")
    group.add_argument("--keep-epochs", action="store_true",
                       help="with --dice provable: a clean stop does not end (reveal) the "
                            "tables' epochs")


def _dice_options(config: ServerConfig, args: argparse.Namespace) -> None:
    config.dice = args.dice
    config.reveal_on_stop = not args.keep_epochs


def cmd_serve(args: argparse.Namespace) -> int:
    config = ServerConfig(
        host=args.host, port=args.port, db=args.db or DEFAULT.db,
        plugins_dir=args.plugins_dir,
        allow_player_dice=args.allow_player_dice, origins=tuple(args.origin or ()),
        public_url=args.public_url or "", react_timeout=args.react_timeout,
        rate_limit=args.rate_limit, disabled_plugins=tuple(args.disable or ()),
        hello_timeout=args.hello_timeout, plugin_timeout=args.plugin_timeout,
        trusted_plugins=tuple(args.trust or ()), max_observers=args.max_observers,
        max_connections_per_address=args.max_connections_per_address,
        max_failed_hellos=args.max_failed_hellos,
        ssl_certfile=args.ssl_certfile, ssl_keyfile=args.ssl_keyfile, store=args.store)
    if store_refused(args):
        return EXIT_USAGE
    config.store = args.store
    if bool(args.ssl_certfile) != bool(args.ssl_keyfile):
        print("sidecar: le TLS demande --ssl-certfile et --ssl-keyfile / TLS needs both "
              "--ssl-certfile and --ssl-keyfile", file=sys.stderr)
        return EXIT_USAGE
    _dice_options(config, args)
    # Unset tokens keep the random ones ServerConfig made.
    config.gm_token = args.gm_token or os.environ.get("SIDECAR_GM_TOKEN") or config.gm_token
    config.player_token = (args.player_token or os.environ.get("SIDECAR_PLAYER_TOKEN")
                           or config.player_token)
    logging.basicConfig(level=getattr(logging, args.log_level.upper()),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # The transport library's own handshake logs would print tracebacks for garbage input.
    logging.getLogger("websockets").setLevel(logging.WARNING)
    loop_factory = _loop_factory(args.loop)
    if loop_factory is None:
        print("sidecar: --loop uvloop needs uvloop: pip install 'vtt-sidecar[fast]'",
              file=sys.stderr)
        return EXIT_USAGE
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        code = runner.run(_serve(config, args.table))
    import threading

    if any(t.is_alive() and not t.daemon for t in threading.enumerate()
           if t is not threading.main_thread()):
        # A plugin call that never returns keeps a worker thread; the interpreter would
        # wait for it at exit. Everything acknowledged is journaled already: leave now.
        _hard_exit(code, "abandoning stuck plugin threads")
    return code


async def _server_plugins(args: argparse.Namespace) -> int:
    async with _joined(args, role="observer", name="sidecar-plugins") as (client, welcome):
        reply = await client.request({"type": "plugins"})
    if args.json:
        print(as_json(reply["plugins"], indent=2))
        return EXIT_OK
    reply, welcome = shown(reply), shown(welcome)  # (printed as they came, not obeyed)
    # (A server from before versioned hooks says nothing: the contract's hooks, 1.0.)
    print(f"{HOOKS_LABEL}: {welcome.get('server', {}).get('hooks', '1.0')}")
    for info in reply["plugins"]:
        state = "DÉSACTIVÉ / DISABLED" if info["disabled"] else "actif / active"
        print(f"{info['name']} {info['version']}  ({info['source']}) — {state}")
        if info["recent_failures"]:
            print(f"    échecs récents / recent failures: {info['recent_failures']} "
                  f"(dernier / last: {info['last_error']})")
        if info["rulesets"]:
            print(f"    {RULESETS_LABEL}: {', '.join(info['rulesets'])}")
        print(f"    hooks: {', '.join(info['hooks'])}")
        if info.get("options"):
            print("\n".join(f"    {line}"
                            for line in describe_options(info["name"], info["options"])))
    return EXIT_OK


#: ``sidecar plugins`` speaks as the rest of the command line: French first, then English.
RULESETS_LABEL = "jeux de règles / rulesets"
HOOKS_LABEL = "API des hooks / hooks API"


def cmd_plugins(args: argparse.Namespace) -> int:
    from sidecar.hookspecs import HOOKS_API
    from sidecar.host.plugins import PluginLoadError, default_host

    if args.url:
        return _run(_server_plugins(args))
    try:
        host = default_host(args.plugins_dir)
    except PluginLoadError as exc:
        print(plugin_load_failure(exc), file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        print(json.dumps([{"name": p.name, "version": p.version, "source": p.source,
                           "description": p.description, "hooks": p.hooks,
                           "rulesets": p.rulesets,
                           "options": host.option_descriptions().get(p.name)}
                          for p in host.plugins.values()],
                         ensure_ascii=False, indent=2))
        return EXIT_OK
    print(f"{HOOKS_LABEL}: {HOOKS_API}")
    for info in host.plugins.values():
        print(f"{info.name} {info.version}  ({info.source})")
        if info.description:
            print(f"    {info.description}")
        if info.rulesets:
            print(f"    {RULESETS_LABEL}: {', '.join(info.rulesets)}")
        print(f"    hooks: {', '.join(info.hooks)}")
        described = host.option_descriptions().get(info.name)
        if described is not None:
            print("\n".join(f"    {line}" for line in describe_options(info.name, described)))
    return EXIT_OK


def server_url(text: str) -> str:
    """The server's WebSocket address from what a user may paste: ``ws(s)://host:port/ws``
    as it is; a page's ``http(s)://`` address (a link the server printed, its query
    dropped) mapped to ``ws(s)://`` and its ``/ws``; a bare ``host:port`` or a missing
    path completed with ``ws://`` and ``/ws``. Raises ``ValueError`` (one line) for what
    is no server address."""
    from urllib.parse import urlsplit, urlunsplit

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
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(text.strip())
    found = {key: values[-1] for key, values in parse_qs(parts.query).items()
             if key in ("table", "token", "role", "name") and values}
    fragment = parse_qs(parts.fragment)
    if fragment.get("token"):
        found["token"] = fragment["token"][-1]
    if found.get("role") not in (None, *ROLES):
        found.pop("role")
    return found


class CliExit(Exception):
    """Ends a command with an exit code (the message is already printed)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


@contextlib.asynccontextmanager
async def _joined(args: argparse.Namespace, *, role: str | None = None,
                  name: str | None = None,
                  reconnect: bool = False) -> AsyncIterator[tuple[Any, dict[str, Any]]]:
    """Join the table of ``args`` and yield (client, welcome); connection and server
    errors become exit codes, and the client is closed however the command ends."""
    from websockets.exceptions import WebSocketException

    from sidecar.client import SidecarClient, SidecarError

    role = role or args.role
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
        print(f"sidecar: {exc}", file=sys.stderr)
        raise CliExit(EXIT_CONNECT) from None
    where = ", ".join(urls)

    def client_as(member: str) -> Any:
        return SidecarClient(urls, table=table, name=member, role=role,
                             token=token, locale=getattr(args, "locale", "fr"),
                             binary=not getattr(args, "text_frames", False),
                             reconnect=reconnect)

    # Without --name nor $USER (Windows, a service): "MJ" for a GM, "joueur" otherwise.
    client = client_as(name or args.name or os.environ.get("USER")
                       or ("MJ" if role == "gm" else "joueur"))
    try:
        try:
            welcome = await client.connect()
        except SidecarError as exc:
            seat = _seat_to_join(exc, client.hello["name"]) if inferred else None
            if seat is None:
                raise
            client = client_as(seat)
            welcome = await client.connect()
        if inferred and role == "player":
            print(_PLAYER_VIEW_NOTE, file=sys.stderr, flush=True)
    except SidecarError as exc:
        print(format_error(exc.code, exc.message, exc.details), file=sys.stderr)
        raise CliExit(EXIT_ERROR) from None
    except OSError as exc:
        print(f"sidecar: connexion impossible / cannot connect to {where}: {exc}"
              + tls_hint(client.url, exc), file=sys.stderr)
        raise CliExit(EXIT_CONNECT) from None
    except WebSocketException as exc:  # something answers there, but not a sidecar
        print(f"sidecar: connexion impossible / cannot connect to {where}: "
              f"{handshake_problem(exc)}" + tls_hint(client.url, exc), file=sys.stderr)
        raise CliExit(EXIT_CONNECT) from None
    try:
        yield client, welcome
    except SidecarError as exc:
        print(format_error(exc.code, exc.message, exc.details), file=sys.stderr)
        raise CliExit(EXIT_ERROR) from None
    finally:
        await client.close()


#: Said when ``watch`` or ``history`` join as a player because a token was given.
_PLAYER_VIEW_NOTE = ("sidecar: vue de joueur (--role gm : celle du MJ) / "
                     "a player's view (--role gm: the GM's)")


def _token_role(token: str | None) -> str:
    """The role of ``watch`` and ``history`` when no ``--role`` is given: a token (the
    players', a seat's, or the GM's) joins as a player — it sees that player's own secret
    rolls; trying ``gm`` first would count a player's token as a wrong guess against the
    address (``--max-failed-hellos``), so the GM's view is asked for with ``--role gm``.
    No token: an observer."""
    return "player" if token else "observer"


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


def _run(command: Any) -> int:
    """Run an async command, turning :class:`CliExit` into its exit code."""
    try:
        return asyncio.run(command)
    except CliExit as exit_:
        return exit_.code


def tls_hint(url: str, exc: BaseException) -> str:
    """What to try when a connection failed over (or for want of) TLS."""
    text = str(exc)
    if "CERTIFICATE_VERIFY_FAILED" in text:
        return (" — certificat non reconnu : SSL_CERT_FILE=cert.pem sidecar … (docs/DEPLOY.md)"
                " / untrusted certificate: SSL_CERT_FILE=cert.pem sidecar …")
    if url.startswith("ws://") and "valid HTTP response" in text:
        return (" — serveur en TLS ? essayez / a TLS server? try "
                + url.replace("ws://", "wss://", 1))
    return ""


def parse_dice(text: str | None) -> list[int] | None:
    """``--dice 3,5,6`` (or spaces) → ``[3, 5, 6]``; ``None`` when not given."""
    if text is None:
        return None
    faces = [x for x in re.split(r"[\s,;]+", text) if x]
    if not all(x.isdigit() for x in faces):
        raise ValueError(f"--dice {text!r}: des faces séparées par des virgules, ex. 3,5,6 / "
                         "faces separated by commas, e.g. 3,5,6")
    return [int(x) for x in faces]


async def _roll(args: argparse.Namespace) -> int:
    async with _joined(args) as (client, welcome):
        schema = next((r["params"] for r in welcome["rulesets"] if r["name"] == args.ruleset),
                      {})
        try:
            params = parse_pairs(args.params, schema)
            # Typed from the extensions' descriptions: combat.opponent_pep=3 is a number.
            options = parse_options(args.option, {o["name"]: o
                                                  for o in welcome.get("options") or []})
            dice = parse_dice(args.dice)
        except ValueError as exc:
            print(f"sidecar: {exc}", file=sys.stderr)
            return EXIT_USAGE
        # Watch from before the roll: a decision taken elsewhere (a GM, the time) is seen.
        outcomes = client.outcomes()
        outcome = await client.roll(args.ruleset, params, label=args.label, mode=args.mode,
                                    options=options, dice=dice, character=args.character)
        print(as_json(outcome) if args.json else format_outcome(outcome),
              flush=True)
        if (outcome.get("open") and client.may_decide(outcome) and not args.no_ask
                and not args.json and sys.stdin.isatty()):
            await _ask(client, outcome, outcomes, manual=dice is not None)
        return EXIT_OK


async def _read_line(prompt: str) -> str:
    """One line typed in the terminal ("" at its end), read off the event loop by a daemon
    thread: a decision taken meanwhile elsewhere does not wait for the typist, and the
    command may end while the thread still waits for a line."""
    import threading

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


def pick_choice(answer: str, choices: list[dict[str, Any]],
                default: str | None) -> dict[str, Any] | None:
    """The choice an answer names: its number, its name, or Enter for the default;
    ``None`` for what names none."""
    answer = answer.strip()
    if not answer:
        answer = default or ""
    if answer.isdigit() and 1 <= int(answer) <= len(choices):
        return choices[int(answer) - 1]
    return next((c for c in choices if c["name"].lower() == answer.lower()), None)


async def _ask(client: Any, outcome: dict[str, Any], outcomes: AsyncIterator[dict[str, Any]],
               *, manual: bool) -> None:
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
            hint = (f"Entrée / Enter = {default}" if default
                    else "Entrée / Enter = laisser ouvert / leave it open")
            reading = asyncio.ensure_future(_read_line(
                f"Votre choix / your choice [1-{len(choices)}, {shown(hint)}]: "))
            await asyncio.wait({reading, watcher}, return_when=asyncio.FIRST_COMPLETED)
            if watcher.done():
                reading.cancel()
                print("\nDécidé ailleurs / decided elsewhere:")
                print(format_outcome(watcher.result()), flush=True)
                return
            answer = reading.result()
            if answer == "" or (not answer.strip() and default is None):
                # End of input, or Enter without a default: the roll waits for its time.
                print(f"\nLe jet reste ouvert / the roll stays open: sidecar react "
                      f"{shown(outcome['roll'])} CHOIX/CHOICE")
                return
            choice = pick_choice(answer, choices, default)
            if choice is None:
                print(shown(f"« {answer.strip()} » ? 1-{len(choices)} "
                            f"({', '.join(c['name'] for c in choices)})"))
                continue
            faces = None
            if manual and choice.get("dice"):
                try:
                    faces = parse_dice(await _read_line(
                        f"Faces ({choice['dice']} dé(s) / dice): "))
                except ValueError:
                    print("faces: 3 ou / or 3,5")
                    continue
            try:
                decided = await client.react(outcome["roll"], choice["name"], faces)
            except SidecarError as exc:
                if exc.code not in ("bad_dice", "insufficient", "invalid_params"):
                    raise
                print(format_error(exc.code, exc.message, exc.details))
                continue  # the roll is still open: ask again
            print(format_outcome(decided), flush=True)
            outcome = decided  # new choices: ask again
    finally:
        watcher.cancel()


async def _react(args: argparse.Namespace) -> int:
    try:
        dice = parse_dice(args.dice)
    except ValueError as exc:
        print(f"sidecar: {exc}", file=sys.stderr)
        return EXIT_USAGE
    async with _joined(args) as (client, _):
        decided = await client.react(args.roll, args.choice, dice)
        print(as_json(decided) if args.json else format_outcome(decided))
        return EXIT_OK


def cmd_react(args: argparse.Namespace) -> int:
    return _run(_react(args))


def cmd_roll(args: argparse.Namespace) -> int:
    return _run(_roll(args))


async def _watch(args: argparse.Namespace) -> int:
    # A watcher outlives server restarts: it rejoins with resume and misses nothing.
    async with _joined(args, reconnect=True) as (client, welcome):
        print(f"table {shown(welcome['table'])} (seq {welcome['seq']}) — Ctrl-C pour quitter / to "
              "quit", flush=True)
        count = 0
        async for event in client.events():
            if event["type"] == "presence":
                # Every CLI roll joins and leaves: two lines each, so shown on request only.
                if args.presence and not args.json:
                    names = shown(", ".join(f"{m['name']} ({m['role']})"
                                            for m in event["members"]))
                    print(f"   à la table / at the table: {names}", flush=True)
                continue
            print(as_json(event) if args.json
                  else format_event(event), flush=True)
            count += event["type"] == "outcome"
            if args.count and count >= args.count:
                break
        return EXIT_OK


# -- seats and characters (PROTOCOL.md §7) ------------------------------------------------

def print_qr(link: str, out: Any = None) -> None:
    """The link as a QR code drawn in the terminal, for a phone to scan."""
    import segno

    segno.make(link).terminal(out=out or sys.stdout, compact=True)


@for_terminal
def format_seat_link(reply: dict[str, Any]) -> str:
    """A seat's link and token, as ``seat add`` and ``seat rotate`` print them."""
    name = reply["name"]
    head = (f"Nouveau lien de {name} / {name}'s new link" if reply.get("op") == "rotate"
            else f"Place de {name} / {name}'s seat")
    return (f"{head}: {reply['link']}\n"
            f"  jeton / token: {reply['token']} (montré une seule fois / shown once: "
            "`sidecar seat rotate` en refait un / makes a new one)")


@for_terminal
def format_seats(seats: list[dict[str, Any]]) -> str:
    if not seats:
        return "aucune place / no seats"
    lines = []
    for seat in seats:
        online = seat.get("online") or 0
        state = f"en ligne / online ({online})" if online else "absent / offline"
        characters = ", ".join(seat.get("characters") or []) or "—"
        lines.append(f"{seat['name']:<20} {state:<24} personnages / characters: {characters}")
    return "\n".join(lines)


@for_terminal
def format_sheets(characters: list[dict[str, Any]]) -> str:
    if not characters:
        return "aucun personnage / no characters"
    lines = []
    for entry in characters:
        owner = entry.get("owner") or "—"
        lines.append(f"{entry['character']} ({entry.get('ruleset', '?')}, place / seat: "
                     f"{owner})")
        lines.append(f"   {format_values(entry.get('values') or {})}")
    return "\n".join(lines)


def _usage(message: str) -> int:
    print(f"sidecar: {message}", file=sys.stderr)
    return EXIT_USAGE


async def _seat(args: argparse.Namespace) -> int:
    async with _joined(args) as (client, _):
        if args.seat_command == "list":
            seats = await client.seats()
            print(as_json(seats) if args.json else format_seats(seats))
            return EXIT_OK
        call = {"add": client.add_seat, "remove": client.remove_seat,
                "rotate": client.rotate_seat}[args.seat_command]
        reply = await call(args.seat)
        if args.json:
            print(as_json(reply))
        elif args.seat_command == "remove":
            print(f"Place / seat « {shown(reply['name'])} » supprimée / removed "
                  f"(#{reply.get('seq')})")
        else:
            print(format_seat_link(reply), flush=True)
            if not args.no_qr:
                print_qr(reply["link"])
        return EXIT_OK


def cmd_seat(args: argparse.Namespace) -> int:
    return _run(_seat(args))


async def _sheet(args: argparse.Namespace) -> int:
    async with _joined(args) as (client, welcome):
        command = args.sheet_command
        if command == "list":
            characters = await client.sheets()
            print(as_json(characters) if args.json
                  else format_sheets(characters))
            return EXIT_OK
        reason = args.reason
        if command == "set":
            known = client.characters.get(args.character) or {}
            ruleset = args.ruleset or known.get("ruleset")
            if not ruleset:
                return _usage(f"--ruleset: « {args.character} » est un nouveau personnage / "
                              "is a new character")
            sheet = next((r.get("sheet") for r in welcome.get("rulesets", [])
                          if r.get("name") == ruleset), None)
            try:
                values = parse_sheet_values(args.values, sheet, known.get("values"))
            except ValueError as exc:
                return _usage(str(exc))
            from sidecar.client import KEEP

            # Neither --owner nor --no-owner: the owner stays as it is.
            owner = None if args.no_owner else (args.owner or KEEP)
            reply = await client.set_sheet(args.character, ruleset, values, owner=owner,
                                           reason=reason)
        elif command == "adjust":
            try:
                delta = parse_delta(args.delta)
            except ValueError as exc:
                return _usage(str(exc))
            if not delta:
                return _usage("sheet adjust: field=+N… ?")
            reply = await client.adjust_sheet(args.character, delta, reason=reason)
        elif command == "refill":
            reply = await client.refill(args.what, args.character, reason=reason)
        else:
            reply = await client.remove_sheet(args.character, reason=reason)
        if args.json:
            print(as_json(reply))
        elif reply.get("type") == "sheets":  # a refill of every character: all of them after
            print(format_sheets(reply.get("characters") or []))
        else:
            print(format_sheet_event(reply))
        return EXIT_OK


def cmd_sheet(args: argparse.Namespace) -> int:
    return _run(_sheet(args))


# -- asked rolls and sessions (PROTOCOL.md §7.4–7.5) ----------------------------------------

def split_targets(items: list[str]) -> tuple[list[str], list[str]]:
    """``ask open``'s words: names (seats or characters) and ``key=value`` params."""
    names = [item for item in items if "=" not in item]
    return names, [item for item in items if "=" in item]


async def _ask_command(args: argparse.Namespace) -> int:
    async with _joined(args) as (client, welcome):
        command = args.ask_command
        if command == "list":
            asks = await client.asks()
            if args.json:
                print(as_json(asks))
            elif not asks:
                print("aucune demande ouverte / no open ask")
            for ask in [] if args.json else asks:
                print(format_ask_event(ask))
            return EXIT_OK
        if command == "cancel":
            reply = await client.cancel_ask(args.ask)
        else:
            names, pairs = split_targets(args.targets)
            if not names:
                return _usage("ask open: SEAT_OR_CHARACTER… ?")
            schema = next((r["params"] for r in welcome["rulesets"]
                           if r["name"] == args.ruleset), {})
            try:
                params = parse_pairs(pairs, schema)
                each = {}
                for side in args.each:
                    if side[0] not in names:
                        return _usage(f"--each {side[0]}: pas parmi / not among "
                                      f"{', '.join(names)}")
                    each[side[0]] = parse_pairs(side[1:], schema)
            except ValueError as exc:
                return _usage(str(exc))
            reply = await client.ask(names, args.ruleset, params, label=args.label,
                                     mode=args.mode, opposed=args.opposed, each=each or None)
        print(as_json(reply) if args.json else format_ask_event(reply))
        return EXIT_OK


def cmd_ask(args: argparse.Namespace) -> int:
    return _run(_ask_command(args))


async def _pick_ask(client: Any) -> str | None:
    """The ask to answer when none is named: the only one pending, or the one picked in
    a terminal; ``None`` (and why, printed) otherwise."""
    pending = list(client.asks.values())
    if not pending:
        print("sidecar: aucune demande à laquelle répondre / no ask to answer",
              file=sys.stderr)
        return None
    if len(pending) == 1:
        return pending[0]["ask"]
    for number, ask in enumerate(pending, 1):
        print(f"{number}) " + format_ask_event(ask).replace("\n", "\n   "))
    if not sys.stdin.isatty():
        print("sidecar: plusieurs demandes, laquelle ? / several asks: sidecar answer ASK_ID",
              file=sys.stderr)
        return None
    while True:
        line = (await _read_line(f"Quelle demande / which ask [1-{len(pending)}]: ")).strip()
        if not line:
            return None
        if line.isdigit() and 1 <= int(line) <= len(pending):
            return pending[int(line) - 1]["ask"]
        if line in client.asks:
            return line
        print(f"« {line} » ? 1-{len(pending)}")


async def _answer(args: argparse.Namespace) -> int:
    try:
        dice = parse_dice(args.dice)
    except ValueError as exc:
        print(f"sidecar: {exc}", file=sys.stderr)
        return EXIT_USAGE
    async with _joined(args) as (client, _):
        ask_id = args.ask or await _pick_ask(client)
        if ask_id is None:
            return EXIT_USAGE
        outcomes = client.outcomes()  # a decision taken elsewhere is seen
        outcome = await client.answer(ask_id, dice)
        print(as_json(outcome) if args.json else format_outcome(outcome),
              flush=True)
        if (outcome.get("open") and client.may_decide(outcome) and not args.json
                and sys.stdin.isatty()):
            await _ask(client, outcome, outcomes, manual=dice is not None)
        return EXIT_OK


def cmd_answer(args: argparse.Namespace) -> int:
    return _run(_answer(args))


async def _session(args: argparse.Namespace) -> int:
    async with _joined(args) as (client, _):
        reply = await client.start_session()
        print(as_json(reply) if args.json
              else format_session_event(reply))
        return EXIT_OK


def cmd_session(args: argparse.Namespace) -> int:
    return _run(_session(args))


def cmd_watch(args: argparse.Namespace) -> int:
    try:
        return _run(_watch(args))
    except KeyboardInterrupt:
        return EXIT_OK


async def _history(args: argparse.Namespace) -> int:
    async with _joined(args) as (client, _):
        after = args.after
        while True:
            page = await client.request({"type": "history", "after": after, "limit": 500})
            for event in page["events"]:
                print(as_json(event) if args.json
                      else format_event(event))
            after = page["next"]
            if not page["more"]:
                return EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    return _run(_history(args))


def store_choice(args: argparse.Namespace) -> str | None:
    """Settle ``--store`` (or ``$SIDECAR_STORE``, which keeps a Redis password out of
    ``ps``) against ``--db``: what is wrong, in one line, or None (``args`` updated)."""
    # (An empty $SIDECAR_STORE is unset; an empty --store is a mistake said as such.)
    store = args.store if args.store is not None else (os.environ.get("SIDECAR_STORE")
                                                       or None)
    if store is not None and not store.strip():
        return ("--store est vide (une variable non définie ?) ; sans --store, le journal "
                "--db sert / --store is empty (an unset variable?); without --store the "
                "--db journal is used")
    if store and args.db is not None:
        return ("--db et --store : choisissez l'un des deux / --db and --store: choose one "
                "(a journal file, or Redis)")
    args.store = store or None
    if args.db is None:
        args.db = DEFAULT.db
    return None


def store_refused(args: argparse.Namespace) -> bool:
    """:func:`store_choice`, its problem printed in one line; True if there was one."""
    problem = store_choice(args)
    if problem:
        print(f"sidecar: {problem}", file=sys.stderr)
    return problem is not None


def cmd_export(args: argparse.Namespace) -> int:
    # Read-only: works beside a server running on the same journal (it never takes the
    # writer's lock) or on the same Redis. Unreadable rows come out as events marked
    # "unreadable".
    if store_refused(args):
        return EXIT_USAGE
    return _run_transfer(_export_table(args))


def _run_transfer(work: Any) -> int:
    from sidecar.stores.base import StoreUnavailable
    from sidecar.stores.journal import JournalError
    from sidecar.stores.transfer import TransferError

    try:
        return asyncio.run(work)
    except (TransferError, JournalError, ValueError) as exc:
        print(f"sidecar: {exc}", file=sys.stderr)
    except StoreUnavailable as exc:
        text = str(exc)
        if "Redis injoignable /" in text:  # (a read's failure: say what to do)
            text = ("Redis injoignable — démarrez-le ou corrigez --store / Redis "
                    "unreachable — start it or fix --store")
        print(f"sidecar: {text}", file=sys.stderr)
    except OSError as exc:
        print(f"sidecar: {exc}", file=sys.stderr)
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
        if args.whole:
            out.write(json.dumps(head, ensure_ascii=False) + "\n")
        for event in events:
            if not args.whole:
                event.pop("request_id", None)  # (what `import` needs; a plain export not)
            out.write(json.dumps(event, ensure_ascii=False) + "\n")
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
        print(f"{count} événements écrits dans {args.output} / {count} events written "
              f"to {args.output}", file=sys.stderr)
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
    print(f"table « {name} » : {count} événements importés dans {where} / table '{name}': "
          f"{count} events imported into {where}", file=sys.stderr)
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    if store_refused(args):
        return EXIT_USAGE
    return _run_transfer(_import_table(args))


def cmd_odds(args: argparse.Namespace) -> int:
    from sidecar.api import aodds
    from sidecar.host.plugins import PluginLoadError, default_host
    from sidecar.protocol.errors import ProtocolError

    try:
        host = default_host(args.plugins_dir)
    except PluginLoadError as exc:
        print(plugin_load_failure(exc), file=sys.stderr)
        return EXIT_ERROR
    try:
        params = parse_pairs(args.params, host.ruleset_schema(args.ruleset))
        options = parse_options(getattr(args, "option", []), host.option_descriptions())
        odds = asyncio.run(aodds(args.ruleset, params, options, host=host))
    except ValueError as exc:
        print(f"sidecar: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ProtocolError as exc:
        message = exc.message_fr if args.locale == "fr" and exc.message_fr else exc.message
        print(f"sidecar: {exc.code}: {message}", file=sys.stderr)
        return EXIT_ERROR
    print(json.dumps(odds) if args.json else format_odds(odds))
    return EXIT_OK


# -- argument parsing ----------------------------------------------------------------------

def _client_options(parser: argparse.ArgumentParser, default_role: str | None) -> None:
    """The options of every command that joins a table (``default_role`` ``None``: the
    role follows ``--token``, see :func:`_token_role`)."""
    parser.add_argument("--url", action="append", metavar="URL",
                        help=f"server WebSocket URL (default {DEFAULT_URL}, or $SIDECAR_URL); "
                             "several processes serving the same tables: repeat --url or "
                             "separate with commas (tried in turn, resumed on a drop)")
    parser.add_argument("--table", default="demo", help="table name (default demo)")
    parser.add_argument("--name", default=None,
                        help="your display name (default $USER, else MJ for a GM, joueur)")
    parser.add_argument("--role", default=default_role, choices=ROLES,
                        help=f"default {default_role}" if default_role else
                        "default: player with --token, observer without")
    parser.add_argument("--token", help="GM or player token (or $SIDECAR_TOKEN)")
    parser.add_argument("--locale", default=LOCALES[0], choices=LOCALES)
    parser.add_argument("--json", action="store_true", help="print raw JSON messages")
    parser.add_argument("--text-frames", action="store_true",
                        help="speak JSON text frames instead of MessagePack")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sidecar", description="vtt-sidecar: the table's authority on dice and rules.")
    parser.add_argument("--version", action="version", version=f"vtt-sidecar {sidecar.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

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
    group.add_argument("--gm-token", help="GM secret (or $SIDECAR_GM_TOKEN; random if unset)")
    group.add_argument("--player-token",
                       help="player secret (or $SIDECAR_PLAYER_TOKEN; random if unset)")
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
                       choices=("debug", "info", "warning", "error"))
    serve.set_defaults(func=cmd_serve)

    plugins = sub.add_parser("plugins", help="list the plugins found, their rulesets and hooks")
    plugins.add_argument("--plugins-dir", metavar="DIR")
    plugins.add_argument("--json", action="store_true")
    plugins.add_argument("--url", action="append", metavar="URL",
                         help="ask a running server instead (shows failures and disabled "
                              "plugins); repeat or separate with commas for several")
    plugins.add_argument("--table", default="demo", help="table to join for --url")
    plugins.add_argument("--token", help="a GM or player token (or $SIDECAR_TOKEN), needed "
                                         "when --table is not open yet")
    plugins.set_defaults(func=cmd_plugins)

    roll = sub.add_parser("roll", help="join a table, roll once, print the outcome")
    roll.add_argument("ruleset")
    roll.add_argument("params", nargs="*", metavar="key=value")
    _client_options(roll, "player")
    roll.add_argument("--mode", default=MODES[0], choices=MODES)
    roll.add_argument("--label", default="", help="what is attempted")
    roll.add_argument("--dice", help="physical dice faces, in order: 3,5,6")
    roll.add_argument("--option", action="append", default=[], metavar="EXT.KEY=VALUE",
                      help="an extension's per-roll setting, typed from its description "
                           "(`sidecar plugins` lists them): combat.options=viser "
                           "combat.zone=tête; EXT=yes turns it on with its defaults "
                           "(blank_botch=yes), EXT={json} gives them all")
    roll.add_argument("--character", metavar="NAME",
                      help="roll as this character: the roll spends from its sheet (a "
                           "player: a character of your seat)")
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

    seat = sub.add_parser("seat", help="GM: players' own seats (each its token and link)")
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

    sheet = sub.add_parser("sheet", help="characters and their sheets (GM; `list` for anyone)")
    sheets = sheet.add_subparsers(dest="sheet_command", required=True)
    set_ = sheets.add_parser("set", help="create a character or change some values")
    set_.add_argument("character", metavar="CHARACTER")
    set_.add_argument("values", nargs="*", metavar="field=value",
                      help="typed by the ruleset's sheet; a map entry as skills.Escalade=5 "
                           "or the whole map as JSON")
    set_.add_argument("--ruleset", help="the character's ruleset (needed to create one)")
    owner = set_.add_mutually_exclusive_group()
    owner.add_argument("--owner", metavar="SEAT", help="give the character to this seat")
    owner.add_argument("--no-owner", action="store_true",
                       help="the GM's own character (no seat)")
    set_.set_defaults(func=cmd_sheet, pairs="values")
    adjust = sheets.add_parser("adjust", help="add to or take from integer fields "
                                              "(a journaled adjustment, undone by its opposite)")
    adjust.add_argument("character", metavar="CHARACTER")
    adjust.add_argument("delta", nargs="*", metavar="field=+N")
    adjust.set_defaults(func=cmd_sheet, pairs="delta")
    refill = sheets.add_parser("refill", help="a new turn or a rest: counters back to their "
                                              "default")
    refill.add_argument("what", choices=("turn", "rest"))
    refill.add_argument("character", nargs="?", metavar="CHARACTER",
                        help="default: every character of the table")
    refill.set_defaults(func=cmd_sheet)
    remove = sheets.add_parser("remove", help="delete a character (its events stay)")
    remove.add_argument("character", metavar="CHARACTER")
    remove.set_defaults(func=cmd_sheet)
    for command in (set_, adjust, refill, remove):
        _client_options(command, "gm")
        command.add_argument("--reason", help="why (kept in the journal)")
    listing = sheets.add_parser("list", help="the characters you may see (a seat: its own)")
    _client_options(listing, "gm")
    listing.set_defaults(func=cmd_sheet)

    ask = sub.add_parser("ask", help="GM: ask seats or characters for a roll (an opposed "
                                     "roll with --opposed)")
    asks = ask.add_subparsers(dest="ask_command", required=True)
    open_ = asks.add_parser("open", help="ask for a roll: sidecar ask open Alice Ysolde "
                                         "--ruleset luck target=5")
    open_.add_argument("targets", nargs="*", metavar="SEAT_OR_CHARACTER|key=value",
                       help="the seats or characters asked, and the roll's params")
    open_.add_argument("--ruleset", required=True)
    open_.add_argument("--label", default="", help="what is attempted")
    open_.add_argument("--mode", default=MODES[0], choices=[m for m in MODES if m != "self"])
    open_.add_argument("--opposed", action="store_true",
                       help="an opposed roll: the sides are compared when the last answers")
    open_.add_argument("--each", nargs="+", action="append", default=[],
                       metavar="NAME key=value",
                       help="one side's own params (repeatable): --each Krull code=4D+1")
    open_.set_defaults(func=cmd_ask, pairs="targets")
    cancel = asks.add_parser("cancel", help="cancel an open ask")
    cancel.add_argument("ask", metavar="ASK_ID")
    cancel.set_defaults(func=cmd_ask)
    listing = asks.add_parser("list", help="the open asks and who answered (a seat: its own)")
    listing.set_defaults(func=cmd_ask)
    for command in (open_, cancel):
        _client_options(command, "gm")
    _client_options(listing, "gm")

    answer = sub.add_parser("answer", help="a seat: answer an ask (the asked roll; asks "
                                           "which one in a terminal when no id is given)")
    answer.add_argument("ask", nargs="?", metavar="ASK_ID")
    _client_options(answer, "player")
    answer.add_argument("--dice", help="physical dice faces, in order: 3,5,6")
    answer.set_defaults(func=cmd_answer)

    session = sub.add_parser("session", help="GM: game sessions")
    sessions = session.add_subparsers(dest="session_command", required=True)
    start = sessions.add_parser("start", help="start a new game session (what lasts a "
                                              "session starts over)")
    _client_options(start, "gm")
    start.set_defaults(func=cmd_session)

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

    export = sub.add_parser("export", help="write a table's whole journal as JSON Lines "
                            "(read from the journal file: everything, secret rolls included)")
    export.add_argument("--table", required=True)
    export.add_argument("--db", metavar="PATH", help=f"default ./{DEFAULT.db}")
    export.add_argument("--store", metavar="redis://HOST:PORT/DB",
                        help="read the table from Redis instead of the journal file")
    export.add_argument("--whole", action="store_true",
                        help="also the table's state, seats, characters and request ids: "
                             "what `sidecar import` needs to move it to another store")
    export.add_argument("--output", "-o", metavar="FILE", help="default: standard output")
    export.set_defaults(func=cmd_export)

    imp = sub.add_parser("import", help="write a table exported with `export --whole` into "
                         "a journal file or Redis (the table must have no event there)")
    imp.add_argument("file", metavar="FILE")
    imp.add_argument("--db", metavar="PATH",
                     help="the journal to write (no server running on it)")
    imp.add_argument("--store", metavar="redis://HOST:PORT/DB",
                     help="write into Redis instead (servers may be running on it)")
    imp.add_argument("--table", metavar="NAME", help="import under another name")
    imp.set_defaults(func=cmd_import)

    odds = sub.add_parser("odds", help="exact odds of a roll, computed locally")
    odds.add_argument("ruleset")
    odds.add_argument("params", nargs="*", metavar="key=value")
    odds.add_argument("--plugins-dir", metavar="DIR")
    odds.add_argument("--locale", default=LOCALES[0], choices=LOCALES,
                      help="language of the error messages")
    odds.add_argument("--option", action="append", default=[], metavar="EXT.KEY=VALUE",
                      help="an extension's per-roll setting, as for roll")
    odds.add_argument("--json", action="store_true")
    odds.set_defaults(func=cmd_odds, pairs="params")
    _add_verify_commands(sub)
    _add_new_plugin_command(sub)
    return parser


def _add_new_plugin_command(sub: Any) -> None:
    """``new-plugin NAME``: a plugin project, ready to install and test."""
    new = sub.add_parser("new-plugin", help="write a new plugin project (a ruleset or an "
                         "extension), ready to pip install and test")
    new.add_argument("name", metavar="NAME", help="the plugin's name, e.g. pbta-moves")
    new.add_argument("--kind", choices=("ruleset", "extension"),
                     help="what it is (default: asked in a terminal, else ruleset)")
    new.add_argument("--directory", metavar="DIR",
                     help="where to write it (default: ./NAME; must not exist)")
    new.set_defaults(func=cmd_new_plugin)


def _ask_kind() -> str | None:
    """Ask which kind of plugin, in a terminal; None when the answer is not one."""
    answer = input("Un jeu de règles ou une extension ? / A ruleset or an extension? "
                   "[ruleset/extension, default ruleset] ").strip().lower()
    kinds = {"": "ruleset", "r": "ruleset", "ruleset": "ruleset", "jeu": "ruleset",
             "e": "extension", "extension": "extension"}
    return kinds.get(answer)


def cmd_new_plugin(args: argparse.Namespace) -> int:
    """Write the project; one line and exit 2 for a bad name or an existing directory."""
    from pathlib import Path

    from sidecar.tools import scaffold

    problem = scaffold.name_problem(args.name)
    if problem:
        print(f"sidecar: {problem}", file=sys.stderr)
        return EXIT_USAGE
    directory = Path(args.directory or args.name)
    if directory.exists():
        print(f"sidecar: '{directory}' already exists: choose another name or --directory",
              file=sys.stderr)
        return EXIT_USAGE
    kind = args.kind
    if kind is None:
        kind = _ask_kind() if sys.stdin.isatty() else "ruleset"
        if kind is None:
            print("sidecar: answer ruleset or extension", file=sys.stderr)
            return EXIT_USAGE
    written = scaffold.write_project(args.name, kind, directory)
    print(f"{kind} '{scaffold.module_name(args.name)}' written to {directory}/:")
    for path in written:
        print(f"  {path.relative_to(directory)}")
    print(f"ensuite / next:\n  cd {directory}\n  pip install -e '.[test]'   # dans "
          "l'environnement du serveur / into the server's environment\n"
          "  python -m pytest\n  sidecar plugins   # le liste / lists it; relancez / restart "
          "`sidecar serve`")
    return EXIT_OK


def _add_verify_commands(sub: Any) -> None:
    """``verify`` (check an export or a saved log) and ``epoch end`` (GM)."""
    verify = sub.add_parser("verify", help="check verifiable dice: an export or a client's "
                            "saved log (JSON Lines), after its epochs' reveal")
    verify.add_argument("file", help="JSON Lines file ('-': standard input)")
    verify.add_argument("--no-rerun", action="store_true",
                        help="do not re-run the installed rulesets on the faces")
    verify.add_argument("--plugins-dir", metavar="DIR",
                        help="also load the plugins of DIR, as `serve --plugins-dir` did")
    verify.set_defaults(func=cmd_verify)
    epoch = sub.add_parser("epoch", help="GM: verifiable dice epochs")
    epoch_sub = epoch.add_subparsers(dest="op", required=True)
    end = epoch_sub.add_parser("end", help="end the current epoch: reveal its seed (every "
                               "roll of it becomes checkable) and commit to a new one")
    _client_options(end, "gm")
    end.set_defaults(func=cmd_epoch_end)


#: ``sidecar verify``: nothing wrong, but rolls whose epoch is not revealed yet.
EXIT_WAITING = 3
#: ``sidecar verify``: nothing wrong, but something could not be checked (listed).
EXIT_UNCHECKED = 4


def cmd_verify(args: argparse.Namespace) -> int:
    """Exit 0 when every roll checks whole, 1 naming the first bad seq, roll and field,
    3 when some rolls wait for their epoch's reveal, 4 when something could not be
    checked (each listed)."""
    from sidecar.host.plugins import PluginLoadError, default_host
    from sidecar.tools.replay import Replay
    from sidecar.tools.verify import Bad, check, describe, events_of

    try:
        handle = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")
    except OSError as exc:
        print(f"sidecar: {exc}", file=sys.stderr)
        return EXIT_USAGE
    replay = Replay(None if args.no_rerun else
                    lambda left_out: default_host(args.plugins_dir, disabled=left_out))
    with handle:
        try:
            report = check(events_of(handle), replay=replay)
        except Bad as bad:
            print(shown(f"FAILED: {bad}"), flush=True)
            return EXIT_ERROR
        except (KeyError, TypeError, ValueError) as exc:
            print(shown(f"FAILED: malformed proof ({type(exc).__name__}: {exc})"), flush=True)
            return EXIT_ERROR
        except PluginLoadError as exc:
            print(f"sidecar: {exc}", file=sys.stderr)
            return EXIT_USAGE
        finally:
            replay.close()
    if not report.rolls:
        # An empty or unrelated file must not look like a clean one.
        print("FAILED: aucun jet à vérifier dans ce fichier / no roll to verify in this file "
              "(sidecar export --table T, or a client's log saved with --json)", flush=True)
        return EXIT_ERROR
    epochs = ", ".join(str(n) for n in sorted(report.epochs)) or "none"
    print(f"{report.checked} jets vérifiés (époques {epochs}), {report.rerun} rejoués par leur "
          f"jeu de règles, {report.manual} manuels (entrés par une personne, non vérifiables)")
    print(f"{report.checked} rolls checked (epochs {epochs}), {report.rerun} re-run by "
          f"their ruleset, {report.manual} manual (entered by a person, not verifiable)")
    if report.unchecked:
        print(f"NON VÉRIFIÉ / NOT CHECKED ({len(report.unchecked)}):")
        # One line per reason: a missing plugin is said once, with the rolls it leaves.
        reasons: dict[tuple[str, str], list[tuple[Any, str | None]]] = {}
        for seq, roll, field, why in report.unchecked:
            reasons.setdefault((field, why), []).append((seq, roll))
        for (field, why), where in reasons.items():
            seq, roll = where[0]
            more = f" (+{len(where) - 1}: seq " + ", ".join(
                str(s) for s, _ in where[1:11]) + ("…" if len(where) > 11 else "") + ")" \
                if len(where) > 1 else ""
            print(f"  {describe(seq, roll, field, why)}{more}")
    if report.waiting:
        waiting = ", ".join(map(str, report.waiting[:10]))
        print(f"{len(report.waiting)} jets attendent la révélation de leur époque / rolls wait "
              f"for their epoch to be revealed (seq {waiting})")
        return EXIT_WAITING
    return EXIT_UNCHECKED if report.unchecked else EXIT_OK


async def _epoch_end(args: argparse.Namespace) -> int:
    async with _joined(args) as (client, _):
        reply = await client.request({"type": "epoch", "op": "end"})
        if args.json:
            print(as_json(reply))
        else:
            reply = shown(reply)
            number, events = reply["epoch"]["number"], reply["events"]
            print(f"époque {number} close après {events} événements / epoch {number} ended "
                  f"after {events} events")
            print(f"graine / seed {reply.get('seed', '?')}")
            print(f"prochain engagement / next commitment {reply['next']['commitment']}")
        return EXIT_OK


def cmd_epoch_end(args: argparse.Namespace) -> int:
    return _run(_epoch_end(args))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, options and ``key=value``s (or ``ask open``'s names) in any
    order, for every command that takes them (those whose parser sets ``pairs``)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        # argparse takes a command's trailing words only before the first option: those
        # after one (`roll bloodlust --locale en difficulty=9`) join the others, in order.
        # (parse_intermixed_args would, but it refuses parsers with subcommands.)
        pairs = getattr(args, "pairs", None)
        if not pairs or any(item.startswith("-") for item in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        getattr(args, pairs).extend(extra)
    return args


def _quiet_on_closed_pipe() -> int:
    """The reader of our output went away (``sidecar history | head``): stop quietly.
    Standard output is pointed at /dev/null first, so the interpreter's last flush at
    exit does not raise again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return EXIT_OK
    except BrokenPipeError:
        return _quiet_on_closed_pipe()


if __name__ == "__main__":
    sys.exit(main())
