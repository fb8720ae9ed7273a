"""Asks answered as characters, for every built-in ruleset (issue 25, item 1).

An ask answered as a character whose roll spent nothing crashed the answer (``internal``,
the ask left pending): the outcome's ``sheet`` was read from the event's first record,
which is the ask's own when the roll writes no sheet record. The suite had no such case:
every asked character was of the tests' ``luck`` ruleset, which spends ``cost`` (1 by
default) on every roll made as a character — so the first record was always the sheet's.

Here, the whole matrix against a real ``sidecar serve`` process: every built-in ruleset ×
answered as the seat / as its character × a roll that spends / spends nothing; then the
decisions on an asked character's open roll, the seed's d6code duel and O'Ween's
cooperation answered as characters. Seuil and plain ``dice`` spend nothing by their own
rules: the test extension ``effort`` (``tests/effort_plugin.py``) gives them a spend.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from sidecar.client import SidecarClient
from tests.helpers import GM_TOKEN, run
from tests.support.serve import ROOT, ServeProcess


@dataclass(frozen=True)
class Cell:
    """One ruleset's roll, asked of the seat or of its character."""

    sheet: dict[str, Any]                     # the character's values, as set
    as_character: dict[str, Any]              # the ask's params when asking the character
    as_seat: dict[str, Any]                   # the same roll's params without a sheet
    faces: list[int]                          # physical dice (the server allows them)
    spent: dict[str, int] = field(default_factory=dict)  # what the character spends
    options: dict[str, Any] = field(default_factory=dict)


EFFORT = {"effort": {}}

#: Per ruleset: a roll that spends (as a character) and one that spends nothing. Faces
#: chosen so that no roll is left open (decisions are tested below).
MATRIX: dict[tuple[str, str], Cell] = {
    # A bought augmentation (3 → 4) costs 2 BB+, chosen before the dice.
    ("oweens", "spends"): Cell({"pep": 2, "bonbonus": 3},
                               {"characteristic": "PEP", "difficulty": 1,
                                "buy_augmentations": 1},
                               {"dice": 2, "difficulty": 1, "buy_augmentations": 1},
                               [3, 2], {"bonbonus": 2}),
    ("oweens", "nothing"): Cell({"pep": 2}, {"characteristic": "PEP", "difficulty": 1},
                                {"dice": 2, "difficulty": 1}, [4, 2]),
    # The standing reroll order: the failed pair (1, 2) rerolled (6, 3) for a point of
    # Chance (the seed's « point de chance »).
    ("ladder", "spends"): Cell({"caracteristiques": {"geste": 3}, "chance": 2},
                               {"characteristic": "geste", "difficulty": 5, "reroll": True},
                               {"level": 3, "difficulty": 5, "reroll": True},
                               [1, 2, 6, 3], {"chance": 1}),
    ("ladder", "nothing"): Cell({"caracteristiques": {"geste": 3}, "chance": 2},
                                {"characteristic": "geste", "difficulty": 5},
                                {"level": 3, "difficulty": 5}, [6, 3]),
    # The issue's own reproduction: Bloodlust without Volonté; with it, a point and the
    # turn's use.
    ("bloodlust", "spends"): Cell({"groupements": {"Tir": 3}},
                                  {"skill": "Tir", "willpower": True},
                                  {"pool": 3, "willpower": True}, [7, 2, 3],
                                  {"volonte": 1, "volonte_tour": 1}),
    ("bloodlust", "nothing"): Cell({"groupements": {"Tir": 3}}, {"skill": "Tir"},
                                   {"pool": 3}, [7, 2, 3]),
    ("d6code", "spends"): Cell({"competences": {"PILOTAGE": "3D+2"}, "points_style": 1},
                               {"skill": "PILOTAGE", "difficulty": 10, "style": "libre"},
                               {"code": "3D+2", "difficulty": 10, "style": "libre"},
                               [4, 5, 6, 3, 3], {"points_style": 1}),
    ("d6code", "nothing"): Cell({"competences": {"PILOTAGE": "3D+2"}, "points_style": 1},
                                {"skill": "PILOTAGE", "difficulty": 10},
                                {"code": "3D+2", "difficulty": 10}, [4, 5, 6]),
    ("seuil", "spends"): Cell({"caracteristiques": {"force": 2}},
                              {"characteristic": "force", "threshold": 10},
                              {"level": 2, "threshold": 10}, [5, 6], {"effort": 1},
                              EFFORT),
    ("seuil", "nothing"): Cell({"caracteristiques": {"force": 2}},
                               {"characteristic": "force", "threshold": 10},
                               {"level": 2, "threshold": 10}, [5, 6]),
    ("dice", "spends"): Cell({}, {"expr": "2d6", "target": 7}, {"expr": "2d6", "target": 7},
                             [3, 4], {"effort": 1}, EFFORT),
    ("dice", "nothing"): Cell({}, {"expr": "2d6", "target": 7}, {"expr": "2d6", "target": 7},
                              [3, 4]),
}
RULESETS = ("oweens", "ladder", "bloodlust", "d6code", "seuil", "dice")


