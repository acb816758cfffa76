"""Embedded ``GraphStore`` on Ladybug (the maintained Kùzu fork): a folder on disk, no server.

Deliberate deviations from the obvious, and why:

- Ladybug has a strict schema. All nodes live in ONE node table, ``RgNode``, whose columns are
  every property of ``schema/graph.yaml`` plus ``label``; each relationship type is one
  ``REL TABLE ... (FROM RgNode TO RgNode)``. This works because a property has one type across
  the whole graph, and it matters: with a table per label and a rel table per allowed
  ``(from, to)`` pair (187 pairs), Ladybug allocated ~750 MB of buffer pool to write the
  1,400 seed edges; with one node table it is a few MB. The ingress guard and the write
  checks below enforce per-label properties and allowed endpoints; ids are unique across
  labels for free (the primary key), as on the Bolt backends.
- Ladybug runs one write transaction at a time. Writes go through a single connection in a
  worker thread under an ``asyncio.Lock``: the read-compare-write of an upsert is then atomic,
  so concurrent creation of one id yields one node and an honest CREATED/UNCHANGED outcome.
  Reads use the driver's ``AsyncConnection`` pool and see committed state.
- Labels, relationship types and property names are interpolated into query text only after
  they were checked against the schema (they are identifiers, which Cypher cannot take as
  parameters); values are always parameters.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ladybug

from errors import GraphUnavailable, SchemaViolation
from graph.backends.write_checks import check_edge_write, check_labels, check_node_write
from graph.models import (
    EdgeWrite,
    GraphCounts,
    GraphEdge,
    GraphNode,
    GraphSnapshot,
    NodeWrite,
    WriteOutcome,
    WriteResult,
    edge_key,
)
from graph.schema import GraphSchema

_DDL_TYPES = {
    "string": "STRING",
    "int": "INT64",
    "float": "DOUBLE",
    "bool": "BOOLEAN",
    "string[]": "STRING[]",
}
_INTERNAL_KEYS = ("_ID", "_LABEL", "_SRC", "_DST", "label")


NODE_TABLE = "RgNode"


def schema_ddl(schema: GraphSchema) -> list[str]:
    """The ``CREATE ... TABLE IF NOT EXISTS`` statements for a schema (node table first)."""
    columns = ", ".join(
        f"`{name}` {_DDL_TYPES[kind]}" for name, kind in schema.property_types.items()
    )
    statements = [
        f"CREATE NODE TABLE IF NOT EXISTS {NODE_TABLE}({columns}, label STRING, PRIMARY KEY(id))"
    ]
    rel_columns = ", ".join(
        f"`{p}` {_DDL_TYPES[schema.property_types[p]]}" for p in schema.relationship_properties
    )
    for rel in schema.relationships.values():
        statements.append(
            f"CREATE REL TABLE IF NOT EXISTS `{rel.name}`"
            f"(FROM {NODE_TABLE} TO {NODE_TABLE}, {rel_columns})"
        )
    return statements


def _node_from_row(value: dict[str, Any]) -> GraphNode:
    props = {k: v for k, v in value.items() if k not in _INTERNAL_KEYS and v is not None}
    node_id = str(props.pop("id"))
    return GraphNode(id=node_id, label=str(value["label"]), properties=props)


def _clean(props: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k not in _INTERNAL_KEYS and v is not None}


class LadybugGraphStore:
    """``GraphStore`` over an on-disk Ladybug database at ``path``."""

    def __init__(self, path: Path, schema: GraphSchema, *, buffer_pool_mb: int = 256) -> None:
        self._path = path
        self._schema = schema
        self._buffer_pool_bytes = buffer_pool_mb * 1024 * 1024
        self._db: ladybug.Database | None = None
        self._writer: ladybug.Connection | None = None
        self._reader: ladybug.AsyncConnection | None = None
        self._write_lock = asyncio.Lock()

    # -- lifecycle -------------------------------------------------------------------------

    def _open(self) -> tuple[ladybug.Database, ladybug.Connection, ladybug.AsyncConnection]:
        if self._db is None or self._writer is None or self._reader is None:
            try:
                self._path.parent.mkdir(parents=True, exist_ok=True)
                self._db = ladybug.Database(
                    str(self._path), buffer_pool_size=self._buffer_pool_bytes
                )
                self._writer = ladybug.Connection(self._db)
                self._reader = ladybug.AsyncConnection(self._db, max_concurrent_queries=4)
            except RuntimeError as exc:
                raise GraphUnavailable(f"cannot open Ladybug database at {self._path}") from exc
        return self._db, self._writer, self._reader

    async def init_schema(self) -> None:
        _, writer, _ = self._open()
        async with self._write_lock:
            await asyncio.to_thread(self._run_ddl, writer)

    def _run_ddl(self, writer: ladybug.Connection) -> None:
        for statement in schema_ddl(self._schema):
            writer.execute(statement)

    async def ping(self) -> None:
        await self._read("RETURN 1")

    async def aclose(self) -> None:
        async with self._write_lock:
            if self._reader is not None:
                self._reader.close()
            if self._writer is not None:
                self._writer.close()
            if self._db is not None:
                self._db.close()
            self._db = self._writer = self._reader = None

    # -- identifier checks -----------------------------------------------------------------

    # -- writes ----------------------------------------------------------------------------

    async def upsert_nodes(self, nodes: Sequence[NodeWrite], now: str) -> list[WriteResult]:
        for node in nodes:
            check_node_write(self._schema, node)
        _, writer, _ = self._open()
        async with self._write_lock:
            return await asyncio.to_thread(self._transaction, writer, self._nodes_tx, nodes, now)

    async def upsert_edges(self, edges: Sequence[EdgeWrite], now: str) -> list[WriteResult]:
        for edge in edges:
            check_edge_write(self._schema, edge)
        _, writer, _ = self._open()
        async with self._write_lock:
            return await asyncio.to_thread(self._transaction, writer, self._edges_tx, edges, now)

    @staticmethod
    def _transaction(writer: ladybug.Connection, body: Any, items: Any, now: str) -> Any:
        writer.execute("BEGIN TRANSACTION")
        try:
            result = body(writer, items, now)
        except BaseException:
            with contextlib.suppress(RuntimeError):  # a failed statement may have ended it
                writer.execute("ROLLBACK")
            raise
        writer.execute("COMMIT")
        return result

    def _nodes_tx(
        self, conn: ladybug.Connection, nodes: Sequence[NodeWrite], now: str
    ) -> list[WriteResult]:
        results = []
        for node in nodes:
            props = dict(node.properties)
            names = list(props)
            returns = "".join(f", n.`{p}`" for p in names)
            rows = _rows(
                conn.execute(
                    f"MATCH (n:{NODE_TABLE}) WHERE n.id = $id RETURN n.label{returns}",
                    {"id": node.id},
                )
            )
            params: dict[str, Any] = {"id": node.id, "now": now, "label": node.label, **props}
            if rows and rows[0][0] != node.label:
                raise SchemaViolation(f"node {node.id!r} exists as {rows[0][0]}")
            if not rows:
                assigns = "".join(f", `{p}`: ${p}" for p in names)
                conn.execute(
                    f"CREATE (n:{NODE_TABLE} {{id: $id, label: $label{assigns}, "
                    "created_at: $now, updated_at: $now})",
                    params,
                )
                outcome = WriteOutcome.CREATED
            elif names and any(rows[0][i + 1] != props[p] for i, p in enumerate(names)):
                assigns = "".join(f"n.`{p}` = ${p}, " for p in names)
                del params["label"]
                conn.execute(
                    f"MATCH (n:{NODE_TABLE}) WHERE n.id = $id SET {assigns}n.updated_at = $now",
                    params,
                )
                outcome = WriteOutcome.UPDATED
            else:
                outcome = WriteOutcome.UNCHANGED
            results.append(WriteResult(key=node.id, outcome=outcome))
        return results

    def _edges_tx(
        self, conn: ladybug.Connection, edges: Sequence[EdgeWrite], now: str
    ) -> list[WriteResult]:
        results = []
        for edge in edges:
            props = dict(edge.properties)
            names = list(props)
            ends = f"(a:{NODE_TABLE} {{id: $s}}), (b:{NODE_TABLE} {{id: $t}})"
            ids = {"s": edge.source_id, "t": edge.target_id}
            found = _rows(conn.execute(f"MATCH {ends} RETURN a.label, b.label", ids))
            if found != [[edge.source_label, edge.target_label]]:
                raise SchemaViolation(
                    f"edge {edge.type}: endpoint {edge.source_label} {edge.source_id!r} or "
                    f"{edge.target_label} {edge.target_id!r} missing"
                )
            pattern = f"(a:{NODE_TABLE} {{id: $s}})-[r:`{edge.type}`]->(b:{NODE_TABLE} {{id: $t}})"
            returns = ", ".join(f"r.`{p}`" for p in names) or "r.created_at"
            rows = _rows(conn.execute(f"MATCH {pattern} RETURN {returns}", ids))
            params: dict[str, Any] = {**ids, "now": now, **props}
            if not rows:
                assigns = "".join(f", `{p}`: ${p}" for p in names)
                conn.execute(
                    f"MATCH {ends} CREATE (a)-[r:`{edge.type}` {{created_at: $now, "
                    f"updated_at: $now{assigns}}}]->(b)",
                    params,
                )
                outcome = WriteOutcome.CREATED
            elif names and any(rows[0][i] != props[p] for i, p in enumerate(names)):
                assigns = "".join(f"r.`{p}` = ${p}, " for p in names)
                conn.execute(f"MATCH {pattern} SET {assigns}r.updated_at = $now", params)
                outcome = WriteOutcome.UPDATED
            else:
                outcome = WriteOutcome.UNCHANGED
            key = edge_key(edge.source_id, edge.type, edge.target_id)
            results.append(WriteResult(key=key, outcome=outcome))
        return results

    # -- reads -----------------------------------------------------------------------------

    async def _read(self, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        _, _, reader = self._open()
        try:
            result = await reader.execute(query, params or {})
        except RuntimeError as exc:
            raise GraphUnavailable(f"Ladybug query failed: {exc}") from exc
        return _rows(result)

    async def get_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        if not ids:
            return []
        rows = await self._read("MATCH (n) WHERE n.id IN $ids RETURN n", {"ids": list(ids)})
        return [_node_from_row(row[0]) for row in rows]

    async def find_concepts_by_label(self, normalised: str) -> list[GraphNode]:
        rows = await self._read(
            "MATCH (c:RgNode)-[:HAS_ALT_LABEL]->(l:RgNode) "
            "WHERE l.normalised = $x AND l.label = 'Label' AND c.label = 'Concept' "
            "RETURN DISTINCT c ORDER BY c.id",
            {"x": normalised},
        )
        return [_node_from_row(row[0]) for row in rows]

    async def _edges(self, where: str, params: dict[str, Any], limit: int) -> list[GraphEdge]:
        rows = await self._read(
            f"MATCH (a)-[r]->(b) WHERE {where} RETURN a.id, label(r), b.id, r "
            "ORDER BY a.id, b.id LIMIT $limit",
            {**params, "limit": limit},
        )
        return [
            GraphEdge(source=row[0], type=row[1], target=row[2], properties=_clean(row[3]))
            for row in rows
        ]

    async def neighbourhood(self, ids: Sequence[str], limit: int = 200) -> GraphSnapshot:
        if not ids:
            return GraphSnapshot()
        edges = await self._edges("a.id IN $ids OR b.id IN $ids", {"ids": list(ids)}, limit)
        node_ids = {*ids, *(e.source for e in edges), *(e.target for e in edges)}
        return GraphSnapshot(nodes=await self.get_nodes(sorted(node_ids)), edges=edges)

    async def snapshot(
        self, labels: Sequence[str] | None = None, limit: int = 1000
    ) -> GraphSnapshot:
        if labels:
            check_labels(self._schema, labels)
            rows = await self._read(
                "MATCH (n:RgNode) WHERE n.label IN $labels RETURN n ORDER BY n.id LIMIT $limit",
                {"labels": list(labels), "limit": limit},
            )
        else:
            rows = await self._read(
                "MATCH (n) RETURN n ORDER BY n.id LIMIT $limit", {"limit": limit}
            )
        nodes = [_node_from_row(row[0]) for row in rows]
        ids = [n.id for n in nodes]
        edges = await self._edges("a.id IN $ids AND b.id IN $ids", {"ids": ids}, limit * 4)
        return GraphSnapshot(nodes=nodes, edges=edges)

    async def changes_since(self, timestamp: str, limit: int = 1000) -> GraphSnapshot:
        rows = await self._read(
            "MATCH (n) WHERE n.updated_at > $ts RETURN n ORDER BY n.updated_at, n.id LIMIT $limit",
            {"ts": timestamp, "limit": limit},
        )
        edges = await self._edges("r.updated_at > $ts", {"ts": timestamp}, limit)
        return GraphSnapshot(nodes=[_node_from_row(row[0]) for row in rows], edges=edges)

    async def counts(self) -> GraphCounts:
        by_label = {
            str(row[0]): int(row[1])
            for row in await self._read("MATCH (n:RgNode) RETURN n.label, count(*)")
        }
        edges = await self._read("MATCH ()-[r]->() RETURN count(r)")
        return GraphCounts(
            nodes=sum(by_label.values()),
            edges=int(edges[0][0]) if edges else 0,
            by_label=by_label,
        )


def _rows(result: Any) -> list[list[Any]]:
    """All rows of a query result (Ladybug returns one result, or a list for multi-statements)."""
    if isinstance(result, list):
        result = result[-1]
    return list(result.get_all())
