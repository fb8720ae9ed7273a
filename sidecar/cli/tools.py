"""The commands that need no table: ``plugins`` (what is installed, or what a running
server loaded), ``odds`` (computed locally, or by a running server for a table's
character), ``verify`` (check an export's verifiable dice) and ``new-plugin`` (a plugin
project, from :mod:`sidecar.tools.scaffold`).

Lazy imports, each in the one command that needs it, so that ``sidecar --help`` and the
other commands stay quick: the plugin host (:mod:`sidecar.host.plugins`, about 20 ms, it
loads every plugin), :mod:`sidecar.api` (the odds engine), :mod:`sidecar.tools.verify` and
:mod:`sidecar.tools.replay` (about 65 ms), :mod:`sidecar.tools.scaffold`, and
:class:`sidecar.client.SidecarError` where ``odds`` asks a server (as :mod:`.connect`
does). All lie below the command line: no import circle hides behind them."""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from sidecar.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_USAGE,
    plugin_load_failure,
    run,
    sidecar_command,
)
from sidecar.cli.connect import joined
from sidecar.cli.errors import plain
from sidecar.cli.labels import Labels, colon, count, say
from sidecar.cli.odds_view import format_odds, odds_heading
from sidecar.cli.render import format_error, param_defaults
from sidecar.cli.terminal import as_json, shown
from sidecar.cli.values import parse_pairs
from sidecar.hookspecs import HOOKS_API
from sidecar.host.options import describe as describe_options
from sidecar.host.options import parse_options
from sidecar.protocol import requests
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.text import localized, one_language
from sidecar.rules import agree

#: ``sidecar plugins`` speaks as the rest of the command line: French, or English.
RULESETS_LABEL = ("jeux de règles", "rulesets")
HOOKS_LABEL = ("API des hooks", "hooks API")


#: ``sidecar verify``: nothing wrong, but rolls whose epoch is not revealed yet.
EXIT_WAITING = 3
#: ``sidecar verify``: nothing wrong, but something could not be checked (listed).
EXIT_UNCHECKED = 4


def _plugins_unopened(table: str, locale: str | None) -> str:
    """Why ``plugins --url`` cannot list a fresh server's plugins: it asks them of a table,
    as an observer, and nobody opened that one (the server's refusal spoke of an observer
    joining « demo », which nobody had asked for)."""
    return say(locale, "plugins --url lit la liste du serveur en rejoignant une table en "
                       f"observateur, et la table « {table} » n'est pas ouverte : donnez "
                       "--token (un jeton de MJ ou de joueur l'ouvre) ou --table d'une table "
                       "ouverte",
               "plugins --url reads the server's list by joining a table as an observer, and "
               f"table “{table}” is not open: give --token (a GM's or a player's token opens "
               "it) or --table of an open table")


async def _server_plugins(args: argparse.Namespace) -> int:
    async with joined(args, role="observer", name="sidecar-plugins",
                      unopened=_plugins_unopened) as (client, welcome):
        reply = await client.request(requests.plugins_request())
    if args.json:
        print(as_json(reply["plugins"], indent=2))
        return EXIT_OK
    reply, welcome = shown(reply), shown(welcome)  # (printed as they came, not obeyed)
    # (A server from before versioned hooks says nothing: the contract's hooks, 1.0.)
    locale = args.locale
    print(f"{say(locale, *HOOKS_LABEL)}{colon(locale)}"
          f"{welcome.get('server', {}).get('hooks', '1.0')}")
    for info in reply["plugins"]:
        state = (say(locale, "DÉSACTIVÉ", "DISABLED") if info["disabled"]
                 else say(locale, "actif", "active"))
        print(f"{info['name']} {info['version']}  ({info['source']}) — {state}")
        if info["recent_failures"]:
            print(f"    {say(locale, 'échecs récents', 'recent failures')}{colon(locale)}"
                  f"{info['recent_failures']} ({say(locale, 'dernier', 'last')}{colon(locale)}"
                  f"{info['last_error']})")
        if info["rulesets"]:
            print(f"    {say(locale, *RULESETS_LABEL)}{colon(locale)}"
                  f"{', '.join(info['rulesets'])}")
        print(f"    hooks{colon(locale)}{', '.join(info['hooks'])}")
        if info.get("options"):
            print("\n".join(f"    {line}"
                            for line in describe_options(info["name"], info["options"],
                                                         locale)))
    return EXIT_OK


