"""The shared, PII-free rules graph: schema, store port and backends, writes, guard, reads."""

__all__: list[str] = []
