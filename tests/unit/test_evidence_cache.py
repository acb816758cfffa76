"""The evidence cache (ADR 0029, third pass): a repeated question finds its evidence without a
search, only for the same tenant and only while the index is unchanged."""

from __future__ import annotations

import pytest

from engine.evidence import Evidence, EvidenceIndex
from engine.evidence_cache import EvidenceCache
from engine.retrieval import RelevanceVerdict
from graph.models import GraphNode
from tests.support.fakes import built

pytestmark = pytest.mark.unit

QUESTION = "standard rate of VAT in Ireland"


def rate(node_id: str, value: float) -> GraphNode:
    return GraphNode(
        id=node_id,
        label="Rate",
        properties={
            "name": "VAT standard rate", "value": value, "unit": "%", "jurisdiction": "IE",
            "description": "The standard rate of value-added tax in Ireland.",
        },
    )  # fmt: skip


class CountedSearch:
    def __init__(self, index: EvidenceIndex) -> None:
        self.index, self.calls = index, 0

    def __call__(self) -> Evidence:
        self.calls += 1
        return self.index.search(QUESTION, 6, ["IE"])


def cached(
    cache: EvidenceCache, index: EvidenceIndex, search: CountedSearch, tenant: str = "t1"
) -> Evidence:
    return cache.search(index.generation, tenant, QUESTION, 6, ["IE"], [], None, search)


@pytest.mark.anyio
async def test_a_repeated_question_of_one_tenant_is_searched_once() -> None:
    _, index = await built(rate("IE:RATE:VAT_STANDARD", 23.0))
    cache, search = EvidenceCache(), CountedSearch(index)
    first, second = cached(cache, index, search), cached(cache, index, search)
    assert search.calls == 1
    assert first.ids() == second.ids() == ["IE:RATE:VAT_STANDARD"]
    assert first.verdict == second.verdict
    assert (cache.hits, cache.misses) == (1, 1)


@pytest.mark.anyio
async def test_a_turn_that_adds_to_its_hits_does_not_change_the_cached_evidence() -> None:
    _, index = await built(rate("IE:RATE:VAT_STANDARD", 23.0))
    cache, search = EvidenceCache(), CountedSearch(index)
    first = cached(cache, index, search)
    first.hits.append(first.hits[0])  # as a timeline question does (ADR 0033)
    assert cached(cache, index, search).ids() == ["IE:RATE:VAT_STANDARD"]


@pytest.mark.anyio
async def test_another_tenant_asking_the_same_question_never_finds_the_first_tenants_entry() -> (
    None
):
    _, index = await built(rate("IE:RATE:VAT_STANDARD", 23.0))
    cache, search = EvidenceCache(), CountedSearch(index)
    cached(cache, index, search, tenant="t1")
    cached(cache, index, search, tenant="t2")
    assert search.calls == 2
    assert (cache.hits, len(cache)) == (0, 2)


@pytest.mark.anyio
async def test_a_rebuilt_index_is_searched_again_and_its_new_evidence_returned() -> None:
    graph, index = await built(rate("IE:RATE:VAT_STANDARD", 23.0))
    cache, search = EvidenceCache(), CountedSearch(index)
    assert "23 %" in cached(cache, index, search).hits[0].text
    graph.nodes = [rate("IE:RATE:VAT_STANDARD", 21.0)]
    before = index.generation
    await index.refresh()
    assert index.generation != before
    assert "21 %" in cached(cache, index, search).hits[0].text
    assert search.calls == 2


@pytest.mark.anyio
async def test_a_remembered_node_empties_the_cache() -> None:
    _, index = await built(rate("IE:RATE:VAT_STANDARD", 23.0))
    cache, search = EvidenceCache(), CountedSearch(index)
    cached(cache, index, search)
    before = index.generation
    index.remember([GraphNode(id="TAX:IE:NEW", label="Concept", properties={})])
    assert index.generation != before
    cached(cache, index, search)
    assert search.calls == 2
    assert len(cache) == 1


@pytest.mark.anyio
async def test_remembering_no_nodes_keeps_the_cache() -> None:
    _, index = await built(rate("IE:RATE:VAT_STANDARD", 23.0))
    cache, search = EvidenceCache(), CountedSearch(index)
    cached(cache, index, search)
    before = index.generation
    index.remember([])  # what GraphSync does for a write of edges only (a mention counted)
    assert index.generation == before
    cached(cache, index, search)
    assert search.calls == 1


def test_the_least_recently_used_entry_goes_first_when_the_cache_is_full() -> None:
    verdict = RelevanceVerdict(answerable=False, reason=None, subject=None, confidence=0.0)
    cache, runs = EvidenceCache(max_entries=2), list[str]()

    def look(query: str) -> None:
        def run() -> Evidence:
            runs.append(query)
            return Evidence(hits=[], verdict=verdict)

        cache.search(1, "t1", query, 6, [], [], None, run)

    for query in ["a", "b", "a", "c", "a", "b"]:
        look(query)
    assert runs == ["a", "b", "c", "b"]
