"""Abbreviations advisers write for what the seeds' labels spell out ("PA for 2025/26?", "1st
POA", "the 20% band"), held as data in ``seeds/abbreviations.yaml`` with each entry's official
meaning and source (issue 23). :func:`spelled_out` gives a question with each one replaced by
the official term of the question's jurisdictions (all of them when it names none), so that the
search, the coverage gate and the timeline read "personal allowance", not an acronym no rule's
title says. Code holds no abbreviation of its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

import yaml

__all__ = ["DEFAULT_ABBREVIATIONS", "Abbreviation", "load_abbreviations", "spelled_out"]

DEFAULT_ABBREVIATIONS = Path(__file__).resolve().parents[1] / "seeds" / "abbreviations.yaml"


@dataclass(frozen=True)
class Abbreviation:
    forms: tuple[str, ...]
    meaning: dict[str, str]  # jurisdiction -> the official term
    exact_case: bool
    source: str

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """Compiled once per entry (the entries are loaded once per process)."""
        alternatives = "|".join(re.escape(form) for form in sorted(self.forms, key=len)[::-1])
        flags = 0 if self.exact_case else re.I
        return re.compile(rf"(?<![\w%])(?:{alternatives})(?![\w%])", flags)

    def term(self, jurisdictions: Sequence[str]) -> str:
        terms = [t for j, t in self.meaning.items() if j in jurisdictions] or list(
            self.meaning.values()
        )
        return " or ".join(dict.fromkeys(terms))


@cache
def load_abbreviations(path: Path = DEFAULT_ABBREVIATIONS) -> tuple[Abbreviation, ...]:
    entries = yaml.safe_load(path.read_text()) or []
    return tuple(
        Abbreviation(
            forms=tuple(str(form) for form in entry["forms"]),
            meaning={str(j): str(t) for j, t in entry["meaning"].items()},
            exact_case=entry.get("case") == "exact",
            source=str(entry["source"]),
        )
        for entry in entries
    )


def spelled_out(
    text: str,
    jurisdictions: Sequence[str] = (),
    abbreviations: Sequence[Abbreviation] | None = None,
) -> str:
    """``text`` with each abbreviation of ``abbreviations`` (the data file's by default)
    replaced by its official term; a text in capitals throughout is left as written (its case
    says nothing of an acronym)."""
    if text.isupper():
        return text
    for abbreviation in load_abbreviations() if abbreviations is None else abbreviations:
        text = abbreviation.pattern.sub(abbreviation.term(jurisdictions), text)
    return text
