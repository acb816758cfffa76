"""The ``GraphStore`` port: what the engine and the write service need from a graph backend.

Backends (``graph/backends/``) implement it over Ladybug (embedded) and Bolt (Memgraph, Neo4j).
Only the write service calls the writer half; everything else reads. The chat turn needs only
:class:`ConceptReader` (three reads); :class:`GraphReader` adds what the UI and the change
detector read. Every behaviour here is
pinned by the conformance suite in ``tests/integration/graph``, which runs unchanged against
every backend.

Write semantics (all backends):

- ``upsert_nodes``: by id. Given properties overwrite; absent ones are kept. A node that did not
  exist gets ``created_at = updated_at = now``; one whose given properties all equal the stored
  ones is UNCHANGED and keeps its ``updated_at``; otherwise ``updated_at = now``.
  ``created_at`` never changes after creation. Concurrent creation of one id leaves one node.
- ``upsert_edges``: unique per (source, type, target); same timestamp rules. Both endpoints must
  exist, else :class:`errors.SchemaViolation`.
- ``delete_nodes``: by id, each node with its relationships (``DETACH DELETE``), in one
  transaction; REMOVED for a node that existed, UNCHANGED for an id that did not.
- ``increment_edges``: adds to the counters of stored relationships (``relationship_counters``
  of the schema; ADR 0036) in one transaction. The addition happens in the store's own query
  (``SET r.c = coalesce(r.c, 0) + $by``), never as a read in Python and a write back, so
  increments from any number of processes at once are all counted (a server that detects the
  conflict makes the driver retry). A relationship named twice in a batch is counted twice.
  Timestamps are not touched: a count is not a change of what the graph says (no patch, not in
  ``changes_since``). UPDATED for a relationship counted, UNCHANGED when none has that key
  (nothing is counted, nothing is created). Upserts cannot set counters.
- Callers pass ids and labels already checked by the ingress guard; backends check again that
  labels, types and property names are in the schema before using them as identifiers, and
  refuse ``id``, ``created_at``, ``updated_at`` and counters among the given properties.
- The decision (CREATED / UPDATED / UNCHANGED, and which properties and timestamps to store) is
  made in one place, :mod:`graph.write_plan`; backends read the stored rows and apply it.
- A batch is one transaction: it lands whole or, when anything fails, not at all.
- Results: one :class:`graph.models.WriteResult` per item, in the order given, naming the item
  by ``node_id`` (nodes) or ``edge`` (an :class:`graph.models.EdgeKey`).

Errors: every method of every backend raises only the project's errors (``errors/``), each
translated at the backend's boundary with ``raise ... from`` the driver's exception:

- :class:`errors.GraphUnavailable`: the unit of work could not run, so retrying later may
  succeed (the capture retry keeps such writes). Bolt: server unreachable, connection lost
  (also mid-transaction, as ``IncompleteCommit``), session expired, timeout, transient errors
  after the driver's retries, any other driver error. Ladybug: the database cannot be opened,
  the database or connection is closed or broke, I/O, buffer pool or any other failure the
  driver reports that is not listed below.
- :class:`errors.SchemaViolation`: the write does not fit the schema: an unknown label,
  relationship type or property, a timestamp given, an id stored under another label, a
  missing or mislabelled edge endpoint (all backends, checked before anything is written or
  inside the transaction, which then rolls back). Ladybug also: the database's tables refuse
  the statement (``Binder``, ``Catalog`` or ``Conversion`` exception), i.e. the database on
  disk does not match ``schema/graph.yaml``.
- :class:`errors.RegintelError` (the base, HTTP 500): the store refused a statement for another
  reason, a defect rather than a condition to wait out. Bolt: a non-transient ``Neo4jError``,
  a schema DDL step no alternative of which the server accepts. Ladybug: a ``Parser``
  exception.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from graph.models import (
    EdgeIncrement,
    EdgeWrite,
    GraphCounts,
    GraphNode,
    GraphSnapshot,
    NodeWrite,
    WriteResult,
)

__all__ = [
    "ConceptReader",
    "GraphReader",
    "GraphStore",
    "GraphWriter",
    "QuarantinedConceptReader",
]


@runtime_checkable
class ConceptReader(Protocol):
    """The graph reads a chat turn needs (through concept capture): nodes by id, concepts by
    label, and a concept's neighbourhood. The turn depends on this port only."""

    async def get_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        """The nodes with these ids that exist, in no particular order."""
        ...

    async def find_concepts_by_label(self, normalised: str) -> list[GraphNode]:
        """Concepts with a ``HAS_ALT_LABEL`` edge to a ``Label`` whose ``normalised`` equals this.

        The write path gives every concept a ``Label`` for its ``pref_label`` as well, so one
        lookup covers preferred and alternative labels. Normalisation happens in the caller.
        """
        ...

    async def neighbourhood(self, ids: Sequence[str], limit: int = 200) -> GraphSnapshot:
        """The given nodes, their direct neighbours (both directions) and the edges between."""
        ...


