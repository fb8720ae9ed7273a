"""The pluggy markers of the ``sidecar`` project (kept apart so plugins import little)."""

import pluggy

PROJECT = "sidecar"

#: Marks a function of a plugin as the implementation of a sidecar hook.
hookimpl = pluggy.HookimplMarker(PROJECT)
#: Marks a function of :mod:`sidecar.hookspecs` as a hook specification.
hookspec = pluggy.HookspecMarker(PROJECT)
