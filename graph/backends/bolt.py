"""``GraphStore`` over Bolt with the official ``neo4j`` async driver (Memgraph, Neo4j).

Follows the driver's own rules: one driver per store, one session per unit of work,
``execute_write`` with idempotent transaction functions (the driver retries them on transient
errors), results consumed inside the transaction, literal query strings with parameters, and a
timeout on every unit of work (server-side through ``unit_of_work`` and client-side through
``asyncio.timeout``, because not every server enforces the former).

Deliberate deviations from the obvious, and why:

- Every node carries the shared label ``RgNode`` (unique ``id``) besides its schema label, so
  ``get_nodes(ids)`` and edge endpoint checks are one index seek without knowing labels.
- Change detection happens inside the write transaction: one UNWIND read of the stored
  properties, the plan of ``graph.write_plan`` (the same plan the Ladybug backend applies),
  then UNWIND writes of only the created and changed rows with the properties the plan sets
  (timestamps included).
- New nodes are ``CREATE``d, not ``MERGE``d: with the unique constraint the loser of a creation
  race fails with a constraint error instead of silently matching a node it believes it made.
  Drivers do not retry constraint errors, so this backend retries the whole transaction (the
  retry then reads the winner's node and reports UNCHANGED or UPDATED honestly). The dialect
  decides what counts as a lost race (``graph/backends/bolt_dialects.py``).
- An increment adds in the query (``SET r.c = coalesce(r.c, 0) + row.by``): Neo4j locks ``r``
  before it reads a property the ``SET`` depends on, Memgraph and ArcadeDB refuse one of two
  conflicting transactions with a transient error that the driver retries, so no concurrent
  increment is lost (ADR 0036).
- Labels, relationship types and property names are interpolated into query text only after
  they were checked against the schema; values are always parameters.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar

from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction, Query, unit_of_work
from neo4j.exceptions import DriverError, Neo4jError, ServiceUnavailable, SessionExpired
from tenacity import (
    AsyncRetrying,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

from errors import GraphUnavailable, RegintelError
from graph.backends.bolt_dialects import NODE_LABEL, Dialect, get_dialect
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
    "BoltGraphStore",
]

log = logging.getLogger(__name__)
T = TypeVar("T")
W = TypeVar("W", NodeWrite, EdgeWrite)

_NODE_COLUMNS = "n.id AS id, labels(n) AS labels, properties(n) AS props"


class BoltGraphStore:
    """``GraphStore`` on a Bolt server. Build it with :func:`graph.factory.build_graph_store`."""

    def __init__(
        self,
        uri: str,
        schema: GraphSchema,
        *,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
        dialect: str = "memgraph",
        max_pool_size: int = 20,
        timeout_s: float = 15.0,
        connect_timeout_s: float = 5.0,
        batch_size: int = 500,
        race_retries: int = 8,
    ) -> None:
        self._schema = schema
        self._dialect: Dialect = get_dialect(dialect)
        self._database = database or None
        self._timeout_s = timeout_s
        self._batch_size = batch_size
        self._race_retries = race_retries
        auth = (user, password or "") if user else None
        self._driver: AsyncDriver = AsyncGraphDatabase.driver(
            uri,
            auth=auth,
            max_connection_pool_size=max_pool_size,
            connection_acquisition_timeout=timeout_s,
            connection_timeout=connect_timeout_s,
            max_transaction_retry_time=timeout_s,
        )
        self._lifetime = Lifetime("the Bolt graph store")

    # -- units of work ---------------------------------------------------------------------

    async def _unit(self, work: Callable[[], Awaitable[T]]) -> T:
        """Run one unit of work under a deadline, mapping driver errors to ours."""
        self._lifetime.check()
        try:
            async with asyncio.timeout(self._timeout_s):
                return await work()
        except RegintelError:
            raise
        except TimeoutError as exc:
            raise GraphUnavailable(f"graph did not answer within {self._timeout_s:.1f}s") from exc
        except (ServiceUnavailable, SessionExpired, OSError) as exc:
            raise GraphUnavailable(f"graph server unreachable: {exc}") from exc
        except Neo4jError as exc:
            if exc.code and ".TransientError." in exc.code:
                raise GraphUnavailable(f"graph busy, retries exhausted: {exc}") from exc
            raise RegintelError(f"graph query failed: {exc.code}: {exc.message}") from exc
        except DriverError as exc:
            raise GraphUnavailable(f"graph driver error: {exc}") from exc

    async def _write(self, body: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        function = unit_of_work(timeout=self._timeout_s)(body)

        async def attempt() -> T:
            async for retry in AsyncRetrying(
                retry=retry_if_exception(self._dialect.is_creation_race),
                stop=stop_after_attempt(self._race_retries),
                wait=wait_random_exponential(multiplier=0.01, max=0.25),
                reraise=True,
            ):
                with retry:
                    async with self._driver.session(database=self._database) as session:
                        return await session.execute_write(function)
            raise AssertionError("unreachable")  # pragma: no cover

        return await self._unit(attempt)

    async def _read(self, query: str, **params: Any) -> list[dict[str, Any]]:
        async def body(tx: AsyncManagedTransaction) -> list[dict[str, Any]]:
            result = await tx.run(query, params)
            return await result.data()

        function = unit_of_work(timeout=self._timeout_s)(body)

        async def work() -> list[dict[str, Any]]:
            async with self._driver.session(database=self._database) as session:
                return await session.execute_read(function)

        return await self._unit(work)

    # -- lifecycle -------------------------------------------------------------------------

    async def init_schema(self) -> None:
        """Create the dialect's constraints and indexes. DDL runs in auto-commit transactions
        because Memgraph refuses index changes inside explicit ones."""

        async def work() -> None:
            async with self._driver.session(database=self._database) as session:
                for step in self._dialect.ddl(self._schema):
                    await self._ddl_step(session, step.alternatives, step.optional)

        await self._unit(work)

    async def _ddl_step(self, session: Any, alternatives: tuple[str, ...], optional: bool) -> None:
        errors: list[str] = []
        for statement in alternatives:
            try:
                result = await session.run(Query(statement, timeout=self._timeout_s))
                await result.consume()
                return
            except Neo4jError as exc:
                if "already exists" in (exc.message or "").lower():
                    return
                errors.append(f"{statement}: {exc.message}")
        if optional:
            log.warning("optional graph DDL not supported by the server: %s", "; ".join(errors))
            return
        raise RegintelError(f"graph DDL failed: {'; '.join(errors)}")

    async def ping(self) -> None:
        await self._read("RETURN 1 AS ok")

    async def aclose(self) -> None:
        """Close the driver for good: any later call raises :class:`errors.AdapterClosed`.
        Idempotent."""
        self._lifetime.close()
        with contextlib.suppress(DriverError, OSError):  # closing what already broke
            await self._driver.close()

    # -- rows ------------------------------------------------------------------------------

    def _label_of(self, labels: Sequence[str]) -> str:
        for label in labels:
            if label in self._schema.labels:
                return label
        return next((label for label in labels if label != NODE_LABEL), NODE_LABEL)

    def _node(self, row: dict[str, Any]) -> GraphNode:
        props = {k: v for k, v in row["props"].items() if k != "id" and v is not None}
        return GraphNode(id=str(row["id"]), label=self._label_of(row["labels"]), properties=props)

    # -- writes ----------------------------------------------------------------------------

    async def upsert_nodes(self, nodes: Sequence[NodeWrite], now: str) -> list[WriteResult]:
        return await self._upsert(nodes, check_node_write, self._nodes_tx, now)

    async def upsert_edges(self, edges: Sequence[EdgeWrite], now: str) -> list[WriteResult]:
        return await self._upsert(edges, check_edge_write, self._edges_tx, now)

    async def delete_nodes(self, ids: Sequence[str], now: str) -> list[WriteResult]:
        self._lifetime.check()  # an empty call refuses too
        if not ids:
            return []
        wanted = sorted(set(ids))

        async def transaction(tx: AsyncManagedTransaction) -> list[WriteResult]:
            present: set[str] = set()
            for chunk in _chunks(wanted, self._batch_size):
                result = await tx.run(
                    f"MATCH (n:{NODE_LABEL}) WHERE n.id IN $ids RETURN n.id AS id", ids=chunk
                )
                present.update(str(row["id"]) for row in await result.data())
                result = await tx.run(
                    f"MATCH (n:{NODE_LABEL}) WHERE n.id IN $ids DETACH DELETE n", ids=chunk
                )
                await result.consume()
            return removal_results(ids, present)

        return await self._write(transaction)

    async def increment_edges(self, increments: Sequence[EdgeIncrement]) -> list[WriteResult]:
        for item in increments:
            check_edge_increment(self._schema, item)
        self._lifetime.check()  # an empty call refuses too
        if not increments:
            return []
        plan = plan_increments(increments)

        async def transaction(tx: AsyncManagedTransaction) -> list[WriteResult]:
            counted: set[EdgeKey] = set()
            for rel_type, keys in edges_by_type(plan.amounts).items():
                for counter in sorted({c for key in keys for c in plan.amounts[key]}):
                    rows = [
                        {"s": key.source, "t": key.target, "by": plan.amounts[key][counter]}
                        for key in keys
                        if counter in plan.amounts[key]
                    ]
                    for chunk in _chunks(rows, self._batch_size):
                        result = await tx.run(
                            f"UNWIND $rows AS row MATCH {_rel_pattern(rel_type)} "
                            f"SET r.`{counter}` = coalesce(r.`{counter}`, 0) + row.by "
                            "RETURN row.s AS s, row.t AS t",
                            rows=chunk,
                        )
                        counted.update(
                            EdgeKey(source=row["s"], type=rel_type, target=row["t"])
                            for row in await result.data()
                        )
            return plan.results(counted)

        return await self._write(transaction)

    async def _upsert(
        self,
        items: Sequence[W],
        check: Callable[[GraphSchema, W], None],
        body: Callable[[AsyncManagedTransaction, Sequence[W], str], Awaitable[list[WriteResult]]],
        now: str,
    ) -> list[WriteResult]:
        """Check every item, then run ``body`` as one (retryable) write transaction."""
        self._lifetime.check()  # before the checks: a closed store says so first
        for item in items:
            check(self._schema, item)
        if not items:
            return []

        async def transaction(tx: AsyncManagedTransaction) -> list[WriteResult]:
            return await body(tx, items, now)

        return await self._write(transaction)

    async def _nodes_tx(
        self, tx: AsyncManagedTransaction, nodes: Sequence[NodeWrite], now: str
    ) -> list[WriteResult]:
        ids = sorted({node.id for node in nodes})
        stored: dict[str, GraphNode] = {}
        for chunk in _chunks(ids, self._batch_size):
            result = await tx.run(
                f"MATCH (n:{NODE_LABEL}) WHERE n.id IN $ids RETURN {_NODE_COLUMNS}", ids=chunk
            )
            stored.update((row["id"], self._node(row)) for row in await result.data())
        plan = plan_nodes(self._schema, nodes, stored, now)
        labels = {node.id: node.label for node in nodes}
        by_label: dict[str, list[dict[str, Any]]] = {}
        for node_id, props in plan.creates.items():
            by_label.setdefault(labels[node_id], []).append({"id": node_id, "props": props})
        for label, rows in by_label.items():
            await self._run_rows(
                tx,
                f"UNWIND $rows AS row CREATE (n:{NODE_LABEL}:`{label}`) "
                "SET n += row.props, n.id = row.id",
                rows,
            )
        await self._run_rows(
            tx,
            f"UNWIND $rows AS row MATCH (n:{NODE_LABEL} {{id: row.id}}) SET n += row.props",
            [{"id": node_id, "props": props} for node_id, props in plan.updates.items()],
        )
        return plan.results

    async def _edges_tx(
        self, tx: AsyncManagedTransaction, edges: Sequence[EdgeWrite], now: str
    ) -> list[WriteResult]:
        ids = sorted({e.source_id for e in edges} | {e.target_id for e in edges})
        endpoints: dict[str, str] = {}
        for chunk in _chunks(ids, self._batch_size):
            result = await tx.run(
                f"MATCH (n:{NODE_LABEL}) WHERE n.id IN $ids RETURN n.id AS id, labels(n) AS labels",
                ids=chunk,
            )
            rows = await result.data()
            endpoints.update((row["id"], self._label_of(row["labels"])) for row in rows)
        stored = await self._stored_edges(tx, [edge.key for edge in edges])
        plan = plan_edges(self._schema, edges, endpoints, stored, now)
        ends = f"MATCH (a:{NODE_LABEL} {{id: row.s}}) MATCH (b:{NODE_LABEL} {{id: row.t}}) "
        for rel_type in sorted({edge.type for edge in edges}):
            # MERGE, not CREATE: relationships have no unique constraint, and MERGE between
            # bound nodes locks both ends on Neo4j, so a concurrent duplicate is matched.
            await self._run_rows(
                tx,
                f"UNWIND $rows AS row {ends}MERGE (a)-[r:`{rel_type}`]->(b) "
                "ON CREATE SET r += row.props",
                _edge_rows(plan.creates, rel_type),
            )
            await self._run_rows(
                tx,
                f"UNWIND $rows AS row MATCH {_rel_pattern(rel_type)} SET r += row.props",
                _edge_rows(plan.updates, rel_type),
            )
        return plan.results

    async def _stored_edges(
        self, tx: AsyncManagedTransaction, keys: Iterable[EdgeKey]
    ) -> dict[EdgeKey, dict[str, Any]]:
        """The stored properties of the edges with these keys that exist (by type, in chunks)."""
        stored: dict[EdgeKey, dict[str, Any]] = {}
        for rel_type, of_type in edges_by_type(keys).items():
            for chunk in _chunks(of_type, self._batch_size):
                result = await tx.run(
                    f"UNWIND $rows AS row MATCH {_rel_pattern(rel_type)} "
                    "RETURN row.s AS s, row.t AS t, properties(r) AS props",
                    rows=[{"s": key.source, "t": key.target} for key in chunk],
                )
                for row in await result.data():
                    key = EdgeKey(source=row["s"], type=rel_type, target=row["t"])
                    stored[key] = {k: v for k, v in row["props"].items() if v is not None}
        return stored

    async def _run_rows(
        self, tx: AsyncManagedTransaction, query: str, rows: Sequence[dict[str, Any]]
    ) -> None:
        """Run an ``UNWIND $rows`` write over ``rows``, a batch at a time."""
        for chunk in _chunks(rows, self._batch_size):
            result = await tx.run(query, rows=chunk)
            await result.consume()

    # -- reads -----------------------------------------------------------------------------

    async def get_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        self._lifetime.check()  # an empty call refuses too
        if not ids:
            return []
        rows = await self._read(
            f"MATCH (n:{NODE_LABEL}) WHERE n.id IN $ids RETURN {_NODE_COLUMNS}", ids=list(ids)
        )
        return [self._node(row) for row in rows]

    async def find_concepts_by_label(self, normalised: str) -> list[GraphNode]:
        rows = await self._read(
            "MATCH (n:Concept)-[:HAS_ALT_LABEL]->(l:Label) WHERE l.normalised = $x "
            f"WITH DISTINCT n RETURN {_NODE_COLUMNS} ORDER BY id",
            x=normalised,
        )
        return [self._node(row) for row in rows]

    async def quarantined_concepts(
        self, jurisdictions: Sequence[str], limit: int = 1000
    ) -> list[tuple[GraphNode, list[str]]]:
        self._lifetime.check()
        if not jurisdictions:
            return []
        rows = await self._read(
            "MATCH (n:Concept) WHERE n.status = 'provisional' AND n.jurisdiction IN $j "
            "OPTIONAL MATCH (n)-[:HAS_ALT_LABEL]->(l:Label) "
            f"WITH n, collect(l.text) AS texts RETURN {_NODE_COLUMNS}, texts "
            "ORDER BY id LIMIT $limit",
            j=list(dict.fromkeys(jurisdictions)),
            limit=limit,
        )
        return [
            (self._node(row), sorted({str(t) for t in row["texts"] if t is not None}))
            for row in rows
        ]

    @staticmethod
    def _edge(row: dict[str, Any]) -> GraphEdge:
        props = {k: v for k, v in row["props"].items() if v is not None}
        return GraphEdge(source=row["s"], target=row["t"], type=row["type"], properties=props)

    async def _edges(self, match_where: str, limit: int, **params: Any) -> list[GraphEdge]:
        rows = await self._read(
            f"{match_where} RETURN a.id AS s, type(r) AS type, b.id AS t, "
            "properties(r) AS props ORDER BY s, t, type LIMIT $limit",
            limit=limit,
            **params,
        )
        return [self._edge(row) for row in rows]

    async def neighbourhood(self, ids: Sequence[str], limit: int = 200) -> GraphSnapshot:
        self._lifetime.check()  # an empty call refuses too
        if not ids:
            return GraphSnapshot()
        # Two index-driven halves instead of one "a.id IN $ids OR b.id IN $ids" scan.
        edges = await self._edges(
            f"MATCH (a:{NODE_LABEL})-[r]->(b:{NODE_LABEL}) WHERE a.id IN $ids",
            limit,
            ids=list(ids),
        )
        edges += await self._edges(
            f"MATCH (a:{NODE_LABEL})-[r]->(b:{NODE_LABEL}) WHERE b.id IN $ids AND NOT a.id IN $ids",
            limit,
            ids=list(ids),
        )
        edges = sorted(edges, key=lambda e: (e.source, e.target, e.type))[:limit]
        node_ids = {*ids, *(e.source for e in edges), *(e.target for e in edges)}
        return GraphSnapshot(nodes=await self.get_nodes(sorted(node_ids)), edges=edges)

    async def snapshot(
        self, labels: Sequence[str] | None = None, limit: int = 1000
    ) -> GraphSnapshot:
        if labels:
            check_labels(self._schema, labels)
            rows = await self._read(
                f"MATCH (n:{NODE_LABEL}) WHERE any(l IN labels(n) WHERE l IN $labels) "
                f"RETURN {_NODE_COLUMNS} ORDER BY id LIMIT $limit",
                labels=list(labels),
                limit=limit,
            )
        else:
            rows = await self._read(
                f"MATCH (n:{NODE_LABEL}) RETURN {_NODE_COLUMNS} ORDER BY id LIMIT $limit",
                limit=limit,
            )
        nodes = [self._node(row) for row in rows]
        edges = await self._edges(
            f"MATCH (a:{NODE_LABEL})-[r]->(b:{NODE_LABEL}) WHERE a.id IN $ids AND b.id IN $ids",
            limit * 4,
            ids=[n.id for n in nodes],
        )
        return GraphSnapshot(nodes=nodes, edges=edges)

    async def changes_since(self, timestamp: str, limit: int = 1000) -> GraphSnapshot:
        rows = await self._read(
            f"MATCH (n:{NODE_LABEL}) WHERE n.updated_at > $ts "
            f"RETURN {_NODE_COLUMNS} ORDER BY n.updated_at, id LIMIT $limit",
            ts=timestamp,
            limit=limit,
        )
        edges = await self._edges(
            f"MATCH (a:{NODE_LABEL})-[r]->(b:{NODE_LABEL}) WHERE r.updated_at > $ts",
            limit,
            ts=timestamp,
        )
        return GraphSnapshot(nodes=[self._node(row) for row in rows], edges=edges)

    async def counts(self) -> GraphCounts:
        rows = await self._read(f"MATCH (n:{NODE_LABEL}) RETURN labels(n) AS labels, count(*) AS c")
        by_label: dict[str, int] = {}
        for row in rows:
            label = self._label_of(row["labels"])
            by_label[label] = by_label.get(label, 0) + int(row["c"])
        edges = await self._read(f"MATCH (:{NODE_LABEL})-[r]->(:{NODE_LABEL}) RETURN count(r) AS c")
        return GraphCounts(
            nodes=sum(by_label.values()),
            edges=int(edges[0]["c"]) if edges else 0,
            by_label=by_label,
        )


def _rel_pattern(rel_type: str) -> str:
    """The relationship of type ``rel_type`` between the ids ``row.s`` and ``row.t``."""
    return f"(a:{NODE_LABEL} {{id: row.s}})-[r:`{rel_type}`]->(b:{NODE_LABEL} {{id: row.t}})"


def _edge_rows(items: dict[EdgeKey, dict[str, Any]], rel_type: str) -> list[dict[str, Any]]:
    return [
        {"s": key.source, "t": key.target, "props": props}
        for key, props in items.items()
        if key.type == rel_type
    ]


def _chunks(items: Sequence[T], size: int) -> list[Sequence[T]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
