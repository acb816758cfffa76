"""Batching and patch building: what arrived within one batch window becomes one patch.

A :class:`Batch` collects versions (from the feed) until the detector flushes it. A node or
edge named twice in a batch keeps the first ``CREATED`` (it is news as added, whatever came
after); the rule is :func:`_note_node` / :func:`_note_edge`, used both when a version is added
and when a batch whose patch could not be built is put back in front of what came since.

:class:`PatchBuilder` reads the batch's nodes in one query (less what the catch-up already
read) and decides what tenants may see through :mod:`graph.quarantine` alone: hidden nodes
are dropped, edges touching them dropped (ADR 0020), and a node is reported ``removed`` only
when tenants saw it — deleted by a write that did not flag it ``unseen``, or
:func:`~graph.quarantine.left_tenants_view` (ADR 0034). A patch with nothing visible is not
built: not even its timing is news to a tenant.

A patch carries a node as it is when the patch is built, which may already include a later
write; the later write's notice then finds the state it would send already sent and adds
nothing (:class:`SentStates`: the state last sent per node, by its ``updated_at``). A read that
does not show the write a batch was told of yet (another process's write this connection cannot
see yet) leaves the node out; the feed's catch-up sends it once visible (ADR 0027).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from graph.models import EdgeKey, GraphEdge, GraphNode, WriteOutcome, WriteResult
from graph.patches import GraphPatch
from graph.port import GraphReader
from graph.quarantine import is_hidden, left_tenants_view

__all__ = ["Batch", "PatchBuilder", "PatchRecord", "SentStates"]


@dataclass(frozen=True)
class PatchRecord:
    seq: int
    patch: GraphPatch
    nodes: dict[str, GraphNode]  # every reviewed node of the patch and its edges' endpoints
    # The last state read of each node the patch removes that is still stored (merged, or
    # otherwise out of tenants' view): a replay's filter judges the removal on it.
    gone: dict[str, GraphNode] = field(default_factory=dict)


def _note_node(nodes: dict[str, WriteOutcome], node_id: str, outcome: WriteOutcome) -> None:
    if nodes.get(node_id) is not WriteOutcome.CREATED:
        nodes[node_id] = outcome


def _note_edge(
    edges: dict[EdgeKey, tuple[WriteOutcome, str]],
    key: EdgeKey,
    outcome: WriteOutcome,
    stamp: str,
) -> None:
    previous = edges.get(key)
    if previous is None or previous[0] is not WriteOutcome.CREATED:
        edges[key] = (outcome, stamp)


@dataclass
class Batch:
    nodes: dict[str, WriteOutcome] = field(default_factory=dict)
    edges: dict[EdgeKey, tuple[WriteOutcome, str]] = field(default_factory=dict)
    read: dict[str, GraphNode] = field(default_factory=dict)  # already read by the catch-up
    edge_props: dict[EdgeKey, dict[str, object]] = field(default_factory=dict)
    remote: list[tuple[list[WriteResult], str]] = field(default_factory=list)
    # Nodes deleted by a write of this batch (a REMOVED result, local or from the bus), except
    # those the write flagged ``unseen`` (quarantined until then: tenants never saw them).
    removed: set[str] = field(default_factory=set)
    stamps: dict[str, str] = field(default_factory=dict)  # node id -> newest version noticed
    timestamp: str = ""

    @property
    def pending(self) -> bool:
        """Whether anything was collected."""
        return bool(self.nodes or self.edges)

    def add(self, result: WriteResult, timestamp: str) -> None:
        """A newer version of a node or edge: what the catch-up read of it is stale now and is
        read again when the patch is built (a node confirmed after the catch-up read it
        provisional would otherwise be dropped as quarantined, and never sent)."""
        self.timestamp = max(self.timestamp, timestamp)
        if result.node_id is not None:
            self.read.pop(result.node_id, None)
            self.stamps[result.node_id] = max(self.stamps.get(result.node_id, ""), timestamp)
            if result.outcome is WriteOutcome.REMOVED:
                if result.unseen:
                    self.removed.discard(result.node_id)
                else:
                    self.removed.add(result.node_id)
            _note_node(self.nodes, result.node_id, result.outcome)
        elif result.edge is not None:
            self.edge_props.pop(result.edge, None)
            _note_edge(self.edges, result.edge, result.outcome, timestamp)

    def absorb(self, newer: Batch) -> None:
        """Take in what was collected since this batch was taken (it is put back in front:
        its patch could not be built). Remote listeners already had this batch's changes, so
        only ``newer``'s are still to be handed to them."""
        for node_id, outcome in newer.nodes.items():
            _note_node(self.nodes, node_id, outcome)
        for key, (outcome, stamp) in newer.edges.items():
            _note_edge(self.edges, key, outcome, stamp)
        self.read.update(newer.read)
        self.removed |= newer.removed
        for node_id, stamp in newer.stamps.items():
            self.stamps[node_id] = max(self.stamps.get(node_id, ""), stamp)
        self.edge_props.update(newer.edge_props)
        self.remote = newer.remote
        self.timestamp = max(self.timestamp, newer.timestamp)


