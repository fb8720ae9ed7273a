"""The newcomer's path (issue 15): what a new user types from the README works as shown,
and what they get wrong is told in one line — through the real ``sidecar`` command and a
real server on a loopback port."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.helpers import GM_TOKEN, PLAYER_TOKEN
from tests.support.serve import ROOT, SIDECAR, ServeProcess, seat_token, sidecar


def _popen(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([*SIDECAR, *args], text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, **kwargs)


# -- 6. a closed pipe ends any command quietly ---------------------------------------------

def _into_closed_pipe(*args: str) -> tuple[int, str]:
    """Run a command whose standard output is closed by its reader before it writes
    (``| head`` that has read enough): its exit code and standard error."""
    proc = _popen(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # before the command has written anything: every write fails
    _, err = proc.communicate(timeout=30)
    return proc.returncode, err


def test_a_closed_pipe_ends_every_command_quietly():
    with ServeProcess() as server:
        for _ in range(2):
            assert sidecar("roll", "bloodlust", "pool=2", "--url", server.url,
                           "--token", PLAYER_TOKEN).returncode == 0
        for command in (["history", "--url", server.url, "--token", PLAYER_TOKEN],
                        ["roll", "bloodlust", "pool=2", "--url", server.url,
                         "--token", PLAYER_TOKEN],
                        ["plugins"], ["odds", "bloodlust", "pool=5"]):
            code, err = _into_closed_pipe(*command)
            assert "Traceback" not in err and "BrokenPipe" not in err, (command, err)
            assert code == 0, (command, err)


# -- 7. watch is quiet about the CLI's own joins and leaves ---------------------------------

def _watch_one_roll(server: ServeProcess, *extra: str) -> str:
    watcher = _popen("watch", "--url", server.url, "--count", "1", "--token", PLAYER_TOKEN,
                     *extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert "table demo" in watcher.stdout.readline()
    if "--presence" in extra:
        # Wait for the watcher's own presence line: presence is throttled per table, so
        # without waiting the roll could end the watch first.
        assert "à la table : " in watcher.stdout.readline()
    rolled = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--name", "Aengus",
                     "--token", PLAYER_TOKEN)
    assert rolled.returncode == 0, rolled.stderr
    out, err = watcher.communicate(timeout=30)
    assert watcher.returncode == 0, err
    return out


def test_watch_shows_presence_only_when_asked():
    with ServeProcess() as server:
        # Each on a fresh table, where the watcher's own presence is sent at once (later
        # ones are throttled per table and could come after the roll that ends the watch).
        shown = _watch_one_roll(server, "--presence")
        assert "#1 " in shown and "Aengus" in shown
    with ServeProcess() as server:
        quiet = _watch_one_roll(server)
        assert "#1 " in quiet and "at the table" not in quiet


# -- 3. an extension's settings that are not JSON ------------------------------------------

def test_an_option_that_is_not_json_says_what_is_expected():
    """``--option blank_botch=yes`` once answered a JSON decoder's "Expecting value": it
    now turns the extension on; settings that are not JSON say in one line what is."""
    with ServeProcess() as server:
        yes = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--token",
                      PLAYER_TOKEN, "--option", "blank_botch=yes")
        assert yes.returncode == 0, yes.stderr
        bad = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--token",
                      PLAYER_TOKEN, "--option", "blank_botch={oui")
        assert bad.returncode == 2
        assert bad.stderr.count("\n") == 1 and "Expecting value" not in bad.stderr
        assert "blank_botch" in bad.stderr and "JSON" in bad.stderr
        # In the run's one language (French by default).
        assert "blank_botch=oui" in bad.stderr and "écrivez" in bad.stderr, bad.stderr
        assert " / " not in bad.stderr and "write" not in bad.stderr, bad.stderr
        english = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--token",
                          PLAYER_TOKEN, "--option", "blank_botch={oui", "--locale", "en")
        assert "blank_botch=yes" in english.stderr and "écrivez" not in english.stderr, \
            english.stderr
        unknown = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--token",
                          PLAYER_TOKEN, "--option", "blank_botch.nope=1")
        assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1
        assert "nope" in unknown.stderr and "clé inconnue" in unknown.stderr, unknown.stderr
        good = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--token",
                       PLAYER_TOKEN, "--option", "blank_botch={}")
        assert good.returncode == 0, good.stderr


# -- 2. the server's address as a user pastes it --------------------------------------------

def test_url_accepts_the_page_address_and_a_missing_ws_path():
    with ServeProcess() as server:
        page = server.url.replace("ws://", "http://").removesuffix("/ws")
        for url in (page + "/?table=demo&token=x", page, server.url.removesuffix("/ws"),
                    server.url.removeprefix("ws://")):
            rolled = sidecar("roll", "bloodlust", "pool=2", "--url", url, "--token",
                             PLAYER_TOKEN)
            assert rolled.returncode == 0, (url, rolled.stderr)
            assert rolled.stdout.startswith("#")


def test_a_wrong_url_is_one_line_and_exit_3():
    with ServeProcess() as server:
        elsewhere = server.url.removesuffix("/ws") + "/nope"
        for url, words in ((elsewhere, "HTTP 404"), ("ftp://127.0.0.1/ws", "expected"),
                           ("ws://127.0.0.1:notaport/ws", "expected")):
            for command in (["roll", "bloodlust", "pool=2", "--token", PLAYER_TOKEN],
                            ["watch"], ["history"]):
                done = sidecar(*command, "--url", url)
                assert done.returncode == 3, (url, command, done.stderr)
                assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
                assert words in done.stderr, done.stderr


# -- 4. options and params in any order -----------------------------------------------------

def test_options_and_params_mix_in_any_order_for_every_command_with_params():
    from sidecar.cli.parser import parse_args

    assert parse_args(["odds", "bloodlust", "--locale", "en", "pool=5", "--json",
                       "difficulty=7"]).params == ["pool=5", "difficulty=7"]
    assert parse_args(["roll", "bloodlust", "--locale", "en", "pool=2", "--mode", "gm",
                       "difficulty=9"]).params == ["pool=2", "difficulty=9"]
    opened = parse_args(["ask", "open", "--ruleset", "bloodlust", "Alice", "pool=3",
                         "--label", "Nager", "Brann"])
    assert opened.targets == ["Alice", "pool=3", "Brann"] and opened.label == "Nager"
    assert parse_args(["sheet", "adjust", "A", "--reason", "soin", "wounds=-1"]).delta == \
        ["wounds=-1"]
    shown = sidecar("odds", "bloodlust", "pool=5", "--locale", "en", "difficulty=7")
    assert shown.returncode == 0, shown.stderr
    assert "P(success) = 76%" in shown.stdout  # (English typography: no space)
    refused = sidecar("odds", "bloodlust", "--locale", "en", "pool=99")
    assert refused.returncode == 1 and "pool" in refused.stderr
    with ServeProcess() as server:
        rolled = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--token",
                         PLAYER_TOKEN, "--locale", "en", "difficulty=9")
        assert rolled.returncode == 0, rolled.stderr
        assert "diff. 9" in rolled.stdout and "successes" in rolled.stdout


# -- 5. watch and history follow --token ------------------------------------------------------

def test_watch_and_history_join_with_the_role_of_their_token():
    with ServeProcess() as server:
        url = ["--url", server.url]
        gm = [*url, "--role", "gm", "--token", GM_TOKEN]
        lea_token = seat_token(gm, "Léa")
        for name, token in (("Aengus", PLAYER_TOKEN), ("Léa", lea_token)):
            rolled = sidecar("roll", "bloodlust", "pool=2", "--mode", "gm", "--name", name,
                             *url, "--token", token, "--label", f"secret de {name}")
            assert rolled.returncode == 0, rolled.stderr
        unseen = sidecar("history", *url)  # no token: an observer sees no secret
        assert unseen.returncode == 0 and "secret de" not in unseen.stdout
        # A player's token: the player's own secret rolls, and a line saying so.
        own = sidecar("history", *url, "--name", "Aengus", "--token", PLAYER_TOKEN)
        assert own.returncode == 0, own.stderr
        assert "secret de Aengus" in own.stdout and "secret de Léa" not in own.stdout
        assert "vue de joueur" in own.stderr and "--role gm" in own.stderr
        # A seat's token joins under its seat's name, whatever --name says.
        seat = sidecar("history", *url, "--token", lea_token)
        assert seat.returncode == 0, seat.stderr
        assert "secret de Léa" in seat.stdout and "secret de Aengus" not in seat.stdout
        # The GM's view when asked for; an explicit role is never second-guessed.
        every = sidecar("history", *gm)
        assert "secret de Léa" in every.stdout and "secret de Aengus" in every.stdout
        assert "vue de joueur" not in every.stderr
        observer = sidecar("history", *url, "--role", "observer", "--token", PLAYER_TOKEN)
        assert observer.returncode == 0 and "secret de" not in observer.stdout
        # watch, the same way: its own secret roll arrives live.
        watcher = _popen("watch", *url, "--count", "1", "--token", lea_token,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert "table demo" in watcher.stdout.readline()
        assert sidecar("roll", "bloodlust", "pool=2", "--mode", "gm", "--name", "Léa",
                       *url, "--token", lea_token, "--label", "encore").returncode == 0
        out, err = watcher.communicate(timeout=30)
        assert watcher.returncode == 0 and "Léa — encore" in out, (out, err)


# -- 1. commands that work as shown ------------------------------------------------------------

def _path_without(directory: Path) -> str:
    """$PATH without ``directory``: as in a terminal where the venv was not activated."""
    return os.pathsep.join(entry for entry in os.environ.get("PATH", "").split(os.pathsep)
                           if entry and Path(entry).resolve() != directory.resolve())


def banner(env: dict[str, str], *args: str, tokens: bool = True) -> ServeProcess:
    """``sidecar serve`` with the environment given, as ``python -m sidecar``, once it
    printed its whole banner (its last line names 0.0.0.0); ``tokens=False``: its own
    tokens, kept beside the journal, as a user's first ``serve``."""
    return ServeProcess(*args, command=[sys.executable, "-m", "sidecar"], env=env,
                        banner_end="0.0.0.0", tokens=tokens)


