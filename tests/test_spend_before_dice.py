"""Refusals never depend on the dice (contract §7 clarified, issue 25 item 2).

A roll as a character whose sheet cannot pay what it *could* spend is refused before any
die is drawn (``insufficient``, the same answer whatever the faces would have been); a roll
whose dice are drawn is journaled whatever they show, its spend taken only as far as the
sheet holds. Before this, a ladder character without a luck point rolling ``reroll: true``
(or a d6code one without a style point rolling ``style_if_needed``) got ``insufficient``
exactly when the pair failed — nothing journaled — and the first success was journaled: a
player could roll until it succeeded, under ``--dice provable`` too (a new ``client_seed``
on reconnecting draws new faces, and the export still verifies).

Every test here runs a real ``sidecar serve`` process.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from sidecar.client import SidecarClient, SidecarError
from tests.helpers import GM_TOKEN, run
from tests.support.serve import ServeProcess

#: Rolls as a character whose sheet cannot pay what the roll could spend: (ruleset, the
#: character's values, params, options, faces that would spend nothing, faces that
#: would spend what the sheet lacks). The first faces were journaled before the fix, the
#: second answered ``insufficient``: the refusal told the player how the dice went.
SHORT = {
    "ladder reroll": (
        "ladder", {"caracteristiques": {"geste": 3}, "chance": 0},
        {"characteristic": "geste", "difficulty": 5, "reroll": True}, {},
        [6, 5], [1, 2, 3, 4]),
    "d6code style_if_needed": (
        "d6code", {"competences": {"PILOTAGE": "3D"}, "points_style": 0},
        {"skill": "PILOTAGE", "difficulty": 11, "style_if_needed": "libre"}, {},
        [6, 6, 6], [1, 2, 3, 4, 4]),
    "oweens buy_augmentations": (
        "oweens", {"ecl": 3, "bonbonus": 1},
        {"characteristic": "ECL", "difficulty": 5, "buy_augmentations": 1}, {},
        [2, 6, 6], [3, 6, 6]),
    "oweens buy_augmentations with combat options paid in bonbonus": (
        "oweens", {"ecl": 3, "bonbonus": 2},
        {"characteristic": "ECL", "buy_augmentations": 1},
        {"combat": {"attack": "melee", "opponent_pep": 5, "options": ["viser"],
                    "pay": "bonbonus"}},
        [2, 6, 6], [3, 6, 6]),
    "bloodlust volonté": (
        "bloodlust", {"groupements": {"Tir": 3}, "volonte": 0},
        {"skill": "Tir", "difficulty": 6, "willpower": True}, {},
        [9, 9, 9], [1, 1, 1]),
}


async def _table(url: str, table: str) -> tuple[SidecarClient, dict[str, Any]]:
    """A GM at ``table`` with the seat ``Lea``: the GM's client and the seat."""
    gm = SidecarClient(url, table=table, name="MJ", role="gm", token=GM_TOKEN)
    await gm.connect()
    seat = await gm.add_seat("Lea")
    return gm, seat


async def _outcomes(gm: SidecarClient) -> list[dict[str, Any]]:
    """Every outcome the table's journal holds."""
    found: list[dict[str, Any]] = []
    after = 0
    while True:
        page = await gm.history(after=after, limit=200)
        found += [e for e in page["events"] if e["type"] == "outcome"]
        if not page.get("more"):
            return found
        after = page["next"]


async def _attempt(url: str, table: str, seat: dict[str, Any], **roll: Any
                   ) -> dict[str, Any]:
    """One roll by Lea on a fresh connection (a new client seed: new provable faces, as a
    player reconnecting would get): the outcome, or the error as a map."""
    async with SidecarClient(url, table=table, name="Lea", token=seat["token"]) as lea:
        try:
            return await lea.roll(**roll)
        except SidecarError as error:
            return {"type": "error", "code": error.code, "details": error.details}


def test_a_roll_the_sheet_cannot_pay_is_refused_whatever_the_faces():
    """Typed faces that would spend nothing and faces that would spend what the sheet
    lacks get the same answer: ``insufficient`` before any die, nothing journaled."""
    async def scenario(url: str) -> None:
        gm, seat = await _table(url, "short")
        answers = {}
        for number, (case, (ruleset, values, params, options, free, costly)) in \
                enumerate(SHORT.items()):
            character = f"PJ{number}"
            await gm.set_sheet(character, ruleset, values, owner="Lea")
            for faces in (free, costly):
                answers[case, tuple(faces)] = await _attempt(
                    url, "short", seat, ruleset=ruleset, params=params, options=options,
                    character=character, dice=faces)
        journaled = await _outcomes(gm)
        await gm.close()
        assert not journaled and all(
            a["type"] == "error" and a["code"] == "insufficient" for a in answers.values()), (
            "refused only for some faces: " + "; ".join(
                f"{case} {list(faces)}: {a.get('code') or a['result']['label']['en']}"
                for (case, faces), a in answers.items()))
        for (case, _), answer in answers.items():
            # What is missing, as before: the field, what the sheet has, what it needs.
            assert set(answer["details"]) == {"field", "have", "need"}, (case, answer)
            assert answer["details"]["have"] < answer["details"]["need"], (case, answer)

    with ServeProcess("--dice", "provable", "--allow-player-dice", "--db", ":memory:") as server:
        run(scenario(server.url), timeout=120)
        assert server.stop() == 0


