"""What every ruleset owes clients and extensions: a form-ready description, common fields,
texts in both languages, its documented dice order; and the boss package found as a
third-party plugin is (through its entry point's metadata), without installing it."""

from __future__ import annotations

import importlib
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from sidecar.host.plugins import default_host
from sidecar.protocol.messages import KINDS
from tests import rules_helpers
from tests.helpers import peers, run, running_server
from tests.rules_helpers import resolve

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ("oweens", "ladder", "bloodlust", "d6code", "seuil", "dice")
SAMPLES = {
    "oweens": {"dice": 3, "difficulty": 2},
    "ladder": {"level": 5, "difficulty": "Modéré"},
    "bloodlust": {"pool": 4},
    "d6code": {"code": "3D+2", "difficulty": "Moyen", "twin": True, "style": "extreme"},
    "seuil": {"level": 3, "threshold": "Moyen", "factors": ["soul"]},
    "dice": {"expr": "2d6+1d4kh1-1", "target": 8},
}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_params_description_is_complete_enough_for_a_form(ruleset):
    host = default_host()
    listing = next(r for r in host.ruleset_listing() if r["name"] == ruleset)
    assert set(listing["title"]) == {"fr", "en"} and listing["version"]
    assert set(listing["dice_order"]) == {"fr", "en"}
    for name, spec in listing["params"].items():
        assert spec["type"] in ("int", "bool", "string", "list"), name
        description = spec["description"]
        assert description["fr"].strip() and description["en"].strip(), name
        assert spec["label"]["fr"].strip() and spec["label"]["en"].strip(), name
        assert len(spec["label"]["fr"]) < len(description["fr"]), f"{name}: a short name"
        assert "default" in spec or spec.get("required") or spec["type"] != "bool", name
        if spec["type"] == "int":
            assert "min" in spec and "max" in spec, f"{ruleset}.{name} needs a range"
        if "default" in spec and spec["type"] == "int":
            assert spec["min"] <= spec["default"] <= spec["max"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_outcome_has_common_fields_and_both_texts(ruleset):
    for _ in range(20):
        resolution = resolve(ruleset, None, **SAMPLES[ruleset])
        r = resolution.outcome.result
        assert isinstance(r["success"], bool) and isinstance(r["margin"], int)
        assert r["kind"] in KINDS and r["label"]["fr"] and r["label"]["en"]
        assert r["margin"] <= -1 if not r["success"] else r["margin"] >= 0
        assert (r["kind"] in ("botch", "failure")) == (not r["success"])
        assert resolution.text["fr"] != resolution.text["en"]
        assert resolution.text["fr"].startswith("Aengus — ")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_rulesets_work_in_every_mode_over_the_protocol(ruleset):
    async def scenario():
        async with running_server() as server, peers(server, 2) as (gm, player):
            await gm.join(role="gm", name="MJ")
            await player.join(name="Aengus")
            for mode in ("public", "gm", "blind", "self"):
                outcome = await player.roll(ruleset, SAMPLES[ruleset], mode=mode)
                assert outcome["type"] == "outcome"
                assert ("hidden" in outcome["result"]) == (mode == "blind")
    run(scenario())


# -- the third-party boss package -----------------------------------------------------------


@pytest.fixture(scope="module")
def boss_installed(tmp_path_factory):
    """The boss package as the host finds a third-party install — through the metadata of
    its entry point — without installing anything: its source folder and metadata built
    from its own pyproject.toml go on sys.path for this module only."""
    example = ROOT / "examples" / "boss-weak-points"
    project = tomllib.loads((example / "pyproject.toml").read_text())["project"]
    site = tmp_path_factory.mktemp("boss-site")
    dist = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n")
    entry_points = "".join(f"{name} = {target}\n"
                           for name, target in project["entry-points"]["sidecar"].items())
    (dist / "entry_points.txt").write_text(f"[sidecar]\n{entry_points}")
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(example))
        patch.syspath_prepend(str(site))
        importlib.invalidate_caches()
        rules_helpers.restart()  # the shared table's next server finds the plugin
        yield
        rules_helpers.restart()  # and the one after this module does not
        sys.modules.pop("boss_weak_points", None)


