"""``sidecar --help`` and every command's help in the run's language (issue 29, French
first): French by default, English with ``--locale en`` — argparse's own words
(« usage », sections, ``-h``'s line, its error messages) included; and ``sidecar plugins``
describing each plugin in one language. Real ``sidecar`` processes, but for the walk over
every help text of the tree."""

from __future__ import annotations

import argparse

from tests.support.serve import sidecar

#: What only an English help says, and what only a French one does.
ENGLISH = ("usage:", "options:", "positional arguments", "show this help message",
           "TCP port", "language of what is printed", "server WebSocket URL")
FRENCH = ("utilisation :", "options :", "afficher cette aide et quitter")


def helped(*args: str) -> str:
    done = sidecar(*args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_help_is_french_by_default_every_word_of_it():
    top = helped("--help")
    assert "le serveur de table" in top and "arguments positionnels" in top, top
    serve = helped("serve", "--help")
    assert "port TCP (défaut 8765)" in serve and "réseau :" in serve, serve
    roll = helped("roll", "--help")
    assert "URL WebSocket du serveur" in roll and "langue de ce qui est affiché" in roll, roll
    example = helped("ask", "--help")
    assert "demander un jet : sidecar ask open" in " ".join(example.split()), example
    for text in (top, serve, roll, example, helped("seat", "add", "--help")):
        for french in FRENCH:
            assert french in text, (french, text)
        for english in ENGLISH:
            assert english not in text, (english, text)


def test_help_is_english_with_locale_en_wherever_it_is_given():
    for args in (("--locale", "en", "--help"), ("serve", "--help", "--locale", "en"),
                 ("roll", "--locale=en", "--help"), ("seat", "--locale", "en", "add", "-h")):
        text = helped(*args)
        assert "usage: sidecar" in text and "show this help message and exit" in text, text
        for french in (*FRENCH, "défaut", "serveur"):
            assert french not in text, (args, french, text)
    assert "TCP port (default 8765)" in helped("serve", "--locale", "en", "--help")


def test_every_help_text_of_the_tree_has_its_french():
    """A new option's help without its French would print English in a French help:
    the whole tree, built in French, says nothing of the English tree."""
    from sidecar.cli.parser import build_parser

    def texts(parser: argparse.ArgumentParser) -> list[str]:
        found = [parser.description or "", parser.epilog or ""]
        found += [group.title or "" for group in parser._action_groups]
        found += [group.description or "" for group in parser._action_groups]
        for action in parser._actions:
            found.append(action.help or "")
            if isinstance(action, argparse._SubParsersAction):
                found += [choice.help or "" for choice in action._choices_actions]
                for sub in action.choices.values():
                    found += texts(sub)
        return [text for text in found if text and text != argparse.SUPPRESS]

    from sidecar.cli.help_fr import FRENCH

    english, french = texts(build_parser("en")), texts(build_parser("fr"))
    assert len(english) == len(french) > 300
    same = {text for text, translated in FRENCH.items() if text == translated}  # journal
    untranslated = {text for text in french if text in english} - same
    assert not untranslated, sorted(untranslated)


def test_argparse_errors_in_the_runs_language():
    bad = sidecar("serve", "--port", "huit")
    assert bad.returncode == 2
    assert "sidecar serve : erreur : argument --port : valeur invalide" in bad.stderr, \
        bad.stderr
    assert "'huit'" in bad.stderr and "invalid int" not in bad.stderr, bad.stderr
    assert "utilisation : sidecar serve" in bad.stderr, bad.stderr
    missing = sidecar("roll")
    assert "arguments obligatoires manquants : jeu" in missing.stderr, missing.stderr
    unknown = sidecar("seat", "list", "x=1", "--bogus")
    assert "arguments non reconnus : " in unknown.stderr, unknown.stderr
    chosen = sidecar("roll", "luck", "--mode", "nope")
    assert "choix invalide : 'nope'" in chosen.stderr, chosen.stderr
    english = sidecar("serve", "--port", "huit", "--locale", "en")
    assert "argument --port: invalid int value: 'huit'" in english.stderr, english.stderr
    assert "usage: sidecar serve" in english.stderr, english.stderr


def test_plugins_are_described_in_one_language(tmp_path):
    (tmp_path / "mine.py").write_text('"""Only English here: a plugin of mine."""\n')
    french = helped("plugins", "--plugins-dir", str(tmp_path))
    assert "    Bloodlust : réserve de d10 contre une difficulté\n" in french, french
    assert "a d10 pool" not in french and "blank botch" not in french, french
    assert "    Only English here: a plugin of mine.\n" in french, french
    english = helped("plugins", "--plugins-dir", str(tmp_path), "--locale", "en")
    assert "    A d10 pool against a difficulty.\n" in english, english
    assert "réserve de d10" not in english and "Échec critique" not in english, english
    assert "    Only English here: a plugin of mine.\n" in english, english


def test_the_last_locale_given_counts_before_or_after_the_command():
    from sidecar.cli.parser import parse_args

    assert parse_args(["--locale", "en", "roll", "luck"]).locale == "en"
    assert parse_args(["roll", "luck", "--locale=en"]).locale == "en"
    assert parse_args(["roll", "luck"]).locale == "fr"
    assert parse_args(["seat", "--locale", "en", "list"]).locale == "en"
    assert parse_args(["--locale", "en", "ask", "list", "--locale", "fr"]).locale == "fr"
    assert parse_args(["seat", "--loc", "en", "list"]).locale == "en"  # (abbreviated)
    assert parse_args(["--locale", "en", "serve"]).command == "serve"


def _placeholders(parser: argparse.ArgumentParser) -> list[str]:
    """Every placeholder a help shows (``NAME``, ``--table TABLE``'s), the tree's."""
    found: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                found += _placeholders(sub)
            continue
        if action.help == argparse.SUPPRESS or action.nargs == 0 or (
                action.choices is not None and action.metavar is None):
            continue  # (a flag, or its choices shown as {a,b})
        shown = action.metavar if action.metavar is not None else (
            action.dest.upper() if action.option_strings else action.dest)
        found += list(shown) if isinstance(shown, tuple) else [shown]
    return found


def test_a_french_help_names_its_placeholders_in_french():
    """« sidecar new-plugin [...] NAME » in a French help (issue 29): a placeholder is a
    word the reader reads, in the help's language — but the words French shares."""
    from sidecar.cli.parser import build_parser

    english, french = _placeholders(build_parser("en")), _placeholders(build_parser("fr"))
    assert len(english) == len(french) > 100
    shared = {"URL", "PORT", "TABLE", "N"}
    left = {en for en, fr in zip(english, french, strict=True) if en == fr} - shared
    assert not left, sorted(left)
    usage = " ".join(helped("new-plugin", "--help").split())
    assert "[--directory DOSSIER]" in usage and " NOM " in usage and "NAME" not in usage, usage
    assert " NAME" in helped("new-plugin", "--help", "--locale", "en")
