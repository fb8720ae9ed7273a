"""The newcomer's path (issue 15): what a new user types from the README works as shown,
and what they get wrong is told in one line — through the real ``sidecar`` command and a
real server on a loopback port."""

from __future__ import annotations

import os
import subprocess

from tests.helpers import GM_TOKEN, PLAYER_TOKEN
from tests.test_cli import ROOT, SIDECAR, ServeProcess, sidecar


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
