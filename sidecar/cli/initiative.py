"""``sidecar initiative`` (GM, ``PROTOCOL.md`` §7.7): order a scene's characters from
their sheets, claims and relevant bagages named; the event printed as
:mod:`sidecar.cli.initiative_text` tells it."""

from __future__ import annotations

import argparse

from sidecar.cli.common import EXIT_OK, run, usage
from sidecar.cli.connect import joined
from sidecar.cli.initiative_text import format_initiative_event
from sidecar.cli.labels import Labels, say
from sidecar.cli.terminal import as_json


async def _initiative(args: argparse.Namespace) -> int:
    for option, names in (("--claim", args.claim), ("--bagage", args.bagage)):
        for name in names or ():
            if name not in args.characters:  # (a slip: it would be silently left out)
                return usage(option + say(
                    args.locale, f" : « {name} » n'est pas parmi les personnages de la scène",
                    f": '{name}' is not among the scene's characters"))
    async with joined(args) as (client, welcome):
        reply = await client.initiative(args.characters, claims=args.claim or (),
                                        bagage=args.bagage or ())
        print(as_json(reply) if args.json else
              format_initiative_event(reply, args.locale, Labels(welcome, args.locale)))
        return EXIT_OK


def cmd_initiative(args: argparse.Namespace) -> int:
    """``sidecar initiative NAME… [--claim NAME] [--bagage NAME]`` (GM)."""
    return run(_initiative(args))
