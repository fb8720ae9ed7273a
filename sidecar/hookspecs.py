"""The hooks a sidecar plugin may implement — read this file as the plugin author's manual.

A plugin is a module (or object) with functions marked ``@sidecar.hookimpl`` whose names
are the hook names below. It is found through the ``sidecar`` entry-point group of an
installed package, or as a ``*.py`` file of ``sidecar serve --plugins-dir DIR``. The
built-in rulesets and extensions under ``plugins/`` are registered the very same way.

Two kinds of plugins:

* a **ruleset** describes itself in :func:`sidecar_rulesets` and resolves its rolls in
  :func:`sidecar_resolve` (and computes odds in :func:`sidecar_odds`);
* an **extension** changes rolls of any ruleset it understands, before resolution
  (:func:`sidecar_modify_roll`) and after it (:func:`sidecar_modify_outcome`). Its name
  (the entry-point name, or the file name without ``.py``) is the key of its per-roll
  settings in the request's ``options`` and what the outcome's ``applied`` lists; it
  describes those settings in :func:`sidecar_options` to have them checked and shown as
  a form.

Every hook may be implemented with fewer arguments than specified: pluggy passes only the
ones a function names. A misspelled hook name is refused when the plugin is loaded.

**Who is called.** The owner-only hooks (marked *owner only* below:
:func:`sidecar_resolve`, :func:`sidecar_react`, :func:`sidecar_initiative`,
:func:`sidecar_odds`) go to the plugin that owns the roll's ruleset (the one whose
:func:`sidecar_rulesets` listed it) and to no other: no need to check ``roll.ruleset``
there. :func:`sidecar_render_text`
goes to the owner first, then, only if it gives no text, to the plugins that own no
ruleset (extensions) in turn. :func:`sidecar_max_spend` goes to the owner and to every
plugin that owns no ruleset.
The extension hooks — :func:`sidecar_modify_roll`, :func:`sidecar_modify_outcome` — go to
every plugin implementing them, for rolls of every ruleset, one plugin at a time in
pluggy's order: ``@hookimpl(tryfirst=True)`` first, ``trylast=True`` last, otherwise the
last registered first. Hook wrappers (``wrapper=True``, ``hookwrapper=True``) are refused
when the plugin is loaded.

An extension implementation that raises is left out of that roll (its changes undone)
and the outcome's ``notes`` say so; a ruleset that raises answers ``plugin_error`` to the
roller. Neither takes the server down — whatever is raised, ``SystemExit`` and
``KeyboardInterrupt`` included: it counts as that plugin's failure.

Hooks may be plain functions or ``async def`` (except :func:`sidecar_rulesets`, called
once at load). A third-party plugin's sync hooks run in a worker thread on copies of the
roll and outcome (at most two such calls at once per plugin: more fail at once), its
async hooks on the event loop on the same copies; either way under a deadline (``sidecar
serve --plugin-timeout``, 0.25 s by default). Past it the call is skipped like a raise (a
sync call still running keeps its thread until it returns: nothing is injected into it;
an async hook, which runs as a task of its own, is cancelled and no longer awaited: its
roll is answered at the deadline, whatever the hook does with its ``CancelledError``). An async
hook still running 0.1 s after its cancellation ignores it (``except CancelledError:
pass`` in a loop): it is disabled at once, and left to itself until the process exits. An
async hook that holds the event loop for more than 50 ms between two awaits
(``time.sleep``, heavy computing) counts as failing even within its deadline, since the
whole server waits meanwhile; past its whole deadline in one step, it is disabled at
once. A hook that only waited while another held the loop is not blamed. Five failures
within 60 s disable the plugin for the rest of the run. Never block the event loop from
an async hook: use ``await``, or a sync hook.

What a plugin hands back is checked before it is stored: maps with string keys, lists,
valid Unicode strings, booleans, finite numbers, integers from -2**63 to 2**64-1, nested
at most 12 deep; an extension's result, and the notes it adds, at most 4,096 in size
(values plus characters). Built-in plugins (and those the operator trusts with
``--trust``) run inline on the real roll, unchecked.

**Descriptions are checked at load.** What :func:`sidecar_rulesets`,
:func:`sidecar_sheet` and :func:`sidecar_options` describe is checked strictly when the
plugin is loaded: every key must be one its type knows, of the right type, ``min`` at most
``max``, a ``default`` a valid value (in range, among the ``choices``), texts a string or
``{"fr", "en"}``. A mistake stops ``sidecar serve`` with one line naming the plugin, the
hook, the description and the key (see :mod:`sidecar.host.descriptions` for every key).

**Versions and deprecations.** :data:`HOOKS_API` is the version of these hooks
(``major.minor``), which ``welcome`` (``server.hooks``) and ``sidecar plugins`` show. A
minor version adds hooks, arguments or description keys: a plugin written for an older
minor version keeps working. A hook argument is never renamed or removed at once: the
hook first takes both names for at least one minor version, and a plugin that asks for
the old one gets a :class:`HookDeprecationWarning` naming it when it is loaded (pluggy's
``warn_on_impl_args``; a whole hook going away warns through ``warn_on_impl``) — and
the server logs it; only the next major version removes it. History: 1.0 — the
contract's five hooks; 1.1 — ``sidecar_sheet``, ``sidecar_options``, ``sidecar_react``,
``sidecar_initiative``, ``sidecar_render_text`` and the strict checks of descriptions;
1.2 — ``sidecar_max_spend`` (refusals never depend on the dice).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sidecar.markers import hookspec

if TYPE_CHECKING:
    from sidecar.dice.sources import Dice
    from sidecar.model import Outcome, Roll

#: The version of the hooks below (``major.minor``): see "Versions and deprecations".
HOOKS_API = "1.2"


class HookDeprecationWarning(DeprecationWarning):
    """A plugin implements a hook, or asks for a hook argument, that is going away."""


def deprecated(old: str, *, instead: str, since: str) -> HookDeprecationWarning:
    """The warning a hookspec gives for a hook argument (or hook) that is going away,
    for pluggy's ``warn_on_impl_args`` (or ``warn_on_impl``)::

        @hookspec(warn_on_impl_args={"faces": deprecated("faces", instead="dice",
                                                         since="1.2")})
        def sidecar_resolve(roll, dice, faces): ...
    """
    return HookDeprecationWarning(
        f"'{old}' is deprecated since hooks API {since} and goes away at the next major "
        f"version: use '{instead}' / « {old} » est obsolète depuis l'API des hooks {since} "
        f"et disparaît à la prochaine version majeure : utilisez « {instead} »")


#: The attribute :func:`owner_only` sets on a hook specification.
OWNER_ONLY_ATTRIBUTE = "sidecar_owner_only"


def owner_only(spec: Any) -> Any:
    """Mark a hook as the ruleset's own: it is called on the plugin that owns the roll's
    ruleset, and on no other plugin (so exactly one implementation answers; pluggy's
    ``firstresult`` plays no part)."""
    setattr(spec, OWNER_ONLY_ATTRIBUTE, True)
    return spec


# ---------------------------------------------------------------------------------------
# Rulesets
# ---------------------------------------------------------------------------------------

@hookspec
def sidecar_rulesets() -> list[dict[str, Any]]:
    """Describe the rulesets this plugin provides.

    :return: a list of maps, one per ruleset: ``name`` (the id clients send),
        ``title`` (``{"fr": ..., "en": ...}`` or a string), ``version`` (string),
        optionally ``dice_order`` and ``description`` (``{"fr", "en"}``: the order its
        dice are drawn in, what it is), and ``params``: a map from parameter name to its
        description. The host validates every request against ``params`` and fills in
        the defaults before any hook sees the roll, and sends the whole description to
        clients in ``welcome`` so they can build a form.

    A parameter's description holds ``type`` (``int``, ``bool``, ``string``, ``list`` or
    ``map``; ``string`` when left out), and optionally ``default``, ``required``,
    ``label`` and ``description`` (a string or ``{"fr", "en"}``), then by type:

    * ``int``: ``min``, ``max``, ``labels`` (named values a request may send instead:
      ``{"Difficile": 9}``), ``label_names`` (label → ``{"fr", "en"}``: what a form shows
      for each label in its reader's language, ``{"Difficile": {"fr": "Difficile",
      "en": "Hard"}}``; a request may send these names too);
    * ``string``: ``choices``, ``choice_labels`` (choice → ``{"fr", "en"}``),
      ``max_length``, ``pattern`` (a regular expression the whole value matches),
      ``example``;
    * ``list``: ``items`` (``"string"``, the default, or ``"int"``), ``max_items``, then
      ``choices`` and ``choice_labels`` for strings, ``item`` (``{"min", "max"}``) for
      integers;
    * ``map``: ``values`` (``"string"`` or ``"int"``), ``max_items``, ``item`` (the
      description of each value).

    **(extension, issue 29)** A ruleset may name things in its own words, for those who
    show its odds and its oppositions: ``kind_labels`` maps outcome kinds (``botch``,
    ``failure``, ``narrow``, ``success``, ``critical``) to ``{"fr", "en"}`` (O'Ween's
    « Bourde », « Coup d'éclat », as its roll's badge says them — a client's generic
    word otherwise), and ``margin_labels`` maps ``success`` and ``failure`` to the word
    for a margin of each (O'Ween's « MR » / « ME »: a failure's margin is then shown as
    the shortfall, « ME 3 », not « marge -3 »).

    Two keys say how a form lays the parameters out (the web table does; the server ignores
    them): `more: true` folds a parameter behind « plus d'options » (what a roll rarely needs),
    and `situation: "<a bool parameter>"` shows it only once that situation is chosen — the
    bool parameters named so become a « Situation » choice (O'Ween's `drinking`, `volley`)
    that brings their own fields; a situation not chosen sends none of them. Every built-in
    ruleset marks so what a phone need not show at once (d6code's twin dice, style and
    opponent; the ladder's choices decided beforehand; Seuil's complications). A
    ``description`` need not repeat the ``label``: a form shows the label above it, and
    drops a restated one (« Difficulté (0 à 20) » under « Difficulté » reads « 0 à 20 »).

    Anything else is refused when the plugin is loaded, as are a key of the wrong type,
    ``min`` above ``max``, and a ``default`` that is not a valid value (out of range, not
    among the ``choices``, a label rather than the number): the error names the plugin,
    the ruleset, the parameter and the key.

    Example::

        @hookimpl
        def sidecar_rulesets():
            return [{"name": "coin", "title": "Pile ou face", "version": "1.0",
                     "params": {"calls": {"type": "string", "choices": ["pile", "face"],
                                          "required": True}}}]
    """


@hookspec
@owner_only
def sidecar_resolve(roll: Roll, dice: Dice) -> Outcome | dict[str, Any] | None:
    """Resolve a roll of a ruleset this plugin provides, drawing every face from ``dice``.

    Called on the ruleset's owner only (the plugin whose :func:`sidecar_rulesets` lists
    ``roll.ruleset``), never for another plugin's rolls.

    :param roll: the roll, after the extensions' :func:`sidecar_modify_roll`;
        ``roll.params`` is validated with defaults filled in.
    :param dice: where faces come from (a :class:`~sidecar.dice.sources.Dice`):
        ``dice.roll(sides)`` returns one face, ``dice.roll_many(count, sides)`` several,
        ``dice.rolled`` lists those drawn. Behind it: the secure random source, the
        verifiable dice (``--dice provable``) or the faces a person entered (physical dice,
        in the order drawn; ``dice.unused`` counts those not drawn yet) — the same class
        for all, so a plugin cannot tell which. Always draw in the ruleset's documented
        consumption order.
    :return: an :class:`~sidecar.model.Outcome`, or a map with at least ``result``
        (``success``, ``margin``, ``kind``, ``label``) — ``dice`` defaults to every die
        drawn, ``notes`` to ``[]``; ``spend`` (a roll as a character) what it takes from
        ``roll.sheet``; ``effects`` (a roll aimed at characters, ``roll.targets``) what
        the dice did to them, ``{"<character>": {"<int field>": <delta>}}``: never refused,
        each field taken by the host as far as its ``min``/``max`` allow, in the outcome's
        own journal write; ``choices`` and ``default`` to leave the roll open (see
        :func:`sidecar_react`; a choice that costs the character something may say so
        with ``spend: {"<field>": <int>}``, so that pages offer it only while the sheet
        can pay — PROTOCOL.md §7.6).

    **Spending: refusals never depend on the dice.** A roll refused after its faces
    exist could be rolled again until the dice spare the sheet, so the host refuses only
    before the first die: what the player chose before the dice (augmentations bought, a
    luck point for a reroll "if it fails", a style point "if needed") is declared in
    :func:`sidecar_max_spend` — the most it could cost, whatever the faces — and the
    roll is refused (``insufficient``: no die drawn, nothing spent) when the sheet cannot
    pay that. Once a face is drawn, the outcome is journaled whatever it shows: spend
    what was chosen whole, and take what the dice decide (a reserve drained by the
    margin, a wound) only as far as ``roll.sheet`` holds — clamp it. A spend that would
    still leave a field's bounds is taken only as far as the sheet holds by the host,
    which says in the outcome's ``notes`` what was not taken (and logs the ruleset). Raise
    a refusal (``ProtocolError``) only before drawing: one raised after a face was drawn
    is the ruleset's failure (``plugin_error``, counted against the plugin).
    """


@hookspec
@owner_only
def sidecar_react(roll: Roll, outcome: Outcome, choice: str, dice: Dice
                  ) -> Outcome | dict[str, Any] | None:
    """Resolve a decision taken after the dice: ``choice`` among the ``choices`` an
    outcome of this plugin's ruleset offered (an *open roll*).

    Called on the ruleset's owner only, when the roller, a GM or (a public roll made
    as a character) the seat that plays it answers with ``react``,
    or with the outcome's ``default`` when nobody decided within ``--react-timeout``.
    :func:`sidecar_resolve` opens a roll by returning ``choices`` — a list of ``{"name",
    "label": {"fr", "en"}, "dice": <how many more faces the choice draws>}`` — and
    optionally ``default`` (a choice's name) with its outcome.

    :param roll: the roll as it was resolved (``params``, ``options``, ``label``,
        ``mode``, ``roll.state`` as now, ``roll.sheet`` the character's values now,
        ``roll.targets`` the targets' values now: another roll may have changed them).
    :param outcome: the open outcome (``result``, ``dice``, ``notes``, ``choices``).
    :param choice: the name of the choice taken.
    :param dice: where the choice's new faces come from (``dice.roll(sides)``): the secure
        source, or the faces the player entered with ``react``.
    :return: what :func:`sidecar_resolve` returns: the outcome after the decision — its
        ``dice`` at least the faces drawn now; ``spend`` what the decision costs (a Chance
        point); new ``choices`` to keep the roll open.
    """


@hookspec
def sidecar_max_spend(roll: Roll, outcome: Outcome | None, choice: str | None
                      ) -> dict[str, int] | None:
    """Declare the most a roll as a character could take from its sheet, whatever the
    dice show, before any die is drawn (contract §7: refusals never depend on the dice).

    Called on the ruleset's owner and on every extension (a plugin owning no ruleset),
    only for a roll made as a character (``roll.sheet`` holds its values): once before
    :func:`sidecar_resolve` (after :func:`sidecar_modify_roll`), and once before each
    :func:`sidecar_react`. The host adds up the answers, field by field, and refuses the
    request with ``insufficient`` (``field``, ``have``, ``need``: the declared most) when
    the sheet cannot pay it — the same answer whatever the faces would have been, and
    none drawn. Declare what the player chose before the dice, counted whole even when
    the dice may make it free (a reroll ordered "if the pair fails" costs its luck point
    in the declaration, though a success spends nothing); leave out what the dice decide
    and you clamp to ``roll.sheet`` yourself (a wound stopping at 0).

    Without a declaration, a spend the sheet cannot pay is refused only when the request
    drew no face; once a face is drawn, the host takes it only as far as the sheet holds
    (see :func:`sidecar_resolve`) — so declare every cost the player chose, or it may be
    taken for free.

    :param roll: the roll as :func:`sidecar_resolve` (or :func:`sidecar_react`) will
        see it: ``params`` after the extensions, ``options``, ``sheet``. Read only.
    :param outcome: ``None`` before the roll; before a decision, the open outcome.
    :param choice: ``None`` before the roll; before a decision, the choice's name.
    :return: ``{field: amount}``, the most each integer field of the sheet could lose
        (amounts of 0 or less are ignored), or ``None`` for nothing. A malformed answer,
        or a raise, is the plugin's failure: a ruleset's answers ``plugin_error`` (no
        die drawn), an extension's is left out. A ``ProtocolError`` raised here refuses
        the request as it is (nothing is drawn yet).

    Example::

        @hookimpl
        def sidecar_max_spend(roll, choice):
            if choice == "reroll" or (choice is None and roll.params["reroll"]):
                return {"luck": 1}
            return None
    """


@hookspec
@owner_only
def sidecar_initiative(roll: Roll, entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Order characters of this plugin's ruleset for the initiative of a scene.

    Called on the ruleset's owner only, when a GM asks (``{type: "initiative"}``).

    :param roll: who asks and where (``ruleset``, ``table``, ``by``, ``session``, and
        ``turn``: the table's turn number); nothing is rolled. ``roll.state`` is the
        plugin's table state, to read (what the hook changes there is not kept).
    :param entries: one map per character: ``character`` (its name), ``sheet`` (its
        values, a copy), ``claim`` (whether its player spends to take the initiative),
        ``bagage`` (whether the GM judges it has a relevant bagage).
    :return: ``{"order": [[name, …], …], "spend": {name: {field: amount}}}`` — the
        characters in acting order, each inner list acting together; what the claims cost
        (checked and spent like a roll's spend, all or nothing). ``None``: this ruleset has
        no initiative rule.
    """


@hookspec
def sidecar_sheet(ruleset: str) -> dict[str, Any] | None:
    """Describe the character sheet of ``ruleset``: the values a character carries.

    Called once per ruleset when the plugins are loaded (not async). The ruleset's owner
    returns its sheet; an extension (a plugin owning no ruleset) may return fields to add
    to the sheet of any ruleset it understands (``None`` for the others) — they must not
    reuse a name the owner's sheet has.

    :return: a map from field name to its description, like ``params`` in
        :func:`sidecar_rulesets` (``type`` — ``int``, ``bool``, ``string``, ``list`` or
        ``map`` —, ``default``, ``min``, ``max``, ``label``, ``description``), plus
        ``resource: true`` on integer counters rolls may spend and ``refill: "turn"`` or
        ``"rest"`` on counters that go back to their ``default`` at a new turn or after a
        rest. The web page shows a counter as a gauge only where the sheet says what full
        is: a reserve counted down from a score (``reserve_pep``, ``max: 0``, beside an int
        ``pep``), or a ``refill`` counter whose ``default`` is its ``max`` (« 1 / 1 »); any
        other counter's ``max`` is only its bound, shown as a plain value. A ``map`` field
        maps names to values of its ``values`` type (``int`` or ``string``). A roll made
        as a character sees its values as ``roll.sheet``, and
        spends with ``spend`` in its outcome (see :class:`~sidecar.model.Outcome`).

    Example::

        @hookimpl
        def sidecar_sheet(ruleset):
            if ruleset == "coin":
                return {"luck": {"type": "int", "min": 0, "max": 3, "default": 3,
                                 "resource": True, "refill": "rest",
                                 "label": {"fr": "Chance", "en": "Luck"}}}
            return None
    """


@hookspec
@owner_only
def sidecar_odds(roll: Roll) -> dict[str, Any] | None:
    """Compute the exact odds of a roll of a ruleset this plugin provides.

    Called on the ruleset's owner only. ``None`` means the ruleset gives no odds (the
    client gets ``plugin_error`` saying so).

    :param roll: the roll as :func:`sidecar_resolve` would see it (extensions applied).
    :return: a map with ``p_success`` (float) and ``kinds`` (a map of each kind —
        ``botch``, ``failure``, ``narrow``, ``success``, ``critical`` — to its probability).
    """


@hookspec(firstresult=True)
def sidecar_render_text(roll: Roll, outcome: Outcome, locale: str) -> str | None:
    """Write the one-line summary of an outcome for a reader of ``locale`` (``fr``/``en``).

    Called after every extension has changed the outcome, so the line tells the final
    result. Called on the ruleset's owner first; only when it returns ``None`` (or does
    not implement this hook) on the plugins that own no ruleset (extensions), in pluggy's
    order, until one answers — so an extension may write texts for rulesets that have
    none, never replace an owner's; a ruleset's plugin is asked for its own rulesets only.
    When nobody answers, the host writes ``"<name> — <label> : <result label>"`` in
    French, ``"<name> — <label>: <result label>"`` in English (``<name>``: the character
    the roll is made as, else the roller's); :func:`sidecar.rules.heading` (``roll,
    locale=locale``) writes that start for a plugin's own line.
    """


# ---------------------------------------------------------------------------------------
# Extensions
# ---------------------------------------------------------------------------------------

@hookspec
def sidecar_modify_roll(roll: Roll) -> None:
    """Change a roll before it is resolved: add to or change ``roll.params``.

    Called on every plugin implementing it, for rolls of every ruleset: check
    ``roll.ruleset`` if you only understand some.

    Read your per-roll settings from ``roll.options.get("<your plugin name>")`` and your
    per-table memory from ``roll.state`` (a map kept for you, per table). If you raise, or
    leave ``roll.params`` invalid for the ruleset, your changes are undone for this roll.

    To refuse the roll because your own settings are wrong (e.g. a charge without the
    initiative), raise ``sidecar.protocol.errors.invalid_param("options.<name>.<field>", "why")``:
    the roller gets that ``invalid_params`` error and nothing is rolled. Check your settings
    here rather than in :func:`sidecar_modify_outcome`, before any die is drawn.
    """


@hookspec
def sidecar_options() -> dict[str, Any] | None:
    """Describe this extension's per-roll settings: what ``roll.options["<its name>"]``
    may hold, so the server checks every request and clients build a form.

    Called when the plugins are loaded, and again whenever the loaded set changes (not
    async; return the same description each time); a description the host cannot use
    stops the start-up with an error naming the plugin. Without this hook an
    extension still receives whatever a request puts under its name, unchecked (plugins
    written before it keep working); with it, the server answers ``invalid_params``
    naming the extension and the key for an unknown key, a value of the wrong type or
    range, or a roll of a ruleset the extension does not apply to — nothing is rolled —,
    and your hooks only ever see valid values. Keys a request leaves out stay left out
    (no default is filled in): apply your defaults yourself, as before.

    :return: ``None`` (no description), or a map:

        * ``label``, ``description``: ``{"fr": ..., "en": ...}`` (or a string), shown
          above the extension's fields;
        * ``rulesets``: the names of the rulesets it applies to (a client offers it only
          for those; the server refuses it elsewhere), or ``None`` for every ruleset;
        * ``params``: a map from each key of the settings to its description, like the
          ``params`` of :func:`sidecar_rulesets` (``type`` — ``int``, ``bool``,
          ``string``, ``list``, ``map`` —, ``default`` (what the form shows first),
          ``min``, ``max``, ``labels``, ``choices``, ``required``, ``label``,
          ``description``), plus ``cost``: what choosing it costs, for a client to show —
          an integer on a ``bool``, a map from choice to integer on a ``list`` with
          ``choices`` —, and ``choice_labels``: a map from choice to ``{"fr", "en"}``,
          what people read. A ``list`` of integers says ``items: "int"`` (bounds in
          ``item``: ``{"min", "max"}``); it may then also be sent as a map naming each
          integer. Choices match loosely (accents, case, by id or by their
          ``choice_labels`` in either language: ``"Désarmer"`` and ``"disarm"`` are
          ``desarmer``) and reach your hooks as the description writes them; so do a
          ruleset's own ``choices``.

    The settings as a whole must be a map (``{}`` turns the extension on with its
    defaults). ``welcome.options`` lists the descriptions, with ``name`` added.

    Example::

        @hookimpl
        def sidecar_options():
            return {"label": {"fr": "Ruse", "en": "Cunning"}, "rulesets": ["coin"],
                    "params": {
                        "feint": {"type": "bool", "cost": 1, "default": False,
                                  "label": {"fr": "Feinte", "en": "Feint"}},
                        "bonus": {"type": "int", "min": 0, "max": 3,
                                  "label": {"fr": "Bonus", "en": "Bonus"}}}}
    """


@hookspec
def sidecar_modify_outcome(roll: Roll, outcome: Outcome) -> None:
    """Change an outcome after it is resolved: change ``outcome.result``, append to
    ``outcome.notes`` (a note as ``label(fr, en)`` is read by each member in its own
    language; a plain string as it is).

    Called on every plugin implementing it, for rolls of every ruleset: check
    ``roll.ruleset`` if you only understand some.

    Keep the common fields meaningful (``success`` bool, ``margin`` int, ``kind`` one of
    the five kinds, ``label`` ``{"fr", "en"}``): an outcome left invalid is undone, like a
    raise. The host records your plugin in ``outcome.applied`` when you changed something.
    """


#: The owner-only hooks (marked :func:`owner_only` above).
OWNER_ONLY = tuple(name for name, value in list(globals().items())
                   if name.startswith("sidecar_") and getattr(value, OWNER_ONLY_ATTRIBUTE, False))
