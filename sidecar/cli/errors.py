"""A failure said to the reader in plain words and in one language (issue 29): a system
error by what it means (« fichier introuvable : X », « rien n'écoute sur H:P : le
serveur est-il lancé ? »), never Python's « [Errno 2] … »; a store's message written
« français / English » cut to the run's language."""

from __future__ import annotations

import errno

from sidecar.cli.labels import colon, say

#: System errors a user meets, by errno: what each means, in French and English.
_MEANINGS = {
    errno.ENOENT: ("fichier introuvable", "file not found"),
    errno.EACCES: ("accès refusé", "permission denied"),
    errno.EPERM: ("accès refusé", "permission denied"),
    errno.EISDIR: ("c'est un dossier, pas un fichier", "a folder, not a file"),
    errno.ENOTDIR: ("dossier introuvable", "folder not found"),
    errno.ENOSPC: ("disque plein", "disk full"),
    errno.EROFS: ("disque en lecture seule", "read-only disk"),
}


def one_language(text: str, locale: str | None) -> str:
    """A message written « français / English » (the stores' errors) in ``locale``: the
    part before the first `` / `` in French, the part after in English; as it is
    without one (or without a ``locale``)."""
    french, slash, english = text.partition(" / ")
    if locale is None or not slash or not french.strip() or not english.strip():
        return text
    return french.strip() if locale == "fr" else english.strip()


def system_error(exc: OSError, locale: str | None) -> str:
    """An ``OSError`` in plain words: what it means, then the file it is about."""
    meaning = _MEANINGS.get(exc.errno or 0)
    about = exc.filename
    if meaning is None:
        # (No errno we know: the system's own words, without Python's « [Errno N] ».)
        text = exc.strerror or one_language(str(exc), locale)
        return f"{text}{colon(locale)}{about}" if about else text
    said = say(locale, *meaning)
    return f"{said}{colon(locale)}{about}" if about else said


def refused_connection(exc: BaseException) -> bool:
    """Whether ``exc`` says nothing listens there (asyncio's « Connect call failed »
    carries ECONNREFUSED; several addresses tried give one ``OSError`` of them all)."""
    if isinstance(exc, ConnectionRefusedError):
        return True
    if isinstance(exc, OSError) and exc.errno == errno.ECONNREFUSED:
        return True
    return isinstance(exc, OSError) and "Connect call failed" in str(exc)


def nothing_listens(where: str, locale: str | None) -> str:
    """A refused connection, and what to check."""
    return say(locale, f"rien n'écoute sur {where} : le serveur est-il lancé ?",
               f"nothing listens on {where}: is the server running?")


def plain(exc: BaseException, locale: str | None) -> str:
    """Any failure a command prints: a system error in plain words, another in one
    language."""
    if isinstance(exc, OSError) and (exc.errno is not None or exc.filename):
        return system_error(exc, locale)
    return one_language(str(exc), locale)
