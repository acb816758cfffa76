"""The chat turn: prompt aspects, LLM router, concept capture, context, grounding."""

__all__: list[str] = []
