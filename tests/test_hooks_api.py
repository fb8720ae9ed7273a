"""Versioned hooks (issue 16): the hooks API version in ``welcome`` and ``sidecar
plugins``, and a renamed hook argument warning the plugins that still ask for it, naming
them, when they are loaded (pluggy's ``warn_on_impl_args`` / ``warn_on_impl``)."""

from __future__ import annotations

import logging
import re
import warnings
from types import SimpleNamespace

import pytest

from sidecar import hookimpl
from sidecar.hookspecs import HOOKS_API, HookDeprecationWarning, deprecated
from sidecar.host.plugins import PluginHost
from sidecar.markers import hookspec
from tests.helpers import GM_TOKEN
from tests.support.serve import ServeProcess, sidecar


class RenamingSpecs:
    """A hook whose ``faces`` argument is being renamed ``dice`` (test only), and a hook
    going away altogether."""

    @hookspec(warn_on_impl_args={"faces": deprecated("faces", instead="dice", since="1.1")})
    def sidecar_test_draw(self, roll, dice, faces):
        """Draw (test only)."""

    @hookspec(warn_on_impl=deprecated("sidecar_test_old", instead="sidecar_test_draw",
                                      since="1.1"))
    def sidecar_test_old(self, roll):
        """Going away (test only)."""


def host_with_renaming() -> PluginHost:
    host = PluginHost()
    # What a later hooks API would declare, through pluggy as the host declares its own.
    host.pm.add_hookspecs(RenamingSpecs)
    host.hook_names += ("sidecar_test_draw", "sidecar_test_old")
    return host


def test_the_version_is_major_dot_minor():
    assert re.fullmatch(r"\d+\.\d+", HOOKS_API)


def test_asking_for_a_renamed_argument_warns_naming_the_plugin(caplog):
    @hookimpl
    def sidecar_test_draw(roll, faces):
        return faces

    host = host_with_renaming()
    with caplog.at_level(logging.WARNING, logger="sidecar.plugins"), \
            pytest.warns(HookDeprecationWarning) as warned:
        host.register(SimpleNamespace(sidecar_test_draw=sidecar_test_draw), "oldie")
    [warning] = warned.list
    text = str(warning.message)
    assert text.startswith("plugin 'oldie': 'faces' is deprecated since hooks API 1.1")
    assert "use 'dice'" in text and "utilisez « dice »" in text
    # Where the plugin's function is, for the author to find it.
    assert warning.filename == __file__
    assert "plugin 'oldie'" in caplog.text  # the operator sees it in the server's log
    # Still loaded and called: a deprecation warns first, it removes nothing.
    assert "oldie" in host.plugins
    [impl] = host.implementations("sidecar_test_draw")
    assert impl.argnames == ("roll", "faces")


def test_the_new_argument_does_not_warn():
    @hookimpl
    def sidecar_test_draw(roll, dice):
        return dice

    host = host_with_renaming()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        host.register(SimpleNamespace(sidecar_test_draw=sidecar_test_draw), "current")
    assert "current" in host.plugins


def test_implementing_a_hook_going_away_warns_naming_the_plugin():
    @hookimpl
    def sidecar_test_old(roll):
        return None

    host = host_with_renaming()
    with pytest.warns(HookDeprecationWarning, match="plugin 'vieux': 'sidecar_test_old' is "
                                                    "deprecated"):
        host.register(SimpleNamespace(sidecar_test_old=sidecar_test_old), "vieux")


def test_sidecar_plugins_shows_the_hooks_api_locally_and_from_a_server():
    local = sidecar("plugins")
    assert local.returncode == 0
    assert local.stdout.splitlines()[0] == f"API des hooks : {HOOKS_API}"
    with ServeProcess() as server:
        remote = sidecar("plugins", "--url", server.url, "--token", GM_TOKEN, "--locale", "en")
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout.splitlines()[0] == f"hooks API: {HOOKS_API}"
    assert "actif" not in remote.stdout and "— active" in remote.stdout
