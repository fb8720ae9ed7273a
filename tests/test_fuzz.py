"""A bounded coverage-guided fuzz run of the decoder and validator (atheris, where it
installs; hypothesis covers the same ground everywhere in tests/test_codec.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a fuzzing run of up to 25 s

HARNESS = Path(__file__).with_name("fuzz_decoder.py")


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None,
                    reason="atheris does not install on this platform")
def test_atheris_fuzz_finds_no_crash(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i, seed in enumerate([b'\x01\x81\xa4type\xa4roll', b'\x00{"type": "hello"}',
                              b'\x01\x82\xa4type\xa4roll\xa6params\x81\xa4pool\x03']):
        (corpus / f"seed{i}").write_bytes(seed)
    done = subprocess.run(
        [sys.executable, str(HARNESS), "-runs=300000", "-max_total_time=25", "-rss_limit_mb=1024",
         str(corpus)],
        capture_output=True, text=True, timeout=120, cwd=HARNESS.parent.parent)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-3000:]
    assert "Done 300000 runs" in report or "Done" in report
    assert "==ERROR" not in report and "Uncaught Python exception" not in report