def test_serve_prints_commands_that_work_as_shown_without_an_activated_venv():
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": _path_without(bin_dir)}
    with banner(env, "--db", ":memory:") as server:
        commands = [line.split(": ", 1)[1].rstrip() for line in server.lines
                    if re.match(r"\s+(MJ|Joueur|Place)\s*:", line)]
        assert len(commands) == 3, server.lines
        for command in commands:
            assert not command.startswith("sidecar "), command  # not on this PATH
            done = subprocess.run(command.replace("NOM", "Léa"), shell=True, cwd=ROOT,
                                  env=env, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, (command, done.stderr)
    # Where the script is on PATH, the lines say plain `sidecar`.
    with banner({**os.environ, "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}"},
                "--db", ":memory:") as server:
        assert any(" : sidecar roll dice" in line for line in server.lines)


def _normalised(lines: list[str]) -> list[str]:
    """A banner's lines without what changes from run to run: tokens, port, the path of
    the ``sidecar`` script, the journal's and its tokens' paths."""
    out = []
    for line in lines:
        line = re.sub(r"(token[= ])[\w-]+", r"\1TOKEN", line.rstrip("\n"))
        line = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", line)
        line = re.sub(r"\S*sidecar (?=(roll|watch|seat) )", "SIDECAR ", line)
        line = re.sub(r"^journal : .*", "journal : PATH", line)
        line = re.sub(r"^(jetons : gardés dans )\S+", r"\1PATH", line)
        out.append(line)
    return out


def test_the_readme_shows_serves_output_as_it_is(tmp_path):
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```text\n\$ \.venv/bin/sidecar serve\n(.*?)\n```", readme, re.S)
    assert block, "the README's sample `serve` output"
    shown = block.group(1).splitlines()
    assert all("…" not in line for line in shown)  # the whole output, nothing elided
    assert any(".venv/bin/sidecar roll" in line for line in shown)
    with banner({**os.environ}, "--db", str(tmp_path / "sidecar.db"), tokens=False) as server:
        assert _normalised(shown) == _normalised(server.lines)


def test_the_documented_install_commands_resolve_from_a_checkout():
    """The boss example depends on vtt-sidecar, which no index has: the documented
    commands install it where vtt-sidecar is (the server's .venv) or with it."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"]
    boss = ROOT / "examples" / "boss-weak-points"
    needs = tomllib.loads((boss / "pyproject.toml").read_text())["project"]["dependencies"]
    assert [re.split(r"[<>=!~ \[;]", need)[0] for need in needs] == [project]
    documented = "\n".join(re.findall(r"```sh\n(.*?)```", (boss / "README.md").read_text(),
                                      re.S) + re.findall(r"`([^`\n]*pip install[^`\n]*)`",
                                                         (ROOT / "README.md").read_text()))
    installs = re.findall(r"(\S*pip) install ([^#\n]*)", documented)
    boss_installs = [(pip, what.split()) for pip, what in installs
                     if "./examples/boss-weak-points" in what]
    assert boss_installs
    for pip, what in boss_installs:
        # Into the server's environment (where vtt-sidecar is), or with the checkout.
        assert pip == ".venv/bin/pip" or "." in what, (pip, what)
    assert "pip install ./examples/boss-weak-points" not in documented.replace(
        ".venv/bin/pip install ./examples/boss-weak-points", "")


def test_the_example_client_says_which_python_to_use():
    readme = (ROOT / "README.md").read_text()
    assert ".venv/bin/python examples/roll_and_watch.py" in readme
    # A Python without vtt-sidecar (no site-packages: -S) is told what to run.
    done = subprocess.run([sys.executable, "-S", "examples/roll_and_watch.py", "ws://x", "t"],
                          cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert ".venv/bin/python examples/roll_and_watch.py" in done.stderr


# -- 9. texts a user reads --------------------------------------------------------------------

#: A file name a text cites (``docs/RULESETS.md``, ``../README.md``, ``PROTOCOL.md``).
CITED = re.compile(r"(?<![\w/.-])((?:\.{1,2}/)*(?:[\w-]+/)*[\w-]+\.md)\b")
#: A Markdown link's target that is a path (not a web address, nor an anchor alone).
LINKED = re.compile(r"\]\((?!https?:|mailto:|#)([^)\s#]+)")


def _documents() -> list[Path]:
    """The Markdown a user of a checkout reads."""
    return sorted({*ROOT.glob("*.md"), *ROOT.glob("docs/*.md"), *ROOT.glob("protocol/*.md"),
                   *ROOT.glob("examples/*/README.md"), *ROOT.glob("benchmarks/*.md")})


def _served_texts() -> list[str]:
    """What the server shows users of its plugins: descriptions of plugins, rulesets,
    their params and sheets, and extension options (every string in them)."""
    from sidecar.host.plugins import default_host

    host = default_host()

    def strings(value) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [text for item in value.values() for text in strings(item)]
        if isinstance(value, list | tuple):
            return [text for item in value for text in strings(item)]
        return []
    return [text for info in host.plugins.values() for text in strings(info.description)] + \
        strings(host.ruleset_listing()) + strings(host.option_descriptions())


def _missing_citations(text: str, here: Path, names: set[str]) -> list[str]:
    """The files ``text`` (read in folder ``here``) cites that a checkout does not have:
    a path from ``here`` or from the top, or a bare name of one of its documents."""
    missing = []
    for cited in CITED.findall(text):
        if "/" in cited:
            found = (here / cited).exists() or (ROOT / cited).exists()
        else:
            found = cited in names or (here / cited).exists()
        if not found:
            missing.append(cited)
    return missing


def test_user_facing_texts_cite_only_files_users_have():
    """The rules' seeds (RULES.md) and the contract (CONTRACT.md) are the developers'; a
    user has the checkout: every file the docs and the server's texts cite is in it, and
    every link of the docs leads to a file."""
    documents = _documents()
    names = {path.name for path in documents}
    assert {"README.md", "PROTOCOL.md", "RULESETS.md", "PLUGINS.md"} <= names
    missing = []
    for path in documents:
        text = path.read_text()
        where = path.relative_to(ROOT)
        missing += [f"{where}: {cited}"
                    for cited in _missing_citations(text, path.parent, names)]
        missing += [f"{where}: link {target}" for target in LINKED.findall(text)
                    if not (path.parent / target).exists()]
    served = _served_texts()
    assert len(served) > 100  # (every ruleset's descriptions, in two languages)
    for text in served:
        missing += [f"served text {text[:60]!r}: {cited}"
                    for cited in _missing_citations(text, ROOT, names)]
    assert missing == []


def test_plugins_speak_the_readers_language_alone():
    def descriptions(listed: str) -> list[str]:
        # The plugins' own lines (four spaces), not their option keys (six) or headers.
        return [line.strip() for line in listed.splitlines()
                if line.startswith("    ") and not line.startswith("      ")
                and not line.strip().startswith(
                    ("hooks:", "hooks :", "jeux de règles :", "rulesets:", "options ("))]

    listed = sidecar("plugins")
    assert listed.returncode == 0
    english = sidecar("plugins", "--locale", "en")
    french_lines, english_lines = descriptions(listed.stdout), descriptions(english.stdout)
    assert len(french_lines) == len(english_lines) == 8, listed.stdout
    # One language each (issue 29): French by default, English with --locale en.
    for french, other in zip(french_lines, english_lines, strict=True):
        assert " / " not in french and " / " not in other and french != other, \
            (french, other)
    assert "Bloodlust : réserve de d10 contre une difficulté" in french_lines
    assert "A d10 pool against a difficulty." in english_lines
    # The command's own words in the reader's language alone (French by default).
    assert "jeux de règles : bloodlust" in listed.stdout
    assert ("options (jeux de règles : oweens ; inactive sauf si un jet la demande : --option "
            "combat=oui ou --option combat.CLÉ=VALEUR) :") in listed.stdout
    assert "<liste d'entiers -10–20, séparés par des virgules>" in listed.stdout
    assert "  Zone visée\n" in listed.stdout and "rulesets:" not in listed.stdout
    assert "rulesets: bloodlust" in english.stdout and "  Aimed zone\n" in english.stdout
    assert "<list of int -10–20, comma-separated>" in english.stdout
    assert "jeux de règles" not in english.stdout and "défaut" not in english.stdout


def test_roll_texts_put_a_colon_after_the_label_and_say_extreme_in_french():
    with ServeProcess() as server:
        gm = ["--url", server.url, "--role", "gm", "--token", GM_TOKEN, "--name", "MJ"]
        texts = {}
        for locale in ("fr", "en"):
            oweens = sidecar("roll", "oweens", "dice=3", "difficulty=2", "--dice", "6,5,1",
                             "--label", "Fouiller", "--locale", locale, "--json", *gm)
            d6code = sidecar("roll", "d6code", "code=3D", "difficulty=10", "style=extreme",
                             "--dice", "5,3,1,4,6", "--locale", locale, "--json", *gm)
            assert oweens.returncode == 0 and d6code.returncode == 0, (oweens.stderr,
                                                                        d6code.stderr)
            texts[locale] = (json.loads(oweens.stdout)["text"],
                             json.loads(d6code.stdout)["text"])
        assert texts["fr"][0].startswith("MJ — Fouiller : 3D contre 2 : ")
        assert texts["en"][0].startswith("MJ — Fouiller: 3D vs 2: ")
        assert "style extrême 4+6" in texts["fr"][1] and "extreme" not in texts["fr"][1]
        assert "extreme style 4+6" in texts["en"][1]


# -- 10. phones join by scanning -----------------------------------------------------------------

def _read_terminal_qr(lines: list[str]) -> list[list[int]]:
    """A QR code drawn by ``segno``'s compact terminal output, read back as modules (two rows
    a line; light modules drawn, dark ones blank), without its 4-module quiet zone."""
    halves = {"█": (0, 0), " ": (1, 1), "▀": (0, 1), "▄": (1, 0)}
    rows: list[list[int]] = []
    for line in lines:
        pairs = [halves[char] for char in line]
        rows += [[top for top, _ in pairs], [bottom for _, bottom in pairs]]
    size = len(rows[0]) - 8
    return [row[4:4 + size] for row in rows[4:4 + size]]


def test_serve_on_the_lan_prints_the_join_link_as_a_qr_code_and_gives_it_to_gms():
    import segno

    from sidecar.client import SidecarClient
    from tests.helpers import run

    with ServeProcess("--host", "0.0.0.0", "--db", ":memory:") as server:
        async def welcomes() -> tuple[dict, dict]:
            async with SidecarClient(server.url, table="demo", name="MJ", role="gm",
                                     token=GM_TOKEN) as gm, \
                    SidecarClient(server.url, table="demo", name="Aengus", role="player",
                                  token=PLAYER_TOKEN) as player:
                return gm.welcome, player.welcome
        gm, player = run(welcomes())
        server.stop()  # the rest of the banner (links, QR code) is all read then
    lines = [line.rstrip("\n") for line in server.lines + server.later]
    banner = "\n".join(lines)
    link = re.search(r"Téléphones : scannez — (\S+)", banner).group(1)
    assert link.endswith(f"/?table=demo#token={PLAYER_TOKEN}")
    assert f"Réseau local  : {link}" in banner  # the link printed above it
    start = next(i for i, line in enumerate(lines) if "Téléphones : scannez" in line) + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("▀")) + 1
    assert _read_terminal_qr(lines[start:end]) == [list(row) for row in
                                                   segno.make(link).matrix]
    assert gm["join"]["link"] == link
    assert gm["join"]["qr"].startswith("data:image/svg+xml")
    assert "join" not in player  # the GM's only


def test_a_server_on_loopback_gives_no_join_link():
    from sidecar.config import ServerConfig
    from sidecar.table.joinlink import join_block

    local = ServerConfig(host="127.0.0.1", gm_token="g", player_token="p")
    assert join_block(local, "http://127.0.0.1:8765/", "demo") is None
    lan = ServerConfig(host="0.0.0.0", gm_token="g", player_token="p&q")
    block = join_block(lan, "http://192.0.2.7:8765/", "la crypte")
    assert block["link"] == "http://192.0.2.7:8765/?table=la%20crypte#token=p%26q"
    seats_only = ServerConfig(host="0.0.0.0", gm_token="g", player_token="")
    assert join_block(seats_only, "http://192.0.2.7:8765/", "demo") is None


def test_the_gms_page_shows_the_join_link_and_its_qr_code(browser):
    """In Chromium: a server that players reach at another address (here `--public-url`;
    `--host 0.0.0.0` the same) gives the GM's panel the join link with its QR code; a
    player's page has none."""
    from tests.live_server import LiveServer
    from tests.support.browser import gm_page, player_page

    with LiveServer(public_url="http://192.0.2.7:8765/") as server:
        gm = gm_page(browser, server.http, "scan")
        box = gm.page.wait_for_selector("#gm-join")
        link = gm.page.input_value("#gm-join-link")
        assert link == f"http://192.0.2.7:8765/?table=scan#token={PLAYER_TOKEN}"
        qr = gm.page.get_attribute("#gm-join img.qr", "src")
        assert qr.startswith("data:image/svg+xml")
        assert box.is_visible() and gm.page.is_visible("#gm-join img.qr")
        assert "téléphone" in box.inner_text()
        player = player_page(browser, server.http, "scan")
        assert player.page.query_selector("#gm-join") is None
        if os.environ.get("SIDECAR_SHOTS"):  # to look at it: SIDECAR_SHOTS=dir
            box.screenshot(path=os.path.join(os.environ["SIDECAR_SHOTS"], "gm-join.png"))
        assert not gm.errors and not player.errors
    with LiveServer() as server:  # loopback only: nothing to scan
        gm = gm_page(browser, server.http, "local")
        gm.page.wait_for_selector("#gm-panel:not([hidden])")
        assert gm.page.query_selector("#gm-join") is None


