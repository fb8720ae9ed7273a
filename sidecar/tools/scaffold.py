"""``sidecar new-plugin``: the files of a new plugin project, ready to install and test.

A project is a ``pyproject.toml`` with the ``sidecar`` entry point, the plugin module (a
ruleset or an extension), its tests using :mod:`sidecar.testing`, a README in French and
English and a ``.gitignore``. ``pip install -e .`` then ``pytest`` in it passes at once,
and ``sidecar serve`` loads it.
"""

from __future__ import annotations

import keyword
import re
import sys
from importlib import metadata
from pathlib import Path
from string import Template

KINDS = ("ruleset", "extension")

#: A plugin's name: lower-case words joined by ``-`` or ``_`` (the module's name is it
#: with ``_`` for ``-``; it names the plugin, its options, its ruleset).
NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
MAX_NAME = 40
#: Names a plugin module must not take: they would shadow what the tests import.
RESERVED = frozenset({"sidecar", "test", "tests", "pytest", "conftest", "setup"})


def module_name(name: str) -> str:
    """``pbta-moves`` → ``pbta_moves``: the plugin's module, entry point and ruleset."""
    return name.replace("-", "_")


def name_problem(name: str, locale: str = "en") -> str | None:
    """Why ``name`` cannot name a new plugin (one line, French for ``locale`` ``fr``), or
    ``None``."""
    french = locale == "fr"
    if len(name) > MAX_NAME or not NAME.fullmatch(name):
        if french:
            return (f"« {name} » n'est pas un nom de plugin : lettres minuscules et chiffres, "
                    "mots joints par « - » ou « _ », commençant par une lettre, "
                    f"{MAX_NAME} caractères au plus (ex. pbta-moves)")
        return (f"'{name}' is not a plugin name: lower-case letters and digits, words joined "
                f"by '-' or '_', starting with a letter, at most {MAX_NAME} characters "
                "(e.g. pbta-moves)")
    module = module_name(name)
    if keyword.iskeyword(module) or module in RESERVED or module in sys.stdlib_module_names:
        if french:
            return (f"« {name} » cacherait le module Python « {module} » : choisissez un "
                    "autre nom")
        return f"'{name}' would shadow the Python module '{module}': choose another name"
    taken = {ep.name for ep in metadata.entry_points(group="sidecar")}
    if module in taken:
        if french:
            return f"« {module} » est déjà le nom d'un plugin sidecar installé"
        return f"'{module}' is already the name of an installed sidecar plugin"
    return None


def project_files(name: str, kind: str) -> dict[str, str]:
    """Relative path → text of every file of a new ``kind`` plugin named ``name``."""
    if kind not in KINDS:
        raise ValueError(f"kind is one of {', '.join(KINDS)}")
    module = module_name(name)
    dist = name if name.startswith("sidecar-") else f"sidecar-{name}"
    words = {"name": name, "module": module, "dist": dist, "kind": kind,
             "kind_fr": "Un jeu de règles" if kind == "ruleset" else "Une extension"}
    words["usage"] = (f"sidecar roll {module} dice=2 target=7" if kind == "ruleset" else
                      f"sidecar roll dice expr=2d6 target=7 --option {module}.reminder=Bravo")
    plugin, tests = (RULESET, RULESET_TESTS) if kind == "ruleset" else (EXTENSION,
                                                                      EXTENSION_TESTS)
    return {
        "pyproject.toml": Template(PYPROJECT).substitute(words),
        f"{module}.py": Template(plugin).substitute(words),
        f"tests/test_{module}.py": Template(tests).substitute(words),
        "README.md": Template(README).substitute(words),
        ".gitignore": GITIGNORE,
    }


def write_project(name: str, kind: str, directory: Path) -> list[Path]:
    """Write the project into ``directory`` (which must not exist); the files written."""
    files = project_files(name, kind)
    directory.mkdir(parents=True)
    written = []
    for relative, text in files.items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


# -- templates (string.Template: $module, $name, $dist, $kind) ---------------------------------

