"""A data folder with the seed rules graph loaded once per test session, copied per test."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from api.bootstrap import bootstrap
from api.settings import Settings
from engine.seeding import seed_graph


def seed_data_dir(folder: Path) -> None:
    async def run() -> None:
        container = await bootstrap(Settings(data_dir=folder, log_json=False))
        try:
            await seed_graph(container.graph, container.writer)
        finally:
            await container.aclose()

    asyncio.run(run())


def copy_data_dir(template: Path, target: Path) -> Path:
    shutil.copytree(template, target)
    return target
