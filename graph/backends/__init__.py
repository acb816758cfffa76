"""``GraphStore`` backends: Ladybug (embedded) and Bolt (Memgraph, Neo4j)."""

__all__: list[str] = []
