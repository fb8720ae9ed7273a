"""vtt-sidecar: the authoritative dice and rules server that sits beside a virtual tabletop.

Plugin authors need only ``from sidecar import hookimpl`` (and ``invalid_param`` or
``ProtocolError`` to refuse a request); see ``sidecar.hookspecs``.
"""

from typing import Any

from sidecar import checkout

checkout.install()  # before anything imports sidecar.protocol (see sidecar/checkout.py)

from sidecar.markers import hookimpl  # noqa: E402
from sidecar.protocol.errors import ProtocolError, invalid_param  # noqa: E402

__version__ = "0.1.0"

__all__ = ["ProtocolError", "__version__", "hookimpl", "invalid_param", "odds"]


def odds(ruleset: str, params: dict[str, Any] | None = None,
         options: dict[str, Any] | None = None, *, host: Any = None,
         targets: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Exact odds of a roll: ``sidecar.odds("bloodlust", {"pool": 5, "difficulty": 7})``.

    Returns ``p_success``, ``kinds`` (each kind's probability) and ``distribution`` (the
    ruleset's main number). Raises :class:`sidecar.protocol.errors.ProtocolError` on bad params.
    Pass ``host`` (a loaded :class:`sidecar.host.plugins.PluginHost`) to reuse it across calls;
    ``targets`` (``{"Brady": {"pep": 4}}``): the sheets of the characters the roll is aimed
    at, for a rule that reads its opponent (contract §8).
    """
    from sidecar.api import odds as compute

    return compute(ruleset, params, options, host=host, targets=targets)
