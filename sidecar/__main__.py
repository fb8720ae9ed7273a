"""``python -m sidecar …`` is the ``sidecar`` command (for when the script is not on PATH)."""

from sidecar.cli.main import main

raise SystemExit(main())
