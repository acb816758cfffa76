"""Retrieval evaluation: question sets with gold provisions, and ranking metrics.

Pure: the loaders read only the file they are given, the metrics only the lists they are given.

Question sets come in two formats, picked by :func:`load_questions`:

* the project's JSON Lines (``bench/data/retrieval_dev.jsonl``), one object a line:
  ``{"id", "question", "provisions": [node ids], "category"}``; a question with no provisions is a
  *negative*: nothing in the graph answers it, and the right behaviour is to refuse;
* SCRA's golden data set (a JSON list whose ``expected_sources`` look like ``EUAI_Art5``,
  ``EUAI_Rec31``, ``EUAI_AnnexIII``), mapped to our ids; its question without sources (the
  out-of-scope one) is a negative; the category comes from its ``topic`` (or ``difficulty``).

Gold is matched at **article granularity**: :func:`provision_article` maps a paragraph or point id
(``EU:REG_2024_1689:ART_5_1``) to its article (``EU:REG_2024_1689:ART_5``), and a point of an annex
to its annex; recitals and annexes match themselves. Any other id (an instrument, a concept, a rule
node) matches nothing but keeps its rank: a retriever that ranks noise first pays for it. After
mapping, a ranked list is deduplicated in order, so two paragraphs of one article count once.

Per answerable question: recall@k (k = 1, 5, 10) = |gold ∩ top k| / |gold|; the reciprocal rank of
the first gold provision over the whole list (0 when none is retrieved); nDCG@10 with binary gains
(the ideal ranks every gold provision first). A refused answerable question scores 0 on all of them
and counts as a false refusal. Negative questions count only towards the refusal rate.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from errors import InvalidInput

__all__ = [
    "NDCG_K",
    "RECALL_KS",
    "SCRA_INSTRUMENTS",
    "EvalQuestion",
    "EvalReport",
    "QuestionScore",
    "Retrieval",
    "Scores",
    "act_of",
    "article_ranking",
    "evaluate",
    "load_jsonl",
    "load_questions",
    "load_scra",
    "ndcg_at_k",
    "provision_article",
    "recall_at_k",
    "reciprocal_rank",
    "score",
    "score_question",
]

RECALL_KS: Final = (1, 5, 10)
NDCG_K: Final = 10

#: Graph instrument id of each SCRA source prefix.
SCRA_INSTRUMENTS: Final[Mapping[str, str]] = {
    "EUAI": "EU:REG_2024_1689",
    "GDPR": "EU:REG_2016_679",
}

_INSTRUMENT = re.compile(r"^[A-Z]+(?::[A-Z0-9_]+)+$")
_PART = re.compile(
    r"^(?:ART_(?P<article>\d+[A-Z]?)|REC_(?P<recital>\d+)|ANNEX_(?P<annex>[IVXLC]+))"
    r"(?:_[0-9A-Z]+)*$"
)
_SCRA_SOURCE = re.compile(
    r"^(?P<prefix>[A-Za-z]+)_(?P<kind>Art|Rec|Annex)(?P<number>\d+|[IVXLC]+)$"
)
_ROMAN: Final = (
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
)


def provision_article(node_id: str) -> str | None:
    """The article, recital or annex id that ``node_id`` belongs to, or ``None``.

    ``EU:REG_2024_1689:ART_5_1`` → ``EU:REG_2024_1689:ART_5``; ``…:REC_12`` and ``…:ANNEX_III``
    map to themselves; an instrument id or any non-provision id maps to ``None``.
    """
    instrument, sep, part = node_id.rpartition(":")
    if not sep or not _INSTRUMENT.match(instrument):
        return None
    match = _PART.match(part)
    if match is None:
        return None
    if match["article"] is not None:
        return f"{instrument}:ART_{match['article']}"
    if match["recital"] is not None:
        return f"{instrument}:REC_{match['recital']}"
    return f"{instrument}:ANNEX_{match['annex']}"


def article_ranking(ranked: Iterable[str]) -> list[str]:
    """``ranked`` mapped to article granularity and deduplicated, order kept.

    Ids that are not provisions stay as they are (they hold a rank and never match gold).
    """
    seen: dict[str, None] = {}
    for node_id in ranked:
        seen.setdefault(provision_article(node_id) or node_id, None)
    return list(seen)


def _gold_articles(gold: Iterable[str]) -> set[str]:
    return {provision_article(node_id) or node_id for node_id in gold}


def recall_at_k(gold: Iterable[str], ranked: Iterable[str], k: int) -> float:
    """Share of the gold provisions (at article granularity) among the first ``k`` retrieved."""
    wanted = _gold_articles(gold)
    if not wanted:
        raise ValueError("recall needs at least one gold provision")
    return len(wanted.intersection(article_ranking(ranked)[:k])) / len(wanted)


def reciprocal_rank(gold: Iterable[str], ranked: Iterable[str]) -> float:
    """1 / rank of the first gold provision in the deduplicated ranking; 0 if none is there."""
    wanted = _gold_articles(gold)
    for rank, node_id in enumerate(article_ranking(ranked), start=1):
        if node_id in wanted:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(gold: Iterable[str], ranked: Iterable[str], k: int) -> float:
    """nDCG@k with binary gains: DCG of the ranking over DCG of gold ranked first."""
    wanted = _gold_articles(gold)
    if not wanted:
        raise ValueError("nDCG needs at least one gold provision")
    top = article_ranking(ranked)[:k]
    dcg = sum(1.0 / math.log2(rank + 1) for rank, nid in enumerate(top, 1) if nid in wanted)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(wanted), k) + 1))
    return dcg / ideal


class EvalQuestion(BaseModel):
    """One evaluation question: gold provision ids, or none for a negative (unanswerable) one."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    gold: tuple[str, ...] = ()
    category: str = Field(min_length=1)
    negative: bool = False

    @model_validator(mode="after")
    def _gold_fits_negative(self) -> Self:
        bad = [node_id for node_id in self.gold if provision_article(node_id) is None]
        if bad:
            raise ValueError(f"not provision ids (article, recital or annex): {bad}")
        if self.negative and self.gold:
            raise ValueError("a negative question has no gold provisions")
        if not self.negative and not self.gold:
            raise ValueError("an answerable question needs gold provisions")
        return self