def test_a_decision_the_sheet_cannot_pay_is_refused_before_its_dice():
    """A d6code roll left open with a style point to take; the GM takes the point away.
    Taking it anyway is refused before its two dice — faces that would give points back
    and faces that would not get the same answer — and the roll stays open."""
    async def scenario(url: str) -> None:
        gm, seat = await _table(url, "decide")
        # Two characters: each keeps its roll open (one open roll per character, §8).
        for character in ("PJ", "PJ2"):
            await gm.set_sheet(character, "d6code", {"competences": {"PILOTAGE": "3D"},
                                                     "points_style": 1}, owner="Lea")
        async with SidecarClient(url, table="decide", name="Lea",
                                 token=seat["token"]) as lea:
            answers = []
            # success giving 2 back; a failure giving none
            for faces, character in (([6, 6], "PJ"), ([1, 2], "PJ2")):
                opened = await lea.roll("d6code", {"skill": "PILOTAGE", "difficulty": 11},
                                        character=character, dice=[1, 2, 3])
                assert opened.get("open") and "style_extreme" in [
                    c["name"] for c in opened["choices"]], opened
                await gm.set_sheet(character, "d6code", {"points_style": 0})
                try:
                    answers.append(await lea.react(opened, "style_extreme", faces))
                except SidecarError as error:
                    answers.append({"type": "error", "code": error.code,
                                    "details": error.details})
                await gm.set_sheet(character, "d6code", {"points_style": 1})
            assert [a.get("code") for a in answers] == ["insufficient", "insufficient"], [
                a.get("code") or a["result"]["label"]["en"] for a in answers]
            assert answers[0]["details"] == {"field": "points_style", "have": 0, "need": 1}
            assert len(lea.open) == 2  # both still open, to decide otherwise
        assert all(not o.get("reacts_to") for o in await _outcomes(gm))
        await gm.close()

    with ServeProcess("--dice", "provable", "--allow-player-dice", "--db", ":memory:") as server:
        run(scenario(server.url), timeout=120)
        assert server.stop() == 0


ATTEMPTS = 20


def test_rolling_again_and_again_with_an_empty_sheet_never_lets_a_failure_vanish():
    """A player reconnecting for each roll (new client seed, new provable faces) with a
    standing order the sheet cannot pay: every attempt gets the same answer, and the
    journal holds every roll that was answered with an outcome."""
    cases = {
        "ladder reroll": ("ladder", {"caracteristiques": {"geste": 3}, "chance": 0},
                          {"characteristic": "geste", "difficulty": 5, "reroll": True}),
        "d6code style_if_needed": ("d6code", {"competences": {"PILOTAGE": "3D"},
                                              "points_style": 0},
                                   {"skill": "PILOTAGE", "difficulty": 11,
                                    "style_if_needed": "libre"}),
    }

    async def scenario(url: str) -> dict[str, tuple[int, int, int]]:
        counts = {}
        for number, (case, (ruleset, values, params)) in enumerate(cases.items()):
            table = f"again{number}"
            gm, seat = await _table(url, table)
            await gm.set_sheet("PJ", ruleset, values, owner="Lea")
            answers = [await _attempt(url, table, seat, ruleset=ruleset, params=params,
                                      character="PJ") for _ in range(ATTEMPTS)]
            journaled = await _outcomes(gm)
            await gm.close()
            answered = sum(1 for a in answers if a["type"] == "outcome")
            refused = sum(1 for a in answers if a.get("code") == "insufficient")
            counts[case] = (answered, refused, len(journaled))
        return counts

    with ServeProcess("--dice", "provable", "--db", ":memory:") as server:
        counts = run(scenario(server.url), timeout=180)
        assert server.stop() == 0
    report = "; ".join(f"{case}: {answered}/{ATTEMPTS} journaled, {refused}/{ATTEMPTS} "
                       f"refused, {journaled} in the journal"
                       for case, (answered, refused, journaled) in counts.items())
    for answered, refused, journaled in counts.values():
        assert answered + refused == ATTEMPTS, report
        # Refused every time (before the dice) or never: never for some faces only.
        assert refused in (0, ATTEMPTS), report
        assert journaled == answered, report