PYPROJECT = """\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "$dist"
version = "0.1.0"
description = "A $kind for vtt-sidecar"
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["vtt-sidecar"]

[project.optional-dependencies]
test = ["pytest>=8"]

# This entry point is how vtt-sidecar finds the plugin. Its name ("$module") is the
# plugin's name: what `sidecar plugins` lists and the key of its per-roll options.
[project.entry-points.sidecar]
$module = "$module"

[tool.setuptools]
py-modules = ["$module"]

[tool.pytest.ini_options]
testpaths = ["tests"]

[tool.ruff]
line-length = 100

[tool.ruff.lint]
select = ["E", "F", "W", "I", "B", "UP"]

[tool.ruff.lint.isort]
known-first-party = ["$module"]
"""

RULESET = '''\
"""$name : un jeu de règles pour vtt-sidecar / $name: a ruleset for vtt-sidecar.

Roll ``dice`` six-sided dice and add ``bonus``: a total that reaches ``target`` is a
success, one that beats it by 5 or more a critical success. Dice order: the dice, in the
order rolled (what a player enters with physical dice).

Made with ``sidecar new-plugin``: change the rules below, and the tests in ``tests/`` with
them. Every hook is documented in ``sidecar/hookspecs.py`` (and docs/PLUGINS.md).
"""

from __future__ import annotations

from typing import Any

from sidecar import hookimpl
from sidecar.dice import Dice
from sidecar.model import Outcome, Roll, label
from sidecar.probability import odds_reply, sum_of
from sidecar.rules import heading

__version__ = "0.1.0"

#: The ruleset's name: what a client sends as ``ruleset``.
RULESET = "$module"
#: A total that beats the target by this much is a critical success.
CRITICAL_BY = 5

#: The roll's parameters: the server checks every request against them and fills in the
#: defaults before any hook sees it; clients build their form from them.
PARAMS: dict[str, dict[str, Any]] = {
    "dice": {"type": "int", "min": 1, "max": 10, "default": 2,
             "label": label("Dés", "Dice"),
             "description": label("Nombre de d6 lancés", "How many d6 are rolled")},
    "bonus": {"type": "int", "min": -20, "max": 20, "default": 0,
              "label": label("Bonus", "Bonus"),
              "description": label("Ajouté au total des dés", "Added to the dice's total")},
    "target": {"type": "int", "min": 1, "max": 100, "required": True,
               "label": label("Seuil", "Target"),
               "description": label("Le total à atteindre", "The total to reach")},
}

LABELS = {
    "critical": label("Réussite critique", "Critical success"),
    "success": label("Réussite", "Success"),
    "failure": label("Échec", "Failure"),
}


def kind_of(total: int, target: int) -> str:
    """The kind of a total against the target (one of the five kinds of the protocol)."""
    if total >= target + CRITICAL_BY:
        return "critical"
    return "success" if total >= target else "failure"


@hookimpl
def sidecar_rulesets() -> list[dict[str, Any]]:
    return [{"name": RULESET, "title": label("$name", "$name"), "version": __version__,
             "params": PARAMS,
             "dice_order": label("les dés, dans l'ordre", "the dice, in order")}]


@hookimpl
def sidecar_resolve(roll: Roll, dice: Dice) -> Outcome:
    p = roll.params
    faces = dice.roll_many(p["dice"], 6)
    total = sum(faces) + p["bonus"]
    kind = kind_of(total, p["target"])
    result = {"success": kind != "failure", "margin": total - p["target"], "kind": kind,
              "label": LABELS[kind], "total": total, "target": p["target"]}
    return Outcome(result=result, dice=dice.rolled)


@hookimpl
def sidecar_odds(roll: Roll) -> dict[str, Any]:
    """Exact odds: the distribution of the dice's sum, shifted by the bonus."""
    p = roll.params
    totals = sum_of(p["dice"], 6).shift(p["bonus"])
    kinds = totals.map(lambda total: kind_of(total, p["target"])).counts
    return odds_reply(kinds, totals.total, "total", totals.counts.items())


@hookimpl
def sidecar_render_text(roll: Roll, outcome: Outcome, locale: str) -> str:
    r = outcome.result
    faces = "+".join(str(die["face"]) for die in outcome.dice)
    bonus = roll.params["bonus"]
    against = "contre" if locale == "fr" else "vs"
    # "Aengus — Escalade : (4+2) +1 = 7 contre 7 → Réussite": who, what, dice, bonus apart.
    dice = f"({faces}) {bonus:+d}" if bonus else faces
    return (f"{heading(roll, locale=locale)}{dice} = {r['total']} {against} {r['target']} → "
            f"{r['label'][locale]}")
'''

