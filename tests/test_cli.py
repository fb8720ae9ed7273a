"""The ``sidecar`` command, run as a real process: serve, roll, watch, plugins, odds."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from sidecar.cli.main import main
from sidecar.cli.odds_view import format_odds
from sidecar.cli.values import parse_pairs
from sidecar.host.typed import coerce_value
from sidecar.rulesets import bloodlust
from tests.helpers import GM_TOKEN, PLAYER_TOKEN, Peer, run
from tests.support.serve import ROOT, SIDECAR, ServeProcess, seat_token, sidecar


def test_serve_prints_where_it_listens_plugins_and_join_details():
    with ServeProcess() as server:
        banner = "".join(server.lines)
        plugins_line = next(line for line in server.lines if line.startswith("plugins : "))
        for name in ("oweens", "ladder", "bloodlust", "d6code", "seuil", "blank_botch",
                     "combat"):
            assert re.search(rf"\b{name} \d+\.\d+\b", plugins_line), name
        assert f"--token {PLAYER_TOKEN}" in banner and f"--token {GM_TOKEN}" in banner
        assert f"?table=demo#token={PLAYER_TOKEN}" in banner
        assert "token=" not in "".join(server.lines).replace("#token=", "")
        assert server.stop() == 0


def test_join_details_give_phones_a_lan_link(monkeypatch):
    from types import SimpleNamespace

    from sidecar.cli import serve
    from sidecar.config import ServerConfig

    config = ServerConfig(host="0.0.0.0", port=8765, player_token="p-tok", gm_token="g-tok")
    server = SimpleNamespace(url="ws://127.0.0.1:8765/ws", port=8765)
    monkeypatch.setattr(serve, "lan_addresses", lambda: ["192.0.2.7"])
    details = serve.join_details(server, config, "la crypte")
    assert "http://192.0.2.7:8765/?table=la%20crypte#token=p-tok" in details
    assert "g-tok" not in details.split("Réseau local")[1]  # never in a shared link
    local = serve.join_details(server, ServerConfig(host="127.0.0.1"), "demo")
    assert "--host 0.0.0.0" in local


def test_serve_generates_random_tokens_when_none_given():
    with ServeProcess("--db", ":memory:", tokens=False) as server:
        # The GM's line, then the player's.
        tokens = re.findall(r"--token (\S+)", "".join(server.lines))[:2]
        assert len(tokens) == 2 and tokens[0] != tokens[1]
        assert all(len(t) >= 16 for t in tokens)


def test_roll_and_watch_in_two_processes():
    with ServeProcess() as server:
        # Nobody has opened the table: a watcher without a token is told so, and leaves.
        early = sidecar("watch", "--url", server.url, "--table", "demo", "--count", "1")
        assert early.returncode == 1 and "forbidden" in early.stderr
        assert "observateur" in early.stderr
        # With a token, a watcher may open it.
        watcher = subprocess.Popen(
            [*SIDECAR, "watch", "--url", server.url, "--table", "demo", "--count", "1",
             "--token", PLAYER_TOKEN],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert "table demo" in watcher.stdout.readline()
        rolled = sidecar("roll", "bloodlust", "pool=5", "difficulty=7", "--url", server.url,
                         "--table", "demo", "--name", "Aengus", "--token", PLAYER_TOKEN,
                         "--label", "Escalade")
        assert rolled.returncode == 0, rolled.stderr
        assert rolled.stdout.startswith("#1 ")
        assert "Aengus — Escalade : 5d10 diff. 7" in rolled.stdout
        assert "dés :" in rolled.stdout
        watched, _ = watcher.communicate(timeout=15)
        assert watcher.returncode == 0
        assert "#1 " in watched and "Aengus — Escalade" in watched


def test_roll_with_manual_dice_json_and_options():
    with ServeProcess() as server:
        rolled = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--role", "gm",
                         "--token", GM_TOKEN, "--dice", "1,2", "--option", "blank_botch={}",
                         "--json", "--text-frames")
        outcome = json.loads(rolled.stdout)
        assert [d["face"] for d in outcome["dice"]] == [1, 2]
        assert outcome["result"]["kind"] == "failure" and outcome["applied"] == ["blank_botch"]


def test_roll_exits_non_zero_with_the_servers_error():
    with ServeProcess() as server:
        bad = sidecar("roll", "bloodlust", "pool=0", "--url", server.url, "--token", PLAYER_TOKEN)
        assert bad.returncode == 1 and "invalid_params" in bad.stderr and "pool" in bad.stderr
        forbidden = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--token", "x")
        assert forbidden.returncode == 1 and "forbidden" in forbidden.stderr
        usage = sidecar("roll", "bloodlust", "pool", "--url", server.url, "--token", PLAYER_TOKEN)
        assert usage.returncode == 2
    unreachable = sidecar("roll", "bloodlust", "pool=2", "--url", "ws://127.0.0.1:1/ws")
    assert unreachable.returncode == 3 and "rien n'écoute sur" in unreachable.stderr
    assert "nothing listens" not in unreachable.stderr  # (one language: French by default)


def test_sigterm_closes_connections_with_1001():
    with ServeProcess() as server:
        async def scenario():
            from websockets.asyncio.client import connect
            ws = await connect(server.url)
            peer = Peer(ws)
            await peer.join()
            server.proc.send_signal(signal.SIGTERM)
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await peer.recv(timeout=10)
            return closed.value.rcvd.code
        assert run(scenario()) == 1001
        assert server.proc.wait(timeout=15) == 0


def test_serve_with_plugins_dir_and_a_broken_plugin(tmp_path):
    (tmp_path / "typo.py").write_text(
        "from sidecar import hookimpl\n@hookimpl\ndef sidecar_resolv(roll, dice):\n    pass\n")
    failed = sidecar("serve", "--port", "0", "--db", ":memory:", "--plugins-dir", str(tmp_path))
    assert failed.returncode == 1
    assert "plugin « typo » : hook inconnu sidecar_resolv" in failed.stderr
    failed = sidecar("serve", "--port", "0", "--db", ":memory:", "--plugins-dir", str(tmp_path),
                     "--locale", "en")
    assert "plugin 'typo' implements unknown hook sidecar_resolv" in failed.stderr
    assert "Traceback" not in failed.stderr


def test_serve_port_in_use_is_a_clear_error():
    with ServeProcess() as server:
        port = server.url.rsplit(":", 1)[1].split("/")[0]
        taken = sidecar("serve", "--port", port, "--db", ":memory:")
        assert taken.returncode == 1 and "impossible d'écouter" in taken.stderr


def test_plugins_lists_plugins_rulesets_and_hooks(tmp_path):
    listed = sidecar("plugins")
    assert listed.returncode == 0
    assert f"bloodlust {bloodlust.__version__}" in listed.stdout
    assert "jeux de règles : bloodlust" in listed.stdout
    assert "hooks : sidecar_odds, sidecar_render_text, sidecar_resolve, sidecar_rulesets" \
        in listed.stdout
    (tmp_path / "mine.py").write_text('"""Mine."""\n')
    as_json = json.loads(sidecar("plugins", "--json", "--plugins-dir", str(tmp_path)).stdout)
    mine = next(p for p in as_json if p["name"] == "mine")
    assert mine["description"] == "Mine." and mine["source"].endswith("mine.py")


def test_odds_command_prints_percentages_and_bars():
    shown = sidecar("odds", "bloodlust", "pool=5", "difficulty=7")
    assert shown.returncode == 0
    # The page's number: 76 % (its rounding, issue 29), its words.
    assert "P(réussite) = 76 %" in shown.stdout and "Éclatante " in shown.stdout
    assert "█" in shown.stdout
    refused = sidecar("odds", "bloodlust", "pool=99")
    assert refused.returncode == 1 and "pool" in refused.stderr


def test_key_value_parsing_follows_the_schema():
    schema = {"pool": {"type": "int"}, "willpower": {"type": "bool"},
              "factors": {"type": "list"}, "code": {"type": "string"}}
    assert parse_pairs(["pool=5", "willpower=oui", "factors=soul,dope", "code=4D+3"], schema) \
        == {"pool": 5, "willpower": True, "factors": ["soul", "dope"], "code": "4D+3"}
    assert coerce_value("Difficile", {"type": "int"}) == "Difficile"
    with pytest.raises(ValueError):
        parse_pairs(["pool"])
    assert "50 %" in format_odds({"p_success": 0.5, "kinds": {"success": 0.5}})


# -- the README's and the plugin guide's snippets work ---------------------------------


def test_readme_plugin_snippet_works(tmp_path):
    guide = (ROOT / "docs" / "PLUGINS.md").read_text()  # its twenty lines, first of the guide
    snippet = re.search(r"```python\n(\"\"\"Pile ou face.*?)```", guide, re.S).group(1)
    assert len(snippet.strip().splitlines()) <= 22
    (tmp_path / "coin.py").write_text(snippet)
    with ServeProcess("--plugins-dir", str(tmp_path), "--db", ":memory:") as server:
        rolled = sidecar("roll", "coin", "call=pile", "--url", server.url, "--role", "gm",
                         "--token", GM_TOKEN, "--dice", "1", "--json")
        outcome = json.loads(rolled.stdout)
        assert outcome["result"]["success"] is True and outcome["result"]["label"]["fr"] == "Pile"
        bad = sidecar("roll", "coin", "call=tranche", "--url", server.url, "--token",
                      PLAYER_TOKEN)
        assert bad.returncode == 1 and "invalid_params" in bad.stderr


def test_readme_commands_are_the_ones_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    test_command = re.search(r"```sh\n(python3 -m venv \.venv-test && \.venv-test/bin/pip "
                             r"install -e '\.\[test\]'.*?)\n```", readme, re.S).group(1)
    assert test_command in ci
    # The tests never install into the server's environment (.venv).
    serve_command = re.search(r"```sh\n(python3 -m venv \.venv && .*?sidecar serve)\n```",
                              readme, re.S).group(1)
    assert ".venv-test" not in serve_command and ".venv/" not in test_command


def test_example_client_runs_against_a_server():
    with ServeProcess() as server:
        proc = subprocess.Popen([sys.executable, "examples/roll_and_watch.py", server.url,
                                 PLAYER_TOKEN], stdout=subprocess.PIPE, text=True, cwd=ROOT)
        try:
            # (French numbers: a decimal comma, a space before the sign — issue 29.)
            assert proc.stdout.readline().startswith("chances de réussite : 76,2 %")
            assert "Aengus — Escalade" in proc.stdout.readline()
            assert "en attente" in proc.stdout.readline()
            sidecar("roll", "seuil", "level=2", "threshold=13", "--url", server.url,
                    "--token", PLAYER_TOKEN, "--name", "Brann", "--label", "Nager")
            assert proc.stdout.readline().startswith("#2 Brann — Nager")
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()


def test_example_client_speaks_its_locales_language():
    """``examples/roll_and_watch.py URL TOKEN en``: the client joins in English and the
    example's own words and numbers follow ("76.2%", not « 76.2% » in a French line)."""
    with ServeProcess() as server:
        proc = subprocess.Popen([sys.executable, "examples/roll_and_watch.py", server.url,
                                 PLAYER_TOKEN, "en"], stdout=subprocess.PIPE, text=True,
                                cwd=ROOT)
        try:
            assert proc.stdout.readline().startswith("odds of success: 76.2%")
            assert "Aengus — Escalade: " in proc.stdout.readline()
            assert "waiting" in proc.stdout.readline()
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()


