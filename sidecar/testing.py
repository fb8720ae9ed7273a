"""What a plugin's tests need: rolls through the real pipeline, exact odds, a live table.

Shipped with vtt-sidecar and registered as a pytest plugin (entry point ``pytest11``), so a
plugin's tests get the fixtures without a ``conftest.py``, and import the helpers::

    from sidecar.testing import check_descriptions, check_odds_match_enumeration, odds, resolve

    import my_plugin

    def test_a_full_success():
        outcome = resolve(my_plugin, "my_game", {"stat": 2}, faces=[4, 5])
        assert outcome["result"]["kind"] == "success"

    def test_a_live_roll(sidecar_client):
        gm = sidecar_client(role="gm")
        assert gm.roll("my_game", {"stat": 1})["type"] == "outcome"

Helpers (plain functions; ``plugin`` is the plugin's module or object):

* :func:`resolve` — one roll through the real pipeline (parameter checks, extensions,
  the ruleset, the texts) with the faces given, as a third-party plugin runs on a server;
* :func:`odds` — the exact odds the ruleset gives;
* :func:`enumerate_rolls` — every sequence of faces through the ruleset's own resolve,
  each weighted by its probability;
* :func:`check_descriptions` — the host's load-time checks of ``params``, sheets and
  options, as ``sidecar serve`` runs them;
* :func:`check_odds_match_enumeration` — the odds equal that enumeration, kind by kind.

Fixtures: ``sidecar_server`` (a real server on a free loopback port, in a background
thread, with every installed plugin plus those ``sidecar_plugins`` returns),
``sidecar_client`` (a factory of joined clients whose methods are plain calls) and
``sidecar_plugins`` (override it to add plugins that are not installed).

Loaded by pytest in every environment where vtt-sidecar is installed: importing this
module costs nothing beyond ``sidecar`` itself, and does nothing; the server, the host and
the client are imported when a helper or fixture is used.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from sidecar.client import SidecarClient
    from sidecar.host.plugins import PluginHost
    from sidecar.server.connections import SidecarServer

__all__ = [
    "Enumeration", "TableClient", "TableServer", "check_descriptions",
    "check_odds_match_enumeration", "enumerate_rolls", "make_host", "odds", "plugin_name",
    "resolve",
]

#: Who rolls in :func:`resolve` (a GM: every field an outcome has is shown to them).
BY = {"name": "test", "role": "gm"}
#: Seconds a third-party hook may take here: more than a server's 0.25 s default, since a
#: test machine may be busy; a plugin that needs that long will fail on a real table.
TIMEOUT = 2.0
#: Kinds that count as a success (``p_success``).
SUCCESSES = ("narrow", "success", "critical")


# -- hosts ---------------------------------------------------------------------------------

def plugin_name(plugin: Any) -> str:
    """The name a plugin is known by: its entry point's in the ``sidecar`` group when it is
    installed (the key of its options), else its module's last name."""
    from importlib import metadata

    module = getattr(plugin, "__name__", None) or type(plugin).__module__
    for ep in metadata.entry_points(group="sidecar"):
        if ep.value.split(":")[0] == module and ":" not in ep.value:
            return ep.name
    return module.rsplit(".", 1)[-1]


