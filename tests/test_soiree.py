"""« Une soirée de MJ » (docs/SOIREE.md, issue 29 item 18): the README sends each reader to
their own guide, and the evening's commands run as shown against a real ``sidecar serve``,
in order, from its first seat to its export."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from tests.helpers import GM_TOKEN
from tests.support.serve import ROOT, ServeProcess, sidecar

SOIREE = ROOT / "docs" / "SOIREE.md"
#: Every reader the README sends somewhere, and where.
READERS = ("docs/SOIREE.md", "docs/GM.md", "docs/PLAYER.md", "docs/FOUNDRY.md",
           "docs/PLUGINS.md", "docs/DEPLOY.md", "docs/RULESETS.md", "docs/CLIENTS.md",
           "protocol/PROTOCOL.md", "ARCHITECTURE.md")


def test_the_readme_is_short_and_sends_each_reader_to_their_guide():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 150  # read to the end, not 400 lines
    for guide in READERS:
        assert f"]({guide})" in readme, guide
    # The evening is in French first, English beside, with its screenshots, each taken by
    # the script the page's changes re-run.
    soiree = SOIREE.read_text()
    assert soiree.startswith("# Une soirée de MJ")
    shots = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", soiree)
    assert len(shots) >= 5
    script = (ROOT / "docs" / "soiree_screenshots.py").read_text()
    for shot in shots:
        assert (ROOT / "docs" / shot).is_file() and shot in script, shot
    # About ten minutes of reading, in both languages together.
    assert len(soiree.split()) < 2600


def _evening_commands() -> list[list[str]]:
    """The ``sidecar …`` lines of the evening's ``sh`` blocks, as arguments (serve aside)."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", SOIREE.read_text(), re.S):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] == "sidecar":
                commands.append(words[1:])
    return commands


def test_the_evenings_commands_run_as_shown(tmp_path: Path):
    commands = _evening_commands()
    assert [words[0] for words in commands][:3] == ["seat", "seat", "sheet"]
    assert {"ask", "roll", "odds", "export", "history"} <= {words[0] for words in commands}
    # The dice as `serve` makes them by default (provable: §9 ends the epoch, verifies).
    with ServeProcess("--db", "sidecar.db", cwd=tmp_path, dice=None) as server:
        gm = ["--url", server.url, "--table", "crypte", "--role", "gm", "--token", GM_TOKEN]
        for words in commands:
            args = [arg for word in words for arg in (gm if word == "$MJ" else [word])]
            done = sidecar(*args, cwd=tmp_path)
            assert done.returncode == 0, (words, done.stderr)
            assert "Traceback" not in done.stderr
            if words[0] == "odds":
                # The sample the evening shows is what the command prints, word for word
                # (it showed « Éclatante » and no distribution after the CLI had changed).
                assert f"```text\n{done.stdout.strip()}\n```" in SOIREE.read_text(), done.stdout
    exported = [json.loads(line) for line in (tmp_path / "crypte.jsonl").read_text().splitlines()]
    kinds = {event.get("type") for event in exported}
    assert {"seat", "sheet", "ask", "outcome"} <= kinds, kinds