def test_entry_point_script_is_installed():
    assert shutil.which("sidecar") or (Path(sys.executable).parent / "sidecar").exists()


def test_asyncio_policy_unchanged(capsys):
    """Running a command in-process (as a library user or a test would) leaves the caller's
    asyncio set-up as it was: same policy, no event loop left set, none running."""
    from sidecar.cli.main import main

    policy = asyncio.get_event_loop_policy()
    loop_before = getattr(policy, "_local", None) and policy._local._loop
    assert main(["odds", "bloodlust", "pool=3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["p_success"] > 0
    assert main(["roll", "bloodlust", "pool=1", "--url", "ws://127.0.0.1:9/ws"]) == 3
    assert asyncio.get_event_loop_policy() is policy
    assert (getattr(policy, "_local", None) and policy._local._loop) == loop_before
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()


def test_successive_cli_rolls_are_distinct_requests():
    """Request ids are idempotency keys: two `sidecar roll` runs must not share one."""
    with ServeProcess() as server:
        outs = [sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--token",
                        PLAYER_TOKEN, "--name", "Aengus", "--json") for _ in range(2)]
        seqs = [json.loads(out.stdout)["seq"] for out in outs]
        assert seqs == [1, 2]
        assert all("duplicate" not in json.loads(out.stdout) for out in outs)


def test_serve_without_options_runs_with_server_config_defaults(monkeypatch, tmp_path):
    """One source of defaults: ``sidecar serve`` with no option builds exactly
    ``ServerConfig()`` (but its random tokens)."""
    import dataclasses

    from sidecar.cli import serve
    from sidecar.cli.common import DEFAULT_URL, store_choice
    from sidecar.cli.parser import build_parser
    from sidecar.config import ServerConfig

    built = []

    async def fake_serve(config, table, locale):
        built.append(config)
        return 0
    monkeypatch.setattr(serve, "serve_until_stopped", fake_serve)
    monkeypatch.delenv("SIDECAR_GM_TOKEN", raising=False)
    monkeypatch.delenv("SIDECAR_PLAYER_TOKEN", raising=False)
    monkeypatch.delenv("SIDECAR_STORE", raising=False)
    monkeypatch.chdir(tmp_path)  # (its tokens are kept beside ./sidecar.db: not in the checkout)
    assert main(["serve"]) == 0
    (config,) = built
    expected = ServerConfig(gm_token=config.gm_token, player_token=config.player_token)
    assert dataclasses.asdict(config) == dataclasses.asdict(expected)
    assert config.gm_token != config.player_token
    export = build_parser().parse_args(["export", "--table", "t"])
    assert store_choice(export) is None  # (--db, else --store, else the default)
    assert export.db == expected.db and DEFAULT_URL.endswith(f":{expected.port}/ws")


def test_serve_on_uvloop_rolls_like_on_asyncio():
    pytest.importorskip("uvloop")  # installed with the test extra
    with ServeProcess("--db", ":memory:", "--loop", "uvloop") as server:
        assert any(line.strip() == "boucle d'événements : uvloop"
                   for line in server.lines), server.lines
        rolled = sidecar("roll", "bloodlust", "pool=3", "--url", server.url, "--table", "demo",
                         "--name", "Aengus", "--token", PLAYER_TOKEN)
        assert rolled.returncode == 0, rolled.stderr
        assert rolled.stdout.startswith("#1 ")
        assert server.stop() == 0


def test_serve_says_how_to_get_uvloop_when_it_is_missing(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop now raises ImportError
    assert main(["serve", "--loop", "uvloop", "--db", ":memory:", "--port", "0"]) == 2
    assert "pip install 'vtt-sidecar[fast]'" in capsys.readouterr().err


def test_serve_limits_reach_the_server_config(monkeypatch, tmp_path):
    from sidecar.cli import serve

    monkeypatch.chdir(tmp_path)  # (its tokens are kept beside ./sidecar.db)
    built = []

    async def fake_serve(config, table, locale):
        built.append(config)
        return 0
    monkeypatch.setattr(serve, "serve_until_stopped", fake_serve)
    assert main(["serve", "--max-failed-hellos", "0", "--max-connections-per-address",
                 "7", "--max-observers", "3", "--rate-limit", "9"]) == 0
    (config,) = built
    assert (config.max_failed_hellos, config.max_connections_per_address,
            config.max_observers, config.rate_limit) == (0, 7, 3, 9)


# -- seats and characters: parsing and printing (PROTOCOL.md §7) ------------------------

SHEET = {"pep": {"type": "int", "min": 0, "max": 6, "default": 2},
         "bbplus": {"type": "int", "min": 0, "default": 0, "resource": True},
         "bagage": {"type": "bool", "default": False},
         "notes": {"type": "string", "default": ""},
         "skills": {"type": "map", "values": "int", "default": {}},
         "codes": {"type": "map", "values": "string", "default": {}}}


def test_sheet_values_are_typed_by_the_sheet_and_map_entries_keep_the_others():
    from sidecar.cli.values import parse_sheet_values

    values = parse_sheet_values(["pep=3", "bagage=oui", "notes=42", "skills.Escalade=5",
                                 "codes.Piloter=4D+2"], SHEET,
                                current={"skills": {"Nager": 2}, "pep": 1})
    assert values == {"pep": 3, "bagage": True, "notes": "42",
                      "skills": {"Nager": 2, "Escalade": 5}, "codes": {"Piloter": "4D+2"}}
    # The whole map as JSON replaces it; a new character starts from nothing.
    assert parse_sheet_values(['skills={"Nager": 3}'], SHEET,
                              current={"skills": {"Escalade": 5}}) == {"skills": {"Nager": 3}}
    assert parse_sheet_values(["skills.Nager=1", "skills.Saut=2"], SHEET) == \
        {"skills": {"Nager": 1, "Saut": 2}}
    # Not understood: left as typed, for the server to name the field.
    assert parse_sheet_values(["skills={oops", "pep=beaucoup"], SHEET) == \
        {"skills": "{oops", "pep": "beaucoup"}
    # Unknown fields, or a dot in a field that is no map: the key as it is.
    assert parse_sheet_values(["pep.x=1", "luck=2"], SHEET) == {"pep.x": 1, "luck": 2}
    with pytest.raises(ValueError):
        parse_sheet_values(["pep"], SHEET)


def test_key_values_may_follow_the_options():
    from sidecar.cli.parser import parse_args

    args = parse_args(["sheet", "set", "Aengus", "pep=3", "--ruleset", "oweens", "ecl=2",
                       "--owner", "Aengus", "skills.Nager=1"])
    assert args.values == ["pep=3", "ecl=2", "skills.Nager=1"] and args.owner == "Aengus"
    assert parse_args(["sheet", "adjust", "Aengus", "--reason", "soin", "wounds=-1"]).delta \
        == ["wounds=-1"]
    assert parse_args(["roll", "luck", "--character", "Aengus", "push=1"]).params == ["push=1"]
    for stray in (["sheet", "set", "A", "--bogus"], ["seat", "list", "x=1"]):
        with pytest.raises(SystemExit) as usage:
            parse_args(stray)
        assert usage.value.code == 2


def test_adjustments_are_signed_integers():
    from sidecar.cli.values import parse_delta

    assert parse_delta(["bbplus=+2", "wounds=-1", "pep=3"]) == \
        {"bbplus": 2, "wounds": -1, "pep": 3}
    for bad in (["bbplus"], ["bbplus=deux"], ["=2"]):
        with pytest.raises(ValueError, match="field=\\+N"):
            parse_delta(bad)


def test_an_outcome_as_a_character_shows_what_was_spent_and_the_new_values():
    from sidecar.cli.render import format_outcome

    outcome = {"type": "outcome", "seq": 4, "text": "Aengus — Remorquer : réussite",
               "result": {"kind": "success"}, "dice": [{"face": 5}], "character": "Aengus",
               "spent": {"bbplus": 1, "reserve_pep": 2, "wounds": -1},
               "sheet": {"bbplus": 2, "reserve_pep": 1, "wounds": 0,
                         "skills": {"Escalade": 5}}}
    text = format_outcome(outcome)
    assert "personnage / character: Aengus" in text
    assert "bbplus −1 → 2, reserve_pep −2 → 1, wounds +1 → 0" in text
    # What changed, not the whole sheet again (unless asked for).
    assert "fiche" not in text
    assert "fiche / sheet: bbplus=2 reserve_pep=1 wounds=0 skills={Escalade: 5}" in \
        format_outcome(outcome, whole_sheet=True)
    nothing = format_outcome({**outcome, "spent": {}})
    assert "spent: rien / nothing" in nothing
    # A blind roll's roller sees neither (the server sends neither).
    hidden = format_outcome({"seq": 5, "text": "Jet à l'aveugle", "result": {"hidden": True},
                             "character": "Aengus"})
    assert hidden == "#5 Jet à l'aveugle"


def test_sheet_and_seat_events_print_as_what_changed_and_why():
    from sidecar.cli.render import format_error, format_event

    event = {"type": "sheet", "seq": 7, "op": "adjust", "character": "Aengus",
             "ruleset": "oweens", "owner": "Aengus", "values": {"bbplus": 4},
             "changed": {"bbplus": [2, 4]}, "reason": "belle scène",
             "by": {"name": "Morgane", "role": "gm"}}
    text = format_event(event)
    assert text.startswith("#7 ajustement / adjustment Aengus (oweens, place / seat: Aengus)")
    assert format_event({**event, "op": "refill", "what": "rest"}).startswith(
        "#7 recharge du repos / refill of the rest Aengus")
    assert "« belle scène »" in text and "par / by Morgane" in text
    assert "bbplus 2 → 4" in text
    removed = format_event({**event, "op": "remove", "removed": True, "owner": None})
    assert removed.startswith("#7 personnage supprimé / character removed Aengus")
    assert "seat: —" in removed
    assert "fiche / sheet: " not in removed.split("\n", 1)[-1]
    seat = format_event({"type": "seat", "seq": 3, "op": "add", "name": "Brann",
                         "by": {"name": "Morgane"}})
    assert seat == "#3 place ajoutée / seat added Brann — par / by Morgane"
    line = format_error("insufficient", "pas assez de BB+ :\nil en reste 1",
                        {"field": "bbplus", "have": 1, "need": 2})
    assert line == "sidecar: pas assez de BB+ : il en reste 1 [insufficient]"
    created = format_event({**event, "op": "set", "changed": {"bbplus": [None, 4]}})
    # A new character: its values once, none « — → » (issue 29, third re-run, D).
    assert created.endswith("\n   bbplus=4") and "— →" not in created


def test_a_seat_link_is_printed_with_a_qr_code_a_phone_can_scan():
    import io

    import segno

    from sidecar.cli.render import format_seat_link, format_seats, format_sheets, print_qr

    link = "http://192.0.2.7:8765/?table=crypte&name=Aengus#token=abc"
    out = io.StringIO()
    print_qr(link, out)
    drawn = out.getvalue()
    # Read the drawing back (two rows a line; light modules drawn, dark ones blank, a
    # 4-module quiet zone): it is the code of that very link.
    halves = {"█": (0, 0), " ": (1, 1), "▀": (0, 1), "▄": (1, 0)}
    rows: list[list[int]] = []
    for line in drawn.splitlines():
        pairs = [halves[char] for char in line]
        rows += [[top for top, _ in pairs], [bottom for _, bottom in pairs]]
    matrix = [list(row) for row in segno.make(link).matrix]
    size = len(matrix)
    assert [row[4:4 + size] for row in rows[4:4 + size]] == matrix
    text = format_seat_link({"op": "add", "name": "Aengus", "table": "crypte", "link": link,
                             "token": "abc"})
    assert link in text and "jeton / token: abc" in text
    assert text.startswith(f"Place d'Aengus / Aengus's seat: {link}\n")
    assert "Nouveau lien d'A / A's new link: " in format_seat_link(
        {"op": "rotate", "name": "A", "link": link, "token": "t"})
    assert "aucune place" in format_seats([])
    listed = format_seats([{"name": "Aengus", "online": 2, "characters": ["Aengus", "Rex"]},
                           {"name": "Brann", "online": 0, "characters": []}])
    assert "en ligne / online (2)" in listed and "Aengus, Rex" in listed
    assert "absent / offline" in listed
    assert "skills={Nager: 2}" in format_sheets([{"character": "Aengus", "ruleset": "oweens",
                                                  "owner": None,
                                                  "values": {"skills": {"Nager": 2}}}])


PLUGINS = str(ROOT / "tests" / "js" / "plugins")  # the `luck` ruleset, whose rolls spend


def test_seat_sheet_and_roll_as_a_character_from_the_command_line():
    from urllib.parse import parse_qs, urlsplit
    from urllib.request import urlopen

    from sidecar.client import SidecarClient

    with ServeProcess("--db", ":memory:", "--plugins-dir", PLUGINS) as server:
        gm = ["--url", server.url, "--table", "crypte", "--token", GM_TOKEN, "--name", "Morgane"]
        added = sidecar("seat", "add", "Aengus", *gm)
        assert added.returncode == 0, added.stderr
        link = re.search(r"(http://\S+#token=(\S+))", added.stdout)
        assert link, added.stdout
        assert "▄" in added.stdout or "▀" in added.stdout  # the QR code
        # The link works: its page is served, and its token joins as the seat it names.
        url, token = link.group(1), link.group(2)
        parts = urlsplit(url)
        query = parse_qs(parts.query)
        assert query == {"table": ["crypte"], "name": ["Aengus"]}
        with urlopen(url.split("#")[0], timeout=10) as page:
            assert page.status == 200

        async def join_with_the_link():
            client = SidecarClient(server.url, table=query["table"][0], name=query["name"][0],
                                   token=token)
            welcome = await client.connect()
            await client.close()
            return welcome
        assert run(join_with_the_link()).get("seat") is True

        listed = sidecar("seat", "list", *gm)
        assert listed.returncode == 0 and "Aengus" in listed.stdout
        made = sidecar("sheet", "set", "Aengus", "--ruleset", "luck", "--owner", "Aengus",
                       "level=3", "skills.Nager=2", "--reason", "création", *gm)
        assert made.returncode == 0, made.stderr
        assert "nouveau personnage Aengus (Chance, place : Aengus)" in made.stdout
        # Without --ruleset: the character's own; a map entry keeps the others.
        more = sidecar("sheet", "set", "Aengus", "skills.Saut=1", "--json", *gm)
        assert json.loads(more.stdout)["values"]["skills"] == {"Nager": 2, "Saut": 1}

        seat = ["--url", server.url, "--table", "crypte", "--token", token, "--name", "Aengus"]
        rolled = sidecar("roll", "luck", "push=1", "skill=Nager", "--character", "Aengus",
                         "--label", "Nager", *seat)
        assert rolled.returncode == 0, rolled.stderr
        assert "personnage : Aengus — dépensé : Chance −1 → 2" in rolled.stdout
        assert "fiche" not in rolled.stdout  # (the sheet is not printed again)
        short = sidecar("roll", "luck", "push=3", "--character", "Aengus", *seat)
        assert short.returncode == 1 and short.stdout == ""
        assert short.stderr.count("\n") == 1 and "Traceback" not in short.stderr
        assert "insufficient" in short.stderr and "« Chance »" in short.stderr
        # The seat's token under another name: refused, one line.
        other = sidecar("roll", "luck", "--url", server.url, "--table", "crypte",
                        "--token", token, "--name", "Brann")
        assert other.returncode == 1 and "forbidden" in other.stderr
        assert "Traceback" not in other.stderr

        given = sidecar("sheet", "adjust", "Aengus", "luck=+1", "--reason", "belle scène", *gm)
        assert given.returncode == 0 and "Chance 2 → 3" in given.stdout
        assert "« belle scène »" in given.stdout
        too_much = sidecar("sheet", "adjust", "Aengus", "luck=+5", *gm)
        assert too_much.returncode == 1 and "insufficient" in too_much.stderr
        spent = sidecar("roll", "luck", "push=2", "--character", "Aengus", *seat)
        assert spent.returncode == 0 and "Chance −2 → 1" in spent.stdout
        rested = sidecar("sheet", "refill", "rest", "--reason", "nuit au camp", *gm)
        assert rested.returncode == 0, rested.stderr
        assert "Aengus (Chance, place : Aengus)" in rested.stdout  # all of them, after
        assert "Chance 3" in rested.stdout
        mine = sidecar("sheet", "list", "--role", "player", *seat)
        assert mine.returncode == 0 and "Aengus (Chance, place : Aengus)" in mine.stdout
        assert "Chance 3" in mine.stdout
        # The history shows the sheet's events with the rolls.
        history = sidecar("history", "--role", "gm", *gm)
        assert "ajustement Aengus" in history.stdout and "Chance −1 → 2" in history.stdout

        rotated = sidecar("seat", "rotate", "Aengus", "--no-qr", *gm)
        assert rotated.returncode == 0 and "Nouveau lien d'Aengus : http://" in rotated.stdout
        assert "▄" not in rotated.stdout and token not in rotated.stdout
        stale = sidecar("sheet", "list", "--role", "player", *seat)
        assert stale.returncode == 1 and "forbidden" in stale.stderr
        assert sidecar("sheet", "remove", "Aengus", *gm).returncode == 0
        assert sidecar("seat", "remove", "Aengus", *gm).returncode == 0
        assert "aucune place" in sidecar("seat", "list", *gm).stdout


def test_sheet_commands_say_what_to_fix():
    with ServeProcess("--db", ":memory:", "--plugins-dir", PLUGINS) as server:
        gm = ["--url", server.url, "--table", "t", "--token", GM_TOKEN, "--name", "Morgane"]
        new = sidecar("sheet", "set", "Nouveau", "level=2", *gm)
        assert new.returncode == 2 and "--ruleset" in new.stderr
        bad = sidecar("sheet", "adjust", "Nouveau", "luck=beaucoup", *gm)
        assert bad.returncode == 2 and "field=+N" in bad.stderr
        unknown = sidecar("sheet", "set", "Aengus", "--ruleset", "luck", "level=9", *gm)
        assert unknown.returncode == 1 and "invalid_params" in unknown.stderr
        assert "Traceback" not in unknown.stderr
        owner = sidecar("sheet", "set", "Aengus", "--ruleset", "luck", "--owner", "Personne",
                        *gm)
        assert owner.returncode == 1 and "invalid_params" in owner.stderr
        player = sidecar("seat", "add", "Aengus", "--role", "player", "--url", server.url,
                         "--table", "t", "--token", PLAYER_TOKEN)
        assert player.returncode == 1 and "forbidden" in player.stderr
        twice = [sidecar("seat", "add", "Aengus", "--no-qr", *gm) for _ in range(2)]
        assert twice[0].returncode == 0 and twice[1].returncode == 1
        assert "bad_message" in twice[1].stderr


# -- open rolls: decide after seeing the dice ----------------------------------------------

OPEN = ["target=7", "skill=0", "second_chance=true"]  # a d6 never reaches 7: choices


def _luck_rules(tmp_path: Path) -> str:
    """A plugins dir holding only the tests' small ``luck`` ruleset (``second_chance``)."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "sheet_plugin.py", folder / "luck_rules.py")
    return str(folder)


def _open_roll_id(output: str) -> str:
    return re.search(r"sidecar react (\S+) CHOIX", output).group(1)


def test_an_open_rolls_choices_are_printed_and_sidecar_react_decides(tmp_path):
    with ServeProcess("--db", ":memory:", "--plugins-dir", _luck_rules(tmp_path)) as server:
        gm = ["--url", server.url, "--table", "t", "--role", "gm", "--token", GM_TOKEN,
              "--name", "MJ"]
        alice = ["--url", server.url, "--table", "t", "--token", PLAYER_TOKEN, "--name", "Alice"]
        watch = subprocess.Popen([*SIDECAR, "watch", *gm, "--count", "2"], cwd=ROOT, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert "table t" in watch.stdout.readline()
            # Not a terminal: the choices are printed, nothing is asked.
            rolled = sidecar("roll", "luck", *OPEN, "--dice", "2", *gm, stdin=subprocess.DEVNULL)
            assert rolled.returncode == 0, rolled.stderr
            assert "1) Relancer (1 dé)" in rolled.stdout
            assert "2) Garder [défaut]" in rolled.stdout
            assert "Votre choix" not in rolled.stdout
            roll = _open_roll_id(rolled.stdout)
            decided = sidecar("react", roll, "reroll", "--dice", "6", *gm)
            assert decided.returncode == 0, decided.stderr
            assert "réagit à #1 — choix : Relancer — par MJ (MJ)" \
                in decided.stdout
            assert "dés : 6" in decided.stdout and "choices" not in decided.stdout
            again = sidecar("react", roll, "keep", *gm)
            assert again.returncode == 1 and "bad_message" in again.stderr
            watched, _ = watch.communicate(timeout=30)
        finally:
            watch.kill()
        assert "1) Relancer" in watched and "réagit à #1" in watched
        # A player's own roll: another player may not decide it, its roller may.
        mine = sidecar("roll", "luck", *OPEN, "--no-ask", *alice)
        assert mine.returncode == 0, mine.stderr
        roll = _open_roll_id(mine.stdout)
        bob = sidecar("react", roll, "keep", *alice[:-1], "Bob")
        assert bob.returncode == 1 and "forbidden" in bob.stderr
        unknown = sidecar("react", roll, "fly", *alice)
        assert unknown.returncode == 1 and "bad_message" in unknown.stderr
        kept = sidecar("react", roll, "keep", *alice, "--json")
        assert json.loads(kept.stdout)["reacted_by"]["name"] == "Alice"
        history = sidecar("history", *gm)
        assert history.stdout.count("1) Relancer") == 2
        assert "choix : Garder — par Alice (joueur)" in history.stdout
        # A blind roll's roller learns neither that it is open nor that it was decided
        # (watched on her other connection: a seat's rolls reach all its connections), and
        # may not decide it: a GM does.
        seat = json.loads(sidecar("seat", "add", "Cleo", "--json", *gm).stdout)
        cleo = ["--url", server.url, "--table", "t", "--token", seat["token"], "--name", "Cleo",
                "--role", "player"]
        hers = subprocess.Popen([*SIDECAR, "watch", *cleo, "--count", "2"], cwd=ROOT,
                                text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert "table t" in hers.stdout.readline()
            blind = sidecar("roll", "luck", *OPEN, "--mode", "blind", *cleo,
                            stdin=subprocess.DEVNULL)
            assert blind.returncode == 0, blind.stderr
            assert "résultat caché" in blind.stdout and "open" not in blind.stdout
            assert "reroll" not in blind.stdout and "Votre choix" not in blind.stdout
            full = json.loads(sidecar("history", *gm, "--json").stdout.splitlines()[-1])
            assert full["open"] is True
            hers_too = sidecar("react", full["roll"], "keep", *cleo)
            assert hers_too.returncode == 1 and "bad_message" in hers_too.stderr
            assert sidecar("react", full["roll"], "keep", *gm).returncode == 0
            after = sidecar("roll", "luck", "target=1", "skill=0", "--dice", "1", *gm)
            watched, _ = hers.communicate(timeout=30)
        finally:
            hers.kill()
        assert "reacts to" not in watched and "open" not in watched, watched
        assert after.returncode == 0, after.stderr
        assert re.search(r"#\d+ ", after.stdout).group(0) in watched, watched


def test_history_says_when_time_ran_out(tmp_path):
    with ServeProcess("--db", ":memory:", "--plugins-dir", _luck_rules(tmp_path),
                      "--react-timeout", "0.1") as server:
        gm = ["--url", server.url, "--table", "t", "--role", "gm", "--token", GM_TOKEN]
        rolled = sidecar("roll", "luck", *OPEN, "no_default=true", "--no-ask", *gm)
        assert "sans décision le jet reste tel quel" in rolled.stdout
        for _ in range(100):
            history = sidecar("history", *gm)
            if "réagit à" in history.stdout:
                break
        assert "réagit à #1 — aucun choix — temps écoulé" in history.stdout


def _in_a_terminal(*args: str) -> tuple[subprocess.Popen, int]:
    """``sidecar …`` with a terminal (a pty) as its standard input; returns the process and
    the terminal's end to type into."""
    import pty

    typist, terminal = pty.openpty()
    proc = subprocess.Popen([*SIDECAR, *args], stdin=terminal, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    os.close(terminal)
    return proc, typist


def _read_until(proc: subprocess.Popen, text: str) -> str:
    seen = b""
    while text.encode() not in seen:
        chunk = os.read(proc.stdout.fileno(), 4096)
        assert chunk, seen.decode() + proc.stderr.read().decode()
        seen += chunk
    return seen.decode()


def test_roll_in_a_terminal_asks_which_choice_to_take_and_reacts(tmp_path):
    with ServeProcess("--db", ":memory:", "--plugins-dir", _luck_rules(tmp_path)) as server:
        gm = ["--url", server.url, "--table", "t", "--role", "gm", "--token", GM_TOKEN]
        # Physical dice: the faces the choice draws are asked for too.
        proc, typist = _in_a_terminal("roll", "luck", *OPEN, "--dice", "2", *gm)
        try:
            shown = _read_until(proc, "Votre choix [1-2, Entrée = keep]")
            os.write(typist, b"3\n")  # no such choice: asked again
            shown += _read_until(proc, "« 3 » ? 1-2 (reroll, keep)")
            os.write(typist, b"1\n")
            shown += _read_until(proc, "Faces (1 dé)")
            os.write(typist, b"5\n")
            out, err = proc.communicate(timeout=30)
        finally:
            os.close(typist)
            proc.kill()
        assert proc.returncode == 0, err
        output = shown + out.decode()
        assert "choix : Relancer — par" in output and "dés : 5" in output
        # Enter takes the default.
        proc, typist = _in_a_terminal("roll", "luck", *OPEN, *gm)
        try:
            _read_until(proc, "Votre choix")
            os.write(typist, b"\n")
            out, err = proc.communicate(timeout=30)
        finally:
            os.close(typist)
            proc.kill()
        assert "choix : Garder — par" in out.decode(), err
        # --no-ask: printed only, even in a terminal.
        proc, typist = _in_a_terminal("roll", "luck", *OPEN, "--no-ask", *gm)
        try:
            out, err = proc.communicate(timeout=30)
        finally:
            os.close(typist)
        assert proc.returncode == 0 and "Votre choix" not in out.decode(), err
        assert "2) Garder" in out.decode()
        # Decided elsewhere while the prompt waits: said, and the command ends.
        proc, typist = _in_a_terminal("roll", "luck", *OPEN, *gm)
        try:
            shown = _read_until(proc, "Votre choix")
            decided = sidecar("react", _open_roll_id(shown), "keep", *gm, "--name", "Morgane")
            assert decided.returncode == 0, decided.stderr
            out, err = proc.communicate(timeout=30)
        finally:
            os.close(typist)
            proc.kill()
        assert proc.returncode == 0, err
        assert "Décidé ailleurs" in out.decode() and "par Morgane" in out.decode()


# -- asked rolls, opposed rolls, sessions (PROTOCOL.md §7.4–7.5) --------------------------

def _ask_id(output: str) -> str:
    found = re.search(r"(?:demande|opposition) (\S+) :", output)
    assert found, output
    return found.group(1)


def test_ask_answer_cancel_and_session_from_the_command_line():
    with ServeProcess("--db", ":memory:", "--plugins-dir", PLUGINS,
                      "--allow-player-dice") as server:
        base = ["--url", server.url, "--table", "t"]
        gm = [*base, "--token", GM_TOKEN, "--name", "Morgane"]
        seats = {name: [*base, "--token", seat_token(gm, name), "--name", name]
                 for name in ("Alice", "Bob")}
        assert sidecar("sheet", "set", "Ysolde", "--ruleset", "luck", "--owner", "Bob",
                       *gm).returncode == 0
        opened = sidecar("ask", "open", "Alice", "Ysolde", "--ruleset", "luck", "target=5",
                         "--label", "Perception", "--mode", "gm", *gm)
        assert opened.returncode == 0, opened.stderr
        ask = _ask_id(opened.stdout)
        assert f"demande {ask} : Chance « Perception » — par Morgane" in opened.stdout
        assert "à : Alice, Bob (Ysolde)" in opened.stdout
        assert "target 5" in opened.stdout and "mode : MJ" in opened.stdout
        # Alice has one ask pending: `answer` without an id answers it.
        answered = sidecar("answer", *seats["Alice"], "--dice", "4")
        assert answered.returncode == 0, answered.stderr
        assert f"répond à la demande {ask}" in answered.stdout
        assert "dés : 4" in answered.stdout
        twice = sidecar("answer", ask, *seats["Alice"])
        assert twice.returncode == 1 and "bad_message" in twice.stderr
        listed = sidecar("ask", "list", *gm)
        assert listed.returncode == 0 and ask in listed.stdout
        assert "ont répondu : Alice (#" in listed.stdout
        assert "Alice" in sidecar("ask", "list", "--role", "player", *seats["Bob"]).stdout
        by_bob = sidecar("answer", ask, *seats["Bob"])
        assert by_bob.returncode == 0 and "personnage : Ysolde" in by_bob.stdout
        assert "aucune demande ouverte" in sidecar("ask", "list", *gm).stdout
        # Two asks pending and no terminal: which one is not guessed.
        first = _ask_id(sidecar("ask", "open", "Alice", "--ruleset", "luck", *gm).stdout)
        second = _ask_id(sidecar("ask", "open", "Alice", "--ruleset", "luck", "--label",
                                 "Nager", *gm).stdout)
        unsure = sidecar("answer", *seats["Alice"])
        assert unsure.returncode == 2 and "sidecar answer ASK_ID" in unsure.stderr
        assert first in unsure.stdout and second in unsure.stdout
        cancelled = sidecar("ask", "cancel", first, *gm)
        assert cancelled.returncode == 0
        assert f"demande {first} annulée — par Morgane" in \
            cancelled.stdout
        assert sidecar("ask", "cancel", first, *gm).returncode == 1
        refused = sidecar("ask", "open", "Bob", "--ruleset", "luck", *seats["Alice"])
        assert refused.returncode == 1 and "forbidden" in refused.stderr
        nobody = sidecar("answer", *seats["Bob"])
        assert nobody.returncode == 2 and "aucune demande à laquelle répondre" in nobody.stderr
        started = sidecar("session", "start", *gm)
        assert started.returncode == 0 and "nouvelle séance 1" in started.stdout
        # The history tells it all: asks, answers, the cancellation, the session.
        history = sidecar("history", "--role", "gm", *gm).stdout
        assert f"demande {ask} : Chance « Perception »" in history
        assert history.count(f"répond à la demande {ask}") == 2
        assert f"demande {first} annulée" in history
        assert "nouvelle séance 1 — par Morgane" in history


def test_an_opposed_roll_from_the_command_line_and_its_winner_in_watch():
    """Seed 003: Strengal 3D+5 rolls 11 → 16 against Krull 4D+1 rolling 13 → 14."""
    with ServeProcess("--db", ":memory:", "--allow-player-dice") as server:
        base = ["--url", server.url, "--table", "duel"]
        gm = [*base, "--token", GM_TOKEN, "--name", "Morgane"]
        seats = {name: [*base, "--token", seat_token(gm, name), "--name", name]
                 for name in ("Strengal", "Krull")}
        watch = subprocess.Popen([*SIDECAR, "watch", "--count", "2", *base], cwd=ROOT,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert "table duel" in watch.stdout.readline()
            opened = sidecar("ask", "open", "Strengal", "Krull", "--ruleset", "d6code",
                             "difficulty=0", "--opposed", "--each", "Strengal", "code=3D+5",
                             "--each", "Krull", "code=4D+1", *gm)
            assert opened.returncode == 0, opened.stderr
            assert (f"opposition {_ask_id(opened.stdout)} : Codes de compétence ND+M"
                    in opened.stdout)
            assert "à : Strengal [Code de compétence 3D+5], Krull [Code de compétence 4D+1]" \
                in opened.stdout
            ask = _ask_id(opened.stdout)
            first = sidecar("answer", ask, "--dice", "3,4,4", *seats["Strengal"])
            assert first.returncode == 0 and "vainqueur" not in first.stdout
            last = sidecar("answer", "--dice", "4,4,3,2", *seats["Krull"])
            assert last.returncode == 0, last.stderr
            # Each side as its own result said it (issue 29, replay 2).
            assert (f"opposition {ask} : Strengal Réussite éclatante, marge 16 ; "
                    "Krull Réussite éclatante, marge 14 — vainqueur : Strengal") in last.stdout
            out, err = watch.communicate(timeout=30)
        finally:
            watch.kill()
        assert f"opposition {ask} : Codes de compétence ND+M" in out
        assert "vainqueur : Strengal" in out
        assert out.count(f"répond à la demande {ask}") == 2
        bad = sidecar("ask", "open", "Strengal", "--ruleset", "d6code", "--each", "Nobody",
                      "code=3D", *gm)
        assert bad.returncode == 2 and "--each Nobody" in bad.stderr


def test_answer_in_a_terminal_asks_which_pending_ask_to_answer():
    with ServeProcess("--db", ":memory:", "--plugins-dir", PLUGINS) as server:
        base = ["--url", server.url, "--table", "t"]
        gm = [*base, "--token", GM_TOKEN, "--name", "Morgane"]
        alice = [*base, "--token", seat_token(gm, "Alice"), "--name", "Alice"]
        first = _ask_id(sidecar("ask", "open", "Alice", "--ruleset", "luck", "--label",
                                "Sauter", *gm).stdout)
        second = _ask_id(sidecar("ask", "open", "Alice", "--ruleset", "luck", "--label",
                                 "Nager", *gm).stdout)
        proc, typist = _in_a_terminal("answer", *alice)
        try:
            shown = _read_until(proc, "Quelle demande [1-2]")
            os.write(typist, b"7\n")  # no such ask: asked again
            shown += _read_until(proc, "« 7 » ? 1-2")
            number = re.search(rf"(\d)\) demande {second} : Chance « Nager »", shown)
            assert number, shown
            os.write(typist, number.group(1).encode() + b"\n")
            out, err = proc.communicate(timeout=30)
        finally:
            os.close(typist)
            proc.kill()
        assert proc.returncode == 0, err
        assert f"demande {first} : Chance « Sauter »" in shown
        assert "Alice — Nager" in out.decode()
        assert f"répond à la demande {second}" in out.decode()
        # The other one is left: without a terminal, the only one pending is answered.
        left = sidecar("answer", *alice)
        assert left.returncode == 0 and f"répond à la demande {first}" in left.stdout


def test_answer_no_ask_asks_nothing_even_in_a_terminal(tmp_path):
    """Issue 29: ``answer … --no-ask`` was « unrecognized arguments »: as ``roll``'s, it
    prints without asking — which ask (several pending: the list and the command to run),
    which choice of the asked roll left open (its choices, to ``react`` later)."""
    with ServeProcess("--db", ":memory:", "--plugins-dir", _luck_rules(tmp_path)) as server:
        base = ["--url", server.url, "--table", "t"]
        gm = [*base, "--token", GM_TOKEN, "--name", "Morgane"]
        alice = [*base, "--token", seat_token(gm, "Alice"), "--name", "Alice"]
        asked = [_ask_id(sidecar("ask", "open", "Alice", "--ruleset", "luck", *OPEN, "--label",
                                 label, *gm).stdout) for label in ("Sauter", "Nager")]
        for args in ((), (asked[1],)):
            proc, typist = _in_a_terminal("answer", *args, "--no-ask", *alice)
            try:
                out, err = proc.communicate(timeout=30)
            finally:
                os.close(typist)
            out, err = out.decode(), err.decode()
            assert "Quelle demande" not in out and "Votre choix" not in out, out + err
            if not args:
                assert proc.returncode == 2 and "sidecar answer ASK_ID" in err, out + err
            else:
                assert proc.returncode == 0, err
                assert f"répond à la demande {asked[1]}" in out and "2) Garder" in out, out