class _DevRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    question: str
    provisions: list[str]
    category: str


class _ScraRow(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str
    question: str
    expected_sources: list[str]
    topic: str | None = None
    difficulty: str | None = None


def _check_unique(questions: list[EvalQuestion], source: str) -> list[EvalQuestion]:
    ids = [q.id for q in questions]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise InvalidInput(f"{source}: duplicate question ids {duplicates}")
    return questions


def _parse_jsonl(text: str, source: str) -> list[EvalQuestion]:
    questions = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = _DevRow.model_validate_json(line)
            questions.append(
                EvalQuestion(
                    id=row.id,
                    question=row.question,
                    gold=tuple(row.provisions),
                    category=row.category,
                    negative=not row.provisions,
                )
            )
        except ValidationError as exc:
            raise InvalidInput(f"{source}, line {number}: {exc}") from exc
    return _check_unique(questions, source)


def _roman(number: int) -> str:
    digits = []
    for value, numeral in _ROMAN:
        while number >= value:
            digits.append(numeral)
            number -= value
    return "".join(digits)


def _scra_source_id(source: str) -> str:
    match = _SCRA_SOURCE.match(source)
    instrument = SCRA_INSTRUMENTS.get(match["prefix"].upper()) if match else None
    if match is None or instrument is None:
        raise ValueError(f"unknown SCRA source {source!r}")
    kind, number = match["kind"], match["number"]
    if kind == "Annex":
        return f"{instrument}:ANNEX_{_roman(int(number)) if number.isdigit() else number}"
    if not number.isdigit():
        raise ValueError(f"unknown SCRA source {source!r}")
    return f"{instrument}:{'ART' if kind == 'Art' else 'REC'}_{number}"


def _parse_scra(
    text: str, source: str, category_field: Literal["topic", "difficulty"]
) -> list[EvalQuestion]:
    try:
        rows = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{source}: not JSON: {exc}") from exc
    if not isinstance(rows, list):
        raise InvalidInput(f"{source}: a SCRA data set is a JSON list")
    questions = []
    for position, raw in enumerate(rows):
        try:
            row = _ScraRow.model_validate(raw)
            gold = tuple(dict.fromkeys(_scra_source_id(s) for s in row.expected_sources))
            questions.append(
                EvalQuestion(
                    id=row.id,
                    question=row.question,
                    gold=gold,
                    category=getattr(row, category_field) or "uncategorised",
                    negative=not gold,
                )
            )
        except (ValidationError, ValueError) as exc:
            raise InvalidInput(f"{source}, item {position}: {exc}") from exc
    return _check_unique(questions, source)


def load_jsonl(path: str | Path) -> list[EvalQuestion]:
    """Questions from the project's JSON Lines format (see the module docstring)."""
    path = Path(path)
    return _parse_jsonl(path.read_text(encoding="utf-8"), str(path))


def load_scra(
    path: str | Path, *, category_field: Literal["topic", "difficulty"] = "topic"
) -> list[EvalQuestion]:
    """Questions from SCRA's golden data set, sources mapped to graph ids."""
    path = Path(path)
    return _parse_scra(path.read_text(encoding="utf-8"), str(path), category_field)


def load_questions(path: str | Path) -> list[EvalQuestion]:
    """Questions from either format: ``.jsonl`` files, else a JSON list is SCRA's format."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".jsonl" and text.lstrip().startswith("["):
        return _parse_scra(text, str(path), "topic")
    return _parse_jsonl(text, str(path))


@dataclass(frozen=True, slots=True)
class Retrieval:
    """What a retriever returned for one question: ranked node ids, and whether it refused."""

    ranked: tuple[str, ...]
    refused: bool


@dataclass(frozen=True, slots=True)
class QuestionScore:
    """Scores of one question; the retrieval metrics are ``None`` for a negative question."""

    id: str
    category: str
    negative: bool
    refused: bool
    recall_at_1: float | None = None
    recall_at_5: float | None = None
    recall_at_10: float | None = None
    mrr: float | None = None
    ndcg_at_10: float | None = None


def score_question(question: EvalQuestion, retrieval: Retrieval) -> QuestionScore:
    """Score one question's retrieval (a refused answerable question scores 0)."""
    base = QuestionScore(question.id, question.category, question.negative, retrieval.refused)
    if question.negative:
        return base
    ranked = () if retrieval.refused else retrieval.ranked
    r1, r5, r10 = (recall_at_k(question.gold, ranked, k) for k in RECALL_KS)
    return QuestionScore(
        question.id,
        question.category,
        negative=False,
        refused=retrieval.refused,
        recall_at_1=r1,
        recall_at_5=r5,
        recall_at_10=r10,
        mrr=reciprocal_rank(question.gold, ranked),
        ndcg_at_10=ndcg_at_k(question.gold, ranked, NDCG_K),
    )


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


@dataclass(frozen=True, slots=True)
class Scores:
    """Means over a group of questions; ``None`` where the group has nothing to measure."""

    questions: int
    answerable: int
    negatives: int
    recall_at_1: float | None
    recall_at_5: float | None
    recall_at_10: float | None
    mrr: float | None
    ndcg_at_10: float | None
    refusal_rate: float | None
    false_refusal_rate: float | None

    @classmethod
    def of(cls, scores: Sequence[QuestionScore]) -> Scores:
        """Aggregate per-question scores."""
        answerable = [s for s in scores if not s.negative]
        negatives = [s for s in scores if s.negative]
        return cls(
            questions=len(scores),
            answerable=len(answerable),
            negatives=len(negatives),
            recall_at_1=_mean([s.recall_at_1 for s in answerable]),
            recall_at_5=_mean([s.recall_at_5 for s in answerable]),
            recall_at_10=_mean([s.recall_at_10 for s in answerable]),
            mrr=_mean([s.mrr for s in answerable]),
            ndcg_at_10=_mean([s.ndcg_at_10 for s in answerable]),
            refusal_rate=_mean([float(s.refused) for s in negatives]),
            false_refusal_rate=_mean([float(s.refused) for s in answerable]),
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return asdict(self)


_COLUMNS: Final = (
    ("n", "questions"),
    ("neg", "negatives"),
    ("R@1", "recall_at_1"),
    ("R@5", "recall_at_5"),
    ("R@10", "recall_at_10"),
    ("MRR", "mrr"),
    ("nDCG@10", "ndcg_at_10"),
    ("refusal", "refusal_rate"),
    ("false-ref", "false_refusal_rate"),
)


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


@dataclass(frozen=True, slots=True)
class EvalReport:
    """Overall and per-category scores, with every question's own scores."""

    overall: Scores
    by_category: dict[str, Scores]
    questions: tuple[QuestionScore, ...]
    by_act: dict[str, Scores] = field(default_factory=dict)

    def format(self, *, acts: bool = False) -> str:
        """A compact plain-text table: one row per category, then the overall row (and, with
        ``acts``, one row per act of the gold provisions after it)."""
        rows = [(name, self.by_category[name]) for name in sorted(self.by_category)]
        rows.append(("overall", self.overall))
        if acts:
            rows += [(f"act {name}", self.by_act[name]) for name in sorted(self.by_act)]
        width = max(len("category"), *(len(name) for name, _ in rows))
        widths = [max(len(header), 5) for header, _ in _COLUMNS]
        lines = [
            "category".ljust(width)
            + "".join(f"  {h:>{w}}" for (h, _), w in zip(_COLUMNS, widths, strict=True))
        ]
        for name, scores in rows:
            cells = (_cell(getattr(scores, attr)) for _, attr in _COLUMNS)
            lines.append(
                name.ljust(width)
                + "".join(f"  {c:>{w}}" for c, w in zip(cells, widths, strict=True))
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return {
            "overall": self.overall.to_dict(),
            "by_category": {name: s.to_dict() for name, s in sorted(self.by_category.items())},
            "by_act": {name: s.to_dict() for name, s in sorted(self.by_act.items())},
            "questions": [asdict(q) for q in self.questions],
        }


def score(questions: Sequence[EvalQuestion], results: Mapping[str, Retrieval]) -> EvalReport:
    """Score retrievals already made, keyed by question id (every question needs one)."""
    missing = [q.id for q in questions if q.id not in results]
    if missing:
        raise InvalidInput(f"no retrieval for questions {missing}")
    per_question = tuple(score_question(q, results[q.id]) for q in questions)
    categories = sorted({s.category for s in per_question})
    acts: dict[str, list[QuestionScore]] = {}
    for question, scored in zip(questions, per_question, strict=True):
        acts.setdefault(act_of(question), []).append(scored)
    return EvalReport(
        overall=Scores.of(per_question),
        by_category={
            c: Scores.of([s for s in per_question if s.category == c]) for c in categories
        },
        questions=per_question,
        by_act={act: Scores.of(scored) for act, scored in acts.items()},
    )


def act_of(question: EvalQuestion) -> str:
    """The act a question is about (its first gold provision's instrument); ``"-"`` for an
    unanswerable one, ``"several"`` when its gold spans acts."""
    instruments = {gold.rsplit(":", 1)[0] for gold in question.gold}
    if not instruments:
        return "-"
    return instruments.pop() if len(instruments) == 1 else "several"


def evaluate(
    questions: Sequence[EvalQuestion],
    retrieve: Callable[[str], tuple[Sequence[str], bool]],
) -> EvalReport:
    """Run ``retrieve(question) -> (ranked node ids, refused)`` on every question and score it."""
    results = {}
    for question in questions:
        ranked, refused = retrieve(question.question)
        results[question.id] = Retrieval(tuple(ranked), refused)
    return score(questions, results)