def cmd_plugins(args: argparse.Namespace) -> int:
    from sidecar.host.plugins import PluginLoadError, default_host

    if args.url:
        return run(_server_plugins(args))
    try:
        host = default_host(args.plugins_dir)
    except PluginLoadError as exc:
        print(plugin_load_failure(exc, args.locale), file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        # (Indented, so every character past ASCII is escaped: nothing a terminal obeys.)
        print(json.dumps([{"name": p.name, "version": p.version, "source": p.source,
                           "description": p.description, "hooks": p.hooks,
                           "rulesets": p.rulesets,
                           "options": host.option_descriptions().get(p.name)}
                          for p in host.plugins.values()], indent=2))
        return EXIT_OK
    print(f"{say(args.locale, *HOOKS_LABEL)}{colon(args.locale)}{HOOKS_API}")
    # A plugin's name, version, docstring and descriptions are its author's text: shown,
    # never obeyed by the terminal.
    for info in host.plugins.values():
        print(shown(f"{info.name} {info.version}  ({info.source})"))
        described = host.option_descriptions().get(info.name)
        description = _description(info.description, described, args.locale)
        if description:
            print(shown(f"    {description}"))
        if info.rulesets:
            print(shown(f"    {say(args.locale, *RULESETS_LABEL)}{colon(args.locale)}"
                        f"{', '.join(info.rulesets)}"))
        print(shown(f"    hooks{colon(args.locale)}{', '.join(info.hooks)}"))
        if described is not None:
            print("\n".join(shown(f"    {line}")
                            for line in describe_options(info.name, described,
                                                         args.locale)))
    return EXIT_OK


def _description(docstring: str, described: dict[str, Any] | None, locale: str) -> str:
    """A plugin's description in one language, as the welcome gives an extension's: its
    options' ``{fr, en}`` description when it has one, else its docstring's first line
    « français / English » cut in two (in one language only: as its author gave it)."""
    if described and described.get("description"):
        return localized(described["description"], locale)
    return one_language(docstring, locale)


async def _table_odds(args: argparse.Namespace) -> int:
    """``odds`` asked of a running server: the params typed by its welcome, the answer
    for ``--character`` computed against that character's sheet as it stands."""
    from sidecar.client import SidecarError

    async with joined(args) as (client, welcome):
        schema = next((r["params"] for r in welcome["rulesets"] if r["name"] == args.ruleset),
                      {})
        try:
            params = parse_pairs(args.params, schema)
            options = client.parse_options(args.option)
        except ValueError as exc:
            print(f"sidecar: {plain(exc, args.locale)}", file=sys.stderr)
            return EXIT_USAGE
        try:
            odds = await client.odds(args.ruleset, params, options, character=args.character,
                                     targets=args.target or None)
        except SidecarError as exc:
            if exc.code != "forbidden" or args.role == "gm":
                raise  # (joined says it in one line)
            # A GM's token joins as a player by default: say how to ask as the GM.
            print(format_error(exc.code, exc.message) + " — "
                  + say(args.locale, "MJ : --role gm", "GM: --role gm"),
                  file=sys.stderr)
            return EXIT_ERROR
        if args.json:
            print(as_json(odds))
            return EXIT_OK
        odds = shown(odds)  # (printed as it came, not obeyed)
        labels = Labels(welcome, args.locale)
        print(_heading(args, welcome, odds.get("params") or params, labels))
        print(format_odds(odds, locale=args.locale, labels=labels, ruleset=args.ruleset),
              flush=True)
        return EXIT_OK


def _heading(args: argparse.Namespace, described: dict[str, Any],
             params: dict[str, Any], labels: Labels) -> str:
    """What the odds are of, as the page names it: the game's title, then the params
    that differ from their defaults by their labels (``described``: a welcome, or its
    ``rulesets`` as the plugins here describe them)."""
    defaults = param_defaults(described).get(args.ruleset, {})
    missing = object()
    asked = {key: value for key, value in params.items()
             if defaults.get(key, missing) != value}
    return odds_heading(args.ruleset, asked, labels,
                        getattr(args, "character", None))


def cmd_odds(args: argparse.Namespace) -> int:
    """Exact odds: computed here, or by a running server when a table option is given
    (``--url``, ``--table``, ``--token``, ``--character``)."""
    if any((args.url, args.table, args.token, args.character, args.target)):
        args.table = args.table or "demo"
        return run(_table_odds(args))
    from sidecar.api import aodds
    from sidecar.host.plugins import PluginLoadError, default_host

    try:
        host = default_host(args.plugins_dir)
    except PluginLoadError as exc:
        print(plugin_load_failure(exc, args.locale), file=sys.stderr)
        return EXIT_ERROR
    try:
        params = parse_pairs(args.params, host.ruleset_schema(args.ruleset))
        options = parse_options(getattr(args, "option", []), host.option_descriptions())
        odds = asyncio.run(aodds(args.ruleset, params, options, host=host))
    except ValueError as exc:
        print(f"sidecar: {plain(exc, args.locale)}", file=sys.stderr)
        return EXIT_USAGE
    except ProtocolError as exc:
        message = exc.message_fr if args.locale == "fr" and exc.message_fr else exc.message
        print(format_error(exc.code, message), file=sys.stderr)  # (as roll says it)
        return EXIT_ERROR
    if args.json:
        print(json.dumps(odds))
        return EXIT_OK
    described = {"rulesets": host.ruleset_listing()}
    labels = Labels(described, args.locale)
    print(_heading(args, described, params, labels))
    print(format_odds(odds, locale=args.locale, labels=labels, ruleset=args.ruleset))
    return EXIT_OK


def _ask_kind(locale: str) -> str | None:
    """Ask which kind of plugin, in a terminal; None when the answer is not one."""
    answer = input(say(locale, "Un jeu de règles ou une extension ? [ruleset/extension, "
                               "ruleset par défaut] ",
                       "A ruleset or an extension? [ruleset/extension, default ruleset] ")
                   ).strip().lower()
    kinds = {"": "ruleset", "r": "ruleset", "ruleset": "ruleset", "jeu": "ruleset",
             "e": "extension", "extension": "extension"}
    return kinds.get(answer)


#: What ``new-plugin`` wrote, in French.
KIND_FR = {"ruleset": "jeu de règles", "extension": "extension"}


def cmd_new_plugin(args: argparse.Namespace) -> int:
    """Write the project; one line and exit 2 for a bad name or an existing directory.
    Everything said in ``--locale`` alone (French by default)."""
    from sidecar.tools import scaffold

    locale = args.locale
    problem = scaffold.name_problem(args.name, locale)
    if problem:
        print(f"sidecar: {problem}", file=sys.stderr)
        return EXIT_USAGE
    directory = Path(args.directory or args.name)
    if directory.exists():
        print("sidecar: " + say(locale, f"« {directory} » existe déjà : choisissez un autre "
                                        "nom ou --directory",
                                f"'{directory}' already exists: choose another name or "
                                "--directory"), file=sys.stderr)
        return EXIT_USAGE
    kind = args.kind
    if kind is None:
        kind = _ask_kind(locale) if sys.stdin.isatty() else "ruleset"
        if kind is None:
            print("sidecar: " + say(locale, "répondez ruleset ou extension",
                                    "answer ruleset or extension"), file=sys.stderr)
            return EXIT_USAGE
    written = scaffold.write_project(args.name, kind, directory)
    module = scaffold.module_name(args.name)
    print(say(locale, f"{KIND_FR[kind]} « {module} » écrit dans {directory}/ :",
              f"{kind} '{module}' written to {directory}/:"))
    for path in written:
        print(f"  {path.relative_to(directory)}")
    print(next_steps(directory, locale))
    checkout = git_checkout_of(directory)
    if checkout is not None:
        print("sidecar: " + say(
            locale, f"attention : {directory} est dans le dépôt git {checkout} (non suivi) ; "
                    f"un plugin a son propre dossier : --directory ~/plugins/{args.name}",
            f"warning: {directory} is inside the git checkout {checkout} (untracked); a "
            f"plugin has its own directory: --directory ~/plugins/{args.name}"),
            file=sys.stderr)
    return EXIT_OK


def next_steps(directory: Path, locale: str | None = "fr") -> str:
    """What to type after ``new-plugin``, runnable as shown: this environment's own
    interpreter by its full path (a bare ``pip`` or ``python`` is whatever PATH finds
    first when the venv is not activated, and installs the plugin where the server never
    looks), and ``sidecar`` as :func:`~sidecar.cli.common.sidecar_command` writes it for
    every line the command line prints to paste (whole: the lines follow a ``cd``)."""
    python = shlex.quote(str(Path(sys.executable).absolute()))
    return (say(locale, "ensuite :", "next:") + f"\n  cd {shlex.quote(str(directory))}\n"
            f"  {python} -m pip install -e {shlex.quote('.[test]')}   # "
            + say(locale, "dans l'environnement du serveur", "into the server's environment")
            + f"\n  {python} -m pytest\n"
            f"  {sidecar_command(relative=False)} plugins   # "
            + say(locale, "le liste ; relancez ensuite `sidecar serve`",
                  "lists it; then restart `sidecar serve`"))


def git_checkout_of(directory: Path) -> Path | None:
    """The git checkout ``directory`` would be inside (its top, where ``.git`` is), or
    ``None``: a plugin's project made there is an untracked stranger in someone's tree."""
    for parent in (directory.resolve(), *directory.resolve().parents):
        if (parent / ".git").exists():
            return parent
    return None


def _say_by_and_mode(report: Any, locale: str) -> None:
    """Who rolled and in which mode (``by``, ``mode``): checked for decisions and answers,
    the journal's word for the other rolls (no die, no proof covers them: PROTOCOL.md
    §9.5) — said plainly beside « N jets vérifiés », which is about their dice. Each
    number agreed with its noun, and a seat is a « place » as the page says."""
    followed, other = report.followed, report.journal_word
    checked_fr = ("qui a lancé et en quel mode : contrôlé pour " + f"{followed} "
                  + agree(followed, "décision ou réponse", "décisions et réponses")
                  + " (d'après le jet ou la demande qu'"
                  + agree(followed, "elle suit", "elles suivent") + ")")
    checked_en = (f"who rolled and in which mode: checked for {followed} "
                  + ("decision or answer" if followed == 1 else "decisions and answers")
                  + " (against the roll or the ask "
                  + ("it follows" if followed == 1 else "they follow") + ")")
    if other:
        # Not « dés vérifiés » while some wait for their epoch (said on its own line).
        dice = not report.waiting
        checked_fr += (" ; pour " + (f"les {other} autres jets, "
                                     + ("leurs dés sont vérifiés, mais " if dice else "")
                                     + "qui les a lancés" if other > 1 else
                                     "l'autre jet, " + ("ses dés sont vérifiés, mais "
                                                        if dice else "") + "qui l'a lancé")
                       + " et en quel mode ne peut pas être prouvé : c'est la parole du "
                       "journal (seuls la place, le propriétaire du personnage et, rejoué, "
                       "ce que les règles en lisent — le nom dans le texte — sont contrôlés)")
        checked_en += ("; for the " + (f"{other} other rolls" if other > 1 else
                                       "other roll")
                       + (", the dice are checked, but" if dice else ",") + " who rolled "
                       + ("them" if other > 1 else "it")
                       + " and in which mode cannot be proven: that is the journal's word "
                       "(only the seat, the character's owner and, re-run, what the rules "
                       "read of them — the name in the text — are checked)")
    print(say(locale, checked_fr, checked_en))


def failed(locale: str) -> str:
    """The start of ``verify``'s verdict when something does not check."""
    return say(locale, "ÉCHEC", "FAILED") + colon(locale)


def cmd_verify(args: argparse.Namespace) -> int:
    """Exit 0 when every roll checks whole, 1 naming the first bad seq, roll and field,
    3 when some rolls wait for their epoch's reveal, 4 when something could not be
    checked (each listed)."""
    from sidecar.host.plugins import PluginLoadError, default_host
    from sidecar.tools.crosscheck import against
    from sidecar.tools.replay import Replay
    from sidecar.tools.verify import EXPORT_LIMITS, Bad, check, describe, events_of
    from sidecar.tools.words import in_locale, unrevealed

    try:
        handle = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")
    except OSError as exc:
        print(f"sidecar: {plain(exc, args.locale)}", file=sys.stderr)
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
                    print(shown(failed(args.locale) + bad.said(args.locale) + " ("
                                + say(args.locale, "journal d'un joueur", "a player's log")
                                + f"{colon(args.locale)}{log})"), flush=True)
                    return EXIT_ERROR
                print(shown(f"{log}{colon(args.locale)}" + say(
                    args.locale, f"{compared} événements comme le joueur les a reçus"
                    if compared > 1 else f"{compared} événement comme le joueur l'a reçu",
                    f"{compared} events as the player received them" if compared != 1
                    else "1 event as the player received it")))
        except OSError as exc:
            print(f"sidecar: {plain(exc, args.locale)}", file=sys.stderr)
            return EXIT_USAGE
        except Bad as bad:
            print(shown(failed(args.locale) + bad.said(args.locale)), flush=True)
            return EXIT_ERROR
        except (KeyError, TypeError, ValueError) as exc:
            print(shown(failed(args.locale) + say(args.locale, "preuve mal formée",
                                                  "malformed proof")
                        + f" ({type(exc).__name__}: {exc})"), flush=True)
            return EXIT_ERROR
        except PluginLoadError as exc:
            print(plugin_load_failure(exc, args.locale), file=sys.stderr)
            return EXIT_USAGE
        finally:
            replay.close()
    if not report.rolls:
        # An empty or unrelated file must not look like a clean one.
        print(failed(args.locale) + say(
            args.locale, "aucun jet à vérifier dans ce fichier (sidecar export --table T, ou "
            "le journal d'un client gardé avec --json)", "no roll to verify in this file "
            "(sidecar export --table T, or a client's log saved with --json)"), flush=True)
        return EXIT_ERROR
    epochs = ", ".join(str(n) for n in sorted(report.epochs))
    many = len(report.epochs) > 1
    locale = args.locale
    # Dice without epochs (server dice not provable, manual dice): no « époques none ».
    # Each number agreed with its noun (« 1 jet vérifié (époque 1) »).
    print(count(locale, report.checked, "jet vérifié", "roll checked", "jets vérifiés",
                "rolls checked")
          + (" (" + say(locale, "époques" if many else "époque", "epochs" if many else "epoch")
             + f" {epochs})" if epochs
             else " (" + say(locale, "aucune époque de dés prouvables",
                             "no epoch of provable dice") + ")")
          + ", " + count(locale, report.rerun, "rejoué par son jeu de règles",
                         "re-run by its ruleset", "rejoués par leur jeu de règles",
                         "re-run by their ruleset")
          + ", " + count(locale, report.manual, "manuel (entré par une personne, non "
                                                "vérifiable)",
                         "manual (entered by a person, not verifiable)",
                         "manuels (entrés par une personne, non vérifiables)",
                         "manual (entered by a person, not verifiable)"))
    if report.waiting:  # re-run, counted above, but their dice not checked: say so here
        print(in_locale(unrevealed(report.waiting), locale))
    _say_by_and_mode(report, args.locale)
    if report.export:
        print(EXPORT_LIMITS[args.locale])
    if report.unchecked:
        print(say(args.locale, "NON VÉRIFIÉ", "NOT CHECKED")
              + f" ({len(report.unchecked)}){colon(args.locale)}")
        # One line per reason: a missing plugin is said once, with the rolls it leaves.
        reasons: dict[tuple[str, str], list[tuple[Any, str | None]]] = {}
        for seq, roll, field, why in report.unchecked:
            reasons.setdefault((field, why), []).append((seq, roll))
        for (field, why), where in reasons.items():
            seq, roll = where[0]
            more = f" (+{len(where) - 1}{colon(args.locale)}seq " + ", ".join(
                str(s) for s, _ in where[1:11]) + ("…" if len(where) > 11 else "") + ")" \
                if len(where) > 1 else ""
            print(f"  {describe(seq, roll, field, why, args.locale)}{more}")
    if report.waiting:
        return EXIT_WAITING
    return EXIT_UNCHECKED if report.unchecked else EXIT_OK
