"""Build the configured ``GraphStore``. Called by the composition root with values from settings;
it takes keyword arguments only and imports no settings itself. Nothing connects here: the
first query (or ``ping``) opens the connection."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from graph.port import GraphStore
from graph.schema import GraphSchema

__all__ = ["BoltDialect", "GraphBackend", "build_graph_store"]

GraphBackend = Literal["ladybug", "bolt"]
BoltDialect = Literal["memgraph", "neo4j"]


def build_graph_store(
    backend: GraphBackend,
    *,
    schema: GraphSchema,
    ladybug_path: Path | None = None,
    ladybug_read_only: bool = False,
    bolt_uri: str | None = None,
    bolt_user: str | None = None,
    bolt_password: str | None = None,
    bolt_database: str | None = None,
    bolt_dialect: BoltDialect = "memgraph",
    bolt_max_pool_size: int = 20,
    bolt_timeout_s: float = 15.0,
    bolt_connect_timeout_s: float = 5.0,
) -> GraphStore:
    """The ``GraphStore`` for ``backend``; raises ``ValueError`` if its settings are missing.

    ``bolt_database`` empty or ``None`` means the server's default database (Memgraph
    community has exactly one).
    """
    if backend == "ladybug":
        if ladybug_path is None:
            raise ValueError("the ladybug graph backend needs ladybug_path")
        from graph.backends.ladybug import LadybugGraphStore

        return LadybugGraphStore(ladybug_path, schema, read_only=ladybug_read_only)
    if backend == "bolt":
        if not bolt_uri:
            raise ValueError("the bolt graph backend needs bolt_uri")
        from graph.backends.bolt import BoltGraphStore

        return BoltGraphStore(
            bolt_uri,
            schema,
            user=bolt_user or None,
            password=bolt_password,
            database=bolt_database or None,
            dialect=bolt_dialect,
            max_pool_size=bolt_max_pool_size,
            timeout_s=bolt_timeout_s,
            connect_timeout_s=bolt_connect_timeout_s,
        )
    raise ValueError(f"unknown graph backend {backend!r}; expected 'ladybug' or 'bolt'")
