"""The seed files under ``seeds/rules`` respect ``schema/graph.yaml``.

Checked without a graph store: labels, property names and types, unique ids, edge types and
their endpoint labels, source URLs on every rule node, the size of the starter graph, and the
concept entries of ``concepts.yaml``.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus import parse_act, shipped_acts, to_graph_writes
from graph.schema import GraphSchema, load_schema

pytestmark = pytest.mark.unit

SEEDS_DIR = Path(__file__).resolve().parents[2] / "seeds" / "rules"
MIN_NODES = 200
MIN_EDGES = 350
CONCEPT_REQUIRED = ("domain", "kind", "jurisdiction", "pref_label")
CONCEPT_DOMAINS = frozenset(
    {"TAX", "WELFARE", "PENSIONS", "SOCIAL_INSURANCE", "VEHICLE_REG", "EU_LAW"}
)
UPPER_SNAKE = r"^[A-Z][A-Z0-9_]*$"
ID_PART = r"^[A-Z0-9][A-Z0-9_]*$"  # e.g. EU:REG:883_2004


def _seed_files() -> list[Path]:
    return sorted(SEEDS_DIR.glob("*.yaml"))


def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    assert isinstance(data, dict), f"{path.name}: top level must be a mapping"
    return data


@pytest.fixture(scope="module")
def schema() -> GraphSchema:
    return load_schema()


@pytest.fixture(scope="module")
def seeds() -> dict[str, dict[str, Any]]:
    files = _seed_files()
    assert files, f"no seed files in {SEEDS_DIR}"
    return {path.name: _load(path) for path in files}


@pytest.fixture(scope="module")
def nodes(seeds: dict[str, dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, node) for name, data in seeds.items() for node in data.get("nodes") or []]


@pytest.fixture(scope="module")
def edges(seeds: dict[str, dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, edge) for name, data in seeds.items() for edge in data.get("edges") or []]


@functools.cache
def legal_labels() -> dict[str, str]:
    """Node ids and labels of the legal acts the seed ingests (``seeds/legal``)."""
    labels: dict[str, str] = {}
    for path in shipped_acts():
        written, _ = to_graph_writes(parse_act(path))
        labels |= {node.id: node.label for node in written}
    return labels


@pytest.fixture(scope="module")
def labels_by_id(nodes: list[tuple[str, dict[str, Any]]]) -> dict[str, str]:
    """Seed nodes, and the provisions of the shipped acts that seed edges may point at."""
    return legal_labels() | {node["id"]: node["label"] for _, node in nodes}


def _type_ok(declared: str, value: object) -> bool:
    if declared == "string":
        return isinstance(value, str)
    if declared == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if declared == "float":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if declared == "bool":
        return isinstance(value, bool)
    if declared == "string[]":
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    return False


def test_top_level_keys_are_known(seeds: dict[str, dict[str, Any]]) -> None:
    for name, data in seeds.items():
        assert set(data) <= {"nodes", "edges", "concepts"}, name
        if "concepts" in data:
            assert name == "concepts.yaml", f"{name}: concepts belong in concepts.yaml"


def test_node_labels_and_properties_match_schema(
    schema: GraphSchema, nodes: list[tuple[str, dict[str, Any]]]
) -> None:
    problems: list[str] = []
    for file, node in nodes:
        node_id, label = node.get("id"), node.get("label")
        where = f"{file}:{node_id}"
        if not isinstance(node_id, str) or not node_id:
            problems.append(f"{where}: missing id")
            continue
        if label == "Concept":
            problems.append(f"{where}: Concept nodes belong in concepts.yaml, not in nodes")
        if label not in schema.labels:
            problems.append(f"{where}: unknown label {label!r}")
            continue
        allowed = set(schema.allowed_properties(label)) - {"id", "created_at", "updated_at"}
        properties = node.get("properties") or {}
        if len(properties) > schema.limits.max_properties:
            problems.append(f"{where}: too many properties")
        for key, value in properties.items():
            if key not in allowed:
                problems.append(f"{where}: property {key!r} not allowed on {label}")
                continue
            declared = schema.property_types[key]
            if not _type_ok(declared, value):
                problems.append(f"{where}: {key}={value!r} is not {declared}")
            if isinstance(value, str) and len(value) > schema.limits.max_string_chars:
                problems.append(f"{where}: {key} too long")
            if isinstance(value, list) and len(value) > schema.limits.max_list_items:
                problems.append(f"{where}: {key} has too many items")
    assert not problems, "\n".join(problems)


def test_node_ids_are_unique_across_files(nodes: list[tuple[str, dict[str, Any]]]) -> None:
    counts = Counter(node["id"] for _, node in nodes)
    duplicates = sorted(node_id for node_id, n in counts.items() if n > 1)
    assert not duplicates, f"duplicate node ids: {duplicates}"


def test_node_ids_follow_the_convention(nodes: list[tuple[str, dict[str, Any]]]) -> None:
    part = re.compile(ID_PART)
    bad = [node["id"] for _, node in nodes if not all(part.match(p) for p in node["id"].split(":"))]
    assert not bad, f"ids not in upper snake case with colons: {bad}"


def test_every_rule_node_has_source_urls(nodes: list[tuple[str, dict[str, Any]]]) -> None:
    ingested = set(legal_labels())  # their source_urls come from the act itself
    missing = [
        node["id"]
        for _, node in nodes
        if node["label"] != "ProfileTag"
        and node["id"] not in ingested
        and not all(
            isinstance(url, str) and url.startswith("https://")
            for url in (node.get("properties") or {}).get("source_urls") or [None]
        )
    ]
    assert not missing, f"rule nodes without https source_urls: {missing}"


def test_edges_match_schema(
    schema: GraphSchema,
    edges: list[tuple[str, dict[str, Any]]],
    labels_by_id: dict[str, str],
) -> None:
    problems: list[str] = []
    seen: Counter[tuple[str, str, str]] = Counter()
    for file, edge in edges:
        kind, source, target = edge.get("type"), edge.get("source"), edge.get("target")
        where = f"{file}: {source} -[{kind}]-> {target}"
        assert set(edge) <= {"type", "source", "target", "properties"}, where
        seen[(str(kind), str(source), str(target))] += 1
        if kind not in schema.relationships:
            problems.append(f"{where}: unknown relationship type")
            continue
        if source not in labels_by_id or target not in labels_by_id:
            problems.append(f"{where}: endpoint is neither a seed node nor a shipped provision")
            continue
        if not schema.relationships[kind].allows(labels_by_id[source], labels_by_id[target]):
            problems.append(
                f"{where}: ({labels_by_id[source]}, {labels_by_id[target]}) not allowed"
            )
        for key in edge.get("properties") or {}:
            if key not in schema.relationship_properties:
                problems.append(f"{where}: edge property {key!r} not allowed")
    duplicates = [key for key, n in seen.items() if n > 1]
    assert not duplicates, f"duplicate edges: {duplicates}"
    assert not problems, "\n".join(problems)


def test_starter_graph_is_large_enough(
    nodes: list[tuple[str, dict[str, Any]]], edges: list[tuple[str, dict[str, Any]]]
) -> None:
    assert len(nodes) >= MIN_NODES, f"{len(nodes)} nodes < {MIN_NODES}"
    assert len(edges) >= MIN_EDGES, f"{len(edges)} edges < {MIN_EDGES}"


def test_starter_graph_covers_ie_uk_ni_eu(labels_by_id: dict[str, str]) -> None:
    assert labels_by_id.get("IE") == "Jurisdiction"
    assert labels_by_id.get("UK") == "Jurisdiction"
    assert labels_by_id.get("EU") == "Jurisdiction"
    assert labels_by_id.get("NI") == "Region"


def test_concepts_are_complete_and_aligned(
    schema: GraphSchema,
    seeds: dict[str, dict[str, Any]],
    labels_by_id: dict[str, str],
) -> None:
    concepts = seeds.get("concepts.yaml", {}).get("concepts") or []
    assert concepts, "concepts.yaml has no concepts"
    upper = re.compile(UPPER_SNAKE)
    allowed = {
        *schema.allowed_properties("Concept"),
        "alt_labels",
        "hidden_labels",  # SKOS hiddenLabel: former names, other languages (ADR 0049)
        "close_match",  # SKOS closeMatch: EuroVoc concepts naming the same thing (ADR 0060)
        "aligns_with",
        "broader",  # SKOS broader / related: other seeded concepts (ADR 0060 addendum)
        "related",
        "not_labels",  # terms decided not to name the concept (ADR 0075)
    }
    seeded = {f"{c.get('domain')}:{c.get('jurisdiction')}:{c.get('kind')}" for c in concepts}
    keys: Counter[tuple[str, ...]] = Counter()
    problems: list[str] = []
    for concept in concepts:
        key = tuple(str(concept.get(field)) for field in ("domain", "jurisdiction", "kind"))
        where = "concept " + ":".join(key)
        for required in CONCEPT_REQUIRED:
            if not isinstance(concept.get(required), str) or not concept[required].strip():
                problems.append(f"{where}: missing {required}")
        if unknown := set(concept) - allowed:
            problems.append(f"{where}: unknown fields {sorted(unknown)}")
        if concept.get("domain") not in CONCEPT_DOMAINS:
            problems.append(f"{where}: unknown domain")
        for field in ("domain", "kind", "jurisdiction"):
            if not upper.match(str(concept.get(field, ""))):
                problems.append(f"{where}: {field} is not upper snake case")
        if concept.get("jurisdiction") not in labels_by_id:
            problems.append(f"{where}: jurisdiction is not a seed node")
        for field in (
            "alt_labels",
            "hidden_labels",
            "source_urls",
            "aligns_with",
            "broader",
            "related",
            "not_labels",
        ):
            value = concept.get(field, [])
            if not _type_ok("string[]", value):
                problems.append(f"{where}: {field} must be a list of strings")
        if not concept.get("source_urls"):
            problems.append(f"{where}: no source_urls")
        if not concept.get("aligns_with"):
            problems.append(f"{where}: aligns_with is empty")
        for target in concept.get("aligns_with") or []:
            if target not in labels_by_id:
                problems.append(f"{where}: aligns_with {target!r} is not a seed node id")
            elif not schema.relationships["ALIGNS_WITH"].allows("Concept", labels_by_id[target]):
                problems.append(f"{where}: cannot align with a {labels_by_id[target]}")
        for link in ("broader", "related"):
            for target in concept.get(link) or []:
                if target not in seeded or target == ":".join((key[0], key[1], key[2])):
                    problems.append(f"{where}: {link} {target!r} is no other seeded concept")
        keys[key] += 1
    duplicates = [key for key, n in keys.items() if n > 1]
    assert not duplicates, f"duplicate concept keys: {duplicates}"
    assert not problems, "\n".join(problems)


def _label_key(text: str) -> str:
    # Close to engine.lexicon.normalise_label: case, accents and punctuation do not count.
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return " ".join(re.sub(r"[^a-z0-9]+", " ", folded.casefold()).split())


def test_concept_labels_are_not_shared(seeds: dict[str, dict[str, Any]]) -> None:
    """A shared Label node would flip between two spellings on every seed run."""
    owners: dict[str, set[str]] = {}
    repeated: list[str] = []
    for concept in seeds.get("concepts.yaml", {}).get("concepts") or []:
        key = f"{concept['domain']}:{concept['jurisdiction']}:{concept['kind']}"
        labels = [concept["pref_label"], *(concept.get("alt_labels") or [])]
        normalised = [_label_key(label) for label in labels]
        repeated += [f"{key}: {n!r}" for n, c in Counter(normalised).items() if c > 1]
        for label in set(normalised):
            owners.setdefault(label, set()).add(key)
    shared = {label: sorted(keys) for label, keys in owners.items() if len(keys) > 1}
    assert not repeated, f"labels repeated within a concept: {repeated}"
    assert not shared, f"labels shared between concepts: {shared}"
