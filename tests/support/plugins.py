"""Plugins written by a test: a folder of modules for ``--plugins-dir``."""

from __future__ import annotations

import textwrap
from pathlib import Path


def write_plugins(directory: Path, **sources: str) -> Path:
    """Write each source (dedented) as ``directory/NAME.py``; returns the folder."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, source in sources.items():
        (directory / f"{name}.py").write_text(textwrap.dedent(source))
    return directory
