"""The ``sidecar`` command."""
