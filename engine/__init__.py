"""The chat turn: prompt aspects, LLM router, concept capture, context, grounding."""
