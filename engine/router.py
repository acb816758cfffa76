"""The LLM router: which provider and model serve a task.

One rule today: every task goes to the configured default. The router is the one place that
will grow per-tenant and per-task routing; the egress policy then checks what it picked.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "LlmRouter",
    "Route",
]


@dataclass(frozen=True)
class Route:
    provider: str
    model: str


class LlmRouter:
    def __init__(self, default: Route, by_task: dict[str, Route] | None = None) -> None:
        self._default = default
        self._by_task = by_task or {}

    def route(self, task: str) -> Route:
        return self._by_task.get(task, self._default)
