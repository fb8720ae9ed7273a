"""``docs/PLUGINS.md`` (issue 16): its hooks section is generated from
``sidecar/hookspecs.py`` and fails here when the two drift apart; its ruleset and
extension examples work on a real server."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from sidecar.host.plugins import HOOK_NAMES
from sidecar.tools import docgen
from tests.helpers import peers, run, running_server

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "PLUGINS.md"


def test_the_hooks_section_is_what_hookspecs_says():
    section = docgen.current(GUIDE.read_text(encoding="utf-8"))
    assert section is not None, "the generation markers are missing"
    assert section == docgen.render(), (
        "docs/PLUGINS.md is out of date with sidecar/hookspecs.py: run "
        "python -m sidecar.tools.docgen")


def test_every_hook_has_its_entry_with_its_signature():
    section = docgen.current(GUIDE.read_text(encoding="utf-8"))
    for hook in HOOK_NAMES:
        assert f"### `{hook}`" in section
    assert "sidecar_resolve(roll: Roll, dice: Dice) -> Outcome | dict[str, Any] | None" \
        in section
    assert "- **`dice`**: where faces come from" in section      # a :param:, as an item
    assert "*`firstresult`: the first answer wins.*" in section
    assert "**Who is called.**" in section       # the rules common to every hook too
    assert "``" not in section.replace("```", "")                  # no reST literal left


def test_docgen_check_fails_on_drift_and_the_rewrite_fixes_it(tmp_path):
    drifted = tmp_path / "PLUGINS.md"
    shutil.copy(GUIDE, drifted)
    text = drifted.read_text(encoding="utf-8")
    drifted.write_text(text.replace("Draw every face through", "Draw a face through", 1)
                       .replace("### `sidecar_odds`", "### `sidecar_oddz`"), encoding="utf-8")

    def docgen_cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "sidecar.tools.docgen", "--path", str(drifted),
                               *args], capture_output=True, text=True, timeout=60)

    checked = docgen_cli("--check")
    assert checked.returncode == 1 and "out of date" in checked.stderr
    assert docgen_cli().returncode == 0
    assert docgen_cli("--check").returncode == 0
    fixed = drifted.read_text(encoding="utf-8")
    assert "### `sidecar_odds`" in fixed
    assert "Draw a face through" in fixed   # (outside the section: the author's own text)


def example(heading: str) -> str:
    """The first Python block of the guide's section ``heading``."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index(f"## {heading}"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_guides_ruleset_and_extension_work_on_a_real_server(tmp_path):
    directory = tmp_path / "my_plugins"
    directory.mkdir()
    (directory / "coin.py").write_text(example("Écrire un jeu de règles"))
    (directory / "ruse.py").write_text(example("Écrire une extension"))

    async def scenario():
        async with running_server(plugins_dir=str(directory)) as server, \
                peers(server, 1) as (peer,):
            welcome = await peer.join(role="gm")
            coin = next(r for r in welcome["rulesets"] if r["name"] == "coin")
            assert coin["params"]["call"]["label"] == {"fr": "Annonce", "en": "Call"}
            assert any(o["name"] == "ruse" for o in welcome["options"])
            won = await peer.roll("coin", {"call": "pile"}, dice=[1])
            assert won["result"]["success"] is True
            plain = await peer.roll("bloodlust", {"pool": 3, "difficulty": 6},
                                    dice=[9, 8, 2])
            feint = await peer.roll("bloodlust", {"pool": 4, "difficulty": 6},
                                    dice=[9, 8, 2], options={"ruse": {"feint": True}})
            assert feint["params"]["pool"] == 3 and feint["applied"] == ["ruse"]
            assert feint["result"]["margin"] == plain["result"]["margin"] + 1
            short = await peer.roll("bloodlust", {"pool": 1},
                                    options={"ruse": {"feint": True}})
            assert short["code"] == "invalid_params"
            assert short["details"]["param"] == "options.ruse.feint"
    run(scenario())


def test_the_guides_load_error_is_what_sidecar_serve_prints(tmp_path):
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index("## Vérifié au chargement"):]
    sample = re.search(r"```\n(sidecar: .*?)```", section, re.S).group(1)
    (tmp_path / "tour.py").write_text(
        "from sidecar import hookimpl\n\n@hookimpl\ndef sidecar_rulesets():\n"
        '    return [{"name": "tour", "params": {"n": {"type": "int", "min": 1, "max": 6,'
        ' "defualt": 3}}}]\n')
    served = subprocess.run([sys.executable, "-m", "sidecar", "serve", "--port", "0", "--db",
                             ":memory:", "--plugins-dir", str(tmp_path)],
                            capture_output=True, text=True, timeout=60)
    assert served.returncode != 0
    assert served.stderr.count("\n") == 1
    # (The guide wraps the line: compare the words.)
    assert sample.split() == served.stderr.split()


def test_owner_only_hooks_say_so_in_their_specs_and_are_not_firstresult():
    """The ruleset's own hooks are marked owner-only in sidecar/hookspecs.py (what the
    caller reads to call the owner alone), and the guide says so under each."""
    from sidecar import hookspecs

    assert set(hookspecs.OWNER_ONLY) == {"sidecar_resolve", "sidecar_react",
                                         "sidecar_initiative", "sidecar_odds"}
    section = docgen.current(GUIDE.read_text(encoding="utf-8"))
    for name, _, opts in docgen.hooks():
        entry = section.split(f"### `{name}`", 1)[1].split("\n### ", 1)[0]
        owner_only = name in hookspecs.OWNER_ONLY
        assert ("*owner only:" in entry) is owner_only, name
        if owner_only:
            assert not opts.get("firstresult") and "firstresult" not in entry, name
