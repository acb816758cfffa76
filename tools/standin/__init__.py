"""A stand-in LLM server for tests, demos and benchmarks (ADR 0014).

It speaks the OpenAI Responses, OpenAI chat-completions and Anthropic Messages streaming
protocols over real HTTP, scripted per test, paced like a real model, and records what it
received. ``regintel standin`` serves it by hand. Nothing here is used by a running Regintel.
"""

from tools.standin.script import Frame, Pacing, Received, Reply, Terminal, ToolCall
from tools.standin.server import DEFAULT_REPLY, PROTOCOL_PATHS, StandinServer

__all__ = [
    "DEFAULT_REPLY",
    "PROTOCOL_PATHS",
    "Frame",
    "Pacing",
    "Received",
    "Reply",
    "StandinServer",
    "Terminal",
    "ToolCall",
]
