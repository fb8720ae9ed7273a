"""The ``sidecar`` command (entry point :func:`sidecar.cli.main.main`).

A package of modules with one job each: :mod:`~sidecar.cli.parser`
(the argparse tree), :mod:`~sidecar.cli.serve` (``serve`` and its lifecycle),
:mod:`~sidecar.cli.play` (a player's commands), :mod:`~sidecar.cli.admin` (the GM's and
the stores' commands), :mod:`~sidecar.cli.tools` (``plugins``, ``odds``, ``verify``,
``new-plugin``), above :mod:`~sidecar.cli.connect` (joining a table),
:mod:`~sidecar.cli.render` (what the terminal shows), :mod:`~sidecar.cli.values` (what a
user types), :mod:`~sidecar.cli.common` (defaults, exit codes) and
:mod:`~sidecar.cli.terminal` (remote text shown, never obeyed)."""
