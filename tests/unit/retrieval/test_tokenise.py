"""Legal-aware tokenisation: numbers as the acts print them, a light stemmer."""

from __future__ import annotations

import pytest

from engine.retrieval.tokenise import stem, tokenise

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Regulation (EU) 2016/679", ["regul", "eu", "2016/679"]),
        ("Directive 95/46/EC", ["directiv", "95/46"]),
        ("Article 5(1)(c)", ["articl", "5(1)(c)", "5"]),
        ("Art. 6(2)", ["art", "6(2)", "6"]),
        ("EUR 35 000 000", ["eur", "35000000"]),
        ("EUR 35,000,000", ["eur", "35000000"]),
        ("€40,000.50 or 1,5 %", ["40000.50", "1,5%"]),
        ("up to 7 % of turnover", ["7%", "turnover"]),
        ("greater than 10^25 FLOPs", ["greater", "1025", "flop"]),
        ("the data subject’s rights", ["data", "subject", "right"]),
        ("high-risk AI systems", ["high", "risk", "ai", "system"]),
        ("Annex III", ["annex", "iii"]),
    ],
)
def test_tokenise_keeps_legal_addresses(text: str, expected: list[str]) -> None:
    assert tokenise(text) == expected


@pytest.mark.parametrize(
    ("words", "common"),
    [
        (("notified", "notifies", "notify", "notification"), "notify"),
        (("processing", "processed", "processes", "process"), "process"),
        (("requirement", "required", "requires", "require"), "requir"),
        (("protection", "protect", "protects"), "protect"),
        (("classification", "classify", "classified"), "classify"),
        (("obligations", "obligation", "oblige"), "oblig"),
    ],
)
def test_stem_conflates_inflections(words: tuple[str, ...], common: str) -> None:
    assert {stem(word) for word in words} == {common}


@pytest.mark.parametrize(
    ("words", "common"),
    [
        (("use", "used", "uses", "using"), "us"),
        (("fine", "fined", "fines"), "fin"),
        (("die", "died"), "di"),
        (("need", "needed", "needs"), "need"),
        (("exceed", "exceeding", "exceeds"), "exceed"),
    ],
)
def test_short_stems_conflate_too(words: tuple[str, ...], common: str) -> None:
    assert {stem(word) for word in words} == {common}


def test_stem_leaves_two_letter_words_and_vowelless_stems_alone() -> None:
    assert [stem(w) for w in ("ai", "eu", "act", "dpo", "thing", "bring", "shed")] == [
        "ai", "eu", "act", "dpo", "thing", "bring", "shed"
    ]  # fmt: skip
