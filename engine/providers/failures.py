"""Provider failures as :class:`egress.wire.Error` chunks, the same for every official SDK.

The ``openai`` and ``anthropic`` SDKs share one exception shape (``APIStatusError`` with a
``status_code``, ``APITimeoutError``, ``APIConnectionError``), so one mapping serves all the
providers (ADR 0008's table):

    HTTP 401/403 -> provider_auth_failed        HTTP 429   -> provider_rate_limited
    HTTP 5xx     -> provider_unavailable        other 4xx  -> provider_rejected_request
    timeout      -> provider_timeout            refused    -> provider_unreachable
    connection lost after the stream started    -> provider_stream_interrupted
    an error the provider streamed (an error event, status 200)  -> provider_failed
    anything else the SDK raises (a malformed body)              -> provider_error

Messages are written here, never copied from an HTTP body (OpenAI's 401 body echoes part of
the key); provider text that does reach a message has the key and key-like strings removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

import aiohttp
import structlog

from egress.wire import Error

__all__ = ["BEFORE_FIRST_TOKEN_CODES", "HttpClient", "ProviderFailures", "SdkErrors"]

#: The HTTP stack under an SDK: ``aiohttp`` (the SDKs' ``DefaultAioHttpClient``, their
#: documented choice for concurrency; half the CPU per streamed event, ADR 0038) or ``httpx``
#: (the SDKs' default).
HttpClient = Literal["aiohttp", "httpx"]

#: Codes that mean "nothing was produced, another provider may answer" (the router's fallback).
BEFORE_FIRST_TOKEN_CODES: Final = frozenset(
    {"provider_unavailable", "provider_rate_limited", "provider_unreachable", "provider_timeout"}
)
_KEY_LIKE = re.compile(r"\b(?:sk|rk|pk)-[A-Za-z0-9_\-*.]{4,}")
_MAX_PROVIDER_TEXT = 300

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class SdkErrors:
    """The exception classes of one SDK."""

    status: type[Exception]
    timeout: type[Exception] | tuple[type[Exception], ...]
    connection: type[Exception] | tuple[type[Exception], ...]


class ProviderFailures:
    def __init__(self, name: str, api_key: str, sdk: SdkErrors) -> None:
        self._name = name
        self._api_key = api_key
        self._sdk = sdk

    def error(self, code: str, message: str) -> Error:
        """An ``Error`` with ``message`` (provider text in it is redacted), logged."""
        text = self.redact(message)
        log.warning("llm_provider_error", provider=self._name, code=code, message=text)
        return Error(f"{self._name}: {text}", code=code)

    def failure(self, exc: Exception, *, started: bool) -> Error:
        """Turn an SDK exception into an ``Error`` whose message carries nothing secret."""
        name = self._name
        if isinstance(exc, self._sdk.status):
            status: int = getattr(exc, "status_code", 0)
            code = _provider_code(exc)
            detail = f" ({code})" if code else ""
            log.warning(
                "llm_provider_http_error",
                provider=name,
                status=status,
                provider_code=code,
                request_id=getattr(exc, "request_id", None),
                message=self.redact(str(getattr(exc, "message", ""))),
            )
            if status < 400:  # an error event inside a 200 stream
                return self.error("provider_failed", f"the provider reported an error{detail}")
            if status in (401, 403):
                return Error(
                    f"{name}: the API key was rejected (HTTP {status}){detail}",
                    code="provider_auth_failed",
                )
            if status == 429:
                return Error(
                    f"{name}: rate limited or out of quota (HTTP 429){detail}",
                    code="provider_rate_limited",
                )
            if status >= 500:
                return Error(
                    f"{name}: the provider is unavailable (HTTP {status}){detail}",
                    code="provider_unavailable",
                )
            return Error(
                f"{name}: the provider rejected the request (HTTP {status}){detail}",
                code="provider_rejected_request",
            )
        log.warning("llm_provider_unreachable", provider=name, error=type(exc).__name__)
        if isinstance(exc, self._sdk.timeout) and not _connection_failed(exc):
            return Error(f"{name}: the request timed out", code="provider_timeout")
        if isinstance(exc, self._sdk.connection) or _connection_failed(exc):
            if started:
                return Error(
                    f"{name}: the connection broke while the response was streaming",
                    code="provider_stream_interrupted",
                )
            return Error(f"{name}: could not connect to the provider", code="provider_unreachable")
        if started and hasattr(exc, "body") and getattr(exc, "body", None) is not None:
            return self.error("provider_failed", "the provider reported an error mid-stream")
        return Error(f"{name}: the provider sent a malformed response", code="provider_error")

    def redact(self, text: str) -> str:
        text = text.replace(self._api_key, "[redacted]")
        return _KEY_LIKE.sub("[redacted]", text)[:_MAX_PROVIDER_TEXT]


def _connection_failed(exc: BaseException) -> bool:
    """Whether aiohttp, under the SDK, failed to connect or lost the connection (not a timeout).

    The aiohttp transport the SDKs vendor maps every aiohttp connection error it has no closer
    entry for (a refused connection, a server that hung up) to a connect *timeout*; the error it
    chained says which it was."""
    cause = exc.__cause__
    while cause is not None:
        if isinstance(cause, aiohttp.ClientConnectionError):
            return not isinstance(cause, TimeoutError)
        cause = cause.__cause__
    return False


def _provider_code(exc: Exception) -> str | None:
    """The provider's own error code: OpenAI's ``code``; Anthropic's ``error_code`` or type."""
    if hasattr(exc, "code"):  # openai: the body's error.code, often null
        code = exc.code
        return code if isinstance(code, str) and code else None
    for attribute in ("error_code", "type"):  # anthropic
        value = getattr(exc, attribute, None)
        if isinstance(value, str) and value:
            return value
    return None
