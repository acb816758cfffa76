"""The ingress guard: the only door into the rules graph (it wraps every write).

v1 checks, in order, and rejects the whole write on the first failure:

1. batch size, label / relationship type known to ``schema/graph.yaml``, endpoints allowed;
2. id shape (bounded, no control characters) and property names allowed for the label;
3. value types as declared (ints are widened to float where the schema says float), string
   and list sizes bounded (``text``, a provision's published wording, by its own larger limit);
4. every string value, list item and id is scanned for PII with the same detectors as egress;
   a finding rejects the write. The rejection is recorded with label, id, property and entity
   types, never with the offending value.

Identifiers can never inject Cypher: labels, types and property names must be schema members
(which are plain identifiers), and values only ever travel as query parameters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NoReturn, Protocol

import structlog

from errors import PiiInGraphWrite, SchemaViolation
from graph.models import EdgeWrite, NodeWrite, PropertyValue
from graph.schema import GraphSchema

__all__ = ["GuardRejection", "IngressGuard", "PiiFindingLike", "PiiScanner", "RejectionLog"]

log = structlog.get_logger(__name__)

_ID = re.compile(r"^[\w][\w:.\-#/]{0,199}$")


class PiiFindingLike(Protocol):
    @property
    def entity_type(self) -> str: ...


class PiiScanner(Protocol):
    """What the guard needs of ``egress``'s PII detector."""

    def detect(self, text: str) -> Sequence[PiiFindingLike]: ...


@dataclass(frozen=True)
class GuardRejection:
    code: str
    target: str  # "Label:id" or "SOURCE-[TYPE]->TARGET"
    property: str | None
    reason: str
    entity_types: tuple[str, ...] = ()


@dataclass
class RejectionLog:
    """Recent rejections, kept in memory for the health and ops views (bounded)."""

    limit: int = 500
    entries: list[GuardRejection] = field(default_factory=list)

    def record(self, rejection: GuardRejection) -> None:
        self.entries.append(rejection)
        del self.entries[: -self.limit]


class IngressGuard:
    def __init__(
        self, schema: GraphSchema, pii: PiiScanner, rejections: RejectionLog | None = None
    ) -> None:
        self._schema = schema
        self._pii = pii
        self.rejections = rejections if rejections is not None else RejectionLog()

    # -- public ----------------------------------------------------------------------------

    def check_nodes(self, nodes: Sequence[NodeWrite]) -> list[NodeWrite]:
        self._check_batch(len(nodes))
        return [self._check_node(node) for node in nodes]

    def check_edges(self, edges: Sequence[EdgeWrite]) -> list[EdgeWrite]:
        self._check_batch(len(edges))
        return [self._check_edge(edge) for edge in edges]

    # -- checks ----------------------------------------------------------------------------

    def _check_batch(self, size: int) -> None:
        if size > self._schema.limits.max_batch:
            self._reject(SchemaViolation, "batch", None, f"batch of {size} exceeds the limit")

    def _check_node(self, node: NodeWrite) -> NodeWrite:
        # Ids first: every later rejection names the target, so it must be PII-free by then.
        target = f"{node.label}:{node.id}"
        self._check_id(node.id, target)
        if node.label not in self._schema.labels:
            self._reject(SchemaViolation, target, None, f"unknown label {node.label!r}")
        allowed = set(self._schema.allowed_properties(node.label)) - {
            "id",
            "created_at",
            "updated_at",
        }
        props = self._check_properties(node.properties, allowed, target)
        return NodeWrite(id=node.id, label=node.label, properties=props)

    def _check_edge(self, edge: EdgeWrite) -> EdgeWrite:
        target = f"{edge.source_id}-[{edge.type}]->{edge.target_id}"
        self._check_id(edge.source_id, target)
        self._check_id(edge.target_id, target)
        rel = self._schema.relationships.get(edge.type)
        if rel is None:
            self._reject(SchemaViolation, target, None, f"unknown relationship {edge.type!r}")
        elif not rel.allows(edge.source_label, edge.target_label):
            self._reject(
                SchemaViolation,
                target,
                None,
                f"{edge.type} not allowed from {edge.source_label} to {edge.target_label}",
            )
        allowed = set(self._schema.relationship_properties) - {"created_at", "updated_at"}
        props = self._check_properties(edge.properties, allowed, target)
        return edge.model_copy(update={"properties": props})

    def _check_id(self, node_id: str, target: str) -> None:
        # Scanned first, and recorded without the id: an id carrying PII must not reach logs.
        self._scan(node_id, "<redacted id>", "id")
        if not _ID.match(node_id):
            self._reject(SchemaViolation, target, "id", "id must be 1-200 word characters or :.-#/")

    def _check_properties(
        self, props: dict[str, PropertyValue], allowed: set[str], target: str
    ) -> dict[str, PropertyValue]:
        limits = self._schema.limits
        if len(props) > limits.max_properties:
            self._reject(SchemaViolation, target, None, "too many properties")
        checked: dict[str, PropertyValue] = {}
        for name, value in props.items():
            if name not in allowed:
                self._reject(SchemaViolation, target, name, f"property {name!r} not allowed")
            checked[name] = self._check_value(name, value, target)
        return checked

    def _check_value(self, name: str, value: object, target: str) -> PropertyValue:
        kind = self._schema.property_types[name]
        limits = self._schema.limits
        if kind == "string[]":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                self._reject(SchemaViolation, target, name, "expected a list of strings")
            items = [str(v) for v in value]
            if len(items) > limits.max_list_items:
                self._reject(SchemaViolation, target, name, "list too long")
            for item in items:
                self._check_string(item, name, target)
            return items
        if kind == "string":
            if not isinstance(value, str):
                self._reject(SchemaViolation, target, name, "expected a string")
            self._check_string(str(value), name, target)
            return str(value)
        if kind == "bool":
            if not isinstance(value, bool):
                self._reject(SchemaViolation, target, name, "expected a boolean")
            return bool(value)
        if isinstance(value, bool) or not isinstance(value, int | float):
            self._reject(SchemaViolation, target, name, f"expected a number ({kind})")
        if kind == "int":
            if not isinstance(value, int):
                self._reject(SchemaViolation, target, name, "expected an integer")
            return int(value)
        return float(value)

    def _check_string(self, text: str, name: str, target: str) -> None:
        # `text` (a provision's wording) has its own, larger bound; every other string 4000.
        if len(text) > self._schema.limits.max_chars(name):
            self._reject(SchemaViolation, target, name, "string too long")
        if any(ord(c) < 32 and c not in "\n\t" for c in text):
            self._reject(SchemaViolation, target, name, "control characters are not allowed")
        self._scan(text, target, name)

    def _scan(self, text: str, target: str, name: str) -> None:
        findings = self._pii.detect(text)
        if findings:
            types = tuple(sorted({f.entity_type for f in findings}))
            self._reject(
                PiiInGraphWrite, target, name, f"PII ({', '.join(types)}) in {name}", types
            )

    def _reject(
        self,
        error: type[SchemaViolation] | type[PiiInGraphWrite],
        target: str,
        prop: str | None,
        reason: str,
        entity_types: tuple[str, ...] = (),
    ) -> NoReturn:
        rejection = GuardRejection(error.code, target, prop, reason, entity_types)
        self.rejections.record(rejection)
        log.warning(
            "graph_write_rejected", code=error.code, target=target, property=prop, reason=reason
        )
        raise error(f"graph write rejected: {target}: {reason}", details={"property": prop})
