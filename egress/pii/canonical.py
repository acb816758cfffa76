"""One canonical form of a text before any PII check, with a map back to the original.

Detection runs on the canonical text; each finding is mapped back to a span of the original so
the sanitiser still replaces the right characters (ADR 0016). :func:`canonicalise` applies, in
order:

1. **Invisible characters removed**: every format character (Unicode category ``Cf``: zero-width
   space, joiners, soft hyphen, bidirectional controls, BOM) and the other default-ignorable
   code points that render as nothing (variation selectors, the combining grapheme joiner,
   Hangul fillers), so ``5260181E`` with a zero-width joiner inside is ``5260181E``.
2. **NFKC** per grapheme (a base character with its combining marks): full-width
   ``５２６０１８１Ｅ`` and ``＠`` become ASCII, ligatures split, accents compose.
3. **Confusables folded**: a letter or digit of another script that Unicode's confusables data
   (TR39, via ``confusable_homoglyphs``) lists as looking like one ASCII letter or digit becomes
   that character — Cyrillic ``а``, ``о``, ``Р`` and Greek ``Α``, ``ο`` are Latin ``a``, ``o``,
   ``P``, ``A``, ``o``. Latin and common characters are left alone (TR39's full skeleton would
   also fold ``I`` into ``l`` and ``0`` into ``O``, turning identifiers into something else).

:func:`compact_identifiers` is a second view, used only by identifier recognisers with a
checksum or a context: separators inside digit runs removed ("970 37 58 TA" -> "9703758 TA") and
letter-spaced runs joined ("9 7 0 3 7 5 8 T A" -> "9703758TA"). Phone numbers and amounts are
never searched in it: their spacing is their shape.

Both are linear in the length of the text: ASCII runs are copied in bulk, and each other
character costs one cached look-up.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

__all__ = [
    "CanonicalText",
    "canonicalise",
    "compact_identifiers",
    "confusable_fold_table",
    "spoken_identifiers",
]

# Code points that render as nothing but are not in category Cf.
_IGNORABLE_EXTRA = frozenset(
    [
        0x034F,
        0x115F,
        0x1160,
        0x17B4,
        0x17B5,
        0x3164,
        0xFFA0,
        0x180B,
        0x180C,
        0x180D,
        0x180F,
        *range(0xFE00, 0xFE10),
    ]
)
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")
# Scripts whose look-alikes are left alone: they are the Latin text itself, or symbols.
_KEEP_SCRIPTS = frozenset({"LATIN", "COMMON", "INHERITED"})


@dataclass(frozen=True, slots=True)
class CanonicalText:
    """``text`` and, for each of its characters, the span of the original it came from.

    ``starts``/``ends`` are ``None`` when the text is the original unchanged.
    """

    text: str
    starts: tuple[int, ...] | None = None
    ends: tuple[int, ...] | None = None

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that ``text[start:end]`` (non-empty) came from."""
        if self.starts is None or self.ends is None:
            return start, end
        return self.starts[start], self.ends[end - 1]


@cache
def confusable_fold_table() -> dict[int, str]:
    """Characters of other scripts that look like one ASCII letter or digit -> that character.

    Built once from the confusables data bundled with ``confusable_homoglyphs`` (Unicode's
    ``confusables.txt``); 400-odd entries (Cyrillic, Greek, Armenian, Cherokee ...).
    """
    from confusable_homoglyphs import categories

    data = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    table: dict[int, str] = {}
    for char, entries in json.loads(data).items():
        if len(char) != 1 or char.isascii() or categories.alias(char) in _KEEP_SCRIPTS:
            continue
        for entry in entries:
            target = entry["c"]
            if len(target) == 1 and target.isascii() and target.isalnum():
                # confusables.txt's prototype of "I" is "l": a capital stays a capital.
                if char.isupper() and target == "l":
                    target = "I"
                table[ord(char)] = target
                break
    return table


def _ignorable(char: str) -> bool:
    return unicodedata.category(char) == "Cf" or ord(char) in _IGNORABLE_EXTRA


@lru_cache(maxsize=8192)
def _canonical_cluster(cluster: str) -> str:
    """One base character with its combining marks, canonical (may be empty or longer)."""
    kept = "".join(ch for ch in cluster if not _ignorable(ch))
    return unicodedata.normalize("NFKC", kept).translate(confusable_fold_table())


def canonicalise(text: str) -> CanonicalText:
    """The canonical form of ``text`` (see the module docstring), mapped to the original."""
    if text.isascii():
        return CanonicalText(text)
    parts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    cursor = 0
    for run in _NON_ASCII_RUN.finditer(text):
        start, end = run.span()
        # A combining mark after an ASCII letter composes with it ("e" + U+0301).
        if start > cursor and unicodedata.combining(text[start]):
            start -= 1
        if start > cursor:
            parts.append(text[cursor:start])
            starts.extend(range(cursor, start))
            ends.extend(range(cursor + 1, start + 1))
        i = start
        while i < end:
            j = i + 1
            while j < end and unicodedata.combining(text[j]):
                j += 1
            piece = _canonical_cluster(text[i:j])
            parts.append(piece)
            starts.extend([i] * len(piece))
            ends.extend([j] * len(piece))
            i = j
        cursor = end
    if cursor < len(text):
        parts.append(text[cursor:])
        starts.extend(range(cursor, len(text)))
        ends.extend(range(cursor + 1, len(text) + 1))
    return CanonicalText("".join(parts), tuple(starts), tuple(ends))


