"""Operational adapters shared by every package (docs/architecture.md, "Layers"): the Redis
connection, rate limits, Prometheus metrics, OpenTelemetry traces and adapter lifetimes. Each
has an in-process (or no-op) default chosen by settings; nothing here knows about chat text,
and metrics carry no ids in their labels."""

__all__: list[str] = []
