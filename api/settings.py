"""Settings: every knob of Regintel, read from ``REGINTEL_*`` environment variables.

Defaults are the embedded ones: a Ladybug folder and a SQLite file under ``data_dir``, the
offline extractive provider, and, in the ``dev`` environment only, the development API keys.
Nothing here connects to anything.

``environment`` decides what an operator may forget. In ``dev`` (the default, for
``make demo``) the development keys work out of the box. In ``prod`` there are no default keys,
the development keys are refused even when configured, and settings that name no identity
source do not load, so the app does not start. A ``REGINTEL_*`` variable that names no setting
is reported by :func:`unknown_variables` (the app logs it at start-up) instead of being ignored.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["DEV_API_KEYS", "ENV_PREFIX", "Settings", "unknown_variables"]

ENV_PREFIX = "REGINTEL_"
DEV_API_KEYS = {
    "dev-acme-alice": "acme:alice",
    "dev-acme-bob": "acme:bob",
    "dev-globex-carol": "globex:carol",
}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_file=".env", extra="ignore", env_parse_none_str=""
    )

    environment: Literal["dev", "prod"] = Field(
        default="dev",
        description="dev: development API keys by default (make demo). prod: no default keys, "
        "development keys refused, and an identity source is required to start.",
    )

    data_dir: Path = Field(default=Path("var"), description="Folder for the embedded stores.")

    graph_backend: Literal["ladybug", "bolt"] = "ladybug"
    ladybug_path: Path | None = Field(default=None, description="Defaults to DATA_DIR/graph.lbug.")
    bolt_uri: str = "bolt://127.0.0.1:7687"
    bolt_user: str = ""
    bolt_password: str = ""
    bolt_database: str | None = None
    bolt_dialect: Literal["memgraph", "neo4j"] = "memgraph"
    bolt_max_pool_size: int = 20
    bolt_timeout_seconds: float = 15.0

    conversation_store: Literal["sqlite", "postgres"] = "sqlite"
    sqlite_path: Path | None = Field(
        default=None, description="Defaults to DATA_DIR/conversations.db."
    )
    postgres_dsn: str = Field(
        default="", description="libpq DSN or URL of the conversation store (sslmode=require)."
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
        "dev environment, none in prod.",
    )

    llm_provider: Literal["extractive", "openai"] = "extractive"
    llm_model: str = "extractive-v1"
    openai_api_key: str = ""
    openai_base_url: str | None = None

    egress_default_mode: Literal["enforce", "report-only", "off"] = "enforce"

    max_message_chars: int = 8000
    max_body_bytes: int = 64 * 1024
    heartbeat_seconds: float = 10.0
    max_active_nodes: int = 40
    history_messages: int = 8
    evidence_k: int = 6
    graph_write_timeout_seconds: float = 2.0
    shutdown_timeout_seconds: float = Field(
        default=10.0, gt=0, description="Deadline for closing every adapter at shutdown."
    )

    log_level: str = "INFO"
    log_json: bool = True

    @field_validator("api_keys")
    @classmethod
    def _check_keys(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        for key, owner in (value or {}).items():
            tenant, sep, user = owner.partition(":")
            if not key or not sep or not tenant or not user:
                raise ValueError(f'api key owner must be "tenant:user", got {owner!r}')
        return value

    @model_validator(mode="after")
    def _identity_source(self) -> Settings:
        if self.environment == "dev":
            if self.api_keys is None:
                self.api_keys = dict(DEV_API_KEYS)
            return self
        keys = self.api_keys or {}
        if dev := sorted(set(keys) & set(DEV_API_KEYS)):
            raise ValueError(f"the development API keys are refused in prod: {len(dev)} found")
        if not keys:
            raise ValueError(
                "no identity source in prod: set REGINTEL_API_KEYS (development keys are "
                "not available outside REGINTEL_ENVIRONMENT=dev)"
            )
        return self

    @property
    def identities(self) -> dict[str, str]:
        """API key -> "tenant:user", after the environment's defaults were applied."""
        return self.api_keys or {}

    @property
    def resolved_ladybug_path(self) -> Path:
        return self.ladybug_path or self.data_dir / "graph.lbug"

    @property
    def resolved_sqlite_path(self) -> Path:
        return self.sqlite_path or self.data_dir / "conversations.db"


def unknown_variables(environ: Mapping[str, str] | None = None) -> list[str]:
    """``REGINTEL_*`` variables that name no setting (a typo, or a setting that was removed)."""
    environ = os.environ if environ is None else environ
    known = {ENV_PREFIX + name.upper() for name in Settings.model_fields}
    return sorted(k for k in environ if k.upper().startswith(ENV_PREFIX) and k.upper() not in known)
