"""Issue 26, defect 8: the demo's development keys include an operator in ``acme``, the demo
users' tenant (``dev-acme-operator``), so the Admin view manages acme's egress policy and the
review queue with one key. The cross-tenant refusal holds: acme's operator changes nothing of
globex's, and the platform operator (``dev-ops-admin``) stays in its own tenant. Real HTTP,
the default development keys (``make demo``'s)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from engine.lexicon import ConceptLexicon
from tests.support.server import running_server

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ACME_OPERATOR = {"Authorization": "Bearer dev-acme-operator"}
GLOBEX_ADMIN = {"Authorization": "Bearer dev-globex-admin"}
PLATFORM_OPERATOR = {"Authorization": "Bearer dev-ops-admin"}


@pytest.fixture
def base(tmp_path: Path) -> Iterator[str]:
    settings = Settings(data_dir=tmp_path / "data", log_json=False)  # the demo's keys
    with running_server(create_app(settings, lexicon=ConceptLexicon())) as url:
        yield url


async def test_the_demo_operator_manages_acmes_egress_and_reviews(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        session = (await client.get("/api/session", headers=ACME_OPERATOR)).json()
        assert (session["tenantId"], session["role"]) == ("acme", "operator")
        wanted = {"defaultMode": "report-only", "allowedProviders": ["extractive"]}
        saved = await client.put("/api/admin/egress/tenant", json=wanted, headers=ACME_OPERATOR)
        assert saved.status_code == 200, saved.text
        read = (await client.get("/api/admin/egress/tenant", headers=ACME_OPERATOR)).json()
        assert (read["tenantId"], read["defaultMode"]) == ("acme", "report-only")
        queue = await client.get("/api/review/concepts", headers=ACME_OPERATOR)
        assert queue.status_code == 200, queue.text

        # nothing of globex's changed; the platform operator's tenant is still its own
        globex = (await client.get("/api/admin/egress/tenant", headers=GLOBEX_ADMIN)).json()
        assert (globex["tenantId"], globex["defaultMode"]) == ("globex", None)
        platform = (await client.get("/api/admin/egress/tenant", headers=PLATFORM_OPERATOR)).json()
        assert (platform["tenantId"], platform["defaultMode"]) == ("regintel", None)