def test_the_matrix_covers_every_built_in_ruleset() -> None:
    from sidecar.host.plugins import default_host

    host = default_host(None)
    try:
        listed = {r["name"] for r in host.ruleset_listing()}
    finally:
        host.shutdown()
    assert set(RULESETS) == listed  # a new built-in ruleset joins the matrix
    assert {ruleset for ruleset, _ in MATRIX} == listed
    assert all(MATRIX[ruleset, "spends"].spent for ruleset in RULESETS)
    assert not any(MATRIX[ruleset, "nothing"].spent for ruleset in RULESETS)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """One ``sidecar serve`` (physical dice allowed, the ``effort`` extension) for the
    whole module: each test plays at its own table."""
    plugins = tmp_path_factory.mktemp("plugins")
    shutil.copy(ROOT / "tests" / "effort_plugin.py", plugins / "effort.py")
    with ServeProcess("--db", ":memory:", "--allow-player-dice", "--plugins-dir",
                      str(plugins), "--log-level", "warning") as process:
        yield process
        assert process.stop() == 0


class Table:
    """A GM and one seat, Lea, owning the character Vlad, at a table of its own."""

    def __init__(self, url: str, table: str) -> None:
        self.url, self.table = url, table
        self.gm = SidecarClient(url, table=table, name="MJ", role="gm", token=GM_TOKEN)
        self.seats: dict[str, SidecarClient] = {}

    async def __aenter__(self) -> Table:
        await self.gm.connect()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        for client in (*self.seats.values(), self.gm):
            await client.close()

    async def seat(self, name: str) -> SidecarClient:
        token = (await self.gm.add_seat(name))["token"]
        client = SidecarClient(self.url, table=self.table, name=name, token=token)
        await client.connect()
        self.seats[name] = client
        return client

    async def values(self, character: str) -> dict[str, Any]:
        """The character's values as the GM's ``sheet list`` gives them now."""
        return next(c["values"] for c in await self.gm.sheets()
                    if c["character"] == character)


def after(values: dict[str, Any], spent: dict[str, int]) -> dict[str, Any]:
    return {**values, **{name: values[name] - amount for name, amount in spent.items()}}


@pytest.mark.parametrize("spends", ["spends", "nothing"])
@pytest.mark.parametrize("who", ["seat", "character"])
@pytest.mark.parametrize("ruleset", RULESETS)
def test_an_ask_answered_as_the_seat_or_its_character(server: ServeProcess, ruleset: str,
                                                      who: str, spends: str) -> None:
    cell = MATRIX[ruleset, spends]

    async def scenario() -> None:
        async with Table(server.url, f"{ruleset}-{who}-{spends}") as table:
            lea = await table.seat("Lea")
            made = await table.gm.set_sheet("Vlad", ruleset, cell.sheet, owner="Lea")
            before = made["values"]
            as_character = who == "character"
            ask = await table.gm.ask("Vlad" if as_character else "Lea", ruleset,
                                     cell.as_character if as_character else cell.as_seat,
                                     options=cell.options, label="Tir")
            assert ask["to"] == [{"seat": "Lea", "character": "Vlad" if as_character
                                  else None}]
            outcome = await lea.answer(ask["ask"], dice=cell.faces)
            assert outcome["type"] == "outcome" and outcome["answers"] == ask["ask"]
            assert not outcome.get("open") and outcome["label"] == "Tir"
            expected = before
            if as_character:
                expected = after(before, cell.spent)
                assert outcome["character"] == "Vlad"
                assert outcome["spent"] == cell.spent
                assert outcome["sheet"] == expected
            else:
                assert "character" not in outcome and "spent" not in outcome
            # The one answer settled the ask; the sheet is what the roll left of it.
            assert await table.gm.list_asks() == []
            assert await lea.list_asks() == []
            assert await table.values("Vlad") == expected
    run(scenario())


