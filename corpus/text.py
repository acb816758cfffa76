"""Text conventions shared by every parser (see :mod:`corpus.model` for the rules).

Kept in one place so that two formats of one act produce equal text: whitespace is collapsed
the same way, no-break and thin spaces become plain spaces, and a marker (``(a)``, ``1.``,
``—``) is glued to the first line of what it numbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "MARKER",
    "NUMBERED_PARAGRAPH",
    "clean",
    "join_lines",
    "prefix",
    "squash",
]

# str.split() already splits on every Unicode space (no-break, thin, figure...); the zero-width
# ones EUR-Lex sometimes leaves behind are not spaces to Python, so they are mapped first.
_ZERO_WIDTH = ("\u200b", "\ufeff")


def _spaced(text: str) -> str:
    for char in _ZERO_WIDTH:
        if char in text:
            text = text.replace(char, " ")
    return text


# A point or item marker standing alone in a table cell or a NO.P element.
MARKER = re.compile(
    r"^(?:\(?[0-9]{1,3}[a-z]{0,2}\)|\(?[a-z]{1,3}\)|\(?[ivxlc]{1,6}\)|"
    r"[0-9]{1,3}[a-z]{0,2}\.(?:[0-9]{1,3}\.?)*|[A-Z]\.|[—–•\-])$"
)
# "1.   The following..." / "1a. ..." opening a numbered paragraph of an article.
NUMBERED_PARAGRAPH = re.compile(r"^(?P<number>\d{1,3}[a-z]{0,2})\.\s+\S")


def clean(text: str) -> str:
    """One line of text: every run of whitespace becomes one space; ends trimmed."""
    return " ".join(_spaced(text).split())


def squash(text: str) -> str:
    """Text without any whitespace: for comparing parses that join blocks differently."""
    return "".join(_spaced(text).split())


def prefix(marker: str, lines: list[str]) -> list[str]:
    """Glue ``marker`` to the first line: ``("(a)", ["text", "more"])`` -> ``["(a) text", ...]``."""
    marker = clean(marker)
    if not marker:
        return lines
    if not lines:
        return [marker]
    return [f"{marker} {lines[0]}", *lines[1:]]


def join_lines(lines: Iterable[str]) -> str:
    """Provision text: cleaned, non-empty lines joined with a newline."""
    return "\n".join(line for line in (clean(ln) for ln in lines) if line)
