"""The command line's help and usage errors in the run's language (issue 29, French
first): French by default, English with ``--locale en``.

argparse prints a help as soon as it meets ``-h``, so the language is read from the
command line before the parser is built (:func:`run_locale`). The tree is written in
English in :mod:`sidecar.cli.parser` and turned French once built (:func:`localize`),
each text looked up in :mod:`sidecar.cli.help_fr` by its English. argparse's own words
go the same way, through its public hooks rather than gettext: its section titles and
``-h``'s line are texts of the tree like the others, « usage: » is the formatter's
``add_usage`` prefix, and its errors pass through :meth:`SidecarParser.error`. gettext
would need a compiled ``.mo`` catalogue in the package and a process-wide text domain
and language (``textdomain``, ``$LANGUAGE``), which every other library of the process
(plugins included) would then share."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from functools import cache
from typing import Any, NoReturn

from sidecar.cli.help_fr import ERRORS, FRENCH, METAVARS, TYPES
from sidecar.protocol.messages import LOCALES

#: A ``%`` placeholder of an argparse message: ``%s``, ``%r``, ``%(name)s``.
_PLACEHOLDER = re.compile(r"%(?:\((\w+)\))?[sr]")


def run_locale(argv: Sequence[str]) -> str:
    """The language of this run: the last ``--locale X`` (or ``--locale=X``) of ``argv``
    before a ``--``, as argparse keeps the last one; French without one (or with a
    language it does not know: argparse says so, in French)."""
    found = LOCALES[0]
    for index, word in enumerate(argv):
        if word == "--":
            break
        if word == "--locale" and index + 1 < len(argv):
            value = argv[index + 1]
        elif word.startswith("--locale="):
            value = word.partition("=")[2]
        else:
            continue
        if value in LOCALES:
            found = value
    return found


def locale_given(argv: Sequence[str]) -> bool:
    """Whether ``argv`` names a language itself (``--locale`` or ``--locale=``)."""
    words = list(argv)
    words = words[:words.index("--")] if "--" in words else words
    return any(word == "--locale" or word.startswith("--locale=") for word in words)


class FrenchHelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, saying « utilisation : » where it says « usage: », and
    « options : » where « options: » (French sets a colon apart with a space)."""

    def start_section(self, heading: str | None) -> None:
        # (argparse writes the colon right after the heading it is given.)
        super().start_section(f"{heading} " if heading else heading)

    def add_usage(self, usage: str | None, actions: Any, groups: Any,
                  prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups,
                          "utilisation : " if prefix is None else prefix)


class SidecarParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are in its :attr:`locale` (set by
    :func:`localize`; its sub-commands' parsers are of this class too)."""

    locale = "en"

    def error(self, message: str) -> NoReturn:
        if self.locale != "fr":
            super().error(message)
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog} : erreur : {french_error(message)}\n")


def localize(parser: argparse.ArgumentParser, locale: str) -> argparse.ArgumentParser:
    """``parser``'s whole tree in ``locale`` (written in English: nothing to do for it):
    every help, description and group title, its sub-commands' too. A text without its
    French stays English (``tests/test_cli_help.py`` sees none is left)."""
    if locale == "en":
        return parser
    parser.locale = locale  # type: ignore[attr-defined]
    parser.formatter_class = FrenchHelpFormatter
    parser.description = _french(parser.description)
    parser.epilog = _french(parser.epilog)
    for group in parser._action_groups:
        group.title = _french(group.title)
        group.description = _french(group.description)
    for action in parser._actions:
        action.help = _french(action.help)
        _french_metavar(action)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = _french(choice.help)
            for sub in dict.fromkeys(action.choices.values()):  # (aliases: once)
                localize(sub, locale)
    return parser


def _french_metavar(action: argparse.Action) -> None:
    """``action``'s placeholder in French (« NOM », not ``NAME``): its metavar, else
    the one argparse would make of its dest; its dest, what the parsed value is filed
    under, stays. Choices shown as ``{a,b}`` and flags have none to translate."""
    if isinstance(action, argparse._SubParsersAction) or action.nargs == 0:
        return
    shown = action.metavar
    if shown is None:
        if action.choices is not None:
            return
        shown = action.dest.upper() if action.option_strings else action.dest
    if isinstance(shown, tuple):
        action.metavar = tuple(METAVARS.get(item, item) for item in shown)
    elif shown in METAVARS:
        action.metavar = METAVARS[shown]


def _french(text: str | None) -> str | None:
    return FRENCH.get(text, text) if text else text


def french_error(message: str) -> str:
    """An argparse error message in French, placeholder by placeholder (``argument X:``'s
    message too); one it does not know (another Python's wording) as it came."""
    for pattern, names, french in _error_patterns():
        found = pattern.fullmatch(message)
        if found is None:
            continue
        return _fill(french, [french_error(value) if name == "message" else
                              TYPES.get(value, value) if name == "type" else value
                              for name, value in zip(names, found.groups(), strict=True)])
    return message


def _fill(template: str, values: list[str]) -> str:
    """``template`` with its placeholders replaced by ``values``, in order (already
    formatted by argparse: ``%r``'s quotes included)."""
    given = iter(values)
    return _PLACEHOLDER.sub(lambda _: next(given), template)


@cache
def _error_patterns() -> list[tuple[re.Pattern[str], list[str | None], str]]:
    """Each of :data:`ERRORS` as a pattern matching the messages it formats, the names
    of its placeholders, and its French."""
    patterns = []
    for english, french in ERRORS.items():
        names = [found.group(1) for found in _PLACEHOLDER.finditer(english)]
        pieces = _PLACEHOLDER.split(english)[::2]  # (split also yields the names)
        regex = "(.+?)".join(re.escape(piece) for piece in pieces)
        patterns.append((re.compile(regex, re.S), names, french))
    return patterns
