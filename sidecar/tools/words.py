"""What ``sidecar verify`` says, in its reader's one language: a reason is written in
English and French together (:func:`said`), and printed in the run's ``--locale``
(:func:`in_locale`). A reason is still a ``str`` — its English — so code and tests that
compare or read it in English keep doing so."""

from __future__ import annotations

from typing import Any

from sidecar.protocol.text import elide


class Said(str):
    """An English reason that carries its French (:attr:`fr`). Joined with ``+`` to
    another reason (or a plain string: a value, a name), it stays two-language."""

    fr: str

    def __new__(cls, en: str, fr: str) -> Said:
        said_ = super().__new__(cls, en)
        said_.fr = fr
        return said_

    def __add__(self, other: Any) -> Said:
        return Said(str.__add__(self, str(other)), self.fr + french(other))


def said(en: str, fr: str) -> Said:
    """A reason in English (the string itself) and in French (``fr``)."""
    return Said(en, fr)


def french(text: Any) -> str:
    """``text``'s French: a :class:`Said`'s, else ``text`` as it is (a value, a name)."""
    return text.fr if isinstance(text, Said) else str(text)


def in_locale(text: Any, locale: str | None) -> str:
    """``text`` in ``locale``: French (``fr``, the default) or English."""
    return str.__str__(text) if locale == "en" else french(text)


#: Added to a reason when the events before the one checked are not all in the file.
MISSING_BEFORE = said(" (events before it are not in this file)",
                      " (les événements qui le précèdent ne sont pas dans ce fichier)")


def override_refused(plugin: str, version: str, message_en: str, message_fr: str) -> Said:
    """A player's roll that typed another value than its sheet's, journaled by ``plugin``
    at ``version`` (under the rule): the refusal the server should have given."""
    return said(f"a player may not type what the sheet supplies (the rule of {plugin} "
                f"{version}): the server should have refused this roll ({message_en})",
                f"un joueur ne peut pas saisir ce que la fiche donne (la règle "
                f"{elide('de', plugin)} {version}) : le serveur aurait dû refuser ce jet "
                f"({message_fr})")


def unrevealed(seqs: list[Any]) -> Said:
    """Rolls of an epoch not revealed yet (``seqs``, ten named): re-run by their rules but
    their dice not checked — said under the count that calls them re-run (issue 29)."""
    named = ", ".join(map(str, seqs[:10])) + (f"… (+{len(seqs) - 10})" if len(seqs) > 10
                                              else "")
    if len(seqs) == 1:
        return said(f"1 roll of an epoch not revealed yet (seq {named}): its dice cannot be "
                    "checked yet (sidecar epoch end, then export again)",
                    f"1 jet d'une époque pas encore révélée (seq {named}) : ses dés ne "
                    "peuvent pas encore être vérifiés (sidecar epoch end, puis exportez à "
                    "nouveau)")
    return said(f"{len(seqs)} rolls of an epoch not revealed yet (seq {named}): their dice "
                "cannot be checked yet (sidecar epoch end, then export again)",
                f"{len(seqs)} jets d'une époque pas encore révélée (seq {named}) : leurs dés "
                "ne peuvent pas encore être vérifiés (sidecar epoch end, puis exportez à "
                "nouveau)")
