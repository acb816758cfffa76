"""Operational adapters shared by the packages of DESIGN.md: the Redis connection, rate limits,
Prometheus metrics and OpenTelemetry traces. Each has an in-process (or no-op) default chosen by
settings; nothing here knows about chat text, and metrics carry no ids in their labels."""

__all__: list[str] = []
