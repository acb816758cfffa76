"""Shared fixtures. Async tests run on asyncio through anyio's pytest plugin."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.postgres import PostgresCluster, PostgresStartError, running_postgres


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
