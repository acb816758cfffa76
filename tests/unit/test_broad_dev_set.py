"""The broad dev set and its held-out part (issue 22): sizes, the frozen split, the unseen acts."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pytest

from tools.retrieval_eval import EvalQuestion, load_jsonl

pytestmark = pytest.mark.unit

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
DEV = DATA / "retrieval_dev_broad.jsonl"
HELD_OUT = DATA / "retrieval_heldout.jsonl"
NAMED = frozenset({"EU:REG_2024_1689", "EU:REG_2016_679"})
UNSEEN = frozenset({"EU:REG_2024_903", "EU:DIR_2014_92"})
UNANSWERABLE = frozenset({"unheld_act", "national_law", "unaddressed"})


def held_out(question_id: str) -> bool:
    """The split rule, frozen: a fifth of the ids by their sha256, never chosen by hand."""
    return int(hashlib.sha256(question_id.encode()).hexdigest()[:8], 16) % 5 == 0


def acts(question: EvalQuestion) -> set[str]:
    return {gold.rsplit(":", 1)[0] for gold in question.gold}


def test_the_split_follows_the_hash_rule_and_the_parts_do_not_overlap() -> None:
    dev, held = load_jsonl(DEV), load_jsonl(HELD_OUT)
    assert not any(held_out(q.id) for q in dev)
    assert all(held_out(q.id) for q in held)
    assert not {q.id for q in dev} & {q.id for q in held}
    assert not {q.question for q in dev} & {q.question for q in held}


def test_the_dev_part_is_as_broad_as_the_issue_asks() -> None:
    dev = load_jsonl(DEV)
    categories = Counter(q.category for q in dev)
    assert len(dev) >= 100
    assert sum(categories[c] for c in UNANSWERABLE) >= 20
    assert all(q.negative for q in dev if q.category in UNANSWERABLE)
    assert categories["plain"] + categories["other_plain"] >= 40
    others = [q for q in dev if acts(q) and not acts(q) & NAMED]
    assert len(others) >= 40
    assert len({act for q in others for act in acts(q)}) >= 8


def test_the_unseen_acts_are_in_neither_part() -> None:
    for question in load_jsonl(DEV) + load_jsonl(HELD_OUT):
        assert not acts(question) & UNSEEN, question.id
        assert "2024/903" not in question.question and "2014/92" not in question.question
