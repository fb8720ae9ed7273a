"""The rules of the house (ARCHITECTURE.md): imports run down the layers, never up, never in
a circle, and only the plugin caller calls a plugin's function.

Read from the source as text (``ast``), function-level imports included, so a lazy import
cannot hide an arrow that runs back up.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Bottom to top. A module may import its own layer and those below, never one above.
LAYERS: list[tuple[str, ...]] = [
    ("sidecar.protocol",),
    ("sidecar.config", "sidecar.markers", "sidecar.model", "sidecar.probability",
     "sidecar.checkout"),
    ("sidecar.dice",),
    ("sidecar.hookspecs", "sidecar.rules"),
    ("sidecar.host",),
    ("sidecar.stores",),
    ("sidecar.table",),
    ("sidecar.client", "sidecar.api"),
    ("sidecar.tools",),
    ("sidecar.server",),
    ("sidecar.cli",),
    ("sidecar.testing",),
]
FOLDERS = {"protocol": "sidecar.protocol", "sidecar": "sidecar"}


def layer_of(module: str) -> int | None:
    for number, prefixes in enumerate(LAYERS):
        if any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes):
            return number
    return None


def modules() -> dict[str, Path]:
    found = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def imports(path: Path, module: str) -> set[str]:
    """Every ``sidecar…`` module ``path`` imports, at any depth of its code."""
    names: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".")
                if not path.name == "__init__.py":
                    package = package[:-1]
                base = ".".join(package[: len(package) - node.level + 1] + [base]).strip(".")
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in names if name.startswith("sidecar.")}


def test_every_module_of_sidecar_and_protocol_has_a_layer() -> None:
    lost = [name for name in modules()
            if name not in ("sidecar", "sidecar.__main__") and layer_of(name) is None]
    assert lost == [], f"modules on no layer of ARCHITECTURE.md: {lost}"


def test_imports_run_down_the_layers_never_up() -> None:
    known = modules()
    upward = []
    for name, path in known.items():
        if name in ("sidecar", "sidecar.__main__"):
            continue  # the package's face and ``python -m sidecar`` (the command itself)
        mine = layer_of(name)
        for target in imports(path, name):
            theirs = layer_of(target)
            if mine is not None and theirs is not None and theirs > mine:
                upward.append(f"{name} -> {target}")
    assert upward == [], "imports that run back up:\n" + "\n".join(sorted(upward))


def test_no_import_circle_between_modules() -> None:
    known = modules()
    graph = {name: {target for target in imports(path, name) if target in known}
             for name, path in known.items() if name != "sidecar"}
    graph = {name: {t for t in targets if t != "sidecar"} for name, targets in graph.items()}
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph.get(name, ())):
            if state.get(target) == 1:
                circles.append(trail[trail.index(target):] + [target])
            elif target not in state:
                visit(target, [*trail, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert circles == [], "import circles: " + "; ".join(" -> ".join(c) for c in circles)


#: Where a roll is played: none of these may call (or hold) a hook implementation's
#: function; :mod:`sidecar.host.caller` does, for all of them.
ROLL_TIME = ("sidecar.host.pipeline", "sidecar.host.spending", "sidecar.table",
             "sidecar.server", "sidecar.tools")


def test_only_the_caller_calls_a_plugins_function() -> None:
    touched = []
    for module, path in modules().items():
        if not module.startswith(ROLL_TIME):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "function":
                touched.append(f"{module}:{node.lineno}")
    assert touched == [], f"plugin functions touched outside sidecar.host.caller: {touched}"


#: The most lines a module of the server or of the built-in plugins may hold (issue 27):
#: past it, a module does more than one job and is split by concern.
MAX_MODULE_LINES = 900


def test_no_module_of_the_server_or_the_plugins_is_over_900_lines() -> None:
    sources = [*(ROOT / "sidecar").rglob("*.py"), *(ROOT / "plugins").rglob("*.py"),
               *(ROOT / "sidecar").rglob("*.js")]
    assert len(sources) > 100
    too_long = {str(path.relative_to(ROOT)): count for path in sources
                if "vendor" not in path.parts
                and (count := len(path.read_text(encoding="utf-8").splitlines()))
                > MAX_MODULE_LINES}
    assert not too_long, f"split these by concern: {too_long}"
