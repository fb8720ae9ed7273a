"""What every ``sidecar`` command shares: the defaults it shows, its exit codes, how an
async command is run and ended early, and the one-line messages for a usage mistake, a
plugin that will not load and a ``--store`` that contradicts ``--db``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from sidecar.cli.labels import say
from sidecar.config import ServerConfig

#: ``ServerConfig``'s defaults: the one source of every default ``sidecar serve`` shows
#: (tokens are random per run, so none is taken from here).
DEFAULT = ServerConfig(gm_token="", player_token="")
DEFAULT_URL = f"ws://{DEFAULT.host}:{DEFAULT.port}/ws"

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_CONNECT = 0, 1, 2, 3


def plugin_load_failure(exc: Exception, locale: str | None = None) -> str:
    """A plugin load error as one line (a plugin's own message may hold newlines): in
    ``locale`` (the error's French where it has one), French then English without."""
    said = str(exc)
    if locale is not None and isinstance(getattr(exc, "message", None), str):
        said = say(locale, getattr(exc, "fr", None) or exc.message, exc.message)
    line = ("sidecar: " + say(locale, "impossible de charger les plugins : ",
                              "cannot load plugins: ") + " ".join(said.split()))
    plugin = getattr(exc, "plugin", None)
    if plugin:
        # One broken plugin need not stop the table: say how to leave it out.
        line += " — " + say(locale, "pour servir sans lui : ", "to serve without it: ") \
            + f"--disable {plugin}"
    return line


class CliExit(Exception):
    """Ends a command with an exit code (the message is already printed)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def run(command: Any) -> int:
    """Run an async command, turning :class:`CliExit` into its exit code."""
    try:
        return asyncio.run(command)
    except CliExit as exit_:
        return exit_.code


def usage(message: str) -> int:
    """Print a usage mistake in one line; the exit code for it."""
    print(f"sidecar: {message}", file=sys.stderr)
    return EXIT_USAGE


def store_choice(args: argparse.Namespace) -> str | None:
    """Settle ``--store`` (or ``$SIDECAR_STORE``, which keeps a Redis password out of
    ``ps``) against ``--db``: what is wrong, in one line, or None (``args`` updated)."""
    # (An empty $SIDECAR_STORE is unset; an empty --store is a mistake said as such.)
    store = args.store if args.store is not None else (os.environ.get("SIDECAR_STORE")
                                                       or None)
    # (Said in --locale: every command has one; both languages without.)
    locale = getattr(args, "locale", None)
    if store is not None and not store.strip():
        return say(locale, "--store est vide (une variable non définie ?) ; sans --store, "
                           "le journal --db sert",
                   "--store is empty (an unset variable?); without --store the --db "
                   "journal is used")
    if store and args.db is not None:
        return say(locale, "--db et --store : choisissez l'un des deux (un fichier journal, "
                           "ou Redis)",
                   "--db and --store: choose one (a journal file, or Redis)")
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


def sidecar_command(*, relative: bool = True) -> str:
    """How to run ``sidecar`` as this one runs, for every line it prints to paste
    (``serve``'s, an open roll's ``react``, ``new-plugin``'s next steps):
    ``sidecar`` when that is on PATH and the same script, else the script beside this
    interpreter (``.venv/bin/sidecar``: the venv was not activated), else ``python -m
    sidecar``; relative to the working directory when inside it (``relative``: lines
    that follow a ``cd`` need the whole path)."""
    def shown(path: Path) -> str:
        with contextlib.suppress(ValueError):
            if relative:
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
