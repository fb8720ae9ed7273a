"""The command line shows remote text, never lets the terminal obey it (issue 25, item 11).

A ruleset (a plugin's bug, or worse) writes terminal escapes into its texts and notes, on
a real ``sidecar serve``; ``watch``, ``history`` and ``roll`` — real processes — print
them written out, in text and in ``--json`` (still the same JSON).
"""

from __future__ import annotations

import json
import os
import subprocess

from tests.helpers import GM_TOKEN
from tests.support.plugins import write_plugins
from tests.support.serve import ROOT, SIDECAR, ServeProcess, sidecar

NOISY = '''
"""A ruleset whose texts and notes carry terminal escapes (a plugin's bug, or worse)."""
from sidecar import hookimpl
from sidecar.model import Outcome, label

EVIL = "\\r\\x1b[2K#99 \\u2713\\u2713 Eve critique\\x1b]0;pwned\\x07\\x1b]52;c;cHduZWQ=\\x07\\x9b8m"

@hookimpl
def sidecar_rulesets():
    return [{"name": "bruyant", "params": {}}]

@hookimpl
def sidecar_resolve(roll, dice):
    dice.roll(6)
    return Outcome(result={"success": True, "margin": 0, "kind": "success",
                           "label": label("ok" + EVIL, "ok" + EVIL)},
                   notes=["note" + EVIL])

@hookimpl
def sidecar_render_text(roll, outcome, locale):
    return "texte" + EVIL
'''

#: What a terminal obeys: none of it may reach the command line's output.
RAW = ("\x1b", "\r", "\x07", "\x9b")


def test_the_command_line_escapes_the_remote_text_it_prints(tmp_path):
    """``watch``, ``history`` and ``roll`` print a plugin's text, label and notes with
    their escapes written out, in text and in ``--json`` (still valid JSON)."""
    directory = write_plugins(tmp_path / "p", noisy=NOISY)
    with ServeProcess("--db", ":memory:", "--plugins-dir", str(directory)) as server:
        gm = ["--url", server.url, "--table", "t", "--role", "gm", "--token", GM_TOKEN,
              "--name", "MJ"]
        watch = subprocess.Popen([*SIDECAR, "watch", *gm, "--count", "1"], cwd=ROOT,
                                 text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            assert "table t" in watch.stdout.readline()
            rolled = sidecar("roll", "bruyant", *gm)
            watched, _ = watch.communicate(timeout=30)
        finally:
            watch.kill()
        history = sidecar("history", *gm)
        as_json = sidecar("history", *gm, "--json")
        rolled_json = sidecar("roll", "bruyant", *gm, "--json")
        for name, output in (("roll", rolled.stdout), ("watch", watched),
                             ("history", history.stdout), ("history --json", as_json.stdout),
                             ("roll --json", rolled_json.stdout)):
            assert "texte" in output and "note" in output, (name, output)
            assert not any(raw in output for raw in RAW), (name, output)
        for name, output in (("roll", rolled.stdout), ("watch", watched),
                             ("history", history.stdout)):
            assert "texte\\x0d\\x1b[2K#99" in output, (name, output)
        # --json stays JSON, with the same strings as the server sent
        event = json.loads(as_json.stdout.splitlines()[-1])
        assert event["text"].startswith("texte\r\x1b[2K#99")
        assert json.loads(rolled_json.stdout)["notes"][0].endswith("\x9b8m")


def test_plugins_and_export_escape_what_they_print(tmp_path):
    """The re-attack of item 11: ``sidecar plugins`` (the local listing) printed a plugin's
    docstring raw, and ``sidecar export`` to stdout a journal's C1 controls (a ``\\x9b`` from
    a plugin's text). Both now show them written out; the export is still the same JSON."""
    evil_doc = NOISY.replace('"""A ruleset whose texts',
                             '"""\\x1b]0;pwned\\x07\\x9b8mA ruleset whose texts', 1)
    directory = write_plugins(tmp_path / "p", noisy=evil_doc)
    listed = sidecar("plugins", "--plugins-dir", str(directory))
    assert listed.returncode == 0, listed.stderr
    assert "bruyant" in listed.stdout or "noisy" in listed.stdout, listed.stdout
    assert not any(raw in listed.stdout for raw in RAW), listed.stdout
    db = tmp_path / "j.db"
    with ServeProcess("--db", str(db), "--plugins-dir", str(directory)) as server:
        gm = ["--url", server.url, "--table", "t", "--role", "gm", "--token", GM_TOKEN,
              "--name", "MJ"]
        assert sidecar("roll", "bruyant", *gm).returncode == 0
    exported = sidecar("export", "--table", "t", "--db", str(db))
    assert exported.returncode == 0, exported.stderr
    assert "texte" in exported.stdout
    assert not any(raw in exported.stdout for raw in RAW), exported.stdout
    event = json.loads(exported.stdout.splitlines()[-1])
    assert event["notes"][0].endswith("\x9b8m")  # the same values, written out
