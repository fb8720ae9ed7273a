"""How the project is installed: one top-level package, ``sidecar``, holding the folders
``protocol/`` and ``plugins/`` as ``sidecar.protocol`` and ``sidecar.rulesets`` — and the same
names when Python runs from the checkout itself."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def python_in_checkout(code: str) -> subprocess.CompletedProcess:
    """Python started in the repository's root with no install of the project active:
    ``-S`` skips site (so no editable-install finder), the dependencies come from this
    environment's site-packages on PYTHONPATH."""
    site_packages = sysconfig.get_paths()["purelib"]
    return subprocess.run([sys.executable, "-S", "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={"PYTHONPATH": site_packages})


def test_the_checkout_finds_sidecar_protocol_and_rulesets_in_their_folders():
    done = python_in_checkout(
        "import sidecar.protocol, sidecar.rulesets.oweens as o, sidecar.cli.main;"
        "print(sidecar.protocol.__file__); print(o.__file__)")
    assert done.returncode == 0, done.stderr
    protocol_init, oweens = done.stdout.split()
    assert Path(protocol_init) == ROOT / "protocol" / "__init__.py"
    assert Path(oweens) == ROOT / "plugins" / "oweens.py"


def test_the_bare_folder_names_refuse_to_load_a_second_copy():
    for name, right in (("protocol", "sidecar.protocol"), ("plugins", "sidecar.rulesets")):
        done = python_in_checkout(f"import {name}")
        assert done.returncode == 1
        assert "import the" in done.stderr and f"'{right}'" in done.stderr, done.stderr


@pytest.mark.slow  # builds the wheel in an isolated environment
def test_the_wheel_installs_one_package_named_after_the_project(tmp_path):
    # Builds the wheel in an isolated build environment; nothing is installed here. From a
    # copy of the checkout: setuptools builds in the source tree (build/, *.egg-info), where
    # a stale build/ of an older layout would slip into the wheel, and where other tests
    # run beside this one.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "build", "*.egg-info", "__pycache__", ".hypothesis",
        ".pytest_cache", ".ruff_cache", "node_modules"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                            str(tmp_path), str(source)], capture_output=True, text=True,
                           timeout=300)
    assert built.returncode == 0, built.stderr
    wheel = next(tmp_path.glob("vtt_sidecar-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.startswith("vtt_sidecar-")}
    assert tops == {"sidecar"}
    for expected in ("sidecar/protocol/PROTOCOL.md", "sidecar/protocol/codec.py",
                     "sidecar/rulesets/oweens.py", "sidecar/server/web/index.html",
                     # the Foundry module served at /foundry/ (sidecar/server/foundry.py)
                     "sidecar/foundry/module.json", "sidecar/foundry/scripts/module.js",
                     "sidecar/foundry/scripts/sidecar-chat.js",
                     "sidecar/foundry/styles/sidecar.css", "sidecar/foundry/lang/fr.json"):
        assert expected in names
    assert not any(name.startswith("sidecar/foundry/test/") for name in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "oweens = sidecar.rulesets.oweens" in text and "plugins." not in text
