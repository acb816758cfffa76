"""The ingress guard must not reject real law: every node and edge of the shipped acts goes
through the real guard with the real ingress PII detector, in the batches ``GraphWriteService``
uses, and none may be rejected.

The suite checks the Official Journal acts (AI Act, GDPR) and four of the 49 JSON acts (DORA,
CBAM, whose last article once carried the signatories' names, the consolidated eIDAS, and NIS2,
whose recital 33 "PaaS" was once taken for a surname); scanning all 49 takes minutes of CPU, so
``bench/ingest_bench.py`` writes every act through the real guard into Ladybug and the Bolt
server and lists every rejection (none since the guard reads published wording's shapes:
``tests/unit/test_guard_published_wording.py``).

The acts hold thousands of names of bodies and places, dates, fine amounts, article numbers and
Official Journal references; a rejection here is a false positive of a detector (fix its method
in ``egress/pii``), never a reason to skip scanning legal text.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import pytest

from corpus import ParsedAct, parse_act, shipped_acts, to_graph_writes
from egress.pii import PiiDetector, build_ingress_detector
from errors import PiiInGraphWrite, SchemaViolation
from graph.ingress_guard import IngressGuard
from graph.models import EdgeWrite, NodeWrite
from graph.schema import load_schema

pytestmark = pytest.mark.unit

BATCH = 500  # GraphWriteService's default batch size
JSON_CHECKED = ("dora.json.gz", "cbam.json.gz", "eidas2.json.gz", "nis2.json.gz")
ACTS = [p for p in shipped_acts() if p.parent.name != "json" or p.name in JSON_CHECKED]
T = TypeVar("T", NodeWrite, EdgeWrite)


@pytest.fixture(scope="module")
def acts() -> dict[Path, ParsedAct]:
    return {path: parse_act(path) for path in ACTS}


@pytest.fixture(scope="module")
def detector() -> PiiDetector:
    return build_ingress_detector()


def _rejected(items: Sequence[T], check: Callable[[Sequence[T]], object]) -> list[int]:
    """Indexes of the items the guard rejects. The guard stops at the first failure of a batch,
    so a failing batch is checked again one item at a time to find every rejection."""
    rejected: list[int] = []
    for start in range(0, len(items), BATCH):
        batch = items[start : start + BATCH]
        try:
            check(batch)
        except (PiiInGraphWrite, SchemaViolation):
            for offset, item in enumerate(batch):
                try:
                    check([item])
                except (PiiInGraphWrite, SchemaViolation):
                    rejected.append(start + offset)
    return rejected


def _explain(node: NodeWrite, detector: PiiDetector) -> str:
    """What the detector found in a rejected node (public legal text, so safe to print)."""
    values = [("id", node.id)] + [
        (name, item)
        for name, value in node.properties.items()
        for item in (value if isinstance(value, list) else [value])
        if isinstance(item, str)
    ]
    found = [
        f"{name}: {f.entity_type} {text[f.start : f.end]!r}"
        for name, text in values
        for f in detector.detect(text)
    ]
    return f"{node.label}:{node.id} -> {'; '.join(found) or 'schema violation'}"


@pytest.mark.parametrize("path", ACTS, ids=[p.name.split("_")[0] for p in ACTS])
def test_every_node_and_edge_of_a_shipped_act_passes_the_real_guard(
    path: Path, acts: dict[Path, ParsedAct], detector: PiiDetector
) -> None:
    act = acts[path]
    nodes, edges = to_graph_writes(act, [other for p, other in acts.items() if p != path])
    assert len(nodes) > 300 and len(edges) > 600  # the whole act, not a stub
    guard = IngressGuard(load_schema(), detector)

    started = time.perf_counter()
    bad_nodes = _rejected(nodes, guard.check_nodes)
    bad_edges = _rejected(edges, guard.check_edges)
    seconds = time.perf_counter() - started

    problems = [_explain(nodes[i], detector) for i in bad_nodes] + [
        f"{edges[i].source_id}-[{edges[i].type}]->{edges[i].target_id}" for i in bad_edges
    ]
    assert problems == [], (
        f"{len(problems)} false rejections in {act.instrument.id}:\n" + "\n".join(problems)
    )
    print(f"{act.instrument.id}: {len(nodes)} nodes, {len(edges)} edges in {seconds:.1f} s")
