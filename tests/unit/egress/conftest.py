from __future__ import annotations

import pytest

from egress.pii import PiiDetector, build_pii_detector


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def detector() -> PiiDetector:
    return build_pii_detector()
