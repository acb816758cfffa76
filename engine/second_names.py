"""Second names of concepts the seeds do not hold, as data (issue 24, ADR 0078).

``seeds/second_names.yaml`` lists groups of names one official page gives for one thing (its
name, acronym and former names: "Working Family Payment", "WFP", "Family Income Supplement"),
each in one jurisdiction, with its source. :func:`second_names` gives, for a capture's labels,
the other names of every group one of them is (an exact label form, :func:`engine.matching.
label_forms`); matching treats them like a EuroVoc translation (ADR 0075): words the data gave,
not another conversation, so a capture may join another capture's quarantined concept named
by a second name without learning anything the data does not say (ADR 0036 kept).

A seeded concept's second names are its ``alt_labels`` / ``hidden_labels``, not entries here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

import yaml

__all__ = [
    "DEFAULT_SECOND_NAMES",
    "NameGroup",
    "load_second_names",
    "related_concepts",
    "second_names",
]

DEFAULT_SECOND_NAMES: Final = Path(__file__).resolve().parents[1] / "seeds" / "second_names.yaml"
_EU: Final = "EU"


@dataclass(frozen=True, slots=True)
class NameGroup:
    jurisdictions: tuple[str, ...]  # each its own group: never a join across them
    names: tuple[str, ...]
    source: str


@cache
def load_second_names(path: Path = DEFAULT_SECOND_NAMES) -> tuple[NameGroup, ...]:
    if not path.exists():
        return ()
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    return tuple(
        NameGroup(
            tuple(str(j) for j in _as_list(e["jurisdiction"])),
            tuple(str(n) for n in e["names"]),
            str(e["source"]),
        )
        for e in entries
    )


def _as_list(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else [value]


@cache
def _index(path: Path) -> dict[tuple[str, str], tuple[int, ...]]:
    """(jurisdiction, exact form) -> the groups having a name of that form."""
    from engine.matching import label_forms  # matching imports this module lazily too

    out: dict[tuple[str, str], list[int]] = {}
    for i, group in enumerate(load_second_names(path)):
        for name in group.names:
            for form in label_forms(name)[:1]:
                for where in group.jurisdictions:
                    out.setdefault((where, form.form), []).append(i)
    return {k: tuple(dict.fromkeys(v)) for k, v in out.items()}


def second_names(
    forms: Iterable[str], jurisdiction: str, path: Path = DEFAULT_SECOND_NAMES
) -> tuple[str, ...]:
    """The other names of every group (in ``jurisdiction`` or the EU) one of ``forms`` (exact
    label forms, :attr:`engine.matching.LabelForm.form`) names; empty when none does."""
    groups = load_second_names(path)
    index = _index(path)
    found: dict[int, None] = {}
    mine = set(forms)
    for form in mine:
        for where in dict.fromkeys((jurisdiction, _EU)):
            for i in index.get((where, form), ()):
                found[i] = None
    return tuple(dict.fromkeys(name for i in found for name in groups[i].names))


@cache
def _not_labels() -> dict[str, tuple[str, ...]]:
    """Exact form -> the seeded concepts (ids) that record it as a ``not_labels`` term: what a
    reader might take for its label but names something else (broader, a part, a reform, a
    condition; ADR 0075), read from the seeds the graph is built from."""
    from engine.matching import label_forms

    out: dict[str, list[str]] = {}
    for concept in _seeded_concepts():
        key = f"{concept['domain']}:{concept['jurisdiction']}:{concept['kind']}"
        for text in concept.get("not_labels") or ():
            for form in label_forms(str(text))[:1]:
                out.setdefault(form.form, []).append(key)
    return {k: tuple(dict.fromkeys(v)) for k, v in out.items()}


def _seeded_concepts() -> list[dict[str, Any]]:
    """The seeds' concepts (``concepts:`` of ``seeds/rules/*.yaml``), read with libyaml when
    present: only the files that record ``not_labels`` are parsed."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out: list[dict[str, Any]] = []
    for file in sorted(_RULES.glob("*.yaml")):
        text = file.read_text(encoding="utf-8")
        if "not_labels" in text:
            out += (yaml.load(text, Loader=loader) or {}).get("concepts") or []
    return out


_RULES: Final = Path(__file__).resolve().parents[1] / "seeds" / "rules"


def related_concepts(forms: Iterable[str]) -> tuple[str, ...]:
    """The seeded concepts one of ``forms`` (exact label forms) is a recorded ``not_labels``
    term of ("data protection" -> the GDPR): review candidates of a capture naming it
    (``related``), never a merge (ADR 0078)."""
    index = _not_labels()
    return tuple(dict.fromkeys(key for form in set(forms) for key in index.get(form, ())))
