"""``docker-compose.yml`` is valid and production-like, checked without a Docker engine.

The file is validated against the Compose Specification's JSON schema (``check-jsonschema``
ships it) and then read for what the stack promises: every service has a health check, the API
waits for the stores to be healthy and gets the environment it reads.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from api.settings import unknown_variables

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
STORES = {"memgraph", "postgres", "redis"}
API_ENV = {
    "REGINTEL_GRAPH_BACKEND",
    "REGINTEL_BOLT_URI",
    "REGINTEL_BOLT_DIALECT",
    "REGINTEL_BOLT_USER",
    "REGINTEL_BOLT_PASSWORD",
    "REGINTEL_BOLT_DATABASE",
    "REGINTEL_CONVERSATION_STORE",
    "REGINTEL_POSTGRES_DSN",
    "REGINTEL_ENVIRONMENT",
    "REGINTEL_SUPABASE_JWT_SECRET",
    "REGINTEL_SUPABASE_JWKS_URL",
    "REGINTEL_SUPABASE_JWT_ISSUER",
}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def test_compose_file_matches_the_compose_spec() -> None:
    checker = Path(sys.executable).parent / "check-jsonschema"
    if not checker.exists():
        pytest.fail(f"{checker} missing: `uv sync` installs check-jsonschema (dev group)")
    run = subprocess.run(
        [str(checker), "--builtin-schema", "vendor.compose-spec", str(COMPOSE)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_stack_has_the_production_services(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"memgraph", "memgraph-lab", "postgres", "redis", "api"}
    assert services["memgraph"]["image"].startswith("memgraph/memgraph-mage:")
    assert services["memgraph-lab"]["image"].startswith("memgraph/lab:")
    assert services["postgres"]["image"].startswith("supabase/postgres:")
    assert services["redis"]["image"].startswith("redis:")
    assert services["api"]["build"]["dockerfile"] == "Dockerfile"
    assert (ROOT / "Dockerfile").exists()


def test_every_service_has_a_healthcheck(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        check = service.get("healthcheck")
        assert check and check.get("test") and not check.get("disable"), name


def test_api_waits_for_every_store_to_be_healthy(compose: dict[str, Any]) -> None:
    depends = compose["services"]["api"]["depends_on"]
    # Memgraph Lab is a UI for people; the API neither needs it nor waits for it.
    assert set(depends) == STORES
    assert all(depends[name]["condition"] == "service_healthy" for name in STORES)


def test_api_gets_the_environment_it_needs(compose: dict[str, Any]) -> None:
    env = compose["services"]["api"]["environment"]
    assert API_ENV <= set(env)
    assert env["REGINTEL_GRAPH_BACKEND"] == "bolt"
    assert env["REGINTEL_BOLT_URI"] == "bolt://memgraph:7687"
    assert env["REGINTEL_BOLT_DIALECT"] == "memgraph"
    assert env["REGINTEL_CONVERSATION_STORE"] == "postgres"
    assert env["REGINTEL_POSTGRES_DSN"].startswith("postgresql://")
    assert "@postgres:5432/" in env["REGINTEL_POSTGRES_DSN"]
    assert env["REGINTEL_ENVIRONMENT"] == "prod"
    assert "REGINTEL_API_KEYS" not in env  # prod authenticates Supabase tokens only (ADR 0024)
    assert env["REGINTEL_REDIS_URL"].startswith("redis://redis:6379")


def test_the_api_is_given_only_variables_that_name_settings(compose: dict[str, Any]) -> None:
    """Regression: compose set REGINTEL_REDIS_URL, which no setting reads."""
    env = compose["services"]["api"]["environment"]
    assert unknown_variables({k: str(v) for k, v in env.items()}) == []


def test_dockerfile_installs_from_the_lock_and_serves_the_factory() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "FROM python:3.11-slim" in dockerfile
    assert "uv sync --frozen --no-dev" in dockerfile
    assert '"uvicorn", "api.app:create_app", "--factory"' in dockerfile


def test_no_service_falls_back_to_a_default_password() -> None:
    """issue 30: compose fell back to `regintel-dev-password` for Memgraph and PostgreSQL.
    Every password (and the DSN that carries one) must be set (`${VAR:?...}`), never
    defaulted (`${VAR:-...}`)."""
    text = COMPOSE.read_text(encoding="utf-8")
    defaulted = re.findall(r"\$\{([A-Z_]*PASSWORD[A-Z_]*):?-", text)
    assert defaulted == []
    assert "${POSTGRES_PASSWORD:?" in text and "${REGINTEL_BOLT_PASSWORD:?" in text


def test_the_image_defaults_to_prod() -> None:
    """issue 30: the image ran `dev` on 0.0.0.0, where the published development keys (the
    operator's too) opened it to any network it listens on."""
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"^\s*REGINTEL_ENVIRONMENT=prod\b", dockerfile, re.MULTILINE)