def _named(plugins: Iterable[Any] | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(plugins, Mapping):
        return dict(plugins)
    return {plugin_name(plugin): plugin for plugin in plugins}


def make_host(plugins: Iterable[Any] | Mapping[str, Any] = (), *,
              trusted: bool = False, timeout: float = TIMEOUT) -> PluginHost:
    """A host as ``sidecar serve`` loads one: every installed plugin, then ``plugins``
    (objects, or a map name → object) registered as third-party plugins (``trusted=True``:
    inline like the built-ins) — an installed plugin passed here replaces its installed
    self. The load-time checks run as at start-up; a failing one raises
    :class:`sidecar.host.plugins.PluginLoadError` naming the plugin."""
    from sidecar.host.plugins import PluginHost

    named = _named(plugins)
    host = PluginHost(timeout=timeout)
    try:
        host.load_entry_points(disabled=tuple(named))
        for name, plugin in named.items():
            host.register(plugin, name, version=str(getattr(plugin, "__version__", "")),
                          source="sidecar.testing", trusted=trusted)
        host.check_sheets()
        host.check_options()
    except BaseException:
        host.shutdown()
        raise
    return host


def _run(coro: Any) -> Any:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    coro.close()
    raise RuntimeError("sidecar.testing's helpers are plain functions: call them from a "
                       "plain (not async) test")


def _with_host(plugin: Any, name: str | None, work: Callable[[PluginHost], Any]) -> Any:
    host = make_host({name or plugin_name(plugin): plugin})
    try:
        return _run(work(host))
    finally:
        host.shutdown()


# -- one roll --------------------------------------------------------------------------------

def _as_map(resolution: Any, allow_failures: bool) -> dict[str, Any]:
    failures = [f"{f.plugin}.{f.hook}: {f.error}" for f in resolution.failures]
    # On a server a failing extension is only left out of the roll (a note says so); in
    # a test, that is the bug to see.
    assert allow_failures or not failures, "a plugin failed: " + "; ".join(failures)
    outcome = resolution.outcome
    return {"result": outcome.result, "dice": outcome.dice, "notes": outcome.notes,
            "applied": outcome.applied, "spend": outcome.spend, "choices": outcome.choices,
            "default": outcome.default, "effects": outcome.effects, "text": resolution.text,
            "failures": failures}


def resolve(plugin: Any, ruleset: str, params: dict[str, Any] | None = None, *,
            faces: list[int] | None = None, options: dict[str, Any] | None = None,
            sheet: Mapping[str, Any] | None = None, label: str = "",
            allow_failures: bool = False, name: str | None = None,
            targets: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Resolve one roll of ``ruleset`` with ``plugin`` loaded, through the real pipeline:
    ``params`` and ``options`` checked against the descriptions, the extensions, the
    ruleset's ``sidecar_resolve``, the texts. ``faces``: the dice, in the order the ruleset
    draws them (as physical dice; ``None``: random); too few or too many raise
    ``ProtocolError("bad_dice")``. ``sheet``: roll as a character with these values;
    ``targets``: aimed at these characters, each name → its values (of ``ruleset``'s
    sheet), as the hooks see them in ``roll.targets``.

    Returns the outcome as a map: ``result``, ``dice``, ``notes``, ``applied``, ``spend``,
    ``choices``, ``default``, ``effects`` (as the ruleset returned them: the server then
    takes each as far as the target's bounds allow), ``text`` (``{"fr", "en"}``) and
    ``failures``. An extension
    hook that fails fails the test (on a server it is left out of the roll, a note saying
    so), unless ``allow_failures`` (then ``failures`` lists them). A refusal raises
    :class:`sidecar.protocol.errors.ProtocolError` (``code``, ``details``), as the client
    would get it.
    """
    async def work(host: PluginHost) -> dict[str, Any]:
        from sidecar.host.pipeline import RollPipeline

        pipeline = RollPipeline(host)
        roll = pipeline.prepare(ruleset, params or {}, options=options, by=BY, label=label,
                                manual=faces is not None)
        if sheet is not None:
            roll.character, roll.sheet = "test", dict(sheet)
        roll.targets = {target: {"ruleset": ruleset, "values": dict(values)}
                        for target, values in (targets or {}).items()}
        return _as_map(await pipeline.run(roll, dice=faces), allow_failures)
    return _with_host(plugin, name, work)


def odds(plugin: Any, ruleset: str, params: dict[str, Any] | None = None, *,
         options: dict[str, Any] | None = None, name: str | None = None) -> dict[str, Any]:
    """The exact odds of a roll of ``ruleset`` with ``plugin`` loaded, as a client gets
    them: ``p_success``, ``kinds`` (all five) and the ruleset's own fields
    (``distribution``)."""
    async def work(host: PluginHost) -> dict[str, Any]:
        from sidecar.host.pipeline import RollPipeline

        pipeline = RollPipeline(host)
        return await pipeline.odds(pipeline.prepare(ruleset, params or {}, options=options,
                                                    by=BY))
    return _with_host(plugin, name, work)


# -- enumeration -------------------------------------------------------------------------------

@dataclass
class Enumeration:
    """Every roll :func:`enumerate_rolls` went through: each kind's exact probability,
    those of the ``values`` of one result field, and how many face sequences it took."""

    kinds: Counter[str] = field(default_factory=Counter)
    values: Counter[Any] = field(default_factory=Counter)
    sequences: int = 0

    @property
    def p_success(self) -> Fraction:
        return sum((self.kinds[kind] for kind in SUCCESSES), Fraction(0))


def enumerate_rolls(plugin: Any, ruleset: str, params: dict[str, Any] | None = None, *,
                    options: dict[str, Any] | None = None, of: str | None = None,
                    max_dice: int = 6, max_sequences: int = 20_000,
                    name: str | None = None) -> Enumeration:
    """Resolve ``ruleset`` on every possible sequence of faces, through the real pipeline,
    each weighted by its exact probability (1 / the product of its dice's sides): the
    true distribution of kinds (and of ``result[of]``), whatever the ruleset draws —
    sequences may differ in length when some faces draw more dice.

    ``max_dice`` and ``max_sequences`` bound the work: a roll drawing more dice, or needing
    more sequences, fails the test (enumeration is for small cases)."""
    async def work(host: PluginHost) -> Enumeration:
        from sidecar.host.pipeline import RollPipeline
        from sidecar.protocol.errors import ProtocolError

        pipeline = RollPipeline(host)
        found = Enumeration()
        pending: list[list[int]] = [[]]
        while pending:
            faces = pending.pop()
            roll = pipeline.prepare(ruleset, params or {}, options=options, by=BY,
                                    manual=True)
            try:
                resolution = await pipeline.run(roll, dice=faces)
            except ProtocolError as error:
                wanted = error.details.get("dice") if error.code == "bad_dice" else None
                if not wanted or len(wanted) <= len(faces):
                    raise
                if len(faces) >= max_dice:
                    raise AssertionError(f"{ruleset} {params}: a roll draws more than "
                                         f"{max_dice} dice (max_dice)") from None
                pending.extend(faces + [face] for face in range(1, wanted[len(faces)] + 1))
                continue
            found.sequences += 1
            if found.sequences > max_sequences:
                raise AssertionError(f"{ruleset} {params}: more than {max_sequences} face "
                                     "sequences (max_sequences)")
            _as_map(resolution, False)  # a failing extension fails the enumeration
            outcome = resolution.outcome
            share = Fraction(1, math.prod(die["sides"] for die in outcome.dice))
            found.kinds[outcome.result["kind"]] += share
            if of is not None:
                found.values[outcome.result.get(of)] += share
        return found
    return _with_host(plugin, name, work)


def check_odds_match_enumeration(plugin: Any, ruleset: str,
                                 params: dict[str, Any] | None = None, *,
                                 options: dict[str, Any] | None = None, max_dice: int = 6,
                                 max_sequences: int = 20_000, tolerance: float = 1e-9,
                                 name: str | None = None) -> Enumeration:
    """Assert that the ruleset's odds agree with :func:`enumerate_rolls` of its own
    resolve: each kind's probability, ``p_success``, and the ``distribution`` of its main
    number when the odds give one. Returns the enumeration."""
    given = odds(plugin, ruleset, params, options=options, name=name)
    of = (given.get("distribution") or {}).get("of")
    found = enumerate_rolls(plugin, ruleset, params, options=options, of=of,
                            max_dice=max_dice, max_sequences=max_sequences, name=name)
    total = sum(found.kinds.values())
    assert total == 1, f"the enumerated rolls' probabilities add up to {total}, not 1"
    wrong = {kind: (p, float(found.kinds.get(kind, 0))) for kind, p in given["kinds"].items()
             if abs(p - found.kinds.get(kind, 0)) > tolerance}
    assert not wrong, (f"{ruleset} {params}: odds (given, enumerated) differ for "
                       f"{wrong}")
    assert abs(given["p_success"] - found.p_success) <= tolerance, (
        f"{ruleset} {params}: p_success {given['p_success']} but the rolls give "
        f"{float(found.p_success)}")
    if of is not None:
        listed = {value: p for value, p in given["distribution"]["values"]}
        for value in set(listed) | set(found.values):
            assert abs(listed.get(value, 0) - found.values.get(value, 0)) <= tolerance, (
                f"{ruleset} {params}: P({of} = {value}) is {listed.get(value, 0)} in the "
                f"odds but {float(found.values.get(value, 0))} in the rolls")
    return found


# -- descriptions ------------------------------------------------------------------------------

def check_descriptions(plugin: Any, *, name: str | None = None) -> dict[str, Any]:
    """Load ``plugin`` as ``sidecar serve`` does and run the host's checks of every
    description it gives — its rulesets' ``params``, the character sheets (its own and the
    fields it adds to others'), its options. A problem fails the test with the host's
    message (naming the plugin and the key). Returns what was described:
    ``{"rulesets": {name: params}, "sheets": {ruleset: fields}, "options": … or None}``."""
    from sidecar.host.plugins import PluginLoadError

    own = name or plugin_name(plugin)
    try:
        host = make_host({own: plugin})
    except PluginLoadError as exc:
        raise AssertionError(str(exc)) from None
    try:
        rulesets = {ruleset: listing["params"]
                    for ruleset, (owner, listing) in host.rulesets.items() if owner == own}
        sheets = {}
        for ruleset in host.rulesets:
            fields = {key: spec for key, spec in host.sheet_schema(ruleset).items()
                      if host.ruleset_owner(ruleset) == own or spec.get("extension") == own}
            if fields:
                sheets[ruleset] = fields
        return {"rulesets": rulesets, "sheets": sheets,
                "options": host.option_descriptions().get(own)}
    finally:
        host.shutdown()


# -- a live table --------------------------------------------------------------------------------

class TableServer:
    """A real sidecar on a free loopback port, its event loop in a background thread:
    ``url``, ``gm_token``, ``player_token``, :meth:`client` for joined clients."""

    def __init__(self, plugins: Iterable[Any] | Mapping[str, Any] = (), **config: Any) -> None:
        self.plugins = plugins
        self.overrides = config
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                       name="sidecar-testing")
        self.server: SidecarServer | None = None
        self.clients: list[TableClient] = []

    def call(self, coro: Any, timeout: float = 30) -> Any:
        """Run a coroutine on the server's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def start(self) -> TableServer:
        from sidecar.config import ServerConfig, new_token
        from sidecar.server.connections import SidecarServer

        config = ServerConfig(host="127.0.0.1", port=0, db=":memory:", gm_token=new_token(),
                              player_token=new_token(), ping_interval=None,
                              plugin_timeout=TIMEOUT)
        for key, value in self.overrides.items():
            setattr(config, key, value)
        host = make_host(self.plugins, timeout=config.plugin_timeout)
        self.thread.start()

        async def boot() -> SidecarServer:
            server = SidecarServer(config, host=host)
            await server.start()
            return server
        try:
            self.server = self.call(boot())
        except BaseException:
            host.shutdown()
            self.close()
            raise
        return self

    def close(self) -> None:
        for client in self.clients:
            client.close()
        if self.server is not None:
            self.call(self.server.stop())
            self.server.host.shutdown()
            self.server = None
        if self.thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
        self.loop.close()

    def __enter__(self) -> TableServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def url(self) -> str:
        assert self.server is not None, "not started"
        return self.server.url

    @property
    def gm_token(self) -> str:
        assert self.server is not None, "not started"
        return self.server.config.gm_token

    @property
    def player_token(self) -> str:
        assert self.server is not None, "not started"
        return self.server.config.player_token

    def client(self, name: str = "MJ", *, role: str = "gm", table: str = "test",
               token: str | None = None, **kwargs: Any) -> TableClient:
        """A client joined to ``table`` (as a GM by default, with the right token)."""
        from sidecar.client import SidecarClient

        if token is None and role != "observer":
            token = self.gm_token if role == "gm" else self.player_token
        client = SidecarClient(self.url, table=table, name=name, role=role, token=token,
                               **kwargs)
        self.call(client.connect())
        joined = TableClient(self, client)
        self.clients.append(joined)
        return joined


class TableClient:
    """A joined :class:`sidecar.client.SidecarClient` whose async methods are plain calls
    here (``gm.roll("pbta", {"stat": 1})``); its other attributes (``welcome``,
    ``characters``…) read through. :meth:`next_event` waits for the next journaled event."""

    def __init__(self, server: TableServer, client: SidecarClient) -> None:
        self.server = server
        self.client = client
        self._events: Any = None
        self._closed = False

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.client, name)
        if not inspect.iscoroutinefunction(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            return self.server.call(attribute(*args, **kwargs))
        call.__doc__ = attribute.__doc__
        return call

    def next_event(self, timeout: float = 10) -> dict[str, Any]:
        """The next event this client receives (outcomes, sheets, presence…)."""
        if self._events is None:
            self._events = self.client.events()
        return self.server.call(asyncio.wait_for(self._events.__anext__(), timeout),
                                timeout + 5)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.server.call(self.client.close())


# -- fixtures (pytest plugin) ------------------------------------------------------------------

@pytest.fixture
def sidecar_plugins() -> list[Any]:
    """Plugins the ``sidecar_server`` fixture registers besides the installed ones:
    override it (``return [my_plugin]`` or ``{"name": my_plugin}``) for a plugin that is
    not installed."""
    return []


@pytest.fixture
def sidecar_server(sidecar_plugins: Any) -> Iterator[TableServer]:
    """A real sidecar on a free loopback port, with every installed plugin and those of
    ``sidecar_plugins``; stopped after the test."""
    with TableServer(sidecar_plugins) as server:
        yield server


@pytest.fixture
def sidecar_client(sidecar_server: TableServer) -> Callable[..., TableClient]:
    """Make clients joined to ``sidecar_server``: ``sidecar_client()`` a GM named MJ,
    ``sidecar_client("Alice", role="player")``; all closed after the test."""
    return sidecar_server.client
