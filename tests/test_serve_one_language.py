"""``sidecar serve`` speaks one language (issue 29, French first): its banner, the
messages that stop it and its stopping line in French by default, in English with
``--locale en``, never both on one line. Real ``sidecar serve`` processes."""

from __future__ import annotations

import re

from tests.support.serve import ServeProcess, serve_fails, sidecar

#: Words only the English banner and messages say, and words only the French ones say.
ENGLISH = re.compile(r"\b(tokens|join the table|event loop|new at each start|kept in|"
                     r"GM|Player|Watch|Browser|Seat|phones|scan|cannot|stopping|none)\b")
FRENCH = re.compile(r"\b(jetons|Rejoindre|boucle|nouveaux|gardés|Joueur|Regarder|"
                    r"Navigateur|Place|Téléphones|scannez|impossible|arrêt|aucun)\b")


def _words(line: str) -> str:
    """A line without what is no language: options, addresses, the transport's name."""
    return re.sub(r"--[\w-]+|\S+://\S+|WebSocket", "", line)


def _stopped(*args: str) -> list[str]:
    """The whole banner of a server open to the LAN, what it prints as it stops too."""
    with ServeProcess("--host", "0.0.0.0", "--db", ":memory:", *args,
                      tokens=False) as server:
        server.stop()
        return [line.rstrip("\n") for line in server.lines + server.output]


def test_the_banner_is_french_by_default_and_english_with_locale_en():
    french = _stopped()
    text = "\n".join(french)
    assert "Rejoindre la table :" in text and "jetons : nouveaux à chaque démarrage" in text
    assert re.search(r"^plugins : .*oweens", text, re.M), text
    assert "boucle d'événements : asyncio" in text
    assert "sidecar: arrêt (connexions fermées avec 1001)" in text
    assert re.search(r"^  MJ +: .* roll dice ", text, re.M), text
    for line in french:
        assert " / " not in _words(line), line  # no « fr / en » left
        assert not ENGLISH.search(_words(line)), line

    english = _stopped("--locale", "en")
    text = "\n".join(english)
    assert "Join the table:" in text and "tokens: new at each start" in text
    assert re.search(r"^plugins: .*oweens", text, re.M), text
    assert "event loop: asyncio" in text
    assert "sidecar: stopping (connections closed with 1001)" in text
    assert re.search(r"^  GM: +.* roll dice ", text, re.M), text  # (the colon after the word)
    for line in english:
        assert not FRENCH.search(_words(line)), line


def test_serves_errors_are_in_its_one_language():
    with ServeProcess() as server:
        port = str(server.port)
        french = sidecar("serve", "--port", port, "--db", ":memory:")
        english = sidecar("serve", "--port", port, "--db", ":memory:", "--locale", "en")
    assert french.returncode == 1 and "impossible d'écouter" in french.stderr, french.stderr
    assert "cannot" not in french.stderr
    assert english.returncode == 1 and "cannot listen" in english.stderr, english.stderr
    assert not FRENCH.search(english.stderr)
    for locale, expected in (("fr", "sidecar: --max-tables doit valoir au moins 1"),
                             ("en", "sidecar: --max-tables must be at least 1")):
        refused = serve_fails("--db", ":memory:", "--max-tables", "0", "--locale", locale)
        assert refused.returncode == 2 and refused.stderr.strip() == expected, refused.stderr
