"""HTTP API, SSE framing, settings, CLI. No business logic lives here."""

__all__: list[str] = []
