"""The plugin author's kit: ``sidecar new-plugin`` and ``sidecar.testing``.

The main test writes a project with ``sidecar new-plugin`` in a temporary directory,
installs it into a virtual environment of its own, runs the project's tests there (they
pass at once), starts ``sidecar serve`` from that environment and rolls through a real
client; the two examples' tests, written with the kit, run the same way.

That environment is a fresh ``venv`` without pip whose one ``.pth`` line adds this
environment's site-packages as a site directory: vtt-sidecar (and its entry points, the
``pytest11`` one included), its dependencies, pytest, pip and setuptools come from here, so
nothing is downloaded and nothing is installed where this test runs; the plugins are
installed (editable, ``--no-index --no-build-isolation``) into the new environment only.
"""

from __future__ import annotations

import asyncio
import builtins
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import SimpleNamespace

import pytest

from sidecar import hookimpl
from sidecar.cli.common import EXIT_OK, EXIT_USAGE
from sidecar.cli.main import main
from sidecar.client import SidecarClient
from sidecar.model import Outcome
from sidecar.testing import (
    check_descriptions,
    check_odds_match_enumeration,
    enumerate_rolls,
    resolve,
)
from tests.helpers import GM_TOKEN
from tests.support.serve import ServeProcess

pytestmark = pytest.mark.slow  # fresh venvs, a pytest run inside each

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


# -- a separate environment ----------------------------------------------------------------

