"""The Python client in one page: join a table, ask the odds, roll, then watch the table.

Run a server first (``.venv/bin/sidecar serve --player-token demo-player``), then, with the
Python of the same environment (or ``python`` once ``.venv`` is activated)::

    .venv/bin/python examples/roll_and_watch.py ws://127.0.0.1:8765/ws demo-player

Stop the server and start it again while this runs: the client reconnects by itself and
prints, in order, every roll made meanwhile (``reconnect=True`` joins with ``resume``).
"""

from __future__ import annotations

import asyncio
import sys

try:
    from sidecar.client import SidecarClient, SidecarError
except ModuleNotFoundError:  # run by a Python that has not got vtt-sidecar installed
    sys.exit("vtt-sidecar n'est pas installé pour ce Python / is not installed for this "
             f"Python ({sys.executable}): run .venv/bin/python examples/roll_and_watch.py …")


async def main(url: str, token: str) -> None:
    async with SidecarClient(url, table="demo", name="Aengus", role="player",
                             token=token, reconnect=True) as client:
        odds = await client.odds("bloodlust", {"pool": 5, "difficulty": 7})
        print(f"chances de réussite : {odds['p_success']:.1%}")
        try:
            outcome = await client.roll("bloodlust", {"pool": 5, "difficulty": 7},
                                        label="Escalade")
        except SidecarError as error:
            print(f"refusé : {error.code} — {error.message}")
            return
        print(outcome["text"])
        print("en attente des jets de la table (Ctrl-C pour quitter)…")
        async for event in client.outcomes():
            if event["seq"] != outcome["seq"]:
                print(f"#{event['seq']} {event['text']}")


if __name__ == "__main__":
    url = sys.argv[1] if len(sys.argv) > 1 else "ws://127.0.0.1:8765/ws"
    token = sys.argv[2] if len(sys.argv) > 2 else "demo-player"
    try:
        asyncio.run(main(url, token))
    except KeyboardInterrupt:
        pass
