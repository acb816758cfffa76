"""Compute the vectors of the shipped acts and the seeded rules graph into
``seeds/legal/vectors/`` (run when the acts, the seeds or the embedded text change; resumable:
vectors already stored are kept).

    .venv/bin/python tools/embed_shipped_acts.py [--limit N]
    .venv/bin/python tools/embed_shipped_acts.py --chunks --out /tmp/chunks.npz  # + chunk vectors

It embeds exactly what an index build of the seeded graph looks up
(``engine.retrieval.dense.texts_of_graph`` over ``corpus.to_graph_writes`` of the shipped acts,
and over the rule nodes, VAT rate history and concepts that ``engine.seeding`` writes from
``seeds/``), with the default local model, and saves every 256 texts.
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
from engine.concepts import CapturedConcept  # noqa: E402
from engine.rate_history import (  # noqa: E402
    DEFAULT_TABLES,
    find_conflicts,
    history_writes,
    load_history,
)
from engine.retrieval.dense import CHUNK_MARK, texts_of_graph  # noqa: E402
from engine.seeding import read_seed_files  # noqa: E402
from engine.self_population import ConceptWrite, ConceptWriter  # noqa: E402
from graph.models import GraphNode  # noqa: E402

SHIPPED_VECTORS = ROOT / "seeds" / "legal" / "vectors"
CHUNK = 256
# Articles and annexes first, then definitions, recitals, paragraphs: a partial run already
# gives every article a vector (an article scores as the best of itself and its paragraphs).
_PRIORITY = {"Article": 0, "Annex": 0, "Definition": 1, "Recital": 2, "Paragraph": 3}  # rules: 4


def seeded_rule_nodes() -> list[GraphNode]:
    """The nodes ``engine.seeding.seed_graph`` writes from ``seeds/`` besides the acts: rule
    nodes, the VAT rate history and the confirmed concepts (their labels are not embedded)."""
    data = read_seed_files()
    writes = [GraphNode(id=n["id"], label=n["label"], properties=n.get("properties") or {})
              for n in data["nodes"]]  # fmt: skip
    claims = load_history(DEFAULT_TABLES)
    history, _ = history_writes(claims, find_conflicts(claims))
    written = list(history)
    for raw in data["concepts"]:
        concept = CapturedConcept(
            domain=raw["domain"], kind=raw["kind"], jurisdiction=raw["jurisdiction"],
            prefLabel=raw["pref_label"],
            altLabels=[*(raw.get("alt_labels") or []), *(raw.get("hidden_labels") or [])],
            definition=raw.get("definition"), sourceUrls=raw.get("source_urls") or [],
        )  # fmt: skip
        node, _labels = ConceptWriter.node_writes(
            ConceptWrite(concept=concept, status="confirmed", scheme="seed", aligns_with=[])
        )
        written.append(node)
    return writes + [GraphNode(id=w.id, label=w.label, properties=dict(w.properties))
                     for w in written]  # fmt: skip


def shipped_texts(chunks: bool = False) -> dict[str, str]:
    acts = prefer_official_journal([parse_act(p) for p in shipped_acts()])
    # A seeded rule node and an act may share an id (``EU:REG_2016_679``): the seed writes the
    # rule node first and the ingest merges the act's properties into it, as here.
    merged = {node.id: node for node in seeded_rule_nodes()}
    for act in acts:
        written, _ = to_graph_writes(act)
        for n in written:
            before = merged.get(n.id)
            props = {**(before.properties if before else {}), **n.properties}
            merged[n.id] = GraphNode(id=n.id, label=n.label, properties=props)
    nodes = list(merged.values())
    labels = {node.id: node.label for node in nodes}
    texts = texts_of_graph(nodes, chunks=chunks)
    # Chunks (``<id>#<n>``, the text past the model's 128 tokens) after every row's own vector.
    ordered = sorted(
        texts,
        key=lambda i: (5 if CHUNK_MARK in i else _PRIORITY.get(labels[i], 4), i),
    )
    return {node_id: texts[node_id] for node_id in ordered}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=0, help="stop after N new vectors")
    parser.add_argument("--prune", action="store_true", help="drop vectors no text uses")
    parser.add_argument(
        "--chunks",
        action="store_true",
        help="also the chunk texts (RetrievalConfig.dense_chunks, off by default; not shipped)",
    )
    parser.add_argument("--out", type=Path, help="another file (default: the shipped one)")
    args = parser.parse_args()
    embedder = LocalModelEmbedder(max_tokens=128)
    path = args.out or SHIPPED_VECTORS / model_file_name(embedder.model)
    if args.out and not args.out.exists():  # start from the shipped vectors
        shipped = SHIPPED_VECTORS / model_file_name(embedder.model)
        VectorStore.load(shipped, embedder.model, embedder.dimension).save(args.out)
    store = VectorStore.load(path, embedder.model, embedder.dimension)
    texts = list(dict.fromkeys(shipped_texts(args.chunks).values()))
    if args.prune:  # texts that changed (a new act title, a reworded seed) leave orphans
        kept = VectorStore(embedder.model, embedder.dimension)
        keys = [k for k in (content_key(t) for t in texts) if k in store]
        rows = [store.row_of(k) for k in keys]
        kept.add(keys, store.matrix()[[r for r in rows if r is not None]])
        kept.bits = store.bits
        print(f"pruned {len(store) - len(kept)} vectors no text uses", flush=True)
        store = kept
        store.save(path)
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
