"""Retrieval evaluation: provision mapping, metrics on hand-computed examples, loaders, dev set."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import tools.retrieval_eval as retrieval_eval
from errors import InvalidInput
from tools.retrieval_eval import (
    EvalQuestion,
    Retrieval,
    article_ranking,
    evaluate,
    load_jsonl,
    load_questions,
    load_scra,
    ndcg_at_k,
    provision_article,
    recall_at_k,
    reciprocal_rank,
    score,
    score_question,
)

pytestmark = pytest.mark.unit

AI = "EU:REG_2024_1689"
GDPR = "EU:REG_2016_679"
REPO = Path(__file__).resolve().parents[2]
DEV_FILE = REPO / "bench" / "data" / "retrieval_dev.jsonl"
# SCRA's golden data set (MIT), shipped beside the dev set (bench/data/README.md).
SCRA_FILE = REPO / "bench" / "data" / "scra_golden_dataset_eu-ai-act.json"


def question(qid: str, gold: tuple[str, ...] = (), category: str = "lookup") -> EvalQuestion:
    return EvalQuestion(id=qid, question=f"question {qid}", gold=gold, category=category,
                        negative=not gold)  # fmt: skip


# --- provision ids ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("node_id", "article"),
    [
        (f"{AI}:ART_5", f"{AI}:ART_5"),
        (f"{AI}:ART_5_1", f"{AI}:ART_5"),
        (f"{AI}:ART_5_1_A", f"{AI}:ART_5"),
        (f"{AI}:ART_51", f"{AI}:ART_51"),
        (f"{AI}:REC_12", f"{AI}:REC_12"),
        (f"{AI}:ANNEX_III", f"{AI}:ANNEX_III"),
        (f"{AI}:ANNEX_III_5", f"{AI}:ANNEX_III"),
        (f"{GDPR}:ART_17_1", f"{GDPR}:ART_17"),
        (f"{GDPR}:REC_65", f"{GDPR}:REC_65"),
        ("EU:DIR_2014_92:ART_3_2", "EU:DIR_2014_92:ART_3"),
        (AI, None),
        (GDPR, None),
        ("TAX:IE:VAT", None),
        ("EU:OBLIGATION:AI_LITERACY", None),
        ("ART_5", None),
        ("", None),
    ],
)
def test_provision_article(node_id: str, article: str | None) -> None:
    assert provision_article(node_id) == article


def test_article_ranking_maps_dedupes_and_keeps_order_and_non_provisions() -> None:
    ranked = [f"{AI}:ART_5_1", f"{AI}:ART_5_2", f"{AI}:REC_12", f"{AI}:ART_5", AI, f"{AI}:ART_6_1"]
    assert article_ranking(ranked) == [f"{AI}:ART_5", f"{AI}:REC_12", AI, f"{AI}:ART_6"]


# --- metrics ---------------------------------------------------------------------------------


def test_recall_at_k_counts_gold_among_the_first_k() -> None:
    gold = (f"{AI}:ART_5", f"{AI}:ART_6")
    ranked = [f"{AI}:ART_5_1", f"{AI}:ART_7", f"{AI}:ART_6_2"]
    assert recall_at_k(gold, ranked, 1) == 0.5
    assert recall_at_k(gold, ranked, 2) == 0.5
    assert recall_at_k(gold, ranked, 3) == 1.0
    assert recall_at_k(gold, [], 10) == 0.0


def test_recall_dedupes_paragraphs_before_cutting_at_k() -> None:
    # Four paragraphs of Article 5 are one article: Article 6 is second, not sixth.
    gold = (f"{AI}:ART_5", f"{AI}:ART_6")
    ranked = [f"{AI}:ART_5_{n}" for n in range(1, 5)] + [f"{AI}:ART_5", f"{AI}:ART_6_1"]
    assert recall_at_k(gold, ranked, 5) == 1.0


def test_recall_matches_gold_given_at_paragraph_level() -> None:
    assert recall_at_k((f"{GDPR}:ART_17_1",), [f"{GDPR}:ART_17_3"], 1) == 1.0


def test_an_instrument_id_matches_nothing_but_holds_a_rank() -> None:
    gold = (f"{AI}:ART_5",)
    assert recall_at_k(gold, [AI], 10) == 0.0
    assert reciprocal_rank(gold, [AI, f"{AI}:ART_5_1"]) == 0.5


def test_reciprocal_rank_of_the_first_gold_after_dedupe() -> None:
    gold = (f"{AI}:ART_6", f"{AI}:ART_9")
    ranked = [f"{AI}:ART_5_1", f"{AI}:ART_5_2", AI, f"{AI}:ART_6_1", f"{AI}:ART_9"]
    assert reciprocal_rank(gold, ranked) == pytest.approx(1 / 3)
    assert reciprocal_rank(gold, [f"{AI}:ART_5"]) == 0.0


def test_ndcg_at_10_with_binary_gains() -> None:
    gold = (f"{GDPR}:ART_33", f"{GDPR}:ART_34")
    ranked = [f"{GDPR}:ART_4", f"{GDPR}:ART_33_1", f"{GDPR}:ART_5", f"{GDPR}:ART_34"]
    # DCG = 1/log2(3) + 1/log2(5) = 1.06161; ideal = 1 + 1/log2(3) = 1.63093.
    assert ndcg_at_k(gold, ranked, 10) == pytest.approx(0.65093, abs=1e-5)
    assert ndcg_at_k(gold, [f"{GDPR}:ART_34", f"{GDPR}:ART_33"], 10) == pytest.approx(1.0)
    assert ndcg_at_k(gold, ranked, 1) == 0.0


def test_ndcg_ideal_is_capped_at_k() -> None:
    gold = tuple(f"{AI}:ART_{n}" for n in range(1, 13))
    assert ndcg_at_k(gold, gold[:10], 10) == pytest.approx(1.0)


def test_score_question_refused_answerable_scores_zero() -> None:
    q = question("a", (f"{AI}:ART_5",))
    scored = score_question(q, Retrieval((f"{AI}:ART_5",), refused=True))
    assert (scored.recall_at_1, scored.recall_at_10, scored.mrr, scored.ndcg_at_10) == (0, 0, 0, 0)
    answered = score_question(q, Retrieval((f"{AI}:ART_5",), refused=False))
    assert (answered.recall_at_1, answered.mrr, answered.ndcg_at_10) == (1, 1, 1)


def test_score_question_negative_has_no_retrieval_metrics() -> None:
    scored = score_question(question("n"), Retrieval((f"{AI}:ART_5",), refused=False))
    assert scored.negative and not scored.refused
    assert scored.recall_at_5 is None and scored.mrr is None and scored.ndcg_at_10 is None


@pytest.fixture
def mixed_report() -> retrieval_eval.EvalReport:
    questions = [
        question("a1", (f"{AI}:ART_5",)),
        question("a2", (f"{AI}:ART_5", f"{AI}:ART_6"), category="multi_article"),
        question("a3", (f"{GDPR}:ART_17",)),
        question("n1", category="negative"),
        question("n2", category="negative"),
        question("n3", category="lookup"),  # a negative inside an answerable category
    ]
    results = {
        "a1": Retrieval((f"{AI}:ART_5_1",), refused=False),
        "a2": Retrieval((f"{AI}:ART_7", f"{AI}:ART_6_1"), refused=False),
        "a3": Retrieval((f"{GDPR}:ART_17",), refused=True),
        "n1": Retrieval((), refused=True),
        "n2": Retrieval((f"{AI}:ART_5",), refused=False),
        "n3": Retrieval((), refused=True),
    }
    return score(questions, results)


def test_overall_scores(mixed_report: retrieval_eval.EvalReport) -> None:
    overall = mixed_report.overall
    assert (overall.questions, overall.answerable, overall.negatives) == (6, 3, 3)
    # recall@1: a1 1, a2 0, a3 0 (refused); recall@5: a1 1, a2 0.5, a3 0.
    assert overall.recall_at_1 == pytest.approx(1 / 3)
    assert overall.recall_at_5 == pytest.approx(0.5)
    assert overall.mrr == pytest.approx((1 + 0.5 + 0) / 3)
    assert overall.refusal_rate == pytest.approx(2 / 3)
    assert overall.false_refusal_rate == pytest.approx(1 / 3)


def test_scores_by_category(mixed_report: retrieval_eval.EvalReport) -> None:
    by = mixed_report.by_category
    assert set(by) == {"lookup", "multi_article", "negative"}
    lookup = by["lookup"]
    assert (lookup.questions, lookup.answerable, lookup.negatives) == (3, 2, 1)
    assert lookup.recall_at_1 == pytest.approx(0.5)  # n3 does not dilute recall
    assert lookup.false_refusal_rate == pytest.approx(0.5)
    assert lookup.refusal_rate == 1.0
    negative = by["negative"]
    assert negative.recall_at_1 is None and negative.mrr is None
    assert negative.false_refusal_rate is None
    assert negative.refusal_rate == 0.5
    multi = by["multi_article"]
    assert multi.recall_at_1 == 0.0 and multi.recall_at_5 == 0.5 and multi.refusal_rate is None
    # DCG = 1/log2(3); ideal = 1 + 1/log2(3).
    assert multi.ndcg_at_10 == pytest.approx(0.63093 / 1.63093, abs=1e-5)


def test_report_format_and_dict(mixed_report: retrieval_eval.EvalReport) -> None:
    lines = mixed_report.format().splitlines()
    assert lines[0].split() == [
        "category", "n", "neg", "R@1", "R@5", "R@10", "MRR", "nDCG@10", "refusal", "false-ref",
    ]  # fmt: skip
    assert [line.split()[0] for line in lines[1:]] == [
        "lookup", "multi_article", "negative", "overall",
    ]  # fmt: skip
    assert lines[3].split()[1:] == ["2", "2", "-", "-", "-", "-", "-", "0.500", "-"]
    assert lines[4].split()[1:4] == ["6", "3", "0.333"]
    data = json.loads(json.dumps(mixed_report.to_dict()))
    assert data["overall"]["false_refusal_rate"] == pytest.approx(1 / 3)
    assert data["by_category"]["negative"]["recall_at_1"] is None
    assert [q["id"] for q in data["questions"]] == ["a1", "a2", "a3", "n1", "n2", "n3"]


def test_score_needs_a_retrieval_for_every_question() -> None:
    with pytest.raises(InvalidInput, match="b"):
        score([question("a", (f"{AI}:ART_5",)), question("b")], {"a": Retrieval((), False)})


def test_evaluate_calls_the_retriever_with_each_question_text() -> None:
    questions = [question("a", (f"{AI}:ART_5",)), question("n")]
    asked: list[str] = []

    def retrieve(text: str) -> tuple[list[str], bool]:
        asked.append(text)
        return ([f"{AI}:ART_5_2"], False) if text.endswith("a") else ([], True)

    report = evaluate(questions, retrieve)
    assert asked == ["question a", "question n"]
    assert report.overall.recall_at_1 == 1.0
    assert report.overall.refusal_rate == 1.0


# --- loaders ---------------------------------------------------------------------------------


def write_lines(path: Path, *rows: object) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_load_jsonl(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "q.jsonl",
        {"id": "x-1", "question": "Q?", "provisions": [f"{AI}:ART_5"], "category": "lookup"},
        "",
        {"id": "x-2", "question": "VAT?", "provisions": [], "category": "negative"},
    )
    first, second = load_jsonl(path)
    assert first == EvalQuestion(
        id="x-1", question="Q?", gold=(f"{AI}:ART_5",), category="lookup", negative=False
    )
    assert second.negative and second.gold == ()
    assert load_questions(path) == [first, second]


@pytest.mark.parametrize(
    "row",
    [
        {"id": "x", "question": "Q?", "provisions": [AI], "category": "lookup"},
        {"id": "x", "question": "Q?", "provisions": ["ART_5"], "category": "lookup"},
        {"id": "x", "question": "Q?", "provision": [f"{AI}:ART_5"], "category": "lookup"},
        {"id": "x", "question": "", "provisions": [f"{AI}:ART_5"], "category": "lookup"},
        "{not json",
    ],
)
def test_load_jsonl_rejects_bad_rows_with_the_line_number(tmp_path: Path, row: object) -> None:
    ok = {"id": "ok", "question": "Q?", "provisions": [], "category": "negative"}
    path = write_lines(tmp_path / "q.jsonl", ok, row)
    with pytest.raises(InvalidInput, match="line 2"):
        load_jsonl(path)


def test_load_jsonl_rejects_duplicate_ids(tmp_path: Path) -> None:
    row = {"id": "x", "question": "Q?", "provisions": [], "category": "negative"}
    with pytest.raises(InvalidInput, match="duplicate"):
        load_jsonl(write_lines(tmp_path / "q.jsonl", row, row))


def scra_item(
    qid: str, sources: list[str], topic: str = "t", difficulty: str = "easy"
) -> dict[str, object]:
    return {"id": qid, "question": f"q {qid}", "expected_sources": sources, "topic": topic,
            "difficulty": difficulty, "expected_answer_contains": ["x"]}  # fmt: skip


def test_load_scra_maps_sources_to_graph_ids(tmp_path: Path) -> None:
    path = tmp_path / "golden.json"
    items = [
        scra_item("e1", ["EUAI_Art5", "EUAI_Rec31", "EUAI_AnnexIII", "EUAI_Annex3", "GDPR_Art17"]),
        scra_item("e2", [], topic="out_of_scope", difficulty="hard"),
    ]
    path.write_text(json.dumps(items))
    e1, e2 = load_scra(path)
    assert e1.gold == (f"{AI}:ART_5", f"{AI}:REC_31", f"{AI}:ANNEX_III", f"{GDPR}:ART_17")
    assert (e1.category, e1.negative) == ("t", False)
    assert (e2.category, e2.negative, e2.gold) == ("out_of_scope", True, ())
    assert [q.category for q in load_scra(path, category_field="difficulty")] == ["easy", "hard"]
    assert load_questions(path) == [e1, e2]


@pytest.mark.parametrize("source", ["XYZ_Art5", "EUAI_ArtV", "EUAI_Section5", "EUAI_Art"])
def test_load_scra_rejects_unknown_sources(tmp_path: Path, source: str) -> None:
    path = tmp_path / "golden.json"
    path.write_text(json.dumps([scra_item("e1", [source])]))
    with pytest.raises(InvalidInput, match=re.escape(source)):
        load_scra(path)


def test_load_scra_on_the_real_file() -> None:
    questions = load_scra(SCRA_FILE)
    assert len(questions) == 25
    assert [q.id for q in questions if q.negative] == ["eval_013"]
    by_id = {q.id: q for q in questions}
    assert by_id["eval_001"].gold == (f"{AI}:ART_5", f"{AI}:REC_31", f"{AI}:REC_63")
    assert f"{AI}:ANNEX_III" in by_id["eval_008"].gold
    assert f"{AI}:ANNEX_VI" in by_id["eval_023"].gold
    assert by_id["eval_013"].category == "out_of_scope"
    assert all(node_id.startswith(f"{AI}:") for q in questions for node_id in q.gold)
    assert load_questions(SCRA_FILE) == questions


# --- the dev question set --------------------------------------------------------------------

CATEGORIES = {
    "lookup", "multi_article", "cross_regulation", "exact_wording", "explicit_reference",
    "negative",
}  # fmt: skip
ROMAN = {r: n for n, r in enumerate("I II III IV V VI VII VIII IX X XI XII XIII".split(), 1)}
GOLD_ID = re.compile(r"^(EU:REG_2024_1689|EU:REG_2016_679):(ART|REC|ANNEX)_([0-9]+|[IVX]+)$")
LIMITS = {  # (instrument, kind) -> highest number
    (AI, "ART"): 113,
    (AI, "REC"): 180,
    (AI, "ANNEX"): 13,
    (GDPR, "ART"): 99,
    (GDPR, "REC"): 173,
}


@pytest.fixture(scope="module")
def dev() -> list[EvalQuestion]:
    return load_jsonl(DEV_FILE)


def test_dev_set_size_and_categories(dev: list[EvalQuestion]) -> None:
    assert len(dev) >= 70
    assert sum(q.negative for q in dev) >= 14
    assert {q.category for q in dev} == CATEGORIES
    assert all((q.category == "negative") == q.negative for q in dev)
    assert [q.id for q in dev] == [f"dev-{n:03d}" for n in range(1, len(dev) + 1)]
    assert len({q.question for q in dev}) == len(dev)


# Written as negatives when the graph held the AI Act and the GDPR alone; the 49 acts now answer
# them (relabelled in session 9, ADR 0087): each with its one article.
RELABELLED = {
    "dev-083": "EU:REG_2022_2554:ART_19",
    "dev-084": "EU:REG_2022_2065:ART_16",
    "dev-085": "EU:DIR_2022_2555:ART_3",
    "dev-086": "EU:DIR_2014_65:ART_27",
    "dev-090": "EU:REG_2023_1114:ART_6",
}


def test_dev_gold_ids_are_well_formed_and_in_range(dev: list[EvalQuestion]) -> None:
    for q in dev:
        if q.id in RELABELLED:
            assert (q.category, q.gold) == ("lookup", (RELABELLED[q.id],)), q.id
            continue
        for node_id in q.gold:
            match = GOLD_ID.match(node_id)
            assert match, (q.id, node_id)
            instrument, kind, number = match.groups()
            if kind == "ANNEX":
                assert instrument == AI and number in ROMAN, (q.id, node_id)
                value = ROMAN[number]
            else:
                assert number.isdigit() and not number.startswith("0"), (q.id, node_id)
                value = int(number)
            assert 1 <= value <= LIMITS[(instrument, kind)], (q.id, node_id)
        assert len(set(q.gold)) == len(q.gold), q.id


def test_dev_cross_regulation_questions_need_both_acts(dev: list[EvalQuestion]) -> None:
    cross = [q for q in dev if q.category == "cross_regulation"]
    assert cross
    for q in cross:
        assert {node_id.rsplit(":", 1)[0] for node_id in q.gold} == {AI, GDPR}, q.id
    for q in dev:
        if q.category in {"lookup", "exact_wording", "explicit_reference"}:
            assert len(q.gold) == 1, q.id
        if q.category == "multi_article":
            assert len(q.gold) >= 2, q.id