# A separator between digits: "970 37 58", "1234-567", "12.345.678".
_DIGIT_GAP = re.compile(r"(?<=\d)[ \u00a0.\-](?=\d)")
# Five or more single letters or digits, each followed by one separator: "9 7 0 3 7 5 8 T A".
_SPACED = re.compile(r"(?<![^\W_])(?:[^\W_][ \u00a0.\-]){4,}[^\W_](?![^\W_])")
_SPACED_GAP = re.compile(r"[ \u00a0.\-]")


def compact_identifiers(canonical: CanonicalText) -> CanonicalText:
    """The identifier view of ``canonical`` (see the module docstring), mapped to the original;
    ``canonical`` itself when there is nothing to join."""
    text = canonical.text
    drop: list[int] = [m.start() for m in _DIGIT_GAP.finditer(text)]
    for run in _SPACED.finditer(text):
        drop.extend(m.start() for m in _SPACED_GAP.finditer(text, run.start(), run.end()))
    if not drop:
        return canonical
    drop.sort()
    n = len(text)
    base_starts = canonical.starts if canonical.starts is not None else tuple(range(n))
    base_ends = canonical.ends if canonical.ends is not None else tuple(range(1, n + 1))
    parts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    cursor = 0
    for i in drop:
        if i < cursor:
            continue  # dropped by both rules
        parts.append(text[cursor:i])
        starts.extend(base_starts[cursor:i])
        ends.extend(base_ends[cursor:i])
        cursor = i + 1
    parts.append(text[cursor:])
    starts.extend(base_starts[cursor:])
    ends.extend(base_ends[cursor:])
    return CanonicalText("".join(parts), tuple(starts), tuple(ends))


_DIGIT_WORDS = {
    "zero": "0",
    "oh": "0",
    "nought": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
}
_REPEAT_WORDS = {"double": 2, "treble": 3, "triple": 3}
_SPOKEN_TOKEN = (
    r"(?:zero|oh|nought|one|two|three|four|five|six|seven|eight|nine|double|treble|triple"
    r"|[a-z]|\d{1,4})(?!\w)"
)
# Four or more tokens — digit words, single letters, short digit groups — one separator apart.
_SPOKEN_RUN = re.compile(rf"(?i)(?<!\w){_SPOKEN_TOKEN}(?:[ ,.\-]{{1,2}}{_SPOKEN_TOKEN}){{3,}}")
_SPOKEN_PART = re.compile(rf"(?i){_SPOKEN_TOKEN}")
_SPOKEN_HINT = re.compile(
    r"(?i)\b(?:zero|oh|nought|one|two|three|four|five|six|seven|eight|nine)\b"
)


def spoken_identifiers(canonical: CanonicalText) -> CanonicalText | None:
    """The spoken view of ``canonical``: an identifier read out — "one four zero six three nine
    three s", "R R five zero zero eight seven two C", "double four" — written as its characters
    ("1406393s", "RR500872C", "44"), each mapped to the words it came from; ``None`` when the
    text has no run of four or more digit words. Used, like the compact view, only by
    recognisers with a checksum or a context."""
    text = canonical.text
    if _SPOKEN_HINT.search(text) is None:
        return None
    n = len(text)
    base_starts = canonical.starts if canonical.starts is not None else tuple(range(n))
    base_ends = canonical.ends if canonical.ends is not None else tuple(range(1, n + 1))
    parts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    cursor = 0
    changed = False
    for run in _SPOKEN_RUN.finditer(text):
        tokens = list(_SPOKEN_PART.finditer(text, run.start(), run.end()))
        if sum(t.group().lower() in _DIGIT_WORDS for t in tokens) < 4:
            continue
        changed = True
        parts.append(text[cursor : run.start()])
        starts.extend(base_starts[cursor : run.start()])
        ends.extend(base_ends[cursor : run.start()])
        repeat = 1
        for token in tokens:
            word = token.group().lower()
            if word in _REPEAT_WORDS:
                repeat = _REPEAT_WORDS[word]
                continue
            chars = _DIGIT_WORDS.get(word, token.group()) * repeat
            repeat = 1
            lo, hi = base_starts[token.start()], base_ends[token.end() - 1]
            parts.append(chars)
            starts.extend([lo] * len(chars))
            ends.extend([hi] * len(chars))
        cursor = run.end()
    if not changed:
        return None
    parts.append(text[cursor:])
    starts.extend(base_starts[cursor:])
    ends.extend(base_ends[cursor:])
    return CanonicalText("".join(parts), tuple(starts), tuple(ends))
