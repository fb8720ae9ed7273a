"""French errors quote a typed value with « » beside the param's « label » (issue 29: a
newcomer read « paramètre « Expression » ('expr') : '4d6kh5' : 'kh5' doit garder… »).
Real ``sidecar`` processes against a real ``sidecar serve``, and a scan of the French
texts of the params' checks and the dice notation."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from tests.support.serve import ServeProcess, gm_options, sidecar

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def server():
    with ServeProcess("--db", ":memory:") as running:
        yield running


@pytest.mark.parametrize("args, expected", [
    (["dice", "expr=4d6kh5"], "« 4d6kh5 » : « kh5 » doit garder de 1 à 4 des 4 dés lancés"),
    (["dice", "expr=bonjour"], "« bonjour » : « b » inattendu en position 1"),
    (["seuil", "factors=foo", "threshold=10"], "élément inconnu « foo » (connus : "),
    (["ladder", "difficulty=xyz"], "libellé inconnu « xyz » (connus : "),
    (["d6code", "code=3X", "difficulty=10"], "« 3X » n'est pas de la forme 4D+3"),
])
def test_a_french_error_quotes_the_typed_value_with_guillemets(server, args, expected):
    done = sidecar("roll", *args, *gm_options(server, "guillemets"), "--locale", "fr")
    assert done.returncode == 1, done.stdout
    assert expected in done.stderr, done.stderr
    assert "'" not in done.stderr.split(" : ", 1)[1].replace("d'", "").replace("l'", "") \
        .replace("n'", "").replace("jusqu'", "").replace("('", "(").replace("')", ")"), \
        done.stderr


def _adjacent_quote(text: ast.expr) -> bool:
    """Whether an f-string puts ' or " right against an interpolated value ('{x}'), or a
    plain text quotes a word with them ('d', '!')."""
    if isinstance(text, ast.JoinedStr):
        parts = text.values
        for before, after in zip(parts, parts[1:], strict=False):
            if isinstance(after, ast.FormattedValue) and isinstance(before, ast.Constant) \
                    and str(before.value).endswith(("'", '"')):
                return True
            if isinstance(before, ast.FormattedValue) and isinstance(after, ast.Constant) \
                    and str(after.value).startswith(("'", '"')):
                return True
        return any(_adjacent_quote(part) for part in parts if isinstance(part, ast.Constant))
    if isinstance(text, ast.Constant) and isinstance(text.value, str):
        return any(f"{q}{c}{q}" in text.value for q in "'\"" for c in "d!")
    if isinstance(text, ast.IfExp):
        return _adjacent_quote(text.body) or _adjacent_quote(text.orelse)
    if isinstance(text, ast.BinOp):
        return _adjacent_quote(text.left) or _adjacent_quote(text.right)
    return False


@pytest.mark.parametrize("module", ["sidecar/host/params.py", "plugins/dice_notation.py"])
def test_no_french_text_quotes_a_value_with_straight_quotes(module):
    """Every French text (an ``fr=``, the second text of the notation's ``fail``) quotes a
    value with « », never ' or " (the English keeps its '…')."""
    source = (ROOT / module).read_text(encoding="utf-8")
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", getattr(node.func, "attr", None))
        french = [keyword.value for keyword in node.keywords if keyword.arg == "fr"]
        if name == "fail" and len(node.args) == 2:
            french.append(node.args[1])
        found += [f"{module}:{node.lineno}" for text in french if _adjacent_quote(text)]
    assert found == []



def test_seuils_factors_write_a_minus_as_the_other_texts_do():
    """The description a server's welcome carries (« −2 et 6 » beside « dopé (-3) »
    before): one minus, U+2212, as the page and the help show it."""
    from tests.helpers import Peer, run, running_server

    async def scenario() -> dict[str, Any]:
        async with running_server() as running:
            peer = await Peer.open(running)
            welcome = await peer.join("t", "Ann", "gm")
            return next(r for r in welcome["rulesets"] if r["name"] == "seuil")

    seuil = run(scenario())
    said = seuil["params"]["factors"]["description"]
    assert "conseillé par un allié (−1), dopé (−3)" in said["fr"], said
    assert "advised by an ally (−1), doped (−3)" in said["en"], said
    assert "(-" not in str(seuil), seuil
