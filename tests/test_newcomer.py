"""The newcomer's path (issue 15): what a new user types from the README works as shown,
and what they get wrong is told in one line — through the real ``sidecar`` command and a
real server on a loopback port."""

from __future__ import annotations

import os
import subprocess

from tests.helpers import GM_TOKEN, PLAYER_TOKEN
from tests.test_cli import ROOT, SIDECAR, ServeProcess, _seat_token, sidecar


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
    rolled = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--name", "Aengus",
                     "--token", PLAYER_TOKEN)
    assert rolled.returncode == 0, rolled.stderr
    out, err = watcher.communicate(timeout=30)
    assert watcher.returncode == 0, err
    return out


def test_watch_shows_presence_only_when_asked():
    with ServeProcess() as server:
        quiet = _watch_one_roll(server)
        assert "#1 " in quiet and "at the table" not in quiet
        shown = _watch_one_roll(server, "--presence")
        assert "#2 " in shown and "à la table / at the table" in shown and "Aengus" in shown


# -- 3. an extension's settings that are not JSON ------------------------------------------

def test_an_option_that_is_not_json_says_what_is_expected():
    with ServeProcess() as server:
        bad = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--token",
                      PLAYER_TOKEN, "--option", "blank_botch=yes")
        assert bad.returncode == 2
        assert bad.stderr.count("\n") == 1 and "Expecting value" not in bad.stderr
        assert "blank_botch" in bad.stderr and "JSON" in bad.stderr
        assert "blank_botch={}" in bad.stderr
        no_sign = sidecar("roll", "bloodlust", "pool=2", "--url", server.url, "--token",
                          PLAYER_TOKEN, "--option", "blank_botch")
        assert no_sign.returncode == 2 and "EXTENSION=JSON" in no_sign.stderr
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
    from sidecar.cli import parse_args

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
    assert "P(réussite / success) = 76.24 %" in shown.stdout
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
        seat_token = _seat_token(gm, "Léa")
        for name, token in (("Aengus", PLAYER_TOKEN), ("Léa", seat_token)):
            rolled = sidecar("roll", "bloodlust", "pool=2", "--mode", "gm", "--name", name,
                             *url, "--token", token, "--label", f"secret de {name}")
            assert rolled.returncode == 0, rolled.stderr
        unseen = sidecar("history", *url)  # no token: an observer sees no secret
        assert unseen.returncode == 0 and "secret de" not in unseen.stdout
        # A player's token: the player's own secret rolls, and a line saying so.
        own = sidecar("history", *url, "--name", "Aengus", "--token", PLAYER_TOKEN)
        assert own.returncode == 0, own.stderr
        assert "secret de Aengus" in own.stdout and "secret de Léa" not in own.stdout
        assert "player's view" in own.stderr and "--role gm" in own.stderr
        # A seat's token joins under its seat's name, whatever --name says.
        seat = sidecar("history", *url, "--token", seat_token)
        assert seat.returncode == 0, seat.stderr
        assert "secret de Léa" in seat.stdout and "secret de Aengus" not in seat.stdout
        # The GM's view when asked for; an explicit role is never second-guessed.
        every = sidecar("history", *gm)
        assert "secret de Léa" in every.stdout and "secret de Aengus" in every.stdout
        assert "player's view" not in every.stderr
        observer = sidecar("history", *url, "--role", "observer", "--token", PLAYER_TOKEN)
        assert observer.returncode == 0 and "secret de" not in observer.stdout
        # watch, the same way: its own secret roll arrives live.
        watcher = _popen("watch", *url, "--count", "1", "--token", seat_token,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert "table demo" in watcher.stdout.readline()
        assert sidecar("roll", "bloodlust", "pool=2", "--mode", "gm", "--name", "Léa",
                       *url, "--token", seat_token, "--label", "encore").returncode == 0
        out, err = watcher.communicate(timeout=30)
        assert watcher.returncode == 0 and "Léa — encore" in out, (out, err)
