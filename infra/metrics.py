"""Prometheus metrics (``GET /metrics``): one registry per app, never the global one.

What is counted, and with which labels (never a payload, a tenant or a user id):

- ``regintel_turns_total{status}``: turns by the status their ``done`` event reports;
- ``regintel_time_to_first_token_seconds``: from the start of the stream to the first text;
- ``regintel_provider_errors_total{code}``: ``error`` events (``provider_*`` codes and others);
- ``regintel_llm_fallbacks_total``: turns a fallback route answered (an ``llm_fallback``
  warning), after the first route failed before its first token;
- ``regintel_captures_total{outcome}``: resolved concepts by how they were resolved
  (``created``, ``exact``, ``alias``, …) and rejected captures (``rejected``);
- ``regintel_guard_rejections_total{code}``: ingress guard rejections by type;
- ``regintel_patch_subscribers``: live graph-stream subscribers of this process;
- ``regintel_rate_limited_total{area}``: requests refused by the rate limiter, and
  ``regintel_rate_limiter_unavailable_total``: checks skipped or refused because Redis was down.

:class:`api.metering.MeteredTurns` observes each turn's stream and counts it here, and
:class:`api.metering.CountingRejectionLog` counts the guard's rejections.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

__all__ = [
    "CONTENT_TYPE",
    "Metrics",
]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.turns = Counter("regintel_turns", "Chat turns by final status", ["status"], registry=r)
        self.first_token = Histogram(
            "regintel_time_to_first_token_seconds",
            "From the start of a turn's stream to its first text",
            buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
            registry=r,
        )
        self.provider_errors = Counter(
            "regintel_provider_errors", "Error events of turns by code", ["code"], registry=r
        )
        self.llm_fallbacks = Counter(
            "regintel_llm_fallbacks", "Turns answered by a fallback route", registry=r
        )
        self.captures = Counter(
            "regintel_captures", "Captured concepts by outcome", ["outcome"], registry=r
        )
        self.guard_rejections = Counter(
            "regintel_guard_rejections", "Ingress guard rejections by type", ["code"], registry=r
        )
        self.patch_subscribers = Gauge(
            "regintel_patch_subscribers", "Live graph stream subscribers", registry=r
        )
        self.rate_limited = Counter(
            "regintel_rate_limited", "Requests refused by the rate limiter", ["area"], registry=r
        )
        # token usage (ADR 0050): by provider and model, never by tenant or user
        self.llm_tokens = Counter(
            "regintel_llm_tokens",
            "Tokens of chat turns by provider, model and direction (input, output)",
            ["provider", "model", "direction"],
            registry=r,
        )
        self.llm_cost_micros = Counter(
            "regintel_llm_cost_micros",
            "Priced cost of chat turns in millionths of the price table's currency",
            ["provider", "model"],
            registry=r,
        )
        self.quota_refusals = Counter(
            "regintel_quota_refusals", "Turns refused by a tenant's monthly quota", registry=r
        )
        self.rate_limiter_unavailable = Counter(
            "regintel_rate_limiter_unavailable",
            "Rate-limit checks made while Redis did not answer",
            registry=r,
        )

    def watch_subscribers(self, count: Callable[[], int]) -> None:
        self.patch_subscribers.set_function(lambda: float(count()))

    def render(self) -> bytes:
        return generate_latest(self.registry)