@runtime_checkable
class QuarantinedConceptReader(Protocol):
    """The quarantined concepts of some jurisdictions, with their labels: what matching reads
    to offer a new provisional concept's near duplicates among other captures as review
    candidates (ADR 0049). What it returns is for the review queue only, never for a tenant
    (ADR 0020). Both backends implement it; a reader without it offers no such candidate."""

    async def quarantined_concepts(
        self, jurisdictions: Sequence[str], limit: int = 1000
    ) -> list[tuple[GraphNode, list[str]]]:
        """Up to ``limit`` concepts with ``status: "provisional"`` whose ``jurisdiction`` is
        one of these, ordered by id, each with the ``text`` of every ``Label`` it has a
        ``HAS_ALT_LABEL`` edge to (sorted; its preferred label among them when the write path
        linked it). Nothing else: reviewed and merged concepts are not returned."""
        ...


@runtime_checkable
class GraphReader(ConceptReader, Protocol):
    """Every read: the turn's, plus snapshots, changes and counts for the UI and the detector."""

    async def snapshot(
        self, labels: Sequence[str] | None = None, limit: int = 1000
    ) -> GraphSnapshot:
        """Up to ``limit`` nodes (optionally of these labels) and the edges among them."""
        ...

    async def changes_since(self, timestamp: str, limit: int = 1000) -> GraphSnapshot:
        """Nodes and edges whose ``updated_at`` is strictly after ``timestamp``."""
        ...

    async def counts(self) -> GraphCounts: ...


@runtime_checkable
class GraphWriter(Protocol):
    async def upsert_nodes(self, nodes: Sequence[NodeWrite], now: str) -> list[WriteResult]:
        """Upsert nodes by id in one transaction; one ``node_id`` result per node, in order."""
        ...

    async def upsert_edges(self, edges: Sequence[EdgeWrite], now: str) -> list[WriteResult]:
        """Upsert edges by (source, type, target) in one transaction; one ``edge`` result per
        edge, in order."""
        ...

    async def delete_nodes(self, ids: Sequence[str], now: str) -> list[WriteResult]:
        """Delete nodes and their relationships by id in one transaction; one ``node_id``
        result per id, in order: REMOVED, or UNCHANGED when no node had that id."""
        ...

    async def increment_edges(self, increments: Sequence[EdgeIncrement]) -> list[WriteResult]:
        """Add to relationship counters atomically in one transaction; one ``edge`` result per
        item, in order: UPDATED, or UNCHANGED when no such relationship exists."""
        ...


@runtime_checkable
class GraphStore(GraphReader, GraphWriter, Protocol):
    async def init_schema(self) -> None:
        """Create tables / constraints / indexes derived from the schema. Idempotent."""
        ...

    async def ping(self) -> None:
        """Raise :class:`errors.GraphUnavailable` unless the store answers."""
        ...

    async def aclose(self) -> None:
        """Close the store; any later call raises :class:`errors.AdapterClosed`."""
        ...
