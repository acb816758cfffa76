"""issue 30: a failed ``prod`` start printed the tail of a secret (the OpenAI key once, the JWT
secret once) in the settings error. Started the way the Docker image starts the API (uvicorn
with the app factory), with settings that cannot load: the output names what is wrong and no
secret value."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SECRETS = {
    "REGINTEL_OPENAI_API_KEY": "sk-live-TAILOPENAI0123456789",
    "REGINTEL_SUPABASE_JWT_SECRET": "jwt-secret-TAILJWT0123456789abcdef",
    "REGINTEL_ANTHROPIC_API_KEY": "sk-ant-TAILANTHROPIC0123",
    "REGINTEL_POSTGRES_DSN": "postgresql://app:TAILPGPASSWORD@db/regintel",
}


@pytest.mark.parametrize(
    ("broken", "named"),
    [
        ({}, "REGINTEL_SUPABASE_JWT_ISSUER"),  # a key without its issuer: the model's check
        ({"REGINTEL_MAX_BODY_BYTES": "lots"}, "REGINTEL_MAX_BODY_BYTES"),  # a field's check
        (
            {"REGINTEL_SUPABASE_JWKS_URL": "http://ref.supabase.co/jwks.json"},
            "REGINTEL_SUPABASE_JWKS_URL",
        ),
    ],
)
def test_a_failed_prod_start_names_the_setting_and_prints_no_secret(
    tmp_path: Path, broken: dict[str, str], named: str
) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("REGINTEL_")},
        "REGINTEL_ENVIRONMENT": "prod",
        "REGINTEL_DATA_DIR": str(tmp_path),
        **SECRETS,
        **broken,
    }
    if named != "REGINTEL_SUPABASE_JWT_ISSUER":
        env["REGINTEL_SUPABASE_JWT_ISSUER"] = "https://ref.supabase.co/auth/v1"
    run = subprocess.run(
        [sys.executable, "-m", "uvicorn", "api.app:create_app", "--factory", "--port", "0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = run.stdout + run.stderr
    assert run.returncode != 0
    assert named in output and "InvalidSettings" in output
    for value in SECRETS.values():
        assert value[-8:] not in output, value
