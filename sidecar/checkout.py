"""Run from a checkout: ``sidecar.protocol`` and ``sidecar.rulesets`` are the repository's
top-level folders ``protocol/`` and ``plugins/``.

Installs map those folders into the package (``pyproject.toml``, ``package-dir``), so an
installed ``sidecar`` has them inside it. Python started in the repository's root (``python
-m sidecar …``, a script of ``benchmarks/``) imports this folder ``sidecar/`` instead of the
installed one, and would not find them: this finder, added only in that case, points the
two names at the folders, as the installs do.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from importlib.util import spec_from_file_location
from pathlib import Path
from types import ModuleType

FOLDERS = {"sidecar.protocol": "protocol", "sidecar.rulesets": "plugins"}


class CheckoutFolders:
    """A meta-path finder for the two packages whose folders sit beside ``sidecar/``."""

    def __init__(self, root: Path) -> None:
        self.folders = {name: root / folder for name, folder in FOLDERS.items()}

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        folder = self.folders.get(fullname)
        if folder is None:
            return None
        return spec_from_file_location(fullname, folder / "__init__.py",
                                       submodule_search_locations=[str(folder)])


def install() -> None:
    """Add the finder when this ``sidecar`` is a checkout's folder (not an install)."""
    here = Path(__file__).resolve().parent
    if (here / "protocol").is_dir() or not (here.parent / "protocol" / "__init__.py").is_file():
        return
    if not any(isinstance(finder, CheckoutFolders) for finder in sys.meta_path):
        sys.meta_path.append(CheckoutFolders(here.parent))