class SentStates:
    """The state last sent per node: its ``updated_at``, ``""`` for a removal."""

    def __init__(self, limit: int = 100_000) -> None:
        self._states: dict[str, str] = {}
        self._limit = limit

    def was_sent(self, node_id: str, state: str) -> bool:
        return bool(state) and self._states.get(node_id) == state

    def never_sent(self, node: GraphNode, stamp: str) -> bool:
        """A visible node whose stored state ``stamp`` was never sent (the catch-up's repair)."""
        return not is_hidden(node) and self._states.get(node.id) != stamp

    def record(self, states: dict[str, str]) -> None:
        if len(self._states) > self._limit:
            self._states.clear()  # at worst a node already sent is sent once more
        self._states.update(states)


class PatchBuilder:
    """Turns a :class:`Batch` into a numbered :class:`PatchRecord` of what tenants may see."""

    def __init__(self, reader: GraphReader) -> None:
        self._reader = reader
        self._seq = itertools.count(1)
        self.sent = SentStates()
        self.queries = 0  # graph reads spent on building patches

    async def build(self, batch: Batch) -> PatchRecord | None:
        nodes = await self._read(batch)
        reviewed = {i: n for i, n in nodes.items() if not is_hidden(n)}
        patch = GraphPatch(seq=0, timestamp=batch.timestamp)
        sent: dict[str, str] = {}
        gone: dict[str, GraphNode] = {}
        for node_id, outcome in batch.nodes.items():
            node = nodes.get(node_id)
            if _not_visible_yet(node_id, node, batch):
                continue
            if _left_view(node_id, node, batch):
                patch.nodes.removed.append(node_id)
                sent[node_id] = ""
                if node is not None:
                    gone[node_id] = node
            elif node is not None and node_id in reviewed:
                # A patch carries the node as it is when the patch is built, which may already
                # hold a later write; that write's own notice then brings nothing new.
                state = str(node.properties.get("updated_at", ""))
                if self.sent.was_sent(node_id, state):
                    continue
                sent[node_id] = state
                added = outcome is WriteOutcome.CREATED
                (patch.nodes.added if added else patch.nodes.updated).append(node)
        for key, (outcome, stamp) in batch.edges.items():
            if key.source not in reviewed or key.target not in reviewed:
                continue  # touches a quarantined node, or one that is gone
            props = batch.edge_props.get(key) or {"updated_at": stamp}
            edge = GraphEdge(source=key.source, target=key.target, type=key.type, properties=props)
            added = outcome is WriteOutcome.CREATED
            (patch.edges.added if added else patch.edges.updated).append(edge)
        if patch.empty:
            return None  # all of it quarantined: not even its timing is news to a tenant
        patch.seq = next(self._seq)
        self.sent.record(sent)
        return PatchRecord(patch.seq, patch, reviewed, gone)

    async def _read(self, batch: Batch) -> dict[str, GraphNode]:
        """The batch's nodes and its edges' endpoints: what the catch-up read, the rest in one
        query."""
        wanted = [i for i in batch.nodes if i not in batch.read]
        ends = {e.source for e in batch.edges} | {e.target for e in batch.edges}
        wanted += [i for i in ends if i not in batch.read and i not in batch.nodes]
        nodes = dict(batch.read)
        if wanted:
            self.queries += 1
            nodes.update({n.id: n for n in await self._reader.get_nodes(sorted(set(wanted)))})
        return nodes


def _left_view(node_id: str, node: GraphNode | None, batch: Batch) -> bool:
    """Whether tenants must be told ``removed``: deleted by a write of this batch that did not
    flag it ``unseen``, or :func:`~graph.quarantine.left_tenants_view`. A node quarantined until
    then is never reported: not even its removal may reveal it (ADR 0020, 0034). A node found
    missing while the batch holds another write of it waits for its own REMOVED result, which
    says whether tenants saw it."""
    if node is None:
        return node_id in batch.removed
    return left_tenants_view(node)


def _not_visible_yet(node_id: str, node: GraphNode | None, batch: Batch) -> bool:
    """Whether the read does not show the write this batch was told of: the node is missing
    (and not deleted) or older than the notice (another process announced a write this
    connection cannot see yet). It is left out of the patch (not sent stale, nor as a
    removal); the catch-up sends it once it is visible, since its stored state was never sent
    (:meth:`SentStates.never_sent`)."""
    stamp = batch.stamps.get(node_id, "")
    if node is None:
        return node_id not in batch.removed
    return bool(stamp) and str(node.properties.get("updated_at", "")) < stamp
