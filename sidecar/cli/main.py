"""The ``sidecar`` command's entry point (``sidecar.cli.main:main``, also ``python -m
sidecar.cli.main``): read the command line, run its command, turn Ctrl-C and a closed pipe
into a quiet exit (its modules: :mod:`sidecar.cli`)."""

from __future__ import annotations

import contextlib
import os
import sys

from sidecar.cli.common import EXIT_OK
from sidecar.cli.parser import parse_args


def _quiet_on_closed_pipe() -> int:
    """The reader of our output went away (``sidecar history | head``): stop quietly.
    Standard output is pointed at /dev/null first, so the interpreter's last flush at
    exit does not raise again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return EXIT_OK
    except BrokenPipeError:
        return _quiet_on_closed_pipe()


if __name__ == "__main__":
    sys.exit(main())
