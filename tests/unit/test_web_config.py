"""What the web app's page may know before sign-in (``GET /app/config.json``) and the page's
Content-Security-Policy: Supabase's URL and anon key only when email sign-in works, its origin
the one other origin the page may connect to, never a secret."""

from typing import Any

import pytest

from api.routes.web import CONTENT_SECURITY_POLICY, content_security_policy, web_config
from api.settings import Settings

pytestmark = pytest.mark.unit

SUPABASE: dict[str, Any] = {
    "supabase_jwt_secret": "the-projects-secret-which-is-long-enough",
    "supabase_jwt_issuer": "https://ref.supabase.co/auth/v1",
}


def test_dev_without_supabase_offers_the_development_keys_only():
    settings = Settings(_env_file=None)
    config = web_config(settings)
    assert (config.environment, config.apiKeys, config.devKeys, config.supabase) == (
        "dev",
        True,
        True,
        None,
    )
    assert content_security_policy(settings) == CONTENT_SECURITY_POLICY


def test_prod_with_supabase_offers_email_sign_in_and_allows_its_origin():
    settings = Settings(
        _env_file=None,
        environment="prod",
        supabase_url="https://ref.supabase.co/",
        supabase_anon_key="public-anon-key",
        **SUPABASE,
    )
    config = web_config(settings)
    assert (config.apiKeys, config.devKeys) == (False, False)
    assert config.supabase is not None
    assert (config.supabase.url, config.supabase.anonKey) == (
        "https://ref.supabase.co",
        "public-anon-key",
    )
    assert "the-projects-secret" not in config.model_dump_json()
    policy = content_security_policy(settings)
    assert "connect-src 'self' https://ref.supabase.co;" in policy
    assert "script-src 'self';" in policy and "default-src 'self'" in policy


def test_email_sign_in_needs_the_url_the_anon_key_and_a_token_verifier():
    half = Settings(_env_file=None, supabase_url="https://ref.supabase.co", **SUPABASE)
    assert web_config(half).supabase is None  # no anon key
    unverified = Settings(
        _env_file=None, supabase_url="https://ref.supabase.co", supabase_anon_key="anon"
    )
    assert web_config(unverified).supabase is None  # its tokens would not be accepted here
    assert content_security_policy(unverified) == CONTENT_SECURITY_POLICY


@pytest.mark.parametrize(
    "url", ["ref.supabase.co", "ftp://ref.supabase.co", "https://", "https://x.co/?a=1"]
)
def test_a_supabase_url_that_is_no_http_url_is_refused(url):
    with pytest.raises(ValueError, match="REGINTEL_SUPABASE_URL"):
        Settings(_env_file=None, supabase_url=url)
