"""Answers as at a date, over real HTTP (the seeded graph with the VAT rate history of both
public tables, the real egress, the offline extractive provider): ADR 0031, 0032, 0033."""

from typing import Any

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from tests.support.server import running_server, sse_events

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}
TEMPORARY = "IE:RATE:VAT_STANDARD:IBERICODE:2020_09_01"
CONFLICT = "IE:CONFLICT:VAT_STANDARD:2020_09_01"


@pytest.fixture(scope="module")
def base(seeded_template, tmp_path_factory):
    from tests.support.seeded import copy_data_dir

    data = copy_data_dir(seeded_template, tmp_path_factory.mktemp("as_at") / "data")
    with running_server(create_app(Settings(data_dir=data, log_json=False))) as url:
        yield url


async def ask(base: str, body: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any]]:
    async with (
        httpx.AsyncClient(base_url=base, timeout=60) as client,
        client.stream("POST", "/api/chat", json=body, headers=ALICE) as response,
    ):
        assert response.status_code == 200, await response.aread()
        events = [e async for e in sse_events(response) if e.event]
    answer = "".join(e.payload["delta"] for e in events if e.event == "text")
    return answer, events[0].payload, events[-1].payload


async def test_the_temporary_21_percent_rate_is_answered_with_its_period_and_both_sources(base):
    question = "What was the standard rate of VAT in Ireland on 1 December 2020?"
    answer, metadata, done = await ask(base, {"message": question})
    assert metadata["asAt"] == {"from": "2020-12-01", "to": "2020-12-01", "origin": "question"}
    first = answer.split("\n- ")[1]  # the first quoted value is the one the change recorded
    assert "21 percent" in first and TEMPORARY in first, answer
    assert "2020-09-01 to 2021-02-28" in answer
    assert "ibericode/vat-rates" in answer and "kdeldycke/vat-rates" in answer
    assert "omits" in answer, answer
    citation = next(c for c in done["citations"] if c["id"] == TEMPORARY)
    assert (citation["validFrom"], citation["validTo"]) == ("2020-09-01", "2021-02-28")
    assert citation["source"] == "ibericode/vat-rates" and citation["sourceCheckedOn"]
    assert [c["id"] for c in citation["conflicts"]] == [CONFLICT]
    assert "omits" in citation["conflicts"][0]["description"]


async def test_the_same_question_for_2022_answers_23_percent(base):
    question = "What was the standard rate of VAT in Ireland on 1 December 2022?"
    answer, _, done = await ask(base, {"message": question})
    assert "23 percent" in answer and "21 percent" not in answer, answer
    assert TEMPORARY not in done["referencedNodes"]
    dated = [c for c in done["citations"] if c["validFrom"]]
    assert dated and all(c["validFrom"] <= "2022-12-01" for c in dated)
    assert all((c["validTo"] or "9999") >= "2022-12-01" for c in dated)


async def test_the_request_as_at_restricts_the_evidence_and_the_question_date_wins(base):
    question = "What was the standard rate of VAT in Ireland?"
    answer, metadata, _ = await ask(base, {"message": question, "asAt": "2020-12-01"})
    assert metadata["asAt"]["origin"] == "request"
    assert "21 percent" in answer, answer
    answer, metadata, _ = await ask(
        base, {"message": f"{question[:-1]} on 1 December 2022?", "asAt": "2020-12-01"}
    )
    assert metadata["asAt"] == {"from": "2022-12-01", "to": "2022-12-01", "origin": "question"}
    assert "21 percent" not in answer


@pytest.mark.parametrize("as_at", ["2020-13-01", "yesterday", 20201201])
async def test_an_as_at_that_is_not_an_iso_date_is_refused_before_any_stream(base, as_at):
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        response = await client.post(
            "/api/chat", json={"message": "VAT?", "asAt": as_at}, headers=ALICE
        )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_input"


async def test_as_at_is_documented_in_the_openapi_schema(base):
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        schema = (await client.get("/openapi.json")).json()
    field = schema["components"]["schemas"]["ChatRequest"]["properties"]["asAt"]
    assert "in force" in field["description"]


async def test_a_deadline_question_shows_the_computed_date_and_cites_the_rule(base):
    answer, _, done = await ask(
        base, {"message": "When must I file my Form 11 income tax return in Ireland?",
               "asAt": "2026-03-01"}
    )  # fmt: skip
    assert "Computed dates:" in answer, answer
    assert "2026-10-31" in answer
    assert "IE:TIMELINE:RETURN_DEADLINE_31_OCT" in [c["id"] for c in done["citations"]]
