"""OpenTelemetry traces, off by default: with ``REGINTEL_OTLP_ENDPOINT`` set, spans are batched
to that OTLP/HTTP endpoint; without it the tracer is a no-op and costs nothing.

The provider is the app's own (never the global one, so tests and several apps in one process
do not share it) and is shut down with the container, which flushes what is batched.
What the spans of a turn are and what they may carry (counts and closed sets, never text or
ids): :mod:`infra.spans`, ADR 0028.
"""

from __future__ import annotations

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.trace import NoOpTracer, Tracer

__all__ = ["Tracing"]


class Tracing:
    def __init__(
        self, endpoint: str | None, service: str = "regintel", exporter: SpanExporter | None = None
    ) -> None:
        self._provider: TracerProvider | None = None
        self.tracer: Tracer = NoOpTracer()
        if endpoint is None and exporter is None:
            return
        if exporter is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter(endpoint=endpoint, timeout=5)
        self._provider = TracerProvider(resource=Resource.create({"service.name": service}))
        self._provider.add_span_processor(BatchSpanProcessor(exporter))
        self.tracer = self._provider.get_tracer("regintel")

    @property
    def enabled(self) -> bool:
        return self._provider is not None

    def flush(self) -> None:
        if self._provider is not None:
            self._provider.force_flush(timeout_millis=5000)

    async def aclose(self) -> None:
        if self._provider is not None:
            self._provider.shutdown()
