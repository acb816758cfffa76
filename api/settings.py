"""Settings: every knob of Regintel, read from ``REGINTEL_*`` environment variables.

Defaults are the embedded ones: a Ladybug folder and a SQLite file under ``data_dir``, the
offline extractive provider, development API keys. Nothing here connects to anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEV_API_KEYS = {
    "dev-acme-alice": "acme:alice",
    "dev-acme-bob": "acme:bob",
    "dev-globex-carol": "globex:carol",
}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="REGINTEL_", env_file=".env", extra="ignore", env_parse_none_str=""
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

    api_keys: dict[str, str] = Field(
        default_factory=lambda: dict(DEV_API_KEYS),
        description='JSON object: API key -> "tenant:user". Development auth only.',
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

    log_level: str = "INFO"
    log_json: bool = True

    @field_validator("api_keys")
    @classmethod
    def _check_keys(cls, value: dict[str, str]) -> dict[str, str]:
        for key, owner in value.items():
            tenant, sep, user = owner.partition(":")
            if not key or not sep or not tenant or not user:
                raise ValueError(f'api key owner must be "tenant:user", got {owner!r}')
        return value

    @property
    def resolved_ladybug_path(self) -> Path:
        return self.ladybug_path or self.data_dir / "graph.lbug"

    @property
    def resolved_sqlite_path(self) -> Path:
        return self.sqlite_path or self.data_dir / "conversations.db"