def test_a_pasted_page_link_joins_its_table_with_its_token_role_and_name():
    """``--url`` given the link ``serve`` prints (or a seat's link) once ignored its table,
    token, role and name: « token est obligatoire pour le rôle player »."""
    with ServeProcess() as server:
        page = server.url.replace("ws://", "http://").removesuffix("/ws") + "/"
        player = sidecar("roll", "dice", "expr=1d6", "--json", "--url",
                         f"{page}?table=soiree#token={PLAYER_TOKEN}")
        assert player.returncode == 0, player.stderr
        rolled = json.loads(player.stdout)
        assert rolled["table"] == "soiree" and rolled["by"]["role"] == "player"
        gm = sidecar("roll", "dice", "expr=1d6", "--json", "--url",
                     f"{page}?table=soiree&role=gm#token={GM_TOKEN}")
        assert gm.returncode == 0, gm.stderr
        assert json.loads(gm.stdout)["by"]["role"] == "gm"
        seat = seat_token(["--url", server.url, "--table", "soiree", "--token", GM_TOKEN],
                           "Léa")
        as_seat = sidecar("roll", "dice", "expr=1d6", "--json", "--url",
                          f"{page}?table=soiree&name=L%C3%A9a#token={seat}")
        assert as_seat.returncode == 0, as_seat.stderr
        assert json.loads(as_seat.stdout)["by"]["name"] == "Léa"
