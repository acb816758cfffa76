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
- A write reads what its batch touches in one query per table, lets ``graph.write_plan`` decide
  (the Bolt backend applies the same plan), then writes row by row inside one transaction.
- An increment adds in the query (``SET r.c = coalesce(r.c, 0) + $by``) under the same single
  writer, so it is atomic in this process; another process cannot open the folder for writing
  at all (ADR 0036).
- Errors: Ladybug raises ``RuntimeError`` for everything and says in the message's prefix what
  went wrong, so :func:`translate_error` maps by prefix (``graph/port.py`` has the table). A
  writer connection that failed is closed and replaced on the next write, so a write that
  failed because the connection broke succeeds when it is retried.
- Labels, relationship types and property names are interpolated into query text only after
  they were checked against the schema (they are identifiers, which Cypher cannot take as
  parameters); values are always parameters.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar

import ladybug

from errors import GraphUnavailable, RegintelError, SchemaViolation
from graph.backends.write_checks import (
    check_edge_increment,
    check_edge_write,
    check_labels,
    check_node_write,
)
from graph.models import (
    EdgeIncrement,
    EdgeKey,
    EdgeWrite,
    GraphCounts,
    GraphEdge,
    GraphNode,
    GraphSnapshot,
    NodeWrite,
    WriteResult,
)
from graph.schema import GraphSchema
from graph.write_plan import (
    edges_by_type,
    plan_edges,
    plan_increments,
    plan_nodes,
    removal_results,
)
from infra.lifetime import Lifetime

__all__ = [
    "NODE_TABLE",
    "LadybugGraphStore",
    "schema_ddl",
    "translate_error",
]

T = TypeVar("T")
W = TypeVar("W", NodeWrite, EdgeWrite)

_DDL_TYPES = {
    "string": "STRING",
    "int": "INT64",
    "float": "DOUBLE",
    "bool": "BOOLEAN",
    "string[]": "STRING[]",
}
_INTERNAL_KEYS = ("_ID", "_LABEL", "_SRC", "_DST", "label")
# What the driver raises (RuntimeError for every query failure, OSError opening the folder).
_DRIVER_ERRORS = (RuntimeError, OSError)
# Message prefixes of failures that are the database's schema refusing the statement.
_SCHEMA_MISMATCH = ("Binder exception", "Catalog exception", "Conversion exception")

NODE_TABLE = "RgNode"


_LOCKED: Final = "Could not set lock on file"


def schema_ddl(schema: GraphSchema) -> list[str]:
    """The ``CREATE ... TABLE IF NOT EXISTS`` statements for a schema (node table first), and
    an ``ALTER TABLE ... ADD IF NOT EXISTS`` per node property and per relationship counter for
    databases made earlier."""
    columns = ", ".join(
        f"`{name}` {_DDL_TYPES[kind]}" for name, kind in schema.property_types.items()
    )
    statements = [
        f"CREATE NODE TABLE IF NOT EXISTS {NODE_TABLE}({columns}, label STRING, PRIMARY KEY(id))"
    ]
    # A database made by an older schema gains the properties added since (no-ops otherwise).
    statements += [
        f"ALTER TABLE {NODE_TABLE} ADD IF NOT EXISTS `{name}` {_DDL_TYPES[kind]}"
        for name, kind in schema.property_types.items()
        if name != "id"
    ]
    rel_props = (*schema.relationship_properties, *schema.relationship_counters)
    rel_columns = ", ".join(f"`{p}` {_DDL_TYPES[schema.property_types[p]]}" for p in rel_props)
    for rel in schema.relationships.values():
        statements.append(
            f"CREATE REL TABLE IF NOT EXISTS `{rel.name}`"
            f"(FROM {NODE_TABLE} TO {NODE_TABLE}, {rel_columns})"
        )
    # Counters came later than the tables (ADR 0036): older databases gain them here.
    statements += [
        f"ALTER TABLE `{rel}` ADD IF NOT EXISTS `{name}` {_DDL_TYPES[schema.property_types[name]]}"
        for rel in schema.relationships
        for name in schema.relationship_counters
    ]
    return statements


def translate_error(exc: Exception, doing: str) -> RegintelError:
    """The project's error for a driver failure (``graph/port.py`` documents the mapping)."""
    message = str(exc)
    if message.startswith(_SCHEMA_MISMATCH):
        return SchemaViolation(f"{doing}: the database's schema refused it: {message}")
    if message.startswith("Parser exception"):
        return RegintelError(f"{doing}: Ladybug could not parse the query: {message}")
    return GraphUnavailable(f"{doing}: {message}")


