"""The table tokens ``serve`` keeps across restarts: beside the journal, in
``JOURNAL.tokens`` (a small JSON file, mode 0600), or in the ``--tokens-file`` given.
Without them every GM and shared link would die at each restart (seat tokens already live
in the journal). ``--gm-token`` / ``--player-token`` (or ``$SIDECAR_*``) still win for
that run, and the file keeps its own. Nothing is kept for a journal in memory, nor for
``--store`` without ``--tokens-file`` (each process would keep its own: see
docs/DEPLOY.md)."""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path

from sidecar.cli.errors import plain
from sidecar.cli.labels import say
from sidecar.config import ServerConfig

#: What the file holds: the two shared tokens, nothing else.
KEYS = ("gm_token", "player_token")


class TokensFileError(Exception):
    """The tokens file exists but cannot be read or used (said in one line): nothing is
    overwritten, since that would end every link made from it."""


def tokens_path(config: ServerConfig, given: str | None) -> Path | None:
    """Where the tokens are kept: ``given`` (``--tokens-file``), else beside a journal on
    disk; ``None`` when nothing would survive a restart anyway (``:memory:``) or the
    tables live in a shared store."""
    if given:
        return Path(given)
    if config.store or config.db == ":memory:" or config.db.startswith("file:"):
        return None
    journal = Path(config.db)
    return journal.with_name(journal.name + ".tokens")


def keep_tokens(config: ServerConfig, path: Path, *, gm_given: bool,
                player_given: bool, locale: str | None = None) -> None:
    """Read the tokens kept at ``path`` into ``config`` (a given token wins for this run),
    or keep this run's there when there is no file yet; a :class:`TokensFileError` says
    what is wrong in ``locale`` (both languages without one)."""
    if not path.exists():
        _write(path, {"gm_token": config.gm_token, "player_token": config.player_token},
               locale)
        return
    kept = _read(path, locale)
    if not gm_given:
        config.gm_token = kept["gm_token"]
    if not player_given:
        config.player_token = kept["player_token"]


def _read(path: Path, locale: str | None) -> dict[str, str]:
    try:
        mode = path.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            # Secrets others may read: take them back first (the umask of a copy, a backup).
            path.chmod(0o600)
        kept = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TokensFileError(_unusable(path, plain(exc, locale), locale)) from None
    if not isinstance(kept, dict) or not all(isinstance(kept.get(key), str) and kept[key]
                                             for key in KEYS):
        raise TokensFileError(_unusable(path, say(
            locale, "attendu", "expected") + " {\"gm_token\": …, \"player_token\": …}", locale))
    return {key: kept[key] for key in KEYS}


def _unusable(path: Path, why: object, locale: str | None) -> str:
    return say(locale, f"fichier de jetons illisible {path} : {why} — corrigez-le, ou "
                       "supprimez-le pour de nouveaux jetons (les liens partagés changent)",
               f"unreadable tokens file {path}: {why} — fix it, or delete it for new "
               "tokens (shared links change)")


def _write(path: Path, tokens: dict[str, str], locale: str | None) -> None:
    """Write at once and only for the owner: created 0600, then moved into place."""
    part = path.with_name(path.name + ".part")
    try:
        with contextlib.suppress(FileNotFoundError):  # a start interrupted mid-write
            part.unlink()
        descriptor = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(tokens, handle)
            handle.write("\n")
        os.replace(part, path)
    except OSError as exc:
        raise TokensFileError(say(
            locale, f"fichier de jetons impossible à écrire {path} : {exc.strerror or exc}",
            f"cannot write the tokens file {path}: {exc.strerror or exc}")) from None
