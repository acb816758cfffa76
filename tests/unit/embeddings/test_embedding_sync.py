"""Embedding at ingest: only provisions without a vector are embedded, keyed by their text."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from embeddings import Vectors, VectorStore, normalise
from engine.embedding_sync import embed_graph
from graph.models import GraphNode, GraphSnapshot

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


class CountingEmbedder:
    model = "test/counting"
    dimension = 8

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.seen += texts
        rows = [[float(len(t) % (i + 2)) + 1.0 for i in range(8)] for t in texts]
        return normalise(np.array(rows, dtype=np.float32))

    def close(self) -> None:
        return None


class Snapshots:
    def __init__(self, nodes: list[GraphNode]) -> None:
        self.nodes = nodes

    async def snapshot(self, **_: object) -> GraphSnapshot:
        return GraphSnapshot(nodes=self.nodes, edges=[])


def article(number: int, text: str) -> GraphNode:
    return GraphNode(
        id=f"EU:REG_2022_2554:ART_{number}",
        label="Article",
        properties={"title": f"Heading {number}", "text": text, "instrument": "EU:REG_2022_2554"},
    )


async def test_only_new_or_changed_text_is_embedded(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    store = VectorStore(embedder.model, embedder.dimension)
    path = tmp_path / "vectors.npz"
    reader = Snapshots([article(1, "Financial entities shall report."), article(2, "Scope.")])
    first = await embed_graph(reader, embedder, store, path)  # type: ignore[arg-type]
    assert (first.texts, first.embedded, first.reused) == (2, 2, 0)
    reader.nodes = [article(1, "Financial entities shall report."), article(2, "Scope, amended.")]
    second = await embed_graph(reader, embedder, store, path)  # type: ignore[arg-type]
    assert (second.embedded, second.reused) == (1, 1)
    assert embedder.seen[-1] == "Heading 2. Scope, amended."
    reloaded = VectorStore.load(path, embedder.model, embedder.dimension)
    assert len(reloaded) == 3  # the old text's vector stays: an unchanged file of another graph


async def test_a_limit_leaves_the_rest_for_regintel_embed(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    store = VectorStore(embedder.model, embedder.dimension)
    reader = Snapshots([article(n, f"text {n}") for n in range(1, 6)])
    report = await embed_graph(reader, embedder, store, tmp_path / "v.npz", limit=2)  # type: ignore[arg-type]
    assert (report.embedded, report.left) == (2, 3)
