"""LLM providers: each implements ``egress.wire.LlmProvider`` and is only called via egress."""

__all__: list[str] = []
