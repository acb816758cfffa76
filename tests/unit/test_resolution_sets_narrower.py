"""No resolution set labels a capture of a narrower concept as its parent (ADR 0060 addendum),
nor a capture of a term the seeds decided is not a label of a concept as that concept (ADR 0075).

A seeded concept with ``broader`` (or ``related``) links is a concept of its own: a capture
whose preferred label has an exact form (the resolver's own :func:`engine.matching.label_forms`)
equal to one of its labels names it, so a case's gold must not be the concept it hangs under.
Checked over every ``bench/data/resolution_*.jsonl`` set, so relabelling is one rule, not a
case-by-case choice.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.concepts import concept_id
from engine.matching import label_forms
from engine.normalise import normalise_jurisdiction
from engine.seeding import read_seed_files

pytestmark = pytest.mark.unit

SETS = sorted((Path(__file__).resolve().parents[2] / "bench" / "data").glob("resolution_*.jsonl"))


def _narrower_forms() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Label form -> the linked concepts with it; concept -> every concept above it."""
    concepts = read_seed_files()["concepts"]
    links = {
        concept_id(c["domain"], c["jurisdiction"], c["kind"]): [
            *(c.get("broader") or []),
            *(c.get("related") or []),
        ]
        for c in concepts
    }
    above: dict[str, set[str]] = {}
    for start in links:
        seen: set[str] = set()
        todo = list(links[start])
        while todo:
            if (node := todo.pop()) not in seen:
                seen.add(node)
                todo.extend(links.get(node, ()))
        above[start] = seen
    forms: dict[str, set[str]] = {}
    for c in concepts:
        cid = concept_id(c["domain"], c["jurisdiction"], c["kind"])
        if not links[cid]:
            continue
        for label in [
            c["pref_label"],
            *(c.get("alt_labels") or []),
            *(c.get("hidden_labels") or []),
        ]:
            for form in label_forms(label):
                forms.setdefault(form.form, set()).add(cid)
    return forms, above


def test_the_sets_exist() -> None:
    assert len(SETS) >= 4


def test_no_set_labels_a_narrower_capture_as_its_parent() -> None:
    forms, above = _narrower_forms()
    wrong = []
    for path in SETS:
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            named = {
                cid
                for form in label_forms(case["concept"]["prefLabel"])
                for cid in forms.get(form.form, ())
            }
            wrong += [
                f"{case['id']}: {case['gold']} is above {cid}"
                for cid in named
                if case["gold"] in above[cid]
            ]
    assert not wrong, wrong


def _not_label_forms() -> dict[str, set[str]]:
    """Exact form -> the seeded concepts that term was decided not to name (``not_labels``:
    something broader, related, a condition, a person, a document or a reform; ADR 0075)."""
    out: dict[str, set[str]] = {}
    for c in read_seed_files()["concepts"]:
        cid = concept_id(c["domain"], c["jurisdiction"], c["kind"])
        for term in c.get("not_labels") or []:
            for form in label_forms(term):
                out.setdefault(form.form, set()).add(cid)
    return out


def test_a_not_label_is_no_label_of_its_concept() -> None:
    nots = _not_label_forms()
    assert len(nots) >= 7
    clash = []
    for c in read_seed_files()["concepts"]:
        cid = concept_id(c["domain"], c["jurisdiction"], c["kind"])
        texts = [c["pref_label"], *(c.get("alt_labels") or []), *(c.get("hidden_labels") or [])]
        clash += [
            f"{cid}: {text!r}"
            for text in texts
            for form in label_forms(text)
            if cid in nots.get(form.form, ())
        ]
    assert not clash, clash


def test_no_set_labels_a_not_label_capture_as_that_concept() -> None:
    nots = _not_label_forms()
    wrong = []
    for path in SETS:
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            capture = case["concept"]
            where = normalise_jurisdiction(capture["jurisdiction"])
            if concept_id(capture["domain"], where, capture["kind"]) == case["gold"]:
                continue  # the capture's own key names the concept: its label decides nothing
            wrong += [
                f"{case['id']}: {capture['prefLabel']!r} is not {case['gold']}"
                for form in label_forms(capture["prefLabel"])
                if case["gold"] in nots.get(form.form, ())
            ]
    assert not wrong, wrong