class Venv:
    """A virtual environment seeing this one's packages, where plugins get installed."""

    def __init__(self, path: Path) -> None:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)],
                       check=True, timeout=120)
        self.python = str(path / "bin" / "python")
        own = subprocess.run([self.python, "-c", "import sysconfig; "
                              "print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
        ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
        Path(own, "zz_parent_environment.pth").write_text(
            "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in ours) + "\n")
        # The machine's variables pass; a PYTHONPATH would hide what the environment itself
        # provides, and this run's pytest options are not the plugin projects'.
        self.env = {key: value for key, value in os.environ.items()
                    if key not in ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
        self.env["PYTHONUNBUFFERED"] = "1"

    def run(self, *args: str, cwd: Path | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run([self.python, *args], cwd=cwd, env=self.env,
                              capture_output=True, text=True, timeout=timeout)

    def install(self, *projects: Path) -> None:
        args = [arg for project in projects for arg in ("-e", str(project))]
        done = self.run("-m", "pip", "install", "-q", "--no-deps", "--no-index",
                        "--no-build-isolation", *args)
        assert done.returncode == 0, done.stdout + done.stderr

    def pytest(self, project: Path) -> subprocess.CompletedProcess:
        return self.run("-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=project)


def copy_example(name: str, into: Path) -> Path:
    """A copy of an example (installing never writes into the checkout)."""
    target = into / name
    shutil.copytree(EXAMPLES / name, target, ignore=shutil.ignore_patterns(
        "__pycache__", "*.egg-info", ".pytest_cache", ".ruff_cache", "build"))
    return target


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    """One environment with two new projects (a ruleset, an extension) and both examples
    installed."""
    place = tmp_path_factory.mktemp("kit")
    venv = Venv(place / "venv")
    made = {}
    for name, kind in (("table-talk", "ruleset"), ("house-rule", "extension")):
        done = venv.run("-m", "sidecar", "new-plugin", name, "--kind", kind, cwd=place)
        assert done.returncode == 0, done.stderr
        made[kind] = place / name
    examples = {name: copy_example(name, place) for name in ("pbta-moves",
                                                              "boss-weak-points")}
    venv.install(*made.values(), *examples.values())
    return SimpleNamespace(venv=venv, made=made, examples=examples, place=place)


# -- the done-when ------------------------------------------------------------------------------

async def roll_once(url: str, ruleset: str, params: dict, **kwargs) -> tuple[dict, dict]:
    async with SidecarClient(url, table="kit", name="MJ", role="gm",
                             token=GM_TOKEN) as client:
        return client.welcome, await client.roll(ruleset, params, **kwargs)


def test_a_new_ruleset_installs_passes_its_tests_and_a_server_rolls_it(kit):
    project = kit.made["ruleset"]
    assert sorted(p.name for p in project.iterdir()) == [
        ".gitignore", "README.md", "pyproject.toml", "table_talk.py", "tests"]
    tested = kit.venv.pytest(project)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert re.search(r"\b10 passed\b", tested.stdout), tested.stdout
    server = ServeProcess(command=[kit.venv.python, "-m", "sidecar"], cwd=kit.place,
                          env=kit.venv.env, timeout=60)
    try:
        assert any(line.startswith("plugins : ") and "table_talk 0.1.0" in line
                   for line in server.lines), server.lines
        welcome, outcome = asyncio.run(asyncio.wait_for(roll_once(
            server.url, "table_talk", {"dice": 2, "bonus": 1, "target": 7}, dice=[2, 3]),
            30))
    finally:
        assert server.stop() == 0
    listed = next(r for r in welcome["rulesets"] if r["name"] == "table_talk")
    assert listed["params"]["target"]["required"] is True
    assert outcome["type"] == "outcome" and outcome["result"]["total"] == 6
    assert outcome["result"]["kind"] == "failure" and outcome["text"] == (
        "MJ — (2+3) +1 = 6 contre 7 → Échec")


def test_a_new_extension_installs_and_passes_its_tests(kit):
    tested = kit.venv.pytest(kit.made["extension"])
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert re.search(r"\b6 passed\b", tested.stdout), tested.stdout


@pytest.mark.parametrize("example,count", [("pbta-moves", 21), ("boss-weak-points", 12)])
def test_the_examples_tests_pass_with_the_kit(kit, example, count):
    tested = kit.venv.pytest(kit.examples[example])
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert re.search(rf"\b{count} passed\b", tested.stdout), tested.stdout


def test_the_examples_use_every_helper_and_fixture_of_the_kit():
    import sidecar.testing as kit

    tests = "\n".join(path.read_text() for path in EXAMPLES.glob("*/tests/test_*.py"))
    helpers = [name for name in kit.__all__ if callable(getattr(kit, name))
               and not isinstance(getattr(kit, name), type)]
    fixtures = ["sidecar_plugins", "sidecar_server", "sidecar_client", "next_event"]
    assert len(helpers) == 7
    for name in helpers + fixtures:
        assert re.search(rf"\b{name}\b", tests), f"no example's test uses {name}"


# -- new-plugin's refusals and question ------------------------------------------------------

@pytest.mark.parametrize("name,says", [
    ("Bad.Name", "is not a plugin name"), ("9lives", "is not a plugin name"),
    ("a" * 41, "is not a plugin name"), ("json", "would shadow the Python module"),
    ("class", "would shadow"), ("oweens", "already the name of an installed sidecar plugin")])
def test_new_plugin_refuses_a_bad_name_in_one_line(tmp_path, monkeypatch, capsys, name, says):
    monkeypatch.chdir(tmp_path)
    assert main(["new-plugin", name, "--locale", "en"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_new_plugin_refuses_an_existing_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "mine.txt").write_text("keep")
    assert main(["new-plugin", "taken", "--locale", "en"]) == EXIT_USAGE
    assert main(["new-plugin", "other", "--directory", "taken", "--locale", "en"]) == EXIT_USAGE
    err = capsys.readouterr().err.splitlines()
    assert err == ["sidecar: 'taken' already exists: choose another name or --directory"] * 2
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["mine.txt"]


class Terminal:
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("answer,kind", [("", "ruleset"), ("e", "extension"),
                                         ("extension", "extension"), ("r", "ruleset")])
def test_new_plugin_asks_which_kind_in_a_terminal(tmp_path, monkeypatch, capsys, answer,
                                                  kind):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", Terminal())
    asked = []
    monkeypatch.setattr(builtins, "input", lambda prompt: asked.append(prompt) or answer)
    assert main(["new-plugin", "asked", "--locale", "en"]) == EXIT_OK
    assert len(asked) == 1 and "ruleset" in asked[0]
    module = (tmp_path / "asked" / "asked.py").read_text()
    assert ("def sidecar_resolve" in module) is (kind == "ruleset")
    assert capsys.readouterr().out.startswith(f"{kind} 'asked' written to asked/")


def test_new_plugin_without_a_terminal_writes_a_ruleset_without_asking(tmp_path,
                                                                        monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(builtins, "input", lambda prompt: pytest.fail("asked"))
    assert main(["new-plugin", "quiet-one", "--directory", "sub/quiet"]) == EXIT_OK
    assert "def sidecar_resolve" in (tmp_path / "sub" / "quiet" / "quiet_one.py").read_text()


# -- sidecar.testing finds what is wrong ---------------------------------------------------------

class WrongOdds:
    """A d6 ruleset whose odds forget that a 6 is a critical."""

    @hookimpl
    def sidecar_rulesets(self):
        return [{"name": "wrong", "title": "Wrong", "version": "1",
                 "params": {"target": {"type": "int", "min": 1, "max": 6, "default": 4}}}]

    @hookimpl
    def sidecar_resolve(self, roll, dice):
        face = dice.roll(6)
        kind = ("critical" if face == 6 else "success" if face >= roll.params["target"]
                else "failure")
        return Outcome(result={"success": kind != "failure",
                               "margin": face - roll.params["target"], "kind": kind,
                               "label": {"fr": kind, "en": kind}}, dice=dice.rolled)

    @hookimpl
    def sidecar_odds(self, roll):
        p = (7 - roll.params["target"]) / 6
        return {"p_success": p, "kinds": {"success": p, "failure": 1 - p}}


def test_wrong_odds_fail_the_enumeration_check_naming_the_kind():
    rolls = enumerate_rolls(WrongOdds(), "wrong", {"target": 4}, name="wrong")
    assert rolls.sequences == 6 and rolls.kinds["critical"] == rolls.kinds["failure"] / 3
    with pytest.raises(AssertionError, match="differ for .*critical"):
        check_odds_match_enumeration(WrongOdds(), "wrong", {"target": 4}, name="wrong")


class BadSheet:
    """An extension whose sheet field is a resource of the wrong type."""

    @hookimpl
    def sidecar_sheet(self, ruleset):
        return {"luck": {"type": "string", "resource": True, "default": "x"}}


def test_a_bad_description_fails_the_check_naming_the_plugin_and_field():
    with pytest.raises(AssertionError, match=r"plugin 'badsheet'.*field 'luck'"):
        check_descriptions(BadSheet(), name="badsheet")


class Raising:
    """An extension that fails on every outcome."""

    @hookimpl
    def sidecar_modify_outcome(self, roll, outcome):
        raise RuntimeError("oops")


def test_a_failing_extension_fails_the_test_unless_allowed():
    params = {"expr": "1d6"}
    with pytest.raises(AssertionError, match=r"raising\.sidecar_modify_outcome.*oops"):
        resolve(Raising(), "dice", params, faces=[3], name="raising")
    outcome = resolve(Raising(), "dice", params, faces=[3], name="raising",
                      allow_failures=True)
    assert outcome["failures"] and outcome["result"]["total"] == 3


def test_the_pytest_plugin_costs_nothing_at_import():
    """pytest loads sidecar.testing in every run where vtt-sidecar is installed: importing
    it starts nothing and loads neither the server nor the plugins."""
    code = ("import sys, threading, sidecar.testing; "
            "print(sorted(m for m in ('sidecar.server.connections', 'sidecar.host.plugins',"
            " 'sidecar.client',"
            " 'sidecar.host.pipeline', 'websockets') if m in sys.modules), "
            "threading.active_count())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "1"]
