"""The raw-bytes JSON depth scan, and what a client reads when a store fails."""

import httpx
import pytest
from fastapi import FastAPI

from api.body_limit import JsonNesting
from api.errors import install_error_handlers
from errors import ConversationStoreUnavailable, GraphUnavailable

pytestmark = pytest.mark.unit

CASES = [
    (b"{}", 1),
    (b'{"message": "hi"}', 1),
    (b'{"a": [1, {"b": [[]]}]}', 5),
    (b'{"text": "[[[[{{{{"}', 1),  # brackets inside a string are text
    (b'{"text": "a \\" [[[ \\\\"}', 1),  # an escaped quote does not end the string
    (b'{"a": "\\\\", "b": [[[]]]}', 4),  # an escaped backslash does
    (b"[" * 10_000, 10_000),
    (b"42", 0),
]


@pytest.mark.parametrize(("text", "depth"), CASES)
def test_the_depth_of_json_is_read_from_its_bytes(text, depth):
    assert JsonNesting().feed(text) == depth


@pytest.mark.parametrize(("text", "depth"), CASES)
def test_the_depth_is_the_same_fed_one_byte_at_a_time(text, depth):
    nesting = JsonNesting()
    for byte in text:
        nesting.feed(bytes([byte]))
    assert nesting.deepest == depth


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("error", "code", "message"),
    [
        (
            ConversationStoreUnavailable(
                "conversation store: consuming input failed: server closed the connection"
            ),
            "conversation_store_unavailable",
            "the conversation store is unavailable; try again shortly",
        ),
        (
            GraphUnavailable("graph server unreachable: Couldn't connect to 10.0.0.7:7687"),
            "graph_unavailable",
            "the rules graph is unavailable; try again shortly",
        ),
    ],
)
async def test_regression_a_503_body_carried_the_drivers_error_text(error, code, message):
    """Regression: after PostgreSQL restarted, a 503 body carried libpq's error text."""
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/fails")
    async def fails() -> None:
        raise error

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        response = await client.get("/fails")
    assert response.status_code == 503
    assert response.json() == {"error": {"code": code, "message": message}}
