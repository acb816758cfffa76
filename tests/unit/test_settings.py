"""Settings: the environment decides the identity defaults; unknown variables are reported."""

import pytest
from pydantic import ValidationError

from api.auth import principal_for
from api.settings import DEV_API_KEYS, Settings, unknown_variables
from errors import Unauthenticated

pytestmark = pytest.mark.unit

OWN_KEYS = {"k-9f2c1e7b": "acme:alice"}


def test_dev_has_the_development_keys_by_default():
    settings = Settings(environment="dev")
    assert principal_for("dev-acme-alice", settings.identities).tenant_id == "acme"


def test_regression_prod_without_an_identity_source_does_not_start():
    """Regression: a deployment that forgot REGINTEL_API_KEYS accepted dev-acme-alice."""
    with pytest.raises(ValidationError, match="no identity source in prod"):
        Settings(environment="prod")


def test_prod_refuses_the_development_keys_even_when_configured():
    with pytest.raises(ValidationError, match="development API keys are refused"):
        Settings(environment="prod", api_keys={**OWN_KEYS, **DEV_API_KEYS})


def test_prod_accepts_its_own_keys_and_never_the_development_ones():
    settings = Settings(environment="prod", api_keys=OWN_KEYS)
    assert principal_for("k-9f2c1e7b", settings.identities).user_id == "alice"
    with pytest.raises(Unauthenticated):
        principal_for("dev-acme-alice", settings.identities)


def test_the_error_never_echoes_a_configured_key():
    with pytest.raises(ValidationError) as caught:
        Settings(environment="prod", api_keys=dict(DEV_API_KEYS))
    assert "dev-acme-alice" not in str(caught.value)


def test_unknown_regintel_variables_are_reported():
    environ = {
        "REGINTEL_DATA_DIR": "var",
        "REGINTEL_REDIS_URL": "redis://x",  # compose used to set this; nothing read it
        "regintel_grpah_backend": "bolt",  # a typo, in lower case
        "PATH": "/usr/bin",
    }
    assert unknown_variables(environ) == ["REGINTEL_REDIS_URL", "regintel_grpah_backend"]
