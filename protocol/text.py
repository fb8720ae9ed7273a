"""Text a table shows: what may not be in it, and how names are told apart.

Two questions about the names and labels clients send, answered from the Unicode data
(:mod:`unicodedata`), never from a hand-made list of characters:

- :func:`control_problem`: characters that act on a display instead of showing (C0 and
  C1 controls, DEL, line and paragraph separators, bidirectional embeddings, overrides and
  isolates). A name ``"Eve\\x1b[8m"`` or a label with ``\\r`` or ``\\x1b]52;…`` would write
  on a GM's terminal; such text is refused at the door, and :func:`escaped` shows it
  harmlessly wherever it is printed anyway (text from plugins, from an older journal).
- :func:`folded`: a name as a reader tells it apart, so that a name that only *looks* like
  a seat's (``"alice"``, ``"Alice\\u034f"``, ``"Alice\\u3164"``) is kept off the table.

:func:`heading` starts every one-line summary of a roll. Like the codec, this module
depends on nothing of the server.
"""

from __future__ import annotations

import functools
import re
import unicodedata

#: The bidirectional classes of the explicit embedding, override and isolate controls.
_BIDI_CONTROLS = frozenset(("LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"))


def is_control(char: str) -> bool:
    """Whether ``char`` acts on a display rather than showing: a control character
    (``Cc``: C0, DEL, C1), a line or paragraph separator, or a bidirectional embedding,
    override or isolate."""
    return (unicodedata.category(char) in ("Cc", "Zl", "Zp")
            or unicodedata.bidirectional(char) in _BIDI_CONTROLS)


