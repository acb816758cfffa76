"""Resolution through the real turn over HTTP (issue 24, ADR 0049): a stand-in model emits each
``capture_concepts`` payload; a surface variant in another jurisdiction spelling lands on the
seeded concept, a near miss creates a provisional concept whose review ``candidates`` list the
seeded one, and an operator merges a duplicate in one action, audited."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from egress.wire import Done, LlmRequest, StreamChunk, Text, Tool, Usage
from engine.concepts import CAPTURE_TOOL_NAME
from tests.e2e.test_quarantine import ALICE, OPERATOR, turn
from tests.support.server import running_server

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

MATERNITY = "WELFARE:IE:MATERNITY_BENEFIT"  # seeded, reviewed


@dataclass
class CapturingModel:
    """Answers briefly; its one tool call is the capture the test sets."""

    name: str = "extractive"
    capture: dict[str, Any] = field(default_factory=dict)

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        yield Text("Noted.")
        yield Tool(name=CAPTURE_TOOL_NAME, args={"concepts": [self.capture]})
        yield Done(Usage(input_tokens=1, output_tokens=1))

    async def aclose(self) -> None:
        return None


@pytest.fixture
def served(seeded_data_dir: Any) -> Iterator[tuple[str, CapturingModel]]:
    model = CapturingModel()
    settings = Settings(data_dir=seeded_data_dir, log_json=False, heartbeat_seconds=0.05)
    app = create_app(settings, providers={"extractive": model})
    with running_server(app) as base:
        yield base, model


async def captured(
    client: httpx.AsyncClient, model: CapturingModel, **capture: Any
) -> dict[str, Any]:
    model.capture = {"domain": "WELFARE", "altLabels": [], **capture}
    events = await turn(client, ALICE, "In Ireland, what maternity or paternity support is there?",
                        None)  # fmt: skip
    [concept] = events["concepts"]["concepts"]
    return dict(concept)


async def test_variants_land_near_misses_carry_candidates_and_one_merge_resolves(
    served: tuple[str, CapturingModel],
) -> None:
    base, model = served
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        variant = await captured(
            client, model, kind="MATERNITY_BENEFITS", jurisdiction="IRL",
            prefLabel="maternity-benefits",
        )  # fmt: skip
        assert (variant["id"], variant["created"]) == (MATERNITY, False)

        near = await captured(
            client, model, kind="PATERNITY_BENEFIT", jurisdiction="Ireland",
            prefLabel="Paternity Benefit",
        )  # fmt: skip
        assert (near["id"], near["created"]) == ("WELFARE:IE:PATERNITY_BENEFIT", True)
        scheme = await captured(
            client, model, kind="MATERNITY_BENEFIT_SCHEME", jurisdiction="IE",
            prefLabel="Maternity Benefit scheme",
        )  # fmt: skip
        assert (scheme["id"], scheme["created"]) == ("WELFARE:IE:MATERNITY_BENEFIT_SCHEME", True)

        queue = (await client.get("/api/review/concepts", headers=OPERATOR)).json()
        listed = {item["id"]: item["candidates"] for item in queue}
        paternity = {c["id"]: c for c in listed["WELFARE:IE:PATERNITY_BENEFIT"]}
        assert paternity[MATERNITY]["reason"] == "edit_distance"
        assert paternity[MATERNITY]["prefLabel"] == "Maternity Benefit"
        [parent] = [c for c in listed[scheme["id"]] if c["id"] == MATERNITY]
        assert parent["reason"] == "parent_child"

        merge = f"/api/review/concepts/{scheme['id']}/merge"
        done = await client.post(merge, json={"into": parent["id"]}, headers=OPERATOR)
        assert done.status_code == 200, done.text
        audit = (await client.get("/api/review/audit", headers=OPERATOR)).json()
        assert [(a["action"], a["concept"], a["into"]) for a in audit] == [
            ("merge", scheme["id"], MATERNITY)
        ]
        again = await captured(
            client, model, kind="MATERNITY_BENEFIT_SCHEME", jurisdiction="IE",
            prefLabel="Maternity Benefit scheme",
        )  # fmt: skip
        assert again["id"] == MATERNITY  # the merged capture is a redirect now
        # the paternity concept was never merged: still waiting, still provisional
        queue = (await client.get("/api/review/concepts", headers=OPERATOR)).json()
        assert "WELFARE:IE:PATERNITY_BENEFIT" in {item["id"] for item in queue}


async def test_a_term_the_seeds_record_as_not_a_label_is_offered_as_related(
    served: tuple[str, CapturingModel],
) -> None:
    """ADR 0075 keeps "chargeable person" off Irish self-assessment's labels (a person it
    applies to): a capture of it is its own provisional concept, and the review queue offers
    self-assessment as a `related` candidate (ADR 0078), never a merge."""
    base, model = served
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        person = await captured(
            client, model, domain="TAX", kind="CHARGEABLE_PERSON", jurisdiction="IE",
            prefLabel="chargeable person",
        )  # fmt: skip
        assert (person["id"], person["created"]) == ("TAX:IE:CHARGEABLE_PERSON", True)
        queue = (await client.get("/api/review/concepts", headers=OPERATOR)).json()
        [item] = [i for i in queue if i["id"] == person["id"]]
        reasons = {c["id"]: c["reason"] for c in item["candidates"]}
        assert reasons.get("TAX:IE:SELF_ASSESSMENT") == "related"