RULESET_TESTS = '''\
"""Tests of the $module ruleset, with vtt-sidecar's kit (``sidecar.testing``): its helpers
resolve rolls through the real pipeline, and its fixtures (``sidecar_client``) start a real
table server with this plugin installed."""

from __future__ import annotations

import pytest
from sidecar import ProtocolError
from sidecar.testing import check_descriptions, check_odds_match_enumeration, odds, resolve

import $module
from $module import RULESET


def test_its_descriptions_pass_the_servers_checks():
    described = check_descriptions($module)
    assert set(described["rulesets"][RULESET]) == {"dice", "bonus", "target"}


@pytest.mark.parametrize("faces,kind", [([1, 2], "failure"), ([3, 4], "success"),
                                        ([6, 6], "critical")])
def test_a_total_against_the_target(faces, kind):
    outcome = resolve($module, RULESET, {"dice": 2, "target": 7}, faces=faces)
    assert outcome["result"]["kind"] == kind
    assert outcome["result"]["total"] == sum(faces)
    assert [die["face"] for die in outcome["dice"]] == faces
    assert f" — {faces[0]}+{faces[1]} = {sum(faces)} vs 7" in outcome["text"]["en"]


def test_a_roll_without_a_target_is_refused():
    with pytest.raises(ProtocolError) as refused:
        resolve($module, RULESET, {"dice": 2})
    assert refused.value.code == "invalid_params"


def test_exact_odds():
    given = odds($module, RULESET, {"dice": 2, "target": 7})
    assert given["p_success"] == pytest.approx(21 / 36)
    assert given["kinds"]["critical"] == pytest.approx(1 / 36)  # 12 only


@pytest.mark.parametrize("params", [{"dice": 1, "target": 4},
                                    {"dice": 2, "bonus": 1, "target": 8},
                                    {"dice": 3, "bonus": -2, "target": 9}])
def test_the_odds_agree_with_every_possible_roll(params):
    check_odds_match_enumeration($module, RULESET, params)


def test_a_roll_at_a_live_table(sidecar_client):
    gm = sidecar_client()
    assert RULESET in [ruleset["name"] for ruleset in gm.welcome["rulesets"]]
    outcome = gm.roll(RULESET, {"dice": 2, "target": 7}, dice=[6, 6])
    assert outcome["result"]["kind"] == "critical" and outcome["result"]["total"] == 12
    rolled = gm.roll(RULESET, {"dice": 3, "target": 10})  # the server's own dice
    assert len(rolled["dice"]) == 3
'''

EXTENSION = '''\
"""$name : une extension pour vtt-sidecar / $name: an extension for vtt-sidecar.

For rolls of any ruleset that carry ``options.$module`` (``{"reminder": "…"}``): counts
the successes rolled with it at the table (its per-table memory), shows the count in the
outcome (``result.$module``) and appends the reminder to the notes.

Made with ``sidecar new-plugin``: change what it does below, and the tests in ``tests/``
with it. Every hook is documented in ``sidecar/hookspecs.py`` (and docs/PLUGINS.md).
"""

from __future__ import annotations

from typing import Any

from sidecar import hookimpl
from sidecar.model import Outcome, Roll, label

__version__ = "0.1.0"

#: The plugin's name (its entry point's, in pyproject.toml): the key of its options.
NAME = "$module"

#: What ``options.$module`` may hold: the server refuses anything else (``invalid_params``
#: naming the key) before any hook runs, and clients build a form from it.
OPTIONS: dict[str, Any] = {
    "label": label("$name", "$name"),
    "description": label("Compte les réussites de la table", "Counts the table's successes"),
    "rulesets": None,  # every ruleset
    "params": {
        "reminder": {"type": "string", "max_length": 100, "default": "",
                     "label": label("Rappel", "Reminder"),
                     "description": label("Ajouté aux notes du jet",
                                          "Added to the roll's notes")},
    },
}


@hookimpl
def sidecar_options() -> dict[str, Any]:
    return OPTIONS


@hookimpl
def sidecar_modify_outcome(roll: Roll, outcome: Outcome) -> None:
    settings = roll.options.get(NAME)
    if settings is None:
        return  # not asked for on this roll
    if outcome.result["success"]:
        roll.state["successes"] = roll.state.get("successes", 0) + 1
    outcome.result[NAME] = {"successes": roll.state.get("successes", 0)}
    if settings.get("reminder"):
        outcome.notes.append(settings["reminder"])
'''