@functools.cache
def _controls() -> tuple[re.Pattern[str], dict[int, str]]:
    """Every control of :func:`is_control` (all in the Basic Multilingual Plane), as a
    pattern that finds one and as a table that escapes each (``\\x1b``, ``\\u202e``)."""
    codes = [code for code in range(0x10000) if is_control(chr(code))]
    pattern = re.compile("[" + "".join(re.escape(chr(code)) for code in codes) + "]")
    table = {code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" for code in codes}
    return pattern, table


def control_pattern() -> re.Pattern[str]:
    """A pattern that finds one control character of :func:`is_control`."""
    return _controls()[0]


def control_problem(text: str) -> str | None:
    """The first control character of ``text`` as ``U+001B``, or ``None``."""
    found = _controls()[0].search(text)
    return None if found is None else f"U+{ord(found.group()):04X}"


def escaped(text: str) -> str:
    """``text`` with every control character written out (``\\x1b``, ``\\r``→``\\x0d``,
    ``\\u202e``): what a terminal shows instead of obeying it."""
    if text.isascii() and text.isprintable():
        return text
    return text.translate(_controls()[1])


def normalized(name: str) -> str:
    """``name`` in one form (NFC): an accent typed as one character or as a letter and a
    combining mark is one name (``"Élodie"`` either way)."""
    return name if name.isascii() else unicodedata.normalize("NFC", name)


@functools.lru_cache(maxsize=4096)
def _invisible(char: str) -> bool:
    """Whether ``char`` shows nothing of its own in a name: a mark (it only changes the
    letter before it: accents, variation selectors, the combining grapheme joiner, the
    Mongolian free variation selectors, Khmer inherent vowels), a format, control, private,
    surrogate or unassigned code point (zero-width spaces and joiners, tags), or a letter or
    symbol Unicode names a filler or a blank (the Hangul fillers, the blank Braille
    pattern)."""
    category = unicodedata.category(char)
    if category[0] in "MC":
        return True
    return category in ("Lo", "So") and unicodedata.name(char, "").endswith(
        ("FILLER", " BLANK"))


def _visible(text: str) -> str:
    """``text`` without what shows nothing of its own; any space as one plain space."""
    return "".join(" " if char.isspace() else char for char in text
                   if char.isspace() or not _invisible(char))


def folded(name: str) -> str:
    """``name`` as a reader tells it apart: compatibility-decomposed (NFKD), case-folded,
    without what shows nothing of its own (see :func:`_invisible`: marks and accents
    included), without spaces. Two names that fold alike look like one name at the table
    ("Alice", "alice ", "Al\u200bice", "Al\u200aice", "Alice\u034f", "Alicè")."""
    if name.isascii() and name.isprintable():  # (the usual name: nothing to drop)
        return "".join(name.lower().split())
    # Marks go before case folding too: some fold into letters (U+0345 into "ι").
    text = _visible(unicodedata.normalize("NFKD", name)).casefold()
    text = _visible(unicodedata.normalize("NFKD", text))
    # A narrow space inside a name (hair, thin, six-per-em…) barely shows: "Al\u200aice"
    # reads "Alice". Spaces tell no names apart ("Jean Luc" is "JeanLuc" at a table).
    return "".join(text.split())


def heading(who: str, label: str = "", *, colon: bool = True, locale: str = "fr") -> str:
    """The start of every one-line summary: ``"Aengus — Escalade : "`` in French,
    ``"Aengus — Climb: "`` in English (``locale="en"``: no space before the colon), or
    ``"Aengus — "`` without a label (``colon=False``: ``"Aengus — Escalade "``, for texts
    that go on with the roll's own words)."""
    if not label:
        return f"{who} — "
    if not colon:
        return f"{who} — {label} "
    return f"{who} — {label} : " if locale == "fr" else f"{who} — {label}: "


# -- French elision --------------------------------------------------------------------------

#: Words (lower case, without accents) whose ``h`` is aspirated: no elision before them
#: (« la Honte », « de Hugues »). A small list: names a table meets, not a dictionary.
ASPIRATED_H = frozenset((
    "hache", "haine", "haie", "halle", "halte", "hameau", "hanche", "handicap", "hangar",
    "hardi", "hareng", "haricot", "harpe", "hasard", "hate", "haut", "hauteur", "heros",
    "herisson", "hibou", "hierarchie", "hockey", "homard", "honte", "hors", "housse",
    "hublot", "hugues", "huit", "hurlement", "hutte",
))

#: The words that elide before a vowel sound, and what each becomes.
_ELIDED = {"de": "d'", "que": "qu'", "le": "l'", "la": "l'", "je": "j'", "ne": "n'",
           "me": "m'", "te": "t'", "se": "s'", "jusque": "jusqu'", "lorsque": "lorsqu'",
           "puisque": "puisqu'"}


def _bare(text: str) -> str:
    """``text`` lower case, without accents (« Éclate » → « eclate »)."""
    decomposed = unicodedata.normalize("NFD", text.lower())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def vowel_sound(word: str) -> bool:
    """Whether a French reader says ``word`` starting with a vowel sound: a vowel, accented
    or not (« Aengus », « Éclate », « Œil »), a mute ``h`` (« Hélène », « homme »), a ``y``
    before a consonant (« Yves »); not an aspirated ``h`` (:data:`ASPIRATED_H`), a ``y``
    before a vowel (« yaourt »), a digit or a sign."""
    bare = _bare(word.lstrip(" «\"'“"))
    if not bare:
        return False
    first = bare[0]
    if first in "aeiouæœ":
        return True
    if first == "y":
        return len(bare) > 1 and bare[1] not in "aeiou"
    if first == "h":
        head = re.match(r"[a-z]+", bare)
        stem = head.group() if head else bare
        return stem not in ASPIRATED_H and stem.rstrip("s") not in ASPIRATED_H
    return False


def elide(word: str, following: str) -> str:
    """``word`` joined to ``following`` as French writes it: ``elide("de", "Éclate")`` →
    ``"d'Éclate"``, ``elide("que", "Aengus")`` → ``"qu'Aengus"``, ``elide("de",
    "Bloodlust")`` → ``"de Bloodlust"``, ``elide("la", "Honte")`` → ``"la Honte"`` (an
    aspirated h). ``word`` is one of de, que, le, la, je, ne, me, te, se, jusque, lorsque,
    puisque; its case is kept (« De » → « D' »). Any other word is joined with a space."""
    short = _ELIDED.get(word.lower())
    if short is None or not vowel_sound(following):
        return f"{word} {following}"
    if word[:1].isupper():
        short = short[0].upper() + short[1:]
    return short + following


# -- localisable values ----------------------------------------------------------------------

def localized(value: object, locale: str) -> str:
    """One reader's words: a ``{"fr", "en"}`` map picked in ``locale`` (French when the
    locale is missing), any other value as it is (an older plain-string note passes
    through); what is not a string is shown with ``str``."""
    if isinstance(value, dict):
        picked = value.get(locale)
        if not isinstance(picked, str):
            picked = value.get("fr") if isinstance(value.get("fr"), str) else value.get("en")
        return picked if isinstance(picked, str) else str(value)
    return value if isinstance(value, str) else str(value)


def game_name(title: object, name: str, locale: str) -> str:
    """How people name a ruleset in ``locale`` (« O'Ween's », « Dés », not ``oweens``,
    ``dice``): its ``title`` up to its dash (« O'Ween's — réussites sur d6 »), else its
    ``name``."""
    text = localized(title or name, locale)
    return text.split(" — ", 1)[0].strip() or name


def is_localized(value: object) -> bool:
    """Whether ``value`` is a localisable text: a plain string, or a map with exactly the
    strings ``fr`` and ``en``."""
    if isinstance(value, str):
        return True
    return (isinstance(value, dict) and set(value) == {"fr", "en"}
            and all(isinstance(text, str) for text in value.values()))


def one_language(line: str, locale: str) -> str:
    """A line written « français / English » (a plugin's docstring) in one language: the
    part before the first `` / `` in French, the part after in English; a line without
    one as it is."""
    french, slash, english = line.partition(" / ")
    if not slash or not french.strip() or not english.strip():
        return line
    english = english.strip()
    return french.strip() if locale == "fr" else english[:1].upper() + english[1:]


def dice_words(count: int) -> tuple[str, str]:
    """``count`` dice in French and in English, singular or plural: ``("1 dé", "1
    die")``, ``("3 dés", "3 dice")`` (French singular below 2, English only at 1)."""
    return (f"{count} {'dé' if abs(count) < 2 else 'dés'}",
            f"{count} {'die' if count == 1 else 'dice'}")


def given_words(count: int) -> tuple[str, str]:
    """How many faces were given: ``("1 donné", "1 was given")``, ``("3 donnés", "3
    were given")``."""
    return (f"{count} {'donné' if abs(count) < 2 else 'donnés'}",
            f"{count} {'was' if count == 1 else 'were'} given")
