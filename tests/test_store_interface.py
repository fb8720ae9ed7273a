"""One store interface: the SQLite journal and Redis implement all of it, each for real,
and the server never asks which one it has."""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

import sidecar.server
from sidecar.stores.base import Store
from sidecar.stores.redis import RedisStore
from sidecar.stores.sqlite import SqliteStore
from tests.helpers import Peer, run, running_server
from tests.test_journal import wait_until

STORES = (SqliteStore, RedisStore)
#: What the interface names (its methods and attributes), from the Protocol itself.
MEMBERS = sorted({name for name in vars(Store) if not name.startswith("_")}
                 | set(Store.__annotations__))


def _server_sources() -> list[tuple[Path, ast.Module]]:
    folder = Path(sidecar.server.__file__).parent
    return [(path, ast.parse(path.read_text())) for path in sorted(folder.glob("*.py"))]


def _store_attribute(node: ast.AST) -> str | None:
    """``X`` of ``self.store.X`` (or ``server.store.X``), else None."""
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
            and node.value.attr == "store"):
        return node.attr
    return None


def test_the_server_uses_the_store_only_through_the_interface():
    used = {(path.name, name) for path, tree in _server_sources() for node in ast.walk(tree)
            if (name := _store_attribute(node)) is not None}
    assert used, "the server reads the store somewhere"
    assert {(file, name) for file, name in used if name not in MEMBERS} == set()


def test_the_server_never_branches_on_which_store_it_has():
    """No ``if self.store.shared``: where the stores differ, each answers for itself."""
    branches = []
    for path, tree in _server_sources():
        for node in ast.walk(tree):
            if isinstance(node, (ast.If, ast.IfExp, ast.While, ast.Assert)):
                for part in ast.walk(node.test):
                    if _store_attribute(part) is not None:
                        branches.append(f"{path.name}:{node.lineno}")
    assert branches == []


def test_both_stores_implement_every_member_alike_and_none_is_empty():
    for name in MEMBERS:
        for store in STORES:
            if name in Store.__annotations__:  # an attribute: set by the constructor
                assert f"self.{name} =" in inspect.getsource(store.__init__), (store, name)
                continue
            method = getattr(store, name, None)
            assert method is not None, (store.__name__, name)
            assert (list(inspect.signature(method).parameters)
                    == list(inspect.signature(getattr(Store, name)).parameters)), (store, name)
            body = ast.parse(textwrap.dedent(inspect.getsource(method))).body[0].body
            statements = [s for s in body if not (isinstance(s, ast.Expr)
                                                   and isinstance(s.value, ast.Constant))]
            empty = (not statements or all(isinstance(s, ast.Pass) for s in statements)
                     or (len(statements) == 1 and isinstance(statements[0], ast.Return)
                         and (statements[0].value is None
                              or (isinstance(statements[0].value, ast.Constant)
                                  and statements[0].value.value is None))))
            assert not empty, f"{store.__name__}.{name} does nothing"


def test_a_table_the_server_forgets_leaves_nothing_behind_in_the_journal_writer():
    """A long-running server on the SQLite journal keeps nothing of the tables it let go
    (the writer remembered every table's last state for ever); the table's state is
    written again at its next event, so it reads back whole."""
    async def scenario():
        async with running_server() as server:
            states = server.store.journal.writer._states
            for name in ("t1", "t2"):
                peer = await Peer.open(server)
                await peer.join(table=name, name="Ann")
                assert (await peer.roll())["type"] == "outcome"
                assert name in states
                await peer.close()
                await wait_until(lambda n=name: server.tables.get(n) is None,
                                 f"table {name} forgotten")
                assert name not in states
            peer = await Peer.open(server)
            await peer.join(table="t1", name="Ann")
            assert (await peer.roll())["seq"] == 2
            await peer.close()
            await wait_until(lambda: server.tables.get("t1") is None, "t1 forgotten")
            seq, state, _ = await server.store.load("t1")
            assert seq == 2 and isinstance(state, dict)
    run(scenario())


def test_a_process_stopping_on_redis_ends_no_epoch_the_others_keep_serving(redis_server):
    """Verifiable dice: the journal's server reveals its epochs at stop (test_verify.py);
    a Redis process does not — the store answers which epochs a stop ends."""
    async def scenario():
        async with running_server(store=redis_server.url, dice="provable") as other:
            async with running_server(store=redis_server.url, dice="provable") as first:
                gm = await Peer.open(first)
                await gm.join(role="gm", name="MJ", client_seed="aa" * 16)
                assert (await gm.roll())["type"] == "outcome"
                await gm.close()
            store = RedisStore(redis_server.url)
            try:
                ops = [(event["type"], event.get("op"))
                       for event, _, _, _ in await store.since("t", 0)]
            finally:
                await store.close()
            assert ("epoch", "reveal") not in ops and ("epoch", "start") in ops, ops
            peer = await Peer.open(other)
            welcome = await peer.join(name="Bob", client_seed="bb" * 16)
            assert welcome["epoch"]["number"] == 1, welcome["epoch"]
            await peer.close()
    run(scenario())