EXTENSION_TESTS = '''\
"""Tests of the $module extension, with vtt-sidecar's kit (``sidecar.testing``): its
helpers resolve rolls through the real pipeline, and its fixtures (``sidecar_client``)
start a real table server with this plugin installed."""

from __future__ import annotations

import pytest
from sidecar import ProtocolError
from sidecar.testing import check_descriptions, check_odds_match_enumeration, odds, resolve

import $module
from $module import NAME

#: A built-in ruleset to roll with: 2d6 against a target.
RULESET, PARAMS = "dice", {"expr": "2d6", "target": 7}


def test_its_descriptions_pass_the_servers_checks():
    assert check_descriptions($module)["options"]["params"]["reminder"]["type"] == "string"


def test_a_success_is_counted_and_the_reminder_noted():
    outcome = resolve($module, RULESET, PARAMS, faces=[3, 4],
                      options={NAME: {"reminder": "Bravo"}})
    assert outcome["result"][NAME] == {"successes": 1}
    assert "Bravo" in outcome["notes"] and outcome["applied"] == [NAME]


def test_a_roll_without_its_options_is_left_alone():
    outcome = resolve($module, RULESET, PARAMS, faces=[3, 4])
    assert NAME not in outcome["result"] and outcome["applied"] == []


def test_an_unknown_key_is_refused_before_the_roll():
    with pytest.raises(ProtocolError) as refused:
        resolve($module, RULESET, PARAMS, faces=[3, 4], options={NAME: {"remindre": "x"}})
    assert refused.value.code == "invalid_params"


def test_the_odds_are_the_rulesets_and_agree_with_every_roll():
    options = {NAME: {}}
    assert odds($module, RULESET, PARAMS, options=options)["p_success"] == \\
        pytest.approx(21 / 36)
    check_odds_match_enumeration($module, RULESET, PARAMS, options=options)


def test_the_count_goes_on_at_a_live_table(sidecar_client):
    gm = sidecar_client()
    assert NAME in [option["name"] for option in gm.welcome["options"]]
    for count in (1, 2):
        outcome = gm.roll(RULESET, PARAMS, dice=[6, 6], options={NAME: {}})
        assert outcome["result"][NAME] == {"successes": count}
'''

README = """\
# $dist

*Français ci-dessous — English below.*

## Français

$kind_fr pour vtt-sidecar : voir la docstring de
`$module.py` pour ce qu'il fait.

Installer, dans l'environnement où tourne le serveur (vtt-sidecar n'est pas sur l'index
des paquets : installez-le d'abord depuis son dépôt, `pip install /chemin/vers/vtt-sidecar`) :

```sh
pip install -e .
sidecar plugins        # liste « $module » ; relancez `sidecar serve`
```

Tester (les tests utilisent `sidecar.testing`, livré avec vtt-sidecar) :

```sh
pip install -e '.[test]'   # pytest
pytest
```

Lancer : `$usage` (ou depuis la page web de la table).

## English

A $kind for vtt-sidecar: see `$module.py`'s docstring for what it
does.

Install it into the environment where the server runs (vtt-sidecar is not on the package
index: install it first from its repository, `pip install /path/to/vtt-sidecar`):

```sh
pip install -e .
sidecar plugins        # lists "$module"; restart `sidecar serve`
```

Test it (the tests use `sidecar.testing`, shipped with vtt-sidecar):

```sh
pip install -e '.[test]'   # pytest
pytest
```

How to write plugins, the hooks one by one, testing and publishing: vtt-sidecar's
`docs/PLUGINS.md`.

Roll: `$usage` (or from the table's web page).
"""

GITIGNORE = """\
__pycache__/
*.py[cod]
*.egg-info/
build/
dist/
.venv/
.pytest_cache/
.ruff_cache/
sidecar.db*
"""