def _node_from_row(value: dict[str, Any]) -> GraphNode:
    props = _clean(value)
    node_id = str(props.pop("id"))
    return GraphNode(id=node_id, label=str(value["label"]), properties=props)


def _clean(props: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k not in _INTERNAL_KEYS and v is not None}


def _values(props: dict[str, Any]) -> dict[str, Any]:
    """Properties as query parameters: prefixed, so no name can shadow ``$id``, ``$s``, ..."""
    return {f"p_{name}": value for name, value in props.items()}


def _fields(props: Iterable[str]) -> str:
    return ", ".join(f"`{p}`: $p_{p}" for p in props)


def _assignments(variable: str, props: Iterable[str]) -> str:
    return ", ".join(f"{variable}.`{p}` = $p_{p}" for p in props)


def _rel_pattern(rel_type: str, source: str = "$s", target: str = "$t") -> str:
    return f"(a:{NODE_TABLE} {{id: {source}}})-[r:`{rel_type}`]->(b:{NODE_TABLE} {{id: {target}}})"


def _stored_edges(
    conn: ladybug.Connection, keys: Iterable[EdgeKey]
) -> dict[EdgeKey, dict[str, Any]]:
    """The stored properties of the edges with these keys that exist (one query per type)."""
    stored: dict[EdgeKey, dict[str, Any]] = {}
    for rel_type, of_type in edges_by_type(keys).items():
        found = conn.execute(
            f"UNWIND $pairs AS p MATCH {_rel_pattern(rel_type, 'p.s', 'p.t')} RETURN p.s, p.t, r",
            {"pairs": [{"s": key.source, "t": key.target} for key in of_type]},
        )
        for source, target, rel in _rows(found):
            stored[EdgeKey(source=source, type=rel_type, target=target)] = _clean(rel)
    return stored


def _transaction(conn: ladybug.Connection, body: Callable[[], T]) -> T:
    conn.execute("BEGIN TRANSACTION")
    try:
        result = body()
    except BaseException:
        with contextlib.suppress(*_DRIVER_ERRORS):  # a failed statement may have ended it
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return result


