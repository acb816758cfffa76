"""The ingress guard: the only door into the rules graph (it wraps every write).

v1 checks, in order, and rejects the whole write on the first failure:

1. batch size, label / relationship type known to ``schema/graph.yaml``, endpoints allowed;
2. id shape (bounded, no control characters) and property names allowed for the label;
3. value types as declared (ints are widened to float where the schema says float), string
   and list sizes bounded (``text``, a provision's published wording, by its own larger limit);
4. every string value, list item and id is scanned for PII with the same detectors as egress
   (which canonicalise first: format characters, NFKC, confusables); a finding rejects the
   write. Values built from other text are scanned as built *and* taken apart (ADR 0016): an id
   part by part with ``_`` as a space ("TAX:IE:PPSN_5260181E" is scanned as "PPSN 5260181E"), a
   snake-cased key with ``_`` as a space, a URL percent-decoded and with its separators as
   spaces. In the taken-apart forms only confident findings (score ≥ 0.8: checksums, context,
   known names) count, since joining digit groups makes phone-shaped noise of every year.

   A provision's published wording (``text`` of an Article, Paragraph, Recital, Annex or
   Definition: what the legal ingester writes from the official source) is scanned with the same
   detectors, but three shapes that legislation writes and personal data does not are read as
   what they are (ADR 0045): a period of years ("2017-2030") or a standard's number
   ("ISO 26262-2018") is no phone number; an outline number ("7.2.2.1.", "paragraph 7.2.2.2(c)")
   is no IP address unless IP context names it; and a name counts only with a title or a cue
   before it ("Mr", "Dr", "contact", "my name is"): an act names bare only the public persons
   it cites (a report's chair) and words that a name list shares with a product or a benchmark
   ("PaaS", "Libor", "Paris Agreement", "Sybil attack"). Every other finding there still
   rejects the write: e-mail, IBAN, validated or prefixed phone numbers, identifiers, titled names.

An increment of relationship counters (ADR 0036) gets checks 1 and 2 (its ids scanned for PII
like a write's) and names only the schema's counters, each with a positive integer.

Rejections never carry a value the guard refused (ADR 0016): not in the exception message, not
in the log, not in the rejection log. A PII rejection names its target by label and a digest of
the id (the id may be built from the value); a schema rejection names the id (which passed the
PII scan) but not the unknown label, type or property name it refused. What operators are shown
(:meth:`RejectionLog.summary`, the admin page) is less still: the code, the property name (a
schema member), the PII entity types and the time — never the target or the reason, which are
built from the rejected write.

Identifiers can never inject Cypher: labels, types and property names must be schema members
(which are plain identifiers), and values only ever travel as query parameters.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NoReturn, Protocol
from urllib.parse import unquote

import structlog

from errors import PiiInGraphWrite, SchemaViolation
from graph.models import EdgeIncrement, EdgeWrite, NodeWrite, PropertyValue, utc_timestamp
from graph.schema import GraphSchema

__all__ = [
    "PUBLISHED_WORDING",
    "TAKEN_APART_MIN_SCORE",
    "GuardRejection",
    "IngressGuard",
    "PiiFindingLike",
    "PiiScanner",
    "RedactedRejection",
    "RejectionLog",
    "RejectionSummary",
    "id_digest",
]

log = structlog.get_logger(__name__)

_ID = re.compile(r"^[\w][\w:.\-#/]{0,199}$")
# Separators of built values: snake case, id parts, URL paths and queries.
_SEPARATORS = re.compile(r"[_:/\\?#=&+.,;~\-]+")
_BUILT = re.compile(r"_|%[0-9A-Fa-f]{2}|^https?://")
#: Labels whose ``text`` is a provision's published wording (see the module docstring).
PUBLISHED_WORDING = frozenset({"Article", "Paragraph", "Recital", "Annex", "Definition"})
# A period of years, "2017-2030" / "2014–2020" / "1990/2000": the second year not before the first.
_YEARS = re.compile(r"^((?:19|20)\d\d)\s?[-‐‑–/]\s?((?:19|20)\d\d)$")
# A standard's number right after its body: "ISO 26262-2018", "EN 303 645", "ISO/IEC 27001".
_STANDARD_BEFORE = re.compile(
    r"\b(?:ISO|IEC|EN|ETSI|CEN|CENELEC|SAE|IEEE|ITU-[TR]|ANSI|BS|DIN|NIST)(?:/[A-Z]+)*"
    r"(?:/(?:PAS|TS|TR))?\s?$"
)
# Words that make a dotted number a section ("paragraph 7.2.2.2"); IP context unmakes it.
_SECTION_BEFORE = re.compile(
    r"\b(?:paragraphs?|points?|sections?|subsections?|clauses?|items?|annex(?:es)?|tables?"
    r"|figures?|chapters?|parts?|and|or|to|of)\s+$",
    re.IGNORECASE,
)
_IP_CONTEXT = re.compile(r"\b(?:ip|ipv4|ipv6|host|server|address(?:es)?)\b", re.IGNORECASE)
# An outline number (each level under 100) is written as a heading ("7.2.2.1. The"), a deeper
# level ("7.2.2.1.3") or with a point ("7.2.2.2(c)").
_OUTLINE_AFTER = re.compile(r"\.(?:\s|\d|$)|\(")
# What makes a bare name a person in published wording: a title or a cue right before it.
_NAME_CONTEXT = re.compile(
    r"(?:\b(?:mr|mrs|ms|miss|mx|dr|prof|sir|dame|madam|mme|mlle|herr|frau|rev|lord|lady)\.?"
    r"|\b(?:name\s+is|named|called|call\s+me|i\s+am|i'm|dear|contact|attn:?|c/o"
    r"|ask\s+for|spoke\s+(?:to|with)|signed|regards,?|sincerely,?))\s*$",
    re.IGNORECASE,
)
#: Least score a finding in a taken-apart form needs (see the module docstring).
TAKEN_APART_MIN_SCORE = 0.8


def id_digest(node_id: str) -> str:
    """A short digest that names an id in logs without showing it."""
    return "#" + hashlib.sha256(node_id.encode("utf-8")).hexdigest()[:12]


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
    at: str = field(default_factory=utc_timestamp)  # when it was refused (graph format, UTC)


@dataclass(frozen=True)
class RedactedRejection:
    """A rejection as operators see it: by type, never by value (no target, no reason)."""

    code: str
    property: str | None  # a property name of the schema, or None
    entity_types: tuple[str, ...]
    at: str


@dataclass(frozen=True)
class RejectionSummary:
    """Rejections counted by code since ``since`` (this process), and the latest few."""

    counts: dict[str, int]
    since: str
    recent: tuple[RedactedRejection, ...]  # newest first

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass
class RejectionLog:
    """Recent rejections, kept in memory for the health and ops views (bounded), and how many
    of each code this process saw (not bounded: one integer per code)."""

    limit: int = 500
    entries: list[GuardRejection] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    since: str = field(default_factory=utc_timestamp)

    def record(self, rejection: GuardRejection) -> None:
        self.entries.append(rejection)
        del self.entries[: -self.limit]
        self.counts[rejection.code] = self.counts.get(rejection.code, 0) + 1

    def summary(self, recent: int = 50) -> RejectionSummary:
        """Counts by code and the last ``recent`` rejections, redacted (newest first)."""
        latest = self.entries[-recent:] if recent > 0 else []
        return RejectionSummary(
            counts=dict(sorted(self.counts.items())),
            since=self.since,
            recent=tuple(
                RedactedRejection(r.code, r.property, r.entity_types, r.at)
                for r in reversed(latest)
            ),
        )


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

    def check_increments(self, increments: Sequence[EdgeIncrement]) -> list[EdgeIncrement]:
        """Increments of relationship counters: the relationship's checks, then the counters."""
        self._check_batch(len(increments))
        return [self._check_increment(item) for item in increments]

    def check_ids(self, ids: Sequence[str]) -> list[str]:
        """Ids named by a deletion: the same id checks as a write (format, PII scan)."""
        self._check_batch(len(ids))
        for node_id in ids:
            self._check_id(node_id, f"?:{id_digest(node_id)}")
        return list(ids)

    # -- checks ----------------------------------------------------------------------------

    def _check_batch(self, size: int) -> None:
        if size > self._schema.limits.max_batch:
            self._reject(SchemaViolation, "batch", None, f"batch of {size} exceeds the limit")

    def _check_node(self, node: NodeWrite) -> NodeWrite:
        # Ids first: every later rejection names the target, so it must be PII-free by then.
        if node.label not in self._schema.labels:
            self._check_id(node.id, f"?:{id_digest(node.id)}")
            self._reject(SchemaViolation, f"?:{node.id}", None, "unknown label")
        target = f"{node.label}:{node.id}"
        self._check_id(node.id, f"{node.label}:{id_digest(node.id)}")
        allowed = set(self._schema.allowed_properties(node.label)) - {
            "id",
            "created_at",
            "updated_at",
        }
        hidden = f"{node.label}:{id_digest(node.id)}"
        published = node.label in PUBLISHED_WORDING
        props = self._check_properties(node.properties, allowed, target, hidden, published)
        return NodeWrite(id=node.id, label=node.label, properties=props)

    def _check_edge(self, edge: EdgeWrite) -> EdgeWrite:
        rel = self._schema.relationships.get(edge.type)
        kind = edge.type if rel is not None else "?"
        hidden = f"{id_digest(edge.source_id)}-[{kind}]->{id_digest(edge.target_id)}"
        self._check_id(edge.source_id, hidden)
        self._check_id(edge.target_id, hidden)
        target = f"{edge.source_id}-[{kind}]->{edge.target_id}"
        if rel is None:
            self._reject(SchemaViolation, target, None, "unknown relationship")
        elif not rel.allows(edge.source_label, edge.target_label):
            self._reject(
                SchemaViolation,
                target,
                None,
                f"{edge.type} not allowed from {edge.source_label} to {edge.target_label}",
            )
        allowed = set(self._schema.relationship_properties) - {"created_at", "updated_at"}
        props = self._check_properties(edge.properties, allowed, target, hidden)
        return edge.model_copy(update={"properties": props})

    def _check_increment(self, item: EdgeIncrement) -> EdgeIncrement:
        # The relationship's own checks (ids scanned, type and endpoints allowed), no properties.
        edge = EdgeWrite(
            type=item.type,
            source_id=item.source_id,
            source_label=item.source_label,
            target_id=item.target_id,
            target_label=item.target_label,
        )
        self._check_edge(edge)
        target = f"{item.source_id}-[{item.type}]->{item.target_id}"
        counters = self._schema.relationship_counters
        if not item.by or any(name not in counters for name in item.by):
            self._reject(
                SchemaViolation, target, None, "an increment names an unknown counter, or none"
            )
        for name, amount in item.by.items():
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
                self._reject(SchemaViolation, target, name, "an increment adds a positive integer")
        return item

    def _check_id(self, node_id: str, hidden: str) -> None:
        # Scanned first, and recorded without the id: an id carrying PII must not reach logs.
        self._scan(node_id, hidden, "id")
        for part in node_id.split(":"):
            self._scan(part, hidden, "id", taken_apart=True)
        if not _ID.match(node_id):
            self._reject(SchemaViolation, hidden, "id", "id must be 1-200 word characters or :.-#/")

    def _check_properties(
        self,
        props: dict[str, PropertyValue],
        allowed: set[str],
        target: str,
        hidden: str,
        published: bool = False,
    ) -> dict[str, PropertyValue]:
        limits = self._schema.limits
        if len(props) > limits.max_properties:
            self._reject(SchemaViolation, target, None, "too many properties")
        checked: dict[str, PropertyValue] = {}
        for name, value in props.items():
            if name not in allowed:
                self._reject(SchemaViolation, target, None, "a property is not allowed")
            wording = published and name == "text"
            checked[name] = self._check_value(name, value, target, hidden, wording)
        return checked

    def _check_value(
        self, name: str, value: object, target: str, hidden: str, wording: bool = False
    ) -> PropertyValue:
        kind = self._schema.property_types[name]
        limits = self._schema.limits
        if kind == "string[]":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                self._reject(SchemaViolation, target, name, "expected a list of strings")
            items = [str(v) for v in value]
            if len(items) > limits.max_list_items:
                self._reject(SchemaViolation, target, name, "list too long")
            for item in items:
                self._check_string(item, name, target, hidden, wording)
            return items
        if kind == "string":
            if not isinstance(value, str):
                self._reject(SchemaViolation, target, name, "expected a string")
            self._check_string(str(value), name, target, hidden, wording)
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

    def _check_string(
        self, text: str, name: str, target: str, hidden: str, wording: bool = False
    ) -> None:
        # `text` (a provision's wording) has its own, larger bound; every other string 4000.
        if len(text) > self._schema.limits.max_chars(name):
            self._reject(SchemaViolation, target, name, "string too long")
        if any(ord(c) < 32 and c not in "\n\t" for c in text):
            self._reject(SchemaViolation, target, name, "control characters are not allowed")
        self._scan(text, hidden, name, wording=wording)
        if _BUILT.search(text):
            decoded = _unquote(text)
            if decoded != text:
                self._scan(decoded, hidden, name, wording=wording)
            self._scan(decoded, hidden, name, taken_apart=True, wording=wording)

    def _scan(
        self, text: str, target: str, name: str, *, taken_apart: bool = False, wording: bool = False
    ) -> None:
        if taken_apart:
            spaced = _SEPARATORS.sub(" ", text).strip()
            if spaced == text or not spaced:
                return
            findings = [
                f
                for f in self._pii.detect(spaced)
                if float(getattr(f, "score", 1.0)) >= TAKEN_APART_MIN_SCORE
            ]
        else:
            findings = list(self._pii.detect(text))
        if wording and findings:
            findings = _not_legal_shapes(text if not taken_apart else spaced, findings)
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