#: A third-party ruleset that breaks the rule: a d6 against ``target`` whose failure costs
#: a point of ``luck`` — a spend the dice decide, not clamped, not declared beforehand —
#: or (``refuse``) that raises ``insufficient`` itself once it has seen a failed die.
CARELESS = textwrap.dedent('''
    """A ruleset whose spend the dice decide (a failure costs a point of luck)."""
    from sidecar import hookimpl
    from sidecar.protocol.errors import ProtocolError


    @hookimpl
    def sidecar_rulesets():
        return [{"name": "wager", "title": "Wager", "version": "1.0", "params": {
            "target": {"type": "int", "min": 1, "max": 7, "default": 4},
            "refuse": {"type": "bool", "default": False}}}]


    @hookimpl
    def sidecar_sheet(ruleset):
        if ruleset == "wager":
            return {"luck": {"type": "int", "min": 0, "max": 5, "default": 0,
                             "resource": True}}
        return None


    @hookimpl
    def sidecar_resolve(roll, dice):
        face = dice.roll(6)
        success = face >= roll.params["target"]
        if (not success and roll.params["refuse"] and roll.sheet is not None
                and roll.sheet["luck"] < 1):
            raise ProtocolError("insufficient", "no luck left", fr="plus de chance",
                                details={"field": "luck", "have": 0, "need": 1})
        label = {"fr": "ok", "en": "ok"} if success else {"fr": "raté", "en": "missed"}
        return {"result": {"success": success, "margin": face - roll.params["target"],
                           "kind": "success" if success else "failure", "label": label},
                "spend": {} if success or roll.sheet is None else {"luck": 1}}
''')

#: The same ruleset, declaring beforehand the most a roll may spend: the host refuses
#: before the dice when the sheet cannot pay it (``target`` 7: a malformed declaration).
DECLARED = CARELESS.replace('"wager"', '"wager_declared"') + textwrap.dedent('''

    @hookimpl
    def sidecar_max_spend(roll):
        return {"luck": "one"} if roll.params["target"] == 7 else {"luck": 1}
''')


def _plugins(directory: Path, **sources: str) -> Path:
    directory.mkdir()
    for name, source in sources.items():
        (directory / f"{name}.py").write_text(source, encoding="utf-8")
    return directory


def test_a_third_party_ruleset_cannot_make_a_rolled_outcome_vanish(tmp_path):
    """Its spend decided by the dice past what the sheet holds: every roll journaled, the
    spend taken as far as the sheet holds and said in the notes. Declared beforehand:
    every roll refused before the dice. Raised after the dice: the ruleset's failure."""
    directory = _plugins(tmp_path / "plugins", wager=CARELESS, wager_declared=DECLARED)

    async def scenario(url: str) -> None:
        gm, seat = await _table(url, "wager")
        await gm.set_sheet("Gambler", "wager", {"luck": 0}, owner="Lea")
        await gm.set_sheet("Careful", "wager_declared", {"luck": 0}, owner="Lea")
        careless = [await _attempt(url, "wager", seat, ruleset="wager",
                                   params={"target": 4}, character="Gambler")
                    for _ in range(ATTEMPTS)]
        kinds = [a["result"]["kind"] if a["type"] == "outcome" else a["code"]
                 for a in careless]
        assert all(a["type"] == "outcome" for a in careless), (
            f"{kinds.count('insufficient')}/{ATTEMPTS} rolls vanished: {kinds}")
        failed = [a for a in careless if not a["result"]["success"]]
        for outcome in failed:
            # Taken as far as the sheet holds (nothing), and the table told so.
            assert outcome["spent"] == {} and outcome["sheet"]["luck"] == 0, outcome
            assert any("luck" in note for note in outcome["notes"]), outcome["notes"]
        assert len(await _outcomes(gm)) == ATTEMPTS

        # Typed faces: a success and a failure get the same refusal, before the dice.
        for faces in ([6], [1]):
            refused = await _attempt(url, "wager", seat, ruleset="wager_declared",
                                     params={"target": 4}, character="Careful", dice=faces)
            assert refused["code"] == "insufficient", refused
            assert refused["details"] == {"field": "luck", "have": 0, "need": 1}
        declared = [await _attempt(url, "wager", seat, ruleset="wager_declared",
                                   params={"target": 4}, character="Careful")
                    for _ in range(ATTEMPTS)]
        assert all(a.get("code") == "insufficient" for a in declared), declared
        # A declaration the host cannot read is the ruleset's failure, before the dice.
        malformed = await _attempt(url, "wager", seat, ruleset="wager_declared",
                                   params={"target": 7}, character="Careful", dice=[1])
        assert malformed["code"] == "plugin_error", malformed

        # A ruleset that refuses itself once it saw a failed die: its failure, counted
        # against it (never an ``insufficient`` that depends on the dice).
        for faces in ([1], [1]):
            broken = await _attempt(url, "wager", seat, ruleset="wager", character="Gambler",
                                    params={"target": 4, "refuse": True}, dice=faces)
            assert broken["code"] == "plugin_error", broken
        status = {p["name"]: p for p in (await gm.request({"type": "plugins"}))["plugins"]}
        assert status["wager"]["recent_failures"] == 2, status["wager"]
        assert status["wager_declared"]["recent_failures"] == 1, status["wager_declared"]
        assert len(await _outcomes(gm)) == ATTEMPTS
        await gm.close()

    with ServeProcess("--dice", "provable", "--allow-player-dice", "--plugins-dir",
                      str(directory), "--db", ":memory:") as server:
        run(scenario(server.url), timeout=180)
        assert server.stop() == 0
