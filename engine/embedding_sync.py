"""Embed the provisions of the graph that have no vector yet (at ingest, at seed, and by
``regintel embed``), keyed by the hash of the embedded text, so only changed text is embedded
again (ADR "sentence embeddings").

The texts are those an index build looks up (``engine.retrieval.dense.texts_of_graph``), read
from one graph snapshot; the store is saved to the data folder after every batch, so an
interrupted run keeps what it computed. ``rebuild`` starts from an empty store (another model,
or a damaged file): ``regintel embed --rebuild``. ``limit`` bounds one run (``regintel seed``
embeds at most 500 texts, so a checkout whose shipped vectors lag behind its acts still seeds in
minutes; the rest are found lexically until ``regintel embed``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from embeddings import Embedder, VectorStore, content_key
from engine.retrieval.dense import texts_of_graph
from graph.port import GraphReader

__all__ = ["EmbedReport", "embed_graph"]

_BATCH = 256
_MAX_NODES = 100_000


@dataclass
class EmbedReport:
    model: str
    texts: int = 0
    embedded: int = 0
    reused: int = 0
    left: int = 0  # beyond the run's limit: `regintel embed` embeds them

    def summary(self) -> dict[str, object]:
        return {
            "model": self.model,
            "texts": self.texts,
            "embedded": self.embedded,
            "reused": self.reused,
            "left": self.left,
        }


async def embed_graph(
    reader: GraphReader,
    embedder: Embedder,
    store: VectorStore,
    path: Path,
    progress: Callable[[str, int], None] | None = None,
    *,
    limit: int | None = None,
) -> EmbedReport:
    """Embed what the store lacks and save the store at ``path`` (see the module docstring)."""
    report = EmbedReport(embedder.model)
    if not embedder.dimension:
        return report
    snapshot = await reader.snapshot(limit=_MAX_NODES)
    texts = list(dict.fromkeys(texts_of_graph(snapshot.nodes).values()))
    missing = [t for t in texts if content_key(t) not in store]
    report.texts, report.reused = len(texts), len(texts) - len(missing)
    if limit is not None:
        report.left = max(0, len(missing) - limit)
        missing = missing[:limit]
    for start in range(0, len(missing), _BATCH):
        batch = missing[start : start + _BATCH]
        vectors = await asyncio.to_thread(embedder.embed, batch)  # CPU: off the event loop
        store.add([content_key(t) for t in batch], vectors)
        await asyncio.to_thread(store.save, path)
        report.embedded += len(batch)
        if progress is not None:
            progress("embedded", len(batch))
    return report
