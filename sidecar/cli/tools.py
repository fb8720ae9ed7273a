"""The commands that need no table: ``plugins`` (what is installed, or what a running
server loaded), ``odds`` (computed locally), ``verify`` (check an export's verifiable
dice) and ``new-plugin`` (a plugin project, from :mod:`sidecar.tools.scaffold`).

Lazy imports, each in the one command that needs it, so that ``sidecar --help`` and the
other commands stay quick: the plugin host (:mod:`sidecar.host.plugins`, about 20 ms, it
loads every plugin), :mod:`sidecar.api` (the odds engine), :mod:`sidecar.tools.verify` and
:mod:`sidecar.tools.replay` (about 65 ms) and :mod:`sidecar.tools.scaffold`. All lie below
the command line: no import circle hides behind them."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from sidecar.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_USAGE,
    plugin_load_failure,
    run,
)
from sidecar.cli.connect import joined
from sidecar.cli.render import format_odds
from sidecar.cli.terminal import as_json, shown
from sidecar.cli.values import parse_pairs
from sidecar.hookspecs import HOOKS_API
from sidecar.host.options import describe as describe_options
from sidecar.host.options import parse_options
from sidecar.protocol import requests
from sidecar.protocol.errors import ProtocolError

#: ``sidecar plugins`` speaks as the rest of the command line: French first, then English.
RULESETS_LABEL = "jeux de règles / rulesets"
HOOKS_LABEL = "API des hooks / hooks API"


#: ``sidecar verify``: nothing wrong, but rolls whose epoch is not revealed yet.
EXIT_WAITING = 3
#: ``sidecar verify``: nothing wrong, but something could not be checked (listed).
EXIT_UNCHECKED = 4


async def _server_plugins(args: argparse.Namespace) -> int:
    async with joined(args, role="observer", name="sidecar-plugins") as (client, welcome):
        reply = await client.request(requests.plugins_request())
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


def cmd_plugins(args: argparse.Namespace) -> int:
    from sidecar.host.plugins import PluginLoadError, default_host

    if args.url:
        return run(_server_plugins(args))
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


def cmd_odds(args: argparse.Namespace) -> int:
    from sidecar.api import aodds
    from sidecar.host.plugins import PluginLoadError, default_host

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


def _ask_kind() -> str | None:
    """Ask which kind of plugin, in a terminal; None when the answer is not one."""
    answer = input("Un jeu de règles ou une extension ? / A ruleset or an extension? "
                   "[ruleset/extension, default ruleset] ").strip().lower()
    kinds = {"": "ruleset", "r": "ruleset", "ruleset": "ruleset", "jeu": "ruleset",
             "e": "extension", "extension": "extension"}
    return kinds.get(answer)


def cmd_new_plugin(args: argparse.Namespace) -> int:
    """Write the project; one line and exit 2 for a bad name or an existing directory."""
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


def cmd_verify(args: argparse.Namespace) -> int:
    """Exit 0 when every roll checks whole, 1 naming the first bad seq, roll and field,
    3 when some rolls wait for their epoch's reveal, 4 when something could not be
    checked (each listed)."""
    from sidecar.host.plugins import PluginLoadError, default_host
    from sidecar.tools.crosscheck import against
    from sidecar.tools.replay import Replay
    from sidecar.tools.verify import EXPORT_LIMITS, Bad, check, describe, events_of

    try:
        handle = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")
    except OSError as exc:
        print(f"sidecar: {exc}", file=sys.stderr)
        return EXIT_USAGE
    replay = Replay(None if args.no_rerun else
                    lambda left_out: default_host(args.plugins_dir, disabled=left_out))
    with handle:
        try:
            lines = handle.readlines()
            report = check(events_of(lines), replay=replay)
            for log in args.log or ():
                try:
                    with open(log, encoding="utf-8") as saved:
                        compared = against(events_of(lines), events_of(saved))
                except Bad as bad:
                    print(shown(f"FAILED: {bad} (journal d'un joueur / a player's log: "
                                f"{log})"), flush=True)
                    return EXIT_ERROR
                print(shown(f"{log}: {compared} événements comme le joueur les a reçus / "
                            "events as the player received them"))
        except OSError as exc:
            print(f"sidecar: {exc}", file=sys.stderr)
            return EXIT_USAGE
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
    if report.export:
        print(EXPORT_LIMITS)
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
