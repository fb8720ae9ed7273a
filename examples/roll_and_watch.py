"""The Python client in one page: join a table, ask the odds, roll, then watch the table.

Run a server first (``.venv/bin/sidecar serve --player-token demo-player``), then, with the
Python of the same environment (or ``python`` once ``.venv`` is activated)::

    .venv/bin/python examples/roll_and_watch.py ws://127.0.0.1:8765/ws demo-player

A third argument, ``en``, joins in English: the server's texts and this script's own words
and numbers are then English (« 76,2 % » in French, "76.2%" in English).

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


#: This script's own words, in the client's language (the server's texts come in it too).
WORDS = {
    "fr": {"odds": "chances de réussite : ", "refused": "refusé : ",
           "waiting": "en attente des jets de la table (Ctrl-C pour quitter)…"},
    "en": {"odds": "odds of success: ", "refused": "refused: ",
           "waiting": "waiting for the table's rolls (Ctrl-C to quit)…"},
}


def percent(p: float, locale: str) -> str:
    """A probability as the locale writes it: « 76,2 % » in French, "76.2%" in English."""
    text = f"{p * 100:.1f}"
    return f"{text.replace('.', ',')} %" if locale == "fr" else f"{text}%"


async def main(url: str, token: str, locale: str = "fr") -> None:
    words = WORDS[locale]
    async with SidecarClient(url, table="demo", name="Aengus", role="player",
                             token=token, reconnect=True, locale=locale) as client:
        odds = await client.odds("bloodlust", {"pool": 5, "difficulty": 7})
        print(words["odds"] + percent(odds["p_success"], locale))
        try:
            outcome = await client.roll("bloodlust", {"pool": 5, "difficulty": 7},
                                        label="Escalade")
        except SidecarError as error:
            print(f"{words['refused']}{error.code} — {error.message}")
            return
        print(outcome["text"])
        print(words["waiting"])
        async for event in client.outcomes():
            if event["seq"] != outcome["seq"]:
                print(f"#{event['seq']} {event['text']}")


if __name__ == "__main__":
    url = sys.argv[1] if len(sys.argv) > 1 else "ws://127.0.0.1:8765/ws"
    token = sys.argv[2] if len(sys.argv) > 2 else "demo-player"
    locale = sys.argv[3] if len(sys.argv) > 3 else "fr"
    if locale not in WORDS:
        sys.exit(f"langue « {locale} » inconnue / unknown locale '{locale}': fr or en")
    try:
        asyncio.run(main(url, token, locale))
    except KeyboardInterrupt:
        pass
