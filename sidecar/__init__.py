"""vtt-sidecar: the authoritative dice and rules server that sits beside a virtual tabletop.

Plugin authors need only ``from sidecar import hookimpl``; see ``sidecar.hookspecs``.
"""

from sidecar.markers import hookimpl

__version__ = "0.1.0"

__all__ = ["__version__", "hookimpl"]