def test_decisions_on_an_asked_characters_open_roll_spend_or_not(server: ServeProcess
                                                                 ) -> None:
    """A ladder pair failed as Vlad leaves the answer open: keeping it spends nothing
    (then the GM's « réussi, mais… » is open, and the GM's ``fail`` spends nothing
    either); a reroll spends a point of Chance. Each decision settles or keeps the ask as
    it should, the sheet as the decisions left it."""
    async def scenario() -> None:
        async with Table(server.url, "ladder-decisions") as table:
            lea = await table.seat("Lea")
            made = await table.gm.set_sheet("Vlad", "ladder", {
                "caracteristiques": {"geste": 3}, "chance": 2}, owner="Lea")
            before = made["values"]
            params = {"characteristic": "geste", "difficulty": 5}
            ask = await table.gm.ask("Vlad", "ladder", params)
            opened = await lea.answer(ask["ask"], dice=[1, 2])
            assert opened["open"] and {"reroll", "keep"} <= {
                c["name"] for c in opened["choices"]}
            kept = await lea.react(opened, "keep")
            assert kept["character"] == "Vlad" and kept["spent"] == {}
            assert kept["sheet"] == before and kept["answers"] == ask["ask"]
            assert kept["open"]  # still failed: the GM's choices
            assert [a["ask"] for a in await table.gm.list_asks()] == [ask["ask"]]
            failed = await table.gm.react(kept, "fail")
            assert failed["spent"] == {} and failed["sheet"] == before
            assert not failed.get("open") and await table.gm.list_asks() == []

            again = await table.gm.ask("Vlad", "ladder", params)
            opened = await lea.answer(again["ask"], dice=[1, 2])
            rerolled = await lea.react(opened, "reroll", dice=[6, 3])
            assert rerolled["spent"] == {"chance": 1}
            assert rerolled["sheet"] == after(before, {"chance": 1})
            assert not rerolled.get("open") and await table.gm.list_asks() == []
            assert await table.values("Vlad") == rerolled["sheet"]
    run(scenario())


def test_the_seeds_duel_and_a_cooperation_answered_as_characters(server: ServeProcess
                                                                 ) -> None:
    """Seed 003's duel with each side's code from its sheet (Strengal 3D+5 rolls 11 → 16,
    Krull 4D+1 rolls 13 → 14: Strengal wins), and seed 000's door as characters (Aengus's
    4 PEP [5, 5, 3, 6] + 1A → 5 successes, MR 2; Brady's 3 PEP [1, 4, 5] + 1A → narrow):
    neither spends anything, and the last answer settles the ask."""
    async def scenario() -> None:
        async with Table(server.url, "duel") as table:
            lea, max_ = await table.seat("Lea"), await table.seat("Max")
            for character, seat, code in (("Strengal", "Lea", "3D+5"),
                                          ("Krull", "Max", "4D+1")):
                await table.gm.set_sheet(character, "d6code", {
                    "competences": {"CORPS À CORPS": code}}, owner=seat)
            ask = await table.gm.ask(["Strengal", "Krull"], "d6code",
                                     {"skill": "CORPS À CORPS", "difficulty": 0},
                                     opposed=True)
            first = await lea.answer(ask["ask"], dice=[3, 4, 4])
            assert first["result"]["score"] == 16 and first["spent"] == {}
            last = await max_.answer(ask["ask"], dice=[4, 4, 3, 2])
            assert last["result"]["score"] == 14 and last["spent"] == {}
            assert last["opposition"]["winner"] == "Lea"
            assert [side["character"] for side in last["opposition"]["sides"]] == [
                "Strengal", "Krull"]
            assert await table.gm.list_asks() == []
        async with Table(server.url, "door") as table:
            lea, max_ = await table.seat("Lea"), await table.seat("Max")
            for character, seat, pep in (("Aengus", "Lea", 4), ("Brady", "Max", 3)):
                await table.gm.set_sheet(character, "oweens", {"pep": pep}, owner=seat)
            ask = await table.gm.request({
                "type": "ask", "op": "open", "to": ["Aengus", "Brady"],
                "ruleset": "oweens", "cooperative": True, "label": "La porte",
                "params": {"characteristic": "PEP", "difficulty": 3}})
            # « chaque participant gagne une augmentation par collaborateur »: counted by
            # the ask itself (issue 26), no longer typed by the GM.
            assert ask["params"]["collaborators"] == 1
            aengus = await lea.answer(ask["ask"], dice=[5, 5, 3, 6])
            assert aengus["result"]["successes"] == 5 and aengus["spent"] == {}
            brady = await max_.answer(ask["ask"], dice=[1, 4, 5])
            assert brady["result"]["kind"] == "narrow" and brady["spent"] == {}
            assert brady["cooperation"]["best"] == "Lea"
            assert brady["cooperation"]["margin"] == 2
            assert await table.gm.list_asks() == []
    run(scenario())
