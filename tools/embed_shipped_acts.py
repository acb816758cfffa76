"""Compute the vectors of the shipped acts into ``seeds/legal/vectors/`` (run when the acts or
the embedded text change; resumable: vectors already stored are kept).

    .venv/bin/python tools/embed_shipped_acts.py [--limit N]

It embeds exactly what an index build of the seeded graph looks up
(``engine.retrieval.dense.texts_of_graph`` over ``corpus.to_graph_writes`` of the shipped
acts), with the default local model, and saves every 512 texts.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from corpus import parse_act, shipped_acts, to_graph_writes  # noqa: E402
from corpus.parse import prefer_official_journal  # noqa: E402
from embeddings import VectorStore, content_key, model_file_name  # noqa: E402
from embeddings.minilm import LocalModelEmbedder  # noqa: E402
from engine.retrieval.dense import texts_of_graph  # noqa: E402
from graph.models import GraphNode  # noqa: E402

SHIPPED_VECTORS = ROOT / "seeds" / "legal" / "vectors"
CHUNK = 256
# Articles and annexes first, then definitions, recitals, paragraphs: a partial run already
# gives every article a vector (an article scores as the best of itself and its paragraphs).
_PRIORITY = {"Article": 0, "Annex": 0, "Definition": 1, "Recital": 2, "Paragraph": 3}


def shipped_texts() -> dict[str, str]:
    acts = prefer_official_journal([parse_act(p) for p in shipped_acts()])
    nodes = []
    for act in acts:
        written, _ = to_graph_writes(act)
        nodes += [GraphNode(id=n.id, label=n.label, properties=dict(n.properties)) for n in written]
    labels = {node.id: node.label for node in nodes}
    texts = texts_of_graph(nodes)
    ordered = sorted(texts, key=lambda i: (_PRIORITY.get(labels[i], 4), i))
    return {node_id: texts[node_id] for node_id in ordered}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=0, help="stop after N new vectors")
    args = parser.parse_args()
    embedder = LocalModelEmbedder(max_tokens=128)
    path = SHIPPED_VECTORS / model_file_name(embedder.model)
    store = VectorStore.load(path, embedder.model, embedder.dimension)
    texts = list(dict.fromkeys(shipped_texts().values()))
    missing = [t for t in texts if content_key(t) not in store]
    if args.limit:
        missing = missing[: args.limit]
    print(f"{len(texts)} texts, {len(store)} stored, {len(missing)} to embed", flush=True)
    start = time.perf_counter()
    for offset in range(0, len(missing), CHUNK):
        chunk = missing[offset : offset + CHUNK]
        store.add([content_key(t) for t in chunk], embedder.embed(chunk))
        store.save(path)
        done = offset + len(chunk)
        rate = done / (time.perf_counter() - start)
        print(f"{done}/{len(missing)} ({rate:.1f}/s)", flush=True)
    print(f"saved {len(store)} vectors to {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
