"""OpenTelemetry traces, off by default: with ``REGINTEL_OTLP_ENDPOINT`` set, spans are batched
to that OTLP/HTTP endpoint; without it the tracer is a no-op and costs nothing.

The endpoint is read as the OTLP convention reads ``OTEL_EXPORTER_OTLP_ENDPOINT``: a collector's
base URL (``http://collector:4318``) gets the signal path ``/v1/traces`` appended; a URL that
already ends in ``/v1/traces`` is used as it is (:func:`traces_url`).

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

from infra.lifetime import Lifetime

__all__ = ["Tracing", "traces_url"]

_TRACES_PATH = "/v1/traces"


def traces_url(endpoint: str) -> str:
    """The OTLP/HTTP traces URL for a base or full endpoint (the OTLP exporter convention)."""
    scheme, sep, rest = endpoint.partition("://")
    host, slash, path = rest.partition("/")
    path = ("/" + path).rstrip("/") if slash else ""
    if path.endswith(_TRACES_PATH):
        return endpoint
    return f"{scheme}{sep}{host}{path}{_TRACES_PATH}"


class Tracing:
    def __init__(
        self, endpoint: str | None, service: str = "regintel", exporter: SpanExporter | None = None
    ) -> None:
        self._provider: TracerProvider | None = None
        self._lifetime = Lifetime("tracing")
        self.tracer: Tracer = NoOpTracer()
        if endpoint is None and exporter is None:
            return
        if exporter is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            assert endpoint is not None  # exporter is None here, so endpoint is not
            exporter = OTLPSpanExporter(endpoint=traces_url(endpoint), timeout=5)
        self._provider = TracerProvider(resource=Resource.create({"service.name": service}))
        self._provider.add_span_processor(BatchSpanProcessor(exporter))
        self.tracer = self._provider.get_tracer("regintel")

    @property
    def enabled(self) -> bool:
        return self._provider is not None

    def flush(self) -> None:
        self._lifetime.check()
        if self._provider is not None:
            self._provider.force_flush(timeout_millis=5000)

    async def aclose(self) -> None:
        """Flush and stop the exporter, once; a later :meth:`flush` raises
        :class:`errors.AdapterClosed` (spans started on ``tracer`` after it are dropped)."""
        if self._lifetime.close() and self._provider is not None:
            self._provider.shutdown()