class LadybugGraphStore:
    """``GraphStore`` over an on-disk Ladybug database at ``path``."""

    def __init__(
        self,
        path: Path,
        schema: GraphSchema,
        *,
        buffer_pool_mb: int = 256,
        read_only: bool = False,
    ) -> None:
        self._path = path
        self._schema = schema
        self._read_only = read_only  # beside a process that writes (one writer, many readers)
        self._buffer_pool_bytes = buffer_pool_mb * 1024 * 1024
        self._db: ladybug.Database | None = None
        self._writer: ladybug.Connection | None = None
        self._reader: ladybug.AsyncConnection | None = None
        self._write_lock = asyncio.Lock()
        self._lifetime = Lifetime("the Ladybug graph store")

    # -- lifecycle -------------------------------------------------------------------------

    def _open(self) -> tuple[ladybug.Database, ladybug.Connection, ladybug.AsyncConnection]:
        """The database and its connections, opening whatever is not open yet (never after
        :meth:`aclose`: :class:`errors.AdapterClosed`)."""
        self._lifetime.check()
        try:
            if self._db is None:
                self._path.parent.mkdir(parents=True, exist_ok=True)
                self._db = ladybug.Database(
                    str(self._path),
                    buffer_pool_size=self._buffer_pool_bytes,
                    read_only=self._read_only,
                )
            if self._writer is None:
                self._writer = ladybug.Connection(self._db)
            if self._reader is None:
                self._reader = ladybug.AsyncConnection(self._db, max_concurrent_queries=4)
        except _DRIVER_ERRORS as exc:
            if _LOCKED in str(exc):
                raise GraphUnavailable(
                    f"the graph at {self._path} is in use by another process (a running "
                    "server?): it can be read beside it, not written"
                ) from exc
            raise GraphUnavailable(f"cannot open Ladybug database at {self._path}") from exc
        return self._db, self._writer, self._reader

    async def _on_writer(self, work: Callable[[ladybug.Connection], T], doing: str) -> T:
        """Run ``work`` on the single writer connection in a worker thread, one at a time."""
        async with self._write_lock:
            _, writer, _ = self._open()
            try:
                return await asyncio.to_thread(work, writer)
            except _DRIVER_ERRORS as exc:
                # Broken, or left inside a transaction: the next unit of work gets a new one.
                self._writer = None
                with contextlib.suppress(*_DRIVER_ERRORS):
                    writer.close()
                raise translate_error(exc, doing) from exc

    async def init_schema(self) -> None:
        if self._read_only:
            self._open()  # nothing to create; fail now if the database is not there
            return
        await self._on_writer(self._run_ddl, "Ladybug schema set-up failed")

    def _run_ddl(self, writer: ladybug.Connection) -> None:
        for statement in schema_ddl(self._schema):
            writer.execute(statement)

    async def ping(self) -> None:
        await self._read("RETURN 1")

    async def aclose(self) -> None:
        """Close the database for good: a write in progress ends first, any later call raises
        :class:`errors.AdapterClosed`. Idempotent."""
        self._lifetime.close()
        async with self._write_lock:
            for handle in (self._reader, self._writer, self._db):
                if handle is not None:
                    with contextlib.suppress(*_DRIVER_ERRORS):  # closing what already broke
                        handle.close()
            self._db = self._writer = self._reader = None

    # -- writes ----------------------------------------------------------------------------

    async def upsert_nodes(self, nodes: Sequence[NodeWrite], now: str) -> list[WriteResult]:
        return await self._upsert(nodes, check_node_write, self._nodes_tx, now)

    async def upsert_edges(self, edges: Sequence[EdgeWrite], now: str) -> list[WriteResult]:
        return await self._upsert(edges, check_edge_write, self._edges_tx, now)

    async def delete_nodes(self, ids: Sequence[str], now: str) -> list[WriteResult]:
        self._lifetime.check()  # an empty call refuses too
        if not ids:
            return []

        def body(conn: ladybug.Connection) -> list[WriteResult]:
            wanted = sorted(set(ids))
            found = conn.execute(
                f"MATCH (n:{NODE_TABLE}) WHERE n.id IN $ids RETURN n.id", {"ids": wanted}
            )
            present = {str(row[0]) for row in _rows(found)}
            if present:
                conn.execute(
                    f"MATCH (n:{NODE_TABLE}) WHERE n.id IN $ids DETACH DELETE n",
                    {"ids": sorted(present)},
                )
            return removal_results(ids, present)

        def work(conn: ladybug.Connection) -> list[WriteResult]:
            return _transaction(conn, functools.partial(body, conn))

        return await self._on_writer(work, "Ladybug delete failed")

    async def increment_edges(self, increments: Sequence[EdgeIncrement]) -> list[WriteResult]:
        for item in increments:
            check_edge_increment(self._schema, item)
        self._lifetime.check()  # an empty call refuses too
        if not increments:
            return []
        plan = plan_increments(increments)

        def body(conn: ladybug.Connection) -> list[WriteResult]:
            counted: set[EdgeKey] = set()
            for key, amounts in plan.amounts.items():
                adds = ", ".join(
                    f"r.`{c}` = coalesce(r.`{c}`, 0) + $by_{c}" for c in sorted(amounts)
                )
                found = conn.execute(
                    f"MATCH {_rel_pattern(key.type)} SET {adds} RETURN a.id",
                    {
                        **{f"by_{c}": n for c, n in amounts.items()},
                        "s": key.source,
                        "t": key.target,
                    },
                )
                if _rows(found):
                    counted.add(key)
            return plan.results(counted)

        def work(conn: ladybug.Connection) -> list[WriteResult]:
            return _transaction(conn, functools.partial(body, conn))

        return await self._on_writer(work, "Ladybug increment failed")

    async def _upsert(
        self,
        items: Sequence[W],
        check: Callable[[GraphSchema, W], None],
        body: Callable[[ladybug.Connection, Sequence[W], str], list[WriteResult]],
        now: str,
    ) -> list[WriteResult]:
        """Check every item, then run ``body`` as one transaction on the writer."""
        self._lifetime.check()  # before the checks: a closed store says so first
        for item in items:
            check(self._schema, item)
        if not items:
            return []

        def work(conn: ladybug.Connection) -> list[WriteResult]:
            return _transaction(conn, functools.partial(body, conn, items, now))

        return await self._on_writer(work, "Ladybug write failed")

    def _nodes_tx(
        self, conn: ladybug.Connection, nodes: Sequence[NodeWrite], now: str
    ) -> list[WriteResult]:
        ids = sorted({node.id for node in nodes})
        found = conn.execute(f"MATCH (n:{NODE_TABLE}) WHERE n.id IN $ids RETURN n", {"ids": ids})
        stored = {node.id: node for node in (_node_from_row(row[0]) for row in _rows(found))}
        plan = plan_nodes(self._schema, nodes, stored, now)
        labels = {node.id: node.label for node in nodes}
        for node_id, props in plan.creates.items():
            conn.execute(
                f"CREATE (n:{NODE_TABLE} {{id: $id, label: $label, {_fields(props)}}})",
                {**_values(props), "id": node_id, "label": labels[node_id]},
            )
        for node_id, props in plan.updates.items():
            conn.execute(
                f"MATCH (n:{NODE_TABLE}) WHERE n.id = $id SET {_assignments('n', props)}",
                {**_values(props), "id": node_id},
            )
        return plan.results

    def _edges_tx(
        self, conn: ladybug.Connection, edges: Sequence[EdgeWrite], now: str
    ) -> list[WriteResult]:
        ids = sorted({e.source_id for e in edges} | {e.target_id for e in edges})
        found = conn.execute(
            f"MATCH (n:{NODE_TABLE}) WHERE n.id IN $ids RETURN n.id, n.label", {"ids": ids}
        )
        endpoints = {str(row[0]): str(row[1]) for row in _rows(found)}
        stored = _stored_edges(conn, [edge.key for edge in edges])
        plan = plan_edges(self._schema, edges, endpoints, stored, now)
        ends = f"(a:{NODE_TABLE} {{id: $s}}), (b:{NODE_TABLE} {{id: $t}})"
        for key, props in plan.creates.items():
            conn.execute(
                f"MATCH {ends} CREATE (a)-[r:`{key.type}` {{{_fields(props)}}}]->(b)",
                {**_values(props), "s": key.source, "t": key.target},
            )
        for key, props in plan.updates.items():
            conn.execute(
                f"MATCH {_rel_pattern(key.type)} SET {_assignments('r', props)}",
                {**_values(props), "s": key.source, "t": key.target},
            )
        return plan.results

    # -- reads -----------------------------------------------------------------------------

    async def _read(self, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        _, _, reader = self._open()
        try:
            return _rows(await reader.execute(query, params or {}))
        except _DRIVER_ERRORS as exc:
            raise translate_error(exc, "Ladybug read failed") from exc

    async def get_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        self._lifetime.check()  # an empty call refuses too
        if not ids:
            return []
        # One primary-key lookup per id: `WHERE n.id IN $ids` scanned every node (2.7 ms
        # against 0.3 ms on the seeded graph of ~2,200 nodes, ADR 0039).
        rows = await self._read(
            f"UNWIND $ids AS i MATCH (n:{NODE_TABLE} {{id: i}}) RETURN n",
            {"ids": list(dict.fromkeys(ids))},
        )
        return [_node_from_row(row[0]) for row in rows]

    async def find_concepts_by_label(self, normalised: str) -> list[GraphNode]:
        rows = await self._read(
            "MATCH (c:RgNode)-[:HAS_ALT_LABEL]->(l:RgNode) "
            "WHERE l.normalised = $x AND l.label = 'Label' AND c.label = 'Concept' "
            "RETURN DISTINCT c ORDER BY c.id",
            {"x": normalised},
        )
        return [_node_from_row(row[0]) for row in rows]

    async def quarantined_concepts(
        self, jurisdictions: Sequence[str], limit: int = 1000
    ) -> list[tuple[GraphNode, list[str]]]:
        self._lifetime.check()
        if not jurisdictions:
            return []
        rows = await self._read(
            "MATCH (c:RgNode) WHERE c.label = 'Concept' AND c.status = 'provisional' "
            "AND c.jurisdiction IN $j "
            "OPTIONAL MATCH (c)-[:HAS_ALT_LABEL]->(l:RgNode) WHERE l.label = 'Label' "
            "RETURN c, collect(l.text) ORDER BY c.id LIMIT $limit",
            {"j": list(dict.fromkeys(jurisdictions)), "limit": limit},
        )
        return [
            (_node_from_row(row[0]), sorted({str(t) for t in row[1] if t is not None}))
            for row in rows
        ]

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
        self._lifetime.check()  # an empty call refuses too
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
