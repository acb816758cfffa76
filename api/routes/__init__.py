"""HTTP routes: parse, authenticate, call the engine or a reader, shape the response."""

__all__: list[str] = []
