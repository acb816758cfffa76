"""issue 30: the development keys are published (README, this repository), the operator's too;
the Docker image once ran ``dev`` on 0.0.0.0, where they opened it to any network. They now
authenticate a caller on a loopback address only; a key of the deployment's own
(``REGINTEL_API_KEYS`` in ``dev``) works from anywhere."""

from types import SimpleNamespace
from typing import Any

import pytest

from api.auth import authenticate_head
from api.settings import Settings
from errors import Unauthenticated

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


def scope(settings: Settings, key: str, client: tuple[str, int] | None) -> dict[str, Any]:
    container = SimpleNamespace(settings=settings, tokens=None)
    app = SimpleNamespace(state=SimpleNamespace(container=container))
    return {
        "type": "http",
        "app": app,
        "client": client,
        "headers": [(b"authorization", f"Bearer {key}".encode())],
    }


@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.42", "::1"])
async def test_a_development_key_works_from_loopback(address: str) -> None:
    principal = await authenticate_head(scope(Settings(), "dev-ops-admin", (address, 5000)))
    assert principal.user_id == "operator"


@pytest.mark.parametrize(
    "client", [("192.0.2.7", 5000), ("10.1.2.3", 80), ("::ffff:1.2.3.4", 1), None]
)
async def test_a_development_key_from_another_address_is_401(
    client: tuple[str, int] | None,
) -> None:
    with pytest.raises(Unauthenticated, match=r"\(loopback\) only"):
        await authenticate_head(scope(Settings(), "dev-acme-alice", client))


async def test_a_deployments_own_key_works_from_anywhere() -> None:
    settings = Settings(api_keys={"k-own-7f3a": "acme:alice"})
    principal = await authenticate_head(scope(settings, "k-own-7f3a", ("192.0.2.7", 5000)))
    assert (principal.tenant_id, principal.user_id) == ("acme", "alice")
