"""A data folder with the seed rules graph loaded once per test session, copied per test."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from api.bootstrap import bootstrap
from api.settings import Settings
from corpus import shipped_acts
from engine.seeding import seed_graph

#: The acts the tests' seed graph holds: the Official Journal files (AI Act, GDPR) and DORA
#: from the JSON collection. `make demo` seeds all 49 JSON acts; writing
#: them through the guard takes minutes, so every test that seeds uses these three.
TEST_LEGAL_ACTS = [p for p in shipped_acts() if p.parent.name != "json" or p.name == "dora.json.gz"]


def seed_data_dir(folder: Path) -> None:
    async def run() -> None:
        container = await bootstrap(Settings(data_dir=folder, log_json=False))
        try:
            await seed_graph(container.graph, container.writer, legal=TEST_LEGAL_ACTS)
        finally:
            await container.aclose()

    asyncio.run(run())


def copy_data_dir(template: Path, target: Path) -> Path:
    shutil.copytree(template, target)
    return target
