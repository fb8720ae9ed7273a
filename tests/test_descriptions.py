"""Descriptions are checked strictly at load (issue 16): a malformed ``params``, sheet or
options description stops ``sidecar serve`` with one line naming the plugin, the hook, the
description and the key, French then English — never a load that fails at the first roll.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from sidecar.host.descriptions import options_problems, params_problems, sheet_problems
from sidecar.host.plugins import PluginLoadError, default_host
from tests.support.plugins import write_plugins
from tests.support.serve import sidecar

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "boss-weak-points"
GOOD_PARAM = '{"type": "int", "min": 1, "max": 6, "default": 3}'


def ruleset_plugin(params: str, extra: str = "") -> str:
    return f'''
from sidecar import hookimpl

@hookimpl
def sidecar_rulesets():
    return [{{"name": "tour", "title": "Tour", "version": "1.0"{extra},
             "params": {params}}}]

@hookimpl
def sidecar_resolve(roll, dice):
    face = dice.roll(6)
    return {{"result": {{"success": face > 3, "margin": face - 4,
                        "kind": "success" if face > 3 else "failure",
                        "label": {{"fr": "fait", "en": "done"}}}}}}
'''


def sheet_plugin(sheet: str) -> str:
    return ruleset_plugin(f'{{"n": {GOOD_PARAM}}}') + f'''
@hookimpl
def sidecar_sheet(ruleset):
    return {sheet} if ruleset == "tour" else None
'''


def options_plugin(params: str) -> str:
    return f'''
from sidecar import hookimpl

@hookimpl
def sidecar_options():
    return {{"label": {{"fr": "Ruse", "en": "Cunning"}}, "params": {params}}}

@hookimpl
def sidecar_modify_roll(roll):
    pass
'''


#: id → (plugin source, hook, description named, key named, what the English says).
MALFORMED = {
    "misspelled default": (
        ruleset_plugin('{"n": {"type": "int", "min": 1, "max": 6, "defualt": 3}}'),
        "sidecar_rulesets", "tour", "n.defualt",
        "unknown key for a parameter of type int, did you mean 'default'?"),
    "min as a string": (
        ruleset_plugin('{"n": {"type": "int", "min": "1", "max": 6}}'),
        "sidecar_rulesets", "tour", "n.min", "must be an integer, not '1'"),
    "min above max": (
        ruleset_plugin('{"n": {"type": "int", "min": 6, "max": 1}}'),
        "sidecar_rulesets", "tour", "n.min", "min 6 is greater than max 1"),
    "default out of range": (
        ruleset_plugin('{"n": {"type": "int", "min": 1, "max": 6, "default": 9}}'),
        "sidecar_rulesets", "tour", "n.default", "must be ≤ 6, not 9"),
    "default of the wrong type": (
        ruleset_plugin('{"n": {"type": "int", "min": 1, "max": 6, "default": "3"}}'),
        "sidecar_rulesets", "tour", "n.default", "must be of type int, not str"),
    "choices without the default": (
        ruleset_plugin('{"side": {"type": "string", "choices": ["pile", "face"], '
                       '"default": "tranche"}}'),
        "sidecar_rulesets", "tour", "side.default", "must be one of pile, face"),
    "a type that does not exist": (
        ruleset_plugin('{"n": {"type": "float"}}'),
        "sidecar_rulesets", "tour", "n.type", "unknown type 'float'"),
    "a label neither str nor fr/en": (
        ruleset_plugin('{"n": {"type": "int", "label": {"de": "Würfel"}}}'),
        "sidecar_rulesets", "tour", "n.label", 'must be a string or {"fr"'),
    "a named value out of range": (
        ruleset_plugin('{"n": {"type": "int", "min": 1, "max": 6, "labels": {"Dur": 8}}}'),
        "sidecar_rulesets", "tour", "n.labels", "'Dur' stands for 8"),
    "a pattern that is no regex": (
        ruleset_plugin('{"code": {"type": "string", "pattern": "[0-9"}}'),
        "sidecar_rulesets", "tour", "code.pattern", "not a regular expression"),
    "a key of another type": (
        ruleset_plugin('{"n": {"type": "string", "min": 1}}'),
        "sidecar_rulesets", "tour", "n.min", "unknown key for a parameter of type string"),
    "a required parameter with a default": (
        ruleset_plugin('{"n": {"type": "int", "required": True, "default": 2}}'),
        "sidecar_rulesets", "tour", "n.default", "a required parameter's default would never"),
    "a misspelled ruleset key": (
        ruleset_plugin('{}', extra=', "parmas": {}'),
        "sidecar_rulesets", "tour", "parmas", "unknown key for a ruleset"),
    "max_items as a string": (
        ruleset_plugin('{"omens": {"type": "list", "choices": ["lune"], "max_items": "2"}}'),
        "sidecar_rulesets", "tour", "omens.max_items", "must be a positive integer"),
    "a sheet refill that does not exist": (
        sheet_plugin('{"luck": {"type": "int", "min": 0, "max": 3, "default": 3, '
                     '"refill": "weekly"}}'),
        "sidecar_sheet", "tour", "luck.refill", "refill is 'turn' or 'rest'"),
    "a sheet field misspelled": (
        sheet_plugin('{"luck": {"type": "int", "min": 0, "max": 3, "default": 3, '
                     '"ressource": True}}'),
        "sidecar_sheet", "tour", "luck.ressource", "unknown key for a sheet field"),
    "an option's cost on a string": (
        options_plugin('{"feint": {"type": "string", "cost": 2}}'),
        "sidecar_options", None, "feint.cost", "only a bool or a list with choices"),
    "an option's choice label for no choice": (
        options_plugin('{"zone": {"type": "string", "choices": ["tete"], '
                       '"choice_labels": {"bras": "Bras"}}}'),
        "sidecar_options", None, "zone.choice_labels.bras", "is not one of the choices"),
    "a level's name for no label": (
        ruleset_plugin('{"n": {"type": "int", "labels": {"Facile": 1}, '
                       '"label_names": {"Dur": {"fr": "Dur", "en": "Hard"}}}}'),
        "sidecar_rulesets", "tour", "n.label_names.Dur", "is not one of the labels"),
    "level names that are no map": (
        ruleset_plugin('{"n": {"type": "int", "labels": {"Facile": 1}, "label_names": ["Easy"]}}'),
        "sidecar_rulesets", "tour", "n.label_names", "must be a map from a label to its name"),
    "choice labels that are no map": (
        options_plugin('{"zone": {"type": "string", "choices": ["tete"], "choice_labels": 3}}'),
        "sidecar_options", None, "zone.choice_labels", "must be a map from a choice to its label"),
}


@pytest.mark.parametrize("why", MALFORMED)
def test_sidecar_serve_refuses_a_malformed_description_naming_plugin_and_key(tmp_path, why):
    source, hook, described, key, reason = MALFORMED[why]
    directory = write_plugins(tmp_path / "p", malformed=source)
    said = {}
    for locale in ("fr", "en"):  # (serve speaks one language: French, or --locale en)
        served = sidecar("serve", "--port", "0", "--db", ":memory:",
                         "--plugins-dir", str(directory), "--locale", locale)
        assert served.returncode != 0
        lines = served.stderr.strip().splitlines()
        assert len(lines) == 1, served.stderr          # one line, no traceback
        said[locale] = lines[0]
    name, _, entry = key.partition(".")
    noun = {"sidecar_rulesets": "parameter", "sidecar_sheet": "field",
            "sidecar_options": "option"}[hook]
    english = (f"plugin 'malformed', {hook}, "
               + {"sidecar_rulesets": f"ruleset '{described}', ",
                  "sidecar_sheet": f"the sheet of '{described}', ",
                  "sidecar_options": "its options, "}[hook]
               + (f"{noun} '{name}', key '{entry}': " if entry else f"key '{name}': ")
               + reason)
    assert english in said["en"] and "plugin « malformed »" not in said["en"]
    assert "plugin « malformed »" in said["fr"] and "plugin 'malformed'" not in said["fr"]
    assert f"clé « {entry or name} »" in said["fr"]


@pytest.mark.parametrize("why", MALFORMED)
def test_the_load_error_carries_plugin_hook_description_and_key(tmp_path, why):
    source, hook, described, key, _ = MALFORMED[why]
    directory = write_plugins(tmp_path / "p", malformed=source)
    with pytest.raises(PluginLoadError) as refused:
        default_host(directory)
    error = refused.value
    assert (error.plugin, error.hook, error.description, error.key) == (
        "malformed", hook, described, key)


def test_every_problem_is_counted_when_several():
    problems = params_problems({"a": {"type": "int", "min": "0", "mx": 3},
                                "b": {"type": "bool", "default": 1}})
    assert [(p.name, p.key) for p in problems] == [("a", "mx"), ("a", "min"), ("b", "default")]


def test_sound_descriptions_pass():
    assert params_problems({
        "pool": {"type": "int", "min": 1, "max": 50, "required": True,
                 "labels": {"Peu": 2}, "label": {"fr": "Réserve", "en": "Pool"}},
        "omens": {"type": "list", "choices": ["lune"], "default": [], "max_items": 2,
                  "choice_labels": {"lune": {"fr": "Lune"}}},
        "dice": {"type": "list", "items": "int", "item": {"min": 1, "max": 6},
                 "default": [1, 2]},
        "code": {"type": "string", "pattern": "[0-9]+D", "example": "4D",
                 "max_length": 8, "description": None},
        "skills": {"type": "map", "values": "int", "item": {"min": 0}, "default": {}},
    }) == []
    assert sheet_problems({"luck": {"type": "int", "min": 0, "max": 3, "default": 3,
                                    "resource": True, "refill": "rest"}}) == []
    assert options_problems({"rulesets": ["tour"], "params": {
        "feint": {"type": "bool", "cost": 1, "default": False},
        "moves": {"type": "list", "choices": ["a", "b"], "cost": {"a": 1}}}}) == []


def test_a_forms_layout_keys_are_checked():
    """``more`` folds a param, ``situation`` names the bool that brings it (issue 29)."""
    assert params_problems({
        "drinking": {"type": "bool", "default": False},
        "drinks": {"type": "int", "min": 0, "situation": "drinking"},
        "equipment": {"type": "int", "min": 0, "more": True},
    }) == []
    problems = params_problems({
        "drinks": {"type": "int", "situation": "nowhere"},
        "glass": {"type": "int", "situation": "drinks"},
        "equipment": {"type": "int", "more": "yes"},
    })
    assert [(p.name, p.key) for p in problems] == [
        ("equipment", "more"), ("drinks", "situation"), ("glass", "situation")]


def test_a_situations_sets_name_params_of_the_same_description():
    """``sets`` on a situation's bool: what its rule fixes, a form picks it (issue 29)."""
    assert params_problems({
        "drinking": {"type": "bool", "default": False, "sets": {"characteristic": "ENC"}},
        "characteristic": {"type": "string", "choices": ["PEP", "ENC"]},
    }) == []
    problems = params_problems({
        "drinking": {"type": "bool", "sets": {"nowhere": "ENC"}},
        "volley": {"type": "bool", "sets": "FLA"},
    })
    assert [(p.name, p.key) for p in problems] == [("drinking", "sets"), ("volley", "sets")]


def test_every_built_in_and_the_boss_example_pass_the_strict_checks(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    boss = importlib.import_module("boss_weak_points")
    try:
        host = default_host()
        host.register(boss, "boss", version=boss.__version__, source="example")
        host.check_sheets()   # (strict: raises on any problem)
        host.check_options()
    finally:
        sys.modules.pop("boss_weak_points", None)
    assert {"oweens", "ladder", "bloodlust", "d6code", "seuil", "dice"} <= set(host.rulesets)
    assert {"combat", "blank_botch", "boss"} <= set(host.option_descriptions())
    for ruleset in host.rulesets:
        assert sheet_problems(host.sheet_schema(ruleset)) == [], ruleset
