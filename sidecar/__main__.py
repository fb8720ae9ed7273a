"""``python -m sidecar …`` is the ``sidecar`` command (for when the script is not on PATH)."""

from sidecar.cli import main

raise SystemExit(main())
