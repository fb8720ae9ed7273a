"""What ``sidecar verify`` says of a roll's author (``by``) and ``mode`` (issue 28, item 4):
neither is in the dice's derivation, so a plain roll's are the journal's word — the
output says so with the count, and says which rolls had them checked (decisions and
answers, against the roll or the ask they follow). An export from a real server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run
from tests.test_verify import _export, _play, _verify

#: The line verify prints about ``by`` and ``mode`` (French, then English).
FR = "qui a lancé et en quel mode"
EN = "who rolled and in which mode"


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("by-mode")
    db = str(tmp / "journal.db")
    run(_play(db))
    return _export(db, tmp)


def _said(path: Path) -> tuple[str, str]:
    """The by-and-mode line of ``verify``, in French then in English (one run each)."""
    said = []
    for locale, start in (("fr", FR), ("en", EN)):
        done = _verify(path, "--locale", locale)
        assert done.returncode == 0, done.stdout + done.stderr
        said.append(next(line for line in done.stdout.splitlines() if line.startswith(start)))
    return said[0], said[1]


def test_verify_says_by_and_mode_of_plain_rolls_are_the_journals_word(export: Path) -> None:
    fr, en = _said(export)
    # The five rolls of _play answer no ask and decide nothing.
    assert "0 décision ou réponse" in fr and "5 autres jets" in fr
    assert "ne peut pas être prouvé" in fr
    assert "0 decisions and answers" in en and "5 other rolls" in en
    assert "cannot be proven" in en


@pytest.mark.parametrize("change", ["mode", "role"])
def test_a_changed_mode_or_role_passes_and_the_output_says_why(export: Path, tmp_path: Path,
                                                                change: str) -> None:
    events: list[dict[str, Any]] = [json.loads(line)
                                    for line in export.read_text().splitlines()]
    roll = next(e for e in events if e["type"] == "outcome" and e["mode"] == "public")
    if change == "mode":
        roll["mode"] = "gm"
    else:
        roll["by"]["role"] = "gm"
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(json.dumps(e) + "\n" for e in events))
    # Not caught, and not claimed: the output names what it did not prove.
    assert "cannot be proven" in _said(forged)[1]
