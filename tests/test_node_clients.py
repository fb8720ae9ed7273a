"""Runs the JavaScript client's and the Foundry module's Node tests (``node --test``) as
part of the suite, each against a real sidecar process that the Node tests start.

Without Node ≥ 20 these skip, unless SIDECAR_REQUIRE_NODE=1 (set by ``.ci/run``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # whole Node suites, each starting its own servers

ROOT = Path(__file__).resolve().parent.parent
SUITES = {
    "js-client": "tests/js",
    "foundry-module": "examples/foundry-module/test",
}
#: One test per Node test file (not one per suite): the suite's workers share them out
#: instead of one worker running a whole Node suite alone at the end of the run.
FILES = [f"{suite}/{path.name.removesuffix('.test.mjs')}"
         for suite, folder in sorted(SUITES.items())
         for path in sorted((ROOT / folder).glob("*.test.mjs"))]


def _node() -> str:
    node = shutil.which("node")
    reason = None
    if node is None:
        reason = "node is not installed"
    else:
        version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
        major = int(re.match(r"v(\d+)", version).group(1)) if version.startswith("v") else 0
        if major < 20:
            reason = f"node {version.strip()} is older than 20"
    if reason:
        if os.environ.get("SIDECAR_REQUIRE_NODE") == "1":
            pytest.fail(f"Node tests required but {reason}")
        pytest.skip(reason)
    return node


def test_every_node_test_file_is_run() -> None:
    assert len(FILES) >= 8 and all("/" in name for name in FILES), FILES


@pytest.mark.parametrize("test_file", FILES)
def test_node_suite(test_file: str) -> None:
    node = _node()
    suite, name = test_file.split("/")
    path = f"{SUITES[suite]}/{name}.test.mjs"
    # The Node tests start `python -m sidecar serve` with this very interpreter.
    env = {**os.environ, "SIDECAR_PYTHON": sys.executable}
    run = subprocess.run([node, "--experimental-websocket", "--test", path],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    report = run.stdout + run.stderr
    passed = re.search(r"^# pass (\d+)$", report, re.M)
    failed = re.search(r"^# fail (\d+)$", report, re.M)
    assert run.returncode == 0 and failed and failed.group(1) == "0", report[-6000:]
    assert passed and int(passed.group(1)) > 0, report[-6000:]
