"""Crafted ``capture_concepts`` payloads through the real capture path into a real graph.

Every payload of ``tests/fixtures/attacks/capture_payloads.jsonl`` is parsed, screened
(labels are vocabulary: ADR 0017) and written by ``ConceptWriter`` through the real
``GraphWriteService`` and ingress guard (ADR 0016) into Ladybug. A full dump of the graph —
every node's id and string properties, every edge's ends — then holds none of the values the
payloads must not pass: no PII, no chat fragment, no tenant or user id. Rejections say nothing
of what they rejected.
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path

import pytest

from egress.pii import build_ingress_detector
from engine.capture_screen import screen_concepts
from engine.concepts import parse_capture_payload
from engine.self_population import ConceptWrite, ConceptWriter
from errors import GraphWriteRejected, MalformedToolPayload
from graph.backends.ladybug import LadybugGraphStore
from graph.ingress_guard import IngressGuard
from graph.schema import GraphSchema, load_schema
from graph.write_service import GraphWriteService
from tests.support.attacks import graph_values, load_cases, passed_values

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

CASES = load_cases("capture_payloads")


def test_the_corpus_is_big_enough_and_covers_the_categories() -> None:
    assert len(CASES) >= 100
    categories = {case["category"] for case in CASES}
    for needed in (
        "pii_kind", "zero_width_ppsn", "full_width_at", "name_cyrillic", "iban_url_path",
        "encoded_email_query", "split_across_labels", "tenant_label", "user_label",
        "instruction_label", "whole_question_label", "chat_fragment_label", "name_caps",
        "name_lower",
    ):  # fmt: skip
        assert needed in categories


@pytest.fixture(scope="module")
def graph_schema() -> GraphSchema:
    return load_schema()


async def test_no_attack_payload_leaves_a_value_in_the_graph(
    graph_schema: GraphSchema, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = LadybugGraphStore(tmp_path / "graph.lbdb", graph_schema)
    guard = IngressGuard(graph_schema, build_ingress_detector())
    writer = GraphWriteService(store, guard)
    concepts_writer = ConceptWriter(store, writer)
    outcomes: Counter[str] = Counter()
    drops: Counter[str] = Counter()
    errors: list[str] = []
    caplog.set_level(logging.DEBUG)
    try:
        await store.init_schema()
        for case in CASES:
            try:
                parsed = parse_capture_payload(case["payload"])
            except MalformedToolPayload as exc:
                outcomes["malformed"] += 1
                errors.append(str(exc))
                continue
            private = (case["tenant_id"], case["user_id"])
            for concept in screen_concepts(parsed, private_ids=private, drops=drops):
                try:
                    await concepts_writer.write(ConceptWrite(concept=concept, status="provisional"))
                    outcomes["written"] += 1
                except GraphWriteRejected as exc:
                    outcomes["rejected"] += 1
                    errors.append(f"{exc} {exc.details}")
        await writer.drain()
        counts = await store.counts()
        dump = await store.snapshot(limit=100_000)
    finally:
        await store.aclose()

    assert (len(dump.nodes), len(dump.edges)) == (counts.nodes, counts.edges)  # the whole graph
    stored = graph_values(dump)

    leaked = {
        case["id"]: passed
        for case in CASES
        if (passed := passed_values(case["must_not_pass"], stored))
    }
    assert leaked == {}
    # Something legitimate still got through (the guard is not simply refusing everything),
    # and the drops were counted by reason.
    assert outcomes["written"] > 20
    assert sum(drops.values()) > 100 and all(":" in reason for reason in drops)
    # Error messages, their details and the logs carry none of the rejected values.
    logged = [record.getMessage() for record in caplog.records] + errors
    assert {c["id"]: p for c in CASES if (p := passed_values(c["must_not_pass"], logged))} == {}