def _not_legal_shapes(text: str, findings: list[PiiFindingLike]) -> list[PiiFindingLike]:
    """The findings in a provision's published wording that are not one of the shapes that
    legislation writes (see the module docstring): those still reject the write."""
    kept: list[PiiFindingLike] = []
    sections: list[int] = []  # ends of dotted numbers read as sections, to continue a list
    for finding in findings:
        start, end = getattr(finding, "start", None), getattr(finding, "end", None)
        if not isinstance(start, int) or not isinstance(end, int):
            kept.append(finding)
            continue
        value, before = text[start:end], text[max(0, start - 40) : start]
        kind = finding.entity_type
        if kind == "PHONE_NUMBER" and float(getattr(finding, "score", 1.0)) < 0.9:
            years = _YEARS.match(value)
            if years and int(years.group(1)) <= int(years.group(2)):
                continue  # a period: "the Strategic Plan for Forests 2017-2030"
            if _STANDARD_BEFORE.search(before):
                continue  # a standard's number: "ISO 26262-2018"
        small = all(part.isdigit() and int(part) < 100 for part in value.split("."))
        if kind == "IP_ADDRESS" and small and not _IP_CONTEXT.search(before):
            if (
                _OUTLINE_AFTER.match(text, end)
                or _SECTION_BEFORE.search(before)
                or (
                    sections
                    and re.fullmatch(r"[\s,;]*(?:and|or|to)?\s*", text[sections[-1] : start])
                )
            ):
                sections.append(end)
                continue  # an outline number: "7.2.2.1. The vehicle", "paragraph 7.2.2.2(c)"
        if kind == "PERSON" and not _NAME_CONTEXT.search(before):
            continue  # a bare name in legislation: a public person, a product, a benchmark
        kept.append(finding)
    return kept


def _unquote(text: str) -> str:
    """Percent-decoding until nothing changes (at most three rounds: "%2540" is "@")."""
    for _ in range(3):
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    return text
