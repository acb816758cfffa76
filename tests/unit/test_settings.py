"""Settings: the environment decides the identity defaults; unknown variables are reported."""

from typing import Any

import pytest

from api.auth import principal_for
from api.settings import DEV_API_KEYS, InvalidSettings, Settings, unknown_variables
from errors import Unauthenticated

pytestmark = pytest.mark.unit

OWN_KEYS = {"k-9f2c1e7b": "acme:alice"}
ISSUER = "https://project-ref.supabase.co/auth/v1"
SUPABASE: dict[str, Any] = {
    "supabase_jwt_secret": "s3cret-of-the-project-32-characters",
    "supabase_jwt_issuer": ISSUER,
}


def test_dev_has_the_development_keys_by_default():
    settings = Settings(environment="dev")
    assert principal_for("dev-acme-alice", settings.identities).tenant_id == "acme"


def test_regression_prod_without_an_identity_source_does_not_start():
    """Regression: a deployment that forgot REGINTEL_API_KEYS accepted dev-acme-alice."""
    with pytest.raises(InvalidSettings, match="no identity source in prod"):
        Settings(environment="prod")


def test_prod_refuses_the_development_keys_even_when_configured():
    with pytest.raises(InvalidSettings, match="development API keys are refused"):
        Settings(environment="prod", api_keys={**OWN_KEYS, **DEV_API_KEYS}, **SUPABASE)


def test_prod_refuses_every_api_key_and_takes_supabase_tokens():
    """API keys are for make demo (ADR 0024): in prod the identity source is Supabase Auth."""
    with pytest.raises(InvalidSettings, match="API keys are for REGINTEL_ENVIRONMENT=dev only"):
        Settings(environment="prod", api_keys=OWN_KEYS, **SUPABASE)
    settings = Settings(environment="prod", **SUPABASE)
    assert settings.identities == {} and settings.supabase_configured
    with pytest.raises(Unauthenticated):
        principal_for("dev-acme-alice", settings.identities)
    jwks = Settings(environment="prod", supabase_jwks_url=f"{ISSUER}/.well-known/jwks.json",
                    supabase_jwt_issuer=ISSUER)  # fmt: skip
    assert jwks.supabase_configured


def test_a_signing_key_without_an_issuer_does_not_load():
    with pytest.raises(InvalidSettings, match="REGINTEL_SUPABASE_JWT_ISSUER is required"):
        Settings(environment="prod", supabase_jwt_secret="s" * 32)
    with pytest.raises(InvalidSettings, match="REGINTEL_SUPABASE_JWT_ISSUER is required"):
        Settings(supabase_jwks_url="https://x.supabase.co/auth/v1/.well-known/jwks.json")


def test_the_jwt_secret_never_shows_in_a_repr():
    settings = Settings(**SUPABASE)
    assert "s3cret" not in repr(settings) and "s3cret" not in str(settings.model_dump())


def test_the_error_never_echoes_a_configured_key():
    with pytest.raises(InvalidSettings) as caught:
        Settings(environment="prod", api_keys=dict(DEV_API_KEYS), **SUPABASE)
    assert "dev-acme-alice" not in str(caught.value)


def test_unknown_regintel_variables_are_reported():
    environ = {
        "REGINTEL_DATA_DIR": "var",
        "REGINTEL_REDIS_URL": "redis://x",  # a setting since ADR 0026
        "REGINTEL_REDIS_DSN": "redis://x",  # not one
        "regintel_grpah_backend": "bolt",  # a typo, in lower case
        "PATH": "/usr/bin",
    }
    assert unknown_variables(environ) == ["REGINTEL_REDIS_DSN", "regintel_grpah_backend"]


def test_a_failed_start_names_the_variable_and_never_a_secret_value():
    """issue 30: a failed prod start printed the tail of the OpenAI key and of the JWT secret
    (pydantic quotes the input)."""
    secrets = {
        "openai_api_key": "sk-live-SECRETTAIL1234",
        "supabase_jwt_secret": "jwt-SECRETTAIL5678",
        "anthropic_api_key": "sk-ant-SECRETTAIL9",
    }
    for values, variable in (
        ({"max_body_bytes": "lots"}, "REGINTEL_MAX_BODY_BYTES"),  # a field's error
        ({}, "REGINTEL_SUPABASE_JWT_ISSUER"),  # the model's: no issuer with a key
    ):
        with pytest.raises(InvalidSettings) as caught:
            Settings(environment="prod", **secrets, **values)
        text = str(caught.value) + repr(caught.value)
        assert "SECRETTAIL" not in text and variable in text
        assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_secrets_are_secret_strings_and_never_in_a_repr():
    settings = Settings(
        openai_api_key="sk-live-SECRETTAIL1",
        postgres_dsn="postgresql://app:SECRETTAIL2@db/regintel",
        redis_url="redis://:SECRETTAIL3@redis:6379/0",
        bolt_password="SECRETTAIL4",
    )
    assert settings.openai_api_key.get_secret_value() == "sk-live-SECRETTAIL1"
    assert settings.postgres_dsn.get_secret_value().endswith("@db/regintel")
    assert settings.redis_url is not None and settings.bolt_password.get_secret_value()
    assert "SECRETTAIL" not in repr(settings) and "SECRETTAIL" not in str(settings.model_dump())


@pytest.mark.parametrize(
    ("url", "accepted"),
    [
        ("https://ref.supabase.co/auth/v1/.well-known/jwks.json", True),
        ("http://ref.supabase.co/auth/v1/.well-known/jwks.json", False),
        ("http://127.0.0.1:9999/jwks.json", True),
        ("http://localhost:9999/jwks.json", True),
        ("ftp://ref.supabase.co/jwks.json", False),
    ],
)
def test_the_jwks_is_fetched_over_https_loopback_excepted(url: str, accepted: bool):
    values = {"supabase_jwks_url": url, "supabase_jwt_issuer": "https://ref.supabase.co/auth/v1"}
    if accepted:
        assert Settings(**values).supabase_jwks_url == url
    else:
        with pytest.raises(InvalidSettings, match="REGINTEL_SUPABASE_JWKS_URL must be https"):
            Settings(**values)
