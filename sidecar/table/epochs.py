"""Verifiable dice: each table rolls in epochs whose seed is committed first and
revealed at the end (:mod:`sidecar.dice.provable`); here, the events that start and end
them and the dice source of each roll in them."""

from __future__ import annotations

from typing import Any

from sidecar.dice.provable import LEAVES, Epoch, leaf_key, new_client_seed, tree
from sidecar.dice.sources import ProvableDice
from sidecar.protocol.errors import ProtocolError
from sidecar.protocol.events import epoch_reveal_event, epoch_start_event
from sidecar.protocol.messages import EpochRequest
from sidecar.table.basis import CoreBasis, gm_only
from sidecar.table.effects import Pending, RollTicket
from sidecar.table.tables import Member, Table


def with_key(table: Table, message: dict[str, Any]) -> dict[str, Any]:
    """An outcome as its reader sees it, plus (once its epoch is revealed) its roll's
    leaf key and path to the commitment: only readers who see the roll get them."""
    proof = message.get("proof")
    if proof is None or "position" not in proof:
        return message
    seed = table.revealed.get(proof["epoch"])
    if seed is None:
        return message
    position = proof["position"]
    message = dict(message)
    message["proof"] = {**proof, "key": leaf_key(seed, position).hex(),
                        "path": tree(seed).path(position)}
    return message


class Epochs(CoreBasis):
    """The epochs of a provable server's tables."""

    def epoch_settings(self) -> dict[str, Any]:
        """What an epoch opened now records of this server (:class:`Epoch` ``settings``):
        whether players may enter physical dice, and the plugins resolving rolls."""
        # ``positions: "drawn"``: a roll's position counts the rolls that drew before it
        # in the epoch (0, 1, 2… with none missing), not every event.
        return {"player_dice": self.config.allow_player_dice,
                "plugins": self.catalogue.versions(), "positions": "drawn"}

    def epoch_outdated(self, table: Table) -> bool:
        """Whether the table's current epoch was opened under other settings than this
        server's (or before epochs recorded them): it must end before anyone rolls in it
        here, or a verifier would judge its rolls by rules they were not made under."""
        epoch = table.epoch
        return epoch is not None and epoch.settings != self.epoch_settings()

    def epoch_ready(self, table: Table) -> bool:
        """Whether the next dice may be drawn in the table's epoch as it stands: there is
        one, it is not full, and it was opened under this server's settings."""
        return (table.epoch is not None and not self.epoch_full(table)
                and not self.epoch_outdated(table))

    def roll_dice(self, table: Table, member: Member | None,
                  event: dict[str, Any] | None = None) -> ProvableDice:
        """The verifiable dice of the next event of ``table`` (the caller holds its turn and
        made sure the epoch is not full): its position, the roller's client seed
        (``event``: the open roll decided on, whose roller's seed is kept)."""
        epoch = table.epoch
        assert epoch is not None
        position = epoch.next_position(table.seq + 1)
        assert 0 <= position < LEAVES
        client = ((event or {}).get("proof") or {}).get("client") or (
            member.client_seed if member is not None and member.client_seed
            else new_client_seed())
        source = ProvableDice(epoch.leaf(position), client, position)
        source.proof = {"epoch": epoch.number, "commitment": epoch.commitment,
                        "position": position, "client": client}
        return source

    @staticmethod
    def epoch_full(table: Table) -> bool:
        """Whether the table's next event would be past its epoch's last position."""
        return table.epoch is not None and table.epoch.next_position(table.seq + 1) >= LEAVES

    @staticmethod
    def _server_ticket(table: Table, member: Member | None) -> RollTicket:
        by = Member(name="sidecar", role="server") if member is None else member
        return RollTicket(table, by, None, None, None)

    def begin_epoch_end(self, table: Table, member: Member, request: EpochRequest
                        ) -> RollTicket:
        """Check that ``member`` may end the epoch (GMs only, on a provable server)."""
        gm_only(member, "end an epoch", "clore une époque")
        if not self.provable:
            raise ProtocolError(
                "forbidden", "this server's dice are not verifiable (--dice provable)",
                fr="les dés de ce serveur ne sont pas vérifiables (--dice provable)")
        return RollTicket(table, member, None, request.id, self.request_key(member, request.id))

    def epoch_end(self, table: Table, ticket: RollTicket | None = None, *,
                  start_next: bool = True) -> Pending:
        """The event ending the current epoch (the caller holds the table's turn): its seed,
        journaled (the GMs' view shows it, players' does not) and the next commitment;
        ``start_next=False`` (the server stopping) leaves the next epoch to the table's
        next welcome."""
        old = table.epoch
        assert old is not None
        seq = table.seq + 1
        new = Epoch.fresh(old.number + 1, seq, self.epoch_settings()) if start_next else None
        ticket = ticket or self._server_ticket(table, None)
        event = epoch_reveal_event(
            **self._head(ticket), epoch=old.public(), seed=old.seed.hex(),
            events=seq - old.base - 1, next=new.public() if new is not None else None,
            nonce=old.nonce.hex() if old.nonce is not None else None)
        return self._pending(ticket, event, (
            ("epoch", "current", new.record() if new is not None else None),
            ("epoch", str(old.number), {"seed": old.seed.hex(),
                                        "commitment": old.commitment, "base": old.base})))

    def epoch_start(self, table: Table) -> Pending:
        """The event starting a table's epoch (the caller holds the table's turn): its
        commitment, public; the seed stays in the server's records. The first one is 1;
        after a stop that revealed the last one, the next number."""
        epoch = Epoch.fresh(max(table.revealed, default=0) + 1, table.seq + 1,
                            self.epoch_settings())
        ticket = self._server_ticket(table, None)
        event = epoch_start_event(seq=table.seq + 1, table=table.name, by=ticket.member.by,
                                  epoch=epoch.public())
        return self._pending(ticket, event, (("epoch", "current", epoch.record()),))
