"""Load ``schema/graph.yaml``, the single source of truth of the graph vocabulary.

Whitelists (ingress guard) and DDL (backends) are derived from :class:`GraphSchema`; nothing
else restates labels, relationship types or property types.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal

import yaml

__all__ = [
    "DEFAULT_SCHEMA_PATH",
    "IDENTIFIER",
    "IMPLICIT_PROPERTIES",
    "TEXT_PROPERTY",
    "GraphSchema",
    "Limits",
    "PropertyType",
    "RelationshipType",
    "SchemaFileError",
    "load_schema",
]

PropertyType = Literal["string", "int", "float", "bool", "string[]"]
_TYPES: frozenset[str] = frozenset({"string", "int", "float", "bool", "string[]"})
IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
IMPLICIT_PROPERTIES = ("id", "created_at", "updated_at")
DEFAULT_SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schema" / "graph.yaml"


class SchemaFileError(ValueError):
    """``graph.yaml`` itself is inconsistent (a programming error, not user input)."""


TEXT_PROPERTY = "text"


@dataclass(frozen=True)
class Limits:
    """Size bounds the ingress guard enforces (``limits:`` in ``graph.yaml``).

    ``max_string_chars`` bounds every string value and list item except the ``text`` property,
    which holds a provision's published wording and is bounded by ``max_text_chars`` instead.
    """

    max_string_chars: int = 4000
    max_text_chars: int = 200_000
    max_list_items: int = 50
    max_properties: int = 40
    max_batch: int = 2000

    def max_chars(self, property_name: str) -> int:
        """The longest string allowed in ``property_name``."""
        if property_name == TEXT_PROPERTY:
            return self.max_text_chars
        return self.max_string_chars


@dataclass(frozen=True)
class RelationshipType:
    name: str
    pairs: tuple[tuple[str, str], ...]  # allowed (from_label, to_label)

    def allows(self, source_label: str, target_label: str) -> bool:
        return (source_label, target_label) in self.pairs


@dataclass(frozen=True)
class GraphSchema:
    property_types: dict[str, PropertyType]
    node_properties: dict[str, tuple[str, ...]]  # label -> allowed properties (incl. implicit)
    relationships: dict[str, RelationshipType]
    relationship_properties: tuple[str, ...]
    limits: Limits = field(default_factory=Limits)
    # Integer counters on relationships: only increments change them, never an upsert (ADR 0036).
    relationship_counters: tuple[str, ...] = ()

    @cached_property
    def labels(self) -> frozenset[str]:
        return frozenset(self.node_properties)

    def allowed_properties(self, label: str) -> tuple[str, ...]:
        return self.node_properties[label]


def load_schema(path: Path | None = None) -> GraphSchema:
    """Parse and check ``graph.yaml``; raises :class:`SchemaFileError` on any inconsistency."""
    raw = yaml.safe_load((path or DEFAULT_SCHEMA_PATH).read_text(encoding="utf-8"))
    types: dict[str, PropertyType] = {}
    for name, kind in raw["properties"].items():
        if kind not in _TYPES or not IDENTIFIER.match(name):
            raise SchemaFileError(f"property {name!r}: bad name or type {kind!r}")
        types[name] = kind
    for implicit in IMPLICIT_PROPERTIES:
        if types.get(implicit) != "string":
            raise SchemaFileError(f"implicit property {implicit!r} must be declared as string")

    nodes: dict[str, tuple[str, ...]] = {}
    for label, spec in raw["node_labels"].items():
        if not IDENTIFIER.match(label):
            raise SchemaFileError(f"label {label!r} is not an identifier")
        props = tuple(spec.get("properties", []))
        unknown = [p for p in props if p not in types]
        if unknown:
            raise SchemaFileError(f"label {label}: undeclared properties {unknown}")
        nodes[label] = IMPLICIT_PROPERTIES + tuple(p for p in props if p not in IMPLICIT_PROPERTIES)

    rels: dict[str, RelationshipType] = {}
    for name, spec in raw["relationship_types"].items():
        if not IDENTIFIER.match(name):
            raise SchemaFileError(f"relationship {name!r} is not an identifier")
        ends = [*spec["from"], *spec["to"]]
        if missing := [label for label in ends if label not in nodes]:
            raise SchemaFileError(f"relationship {name}: unknown labels {missing}")
        pairs = tuple((a, b) for a in spec["from"] for b in spec["to"])
        rels[name] = RelationshipType(name=name, pairs=pairs)

    rel_props = tuple(raw.get("relationship_properties", []))
    if unknown := [p for p in rel_props if p not in types]:
        raise SchemaFileError(f"relationship properties undeclared: {unknown}")
    counters = tuple(raw.get("relationship_counters", []))
    plain = {*rel_props, *IMPLICIT_PROPERTIES}
    if bad := [p for p in counters if types.get(p) != "int" or p in plain]:
        raise SchemaFileError(f"relationship counters must be int and not properties: {bad}")
    limits = Limits(**raw.get("limits", {}))
    if limits.max_text_chars < limits.max_string_chars:
        raise SchemaFileError("limits: max_text_chars must not be below max_string_chars")
    return GraphSchema(
        property_types=types,
        node_properties=nodes,
        relationships=rels,
        relationship_properties=("created_at", "updated_at", *rel_props),
        limits=limits,
        relationship_counters=counters,
    )
