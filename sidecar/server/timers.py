"""What happens later: open rolls taking their default (or closing) when their time to
decide runs out, and presence messages coalesced."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from sidecar.config import ServerConfig
from sidecar.host.pipeline import RollPipeline
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.messages import ReactRequest
from sidecar.server.runner import Perform
from sidecar.stores.base import DuplicateRequest, StaleTable, StoreUnavailable
from sidecar.table.core import TableCore
from sidecar.table.tables import Member, Table
from sidecar.table.targeting import hidden_open_roll

log = logging.getLogger("sidecar.server")


class Timers:
    """Timers of open rolls and of presence."""

    # (what this part uses of the server: see :class:`sidecar.server.connections.SidecarServer`)
    config: ServerConfig
    core: TableCore
    store: Any
    pipeline: RollPipeline
    timers: set[asyncio.TimerHandle]
    expiring: set[asyncio.Task[None]]
    armed: set[tuple[str, str]]

    # -- open rolls ---------------------------------------------------------------------

    def _arm(self, table: Table, event: dict[str, Any]) -> None:
        """Take the default of an open roll once its time to decide is over (once per
        roll and process, however many times it is armed)."""
        armed = (table.name, str(event["roll"]))
        if armed in self.armed:
            return
        self.armed.add(armed)
        loop = asyncio.get_running_loop()
        delay = max(0.0, event["expires"] - time.time())
        handle: asyncio.TimerHandle | None = None

        def due() -> None:
            self.armed.discard(armed)
            self.timers.discard(handle)  # type: ignore[arg-type]
            task = loop.create_task(self._expire(table, str(event["roll"])))
            self.expiring.add(task)
            task.add_done_callback(self.expiring.discard)
        handle = loop.call_later(delay, due)
        self.timers.add(handle)

    async def _expire(self, table: Table, roll_id: str) -> None:
        try:
            async with table.turn:  # another process may have decided it (Redis)
                await self._catch_up(table)
        except StoreUnavailable:
            pass  # decided on what this process knows; the store refuses a stale write
        except ProtocolError:
            return  # Redis lost events: the table was dropped (read again at a join)
        event = table.open_rolls.get(roll_id)
        if event is None:
            return  # decided meanwhile
        if event.get("default") is None:
            await self._close_as_it_stands(table, roll_id, None)
            return
        try:
            await self._decide(table, None, ReactRequest(roll=roll_id, choice=event["default"]))
            return
        except (ProtocolError, DuplicateRequest) as error:
            # Another process (Redis) or a member deciding first is the normal race (each
            # process arms the roll): not worth a warning.
            raced = isinstance(error, DuplicateRequest) or roll_id not in table.open_rolls
            log.log(logging.INFO if raced else logging.WARNING,
                    "open roll %s at %s could not take its default: %s", roll_id,
                    table.name, getattr(error, "message", error))
            if raced or getattr(error, "code", None) == "store_unavailable":
                # (Nothing wrong with the roll when the store is down or busy: a close
                # would not be written either; as before, decided when next armed.)
                return
            why = error if isinstance(error, ProtocolError) else None
        except Exception:
            log.exception("open roll %s at %s: its default failed", roll_id, table.name)
            why = None
        # The default could not be taken (a plugin refusing or failing, a target gone): the
        # roll closes as it stands, else its character could never roll again (one open
        # roll per character, contract §8).
        await self._close_as_it_stands(table, roll_id, failed=why or True)

    async def _default_first(self, table: Table, member: Member, character: str,
                             perform: Perform) -> None:
        """Before ``member``'s roll as ``character`` (in its turn): each open roll as it
        hidden from ``member`` takes its default now, as its time running out would —
        journaled with the roll's own visibility —, or closes as it stands when its default
        cannot be taken (or leaves it open again). Whether that roll was open is its dice's
        secret: the member's roll goes on either way (contract §7, 1.2; §8.5)."""
        tried: set[str] = set()
        while (roll_id := hidden_open_roll(table, character, member)) is not None:
            default = table.open_rolls[roll_id].get("default")
            failed: ProtocolError | bool | None = None
            if default is not None and roll_id not in tried:
                tried.add(roll_id)
                try:
                    await self._decision(table, None, ReactRequest(roll=roll_id,
                                                                   choice=default), perform)
                    continue
                except ProtocolError as error:
                    if error.code == "store_unavailable":
                        raise  # (nothing wrong with the roll: the member's is not written)
                    failed = error
                except (StaleTable, DuplicateRequest):
                    raise
                except Exception:
                    log.exception("open roll %s at %s: its default failed", roll_id,
                                  table.name)
                    failed = True
            await perform(self.core.close_open_roll(table, roll_id, failed=failed))

    async def _close_as_it_stands(self, table: Table, roll_id: str,
                                  failed: ProtocolError | bool | None) -> None:
        """Close an open roll with no choice taken (``failed``: its default could not be
        taken, and why when known)."""
        async def close(perform: Perform) -> None:
            if roll_id in table.open_rolls:  # (else decided meanwhile)
                await perform(self.core.close_open_roll(table, roll_id, failed=failed))
        try:
            await self._perform(table, close)
        except (ProtocolError, DuplicateRequest) as error:
            log.warning("open roll %s at %s could not be closed: %s", roll_id, table.name,
                        getattr(error, "message", error))
        except Exception:
            log.exception("open roll %s at %s: closing it failed", roll_id, table.name)

    # -- presence -----------------------------------------------------------------------

    def _presence_changed(self, table: Table) -> None:
        loop = asyncio.get_running_loop()
        delay = self.core.presence_changed(table, loop.time())
        if delay is not None:
            loop.call_later(delay, self._send_presence, table)

    def _send_presence(self, table: Table) -> None:
        self._deliver(self.core.presence(table, asyncio.get_running_loop().time()))
