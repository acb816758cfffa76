"""Shared fixtures. Async tests run on asyncio through anyio's pytest plugin.

Every test carries the marker of its layer, the folder it lives in (``unit``, ``integration``,
``e2e``), and no other layer's: ``make unit`` and its siblings select by marker, so a test
without one would run in none of them. Collection fails on such a test (it once happened).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.postgres import PostgresCluster, PostgresStartError, running_postgres

LAYERS = ("unit", "integration", "e2e")
# Retrieval in the suite is lexical unless a test asks for the semantic channel (loading the
# sentence model costs ~1 s per bootstrap; the tests that need it pass REGINTEL_EMBEDDER=local or
# an ``embedder`` override). Set before any Settings() is read, inherited by served processes.
os.environ.setdefault("REGINTEL_EMBEDDER", "none")
TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Refuse a test whose layer marker is missing or is not its folder's."""
    wrong = []
    for item in items:
        folder = item.path.resolve().relative_to(TESTS).parts[0]
        layers = {mark.name for mark in item.iter_markers() if mark.name in LAYERS}
        if folder in LAYERS and layers != {folder}:
            wrong.append(f"{item.nodeid} (marked {sorted(layers) or 'nothing'})")
    if wrong:
        raise pytest.UsageError(
            "every test carries exactly its folder's layer marker (pytestmark = "
            "pytest.mark.unit / integration / e2e):\n  " + "\n  ".join(wrong)
        )


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    """One throwaway PostgreSQL cluster for the session (``tests/support/postgres.py``); each
    test creates a database of its own in it."""
    try:
        with running_postgres() as cluster:
            yield cluster
    except PostgresStartError as exc:
        pytest.fail(f"cannot start the test PostgreSQL cluster: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory):
    """The seed graph in a data folder, built once; copy it with ``seeded_data_dir``."""
    from tests.support.seeded import seed_data_dir

    folder = tmp_path_factory.mktemp("seeded") / "data"
    seed_data_dir(folder)
    return folder


@pytest.fixture
def seeded_data_dir(seeded_template, tmp_path):
    from tests.support.seeded import copy_data_dir

    return copy_data_dir(seeded_template, tmp_path / "data")
