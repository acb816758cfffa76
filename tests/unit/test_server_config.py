"""``regintel serve`` runs on uvloop and httptools, keeping the request-head deadline."""

import pytest

from api.server import TimedH11Protocol, TimedHttpToolsProtocol, server_config
from api.settings import Settings

pytestmark = pytest.mark.unit


async def _app(scope: object, receive: object, send: object) -> None:
    return None


def test_serve_uses_uvloop_and_the_timed_httptools_protocol() -> None:
    config = server_config(_app, Settings(header_read_timeout_seconds=3.5))
    assert config.loop == "uvloop"
    assert isinstance(config.http, type) and issubclass(config.http, TimedHttpToolsProtocol)
    assert config.http.header_timeout == 3.5


def test_the_h11_protocol_remains_for_an_install_without_httptools() -> None:
    config = server_config(_app, Settings(header_read_timeout_seconds=2.0), parser="h11")
    assert isinstance(config.http, type) and issubclass(config.http, TimedH11Protocol)
    assert config.http.header_timeout == 2.0