def test_boss_is_discovered_through_its_entry_point(boss_installed):
    host = default_host()
    info = host.plugins["boss"]
    assert info.source == "package sidecar-boss-weak-points" and info.version == "1.0.0"
    eps = [ep for ep in metadata.entry_points(group="sidecar") if ep.name == "boss"]
    assert eps and eps[0].dist.name == "sidecar-boss-weak-points"
    assert "boss" in [e["name"] for e in host.extension_listing()]
    # Imported from the example's own source, not from an install.
    import boss_weak_points
    assert Path(boss_weak_points.__file__).is_relative_to(ROOT / "examples")


BOSS = {"armor": 2, "weak_points": {"oeil": 3}}


def test_boss_armor_reduces_wounds(boss_installed):
    r = resolve("oweens", [6, 6, 4], options={"boss": BOSS}, dice=3, difficulty=1).outcome
    assert r.result["wounds"] == 4 - 2 and r.result["boss"]["hit_weak_point"] is False
    r = resolve("oweens", [4, 2], options={"boss": BOSS}, dice=2, difficulty=0).outcome
    assert r.result["wounds"] == 0  # never below 0
    assert "boss" in r.applied


def test_boss_weak_point_ignores_armor_and_adds_bonus(boss_installed):
    r = resolve("oweens", [6, 4, 2], options={"boss": {**BOSS, "aim": "oeil"}}, dice=3,
                difficulty=2).outcome
    assert r.result["margin"] == 1 and r.result["wounds"] == 1 + 3


def test_boss_coup_d_eclat_on_a_weak_point_doubles(boss_installed):
    r = resolve("oweens", [6, 6, 4], options={"boss": {**BOSS, "aim": "oeil"}}, dice=3,
                difficulty=2).outcome
    assert r.result["kind"] == "critical" and r.result["wounds"] == (3 + 3) * 2


def test_boss_with_combat_viser_and_a_failed_aim(boss_installed):
    options = {"boss": BOSS, "combat": {"options": ["viser"], "zone": "oeil"}}
    r = resolve("oweens", [6, 4, 2], options=options, dice=4, difficulty=2).outcome
    assert r.result["boss"]["hit_weak_point"] and r.result["wounds"] == 1 + 3
    assert r.applied == ["combat", "boss"]
    r = resolve("oweens", [2, 2, 2], options=options, dice=4, difficulty=2).outcome
    assert r.result["wounds"] == 0 and not r.result["boss"]["hit_weak_point"]


def test_boss_respects_no_wound_options(boss_installed):
    options = {"boss": {**BOSS, "aim": "oeil"}, "combat": {"options": ["desarmer"]}}
    r = resolve("oweens", [6, 6, 6], options=options, dice=6, difficulty=1).outcome
    assert r.result["wounds"] == 0 and "boss" not in r.result


@pytest.mark.parametrize("ruleset,faces,params,wounds", [
    ("ladder", [3, 12], {"level": 8, "difficulty": 9}, 12 - 9 - 2),
    ("d6code", [6, 6, 6], {"code": "3D", "difficulty": 10}, 8 - 2),
    ("seuil", [9, 9], {"level": 2, "threshold": 13}, 5 - 2),
    ("bloodlust", [9, 9, 9, 9], {"pool": 4}, 3 - 2),
])
def test_boss_works_with_any_ruleset_with_a_margin(boss_installed, ruleset, faces, params,
                                                   wounds):
    r = resolve(ruleset, faces, options={"boss": BOSS}, **params).outcome
    assert r.result["wounds"] == wounds


def test_boss_bad_settings_are_refused_before_rolling(boss_installed):
    from tests.rules_helpers import refused
    error = refused("oweens", [6], options={"boss": {"armor": -1}}, dice=1)
    assert error.details == {"param": "options.boss.armor"}
