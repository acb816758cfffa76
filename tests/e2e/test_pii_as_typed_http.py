"""Issue 25's must-show: PII as people type it never reaches the model provider.

Our API over real HTTP -> the turn -> egress in ``enforce`` (the server default) -> the
OpenAI-compatible SDK -> the stand-in model server over real HTTP, which records every request
body. For each class of the dev set (``tests/fixtures/pii/case_sets/dev.json``: names in lower
case, in capitals, after a sentence-initial verb; e-mail addresses and phone numbers written
out) a sample of messages goes through whole turns, and no value of any of them is in any body
the stand-in received (compared by the attack tests' rule: canonicalised, letters and digits
only, case-folded). Each message also asks a question the seeded evidence answers, so the turn
really calls the model: the test counts the requests.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from conversations.sql_egress import SqlAuditSink
from conversations.sqlite import SqliteConversationStore
from tests.support.attacks import passed_values
from tests.support.server import running_server, sse_events
from tests.support.standin import running_standin
from tools.standin import Reply, StandinServer

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}
QUESTION = " What is the standard rate of VAT in Ireland?"
DEV = Path(__file__).resolve().parents[1] / "fixtures" / "pii" / "case_sets" / "dev.json"
# The fifth dev set (bench/pii_make_dev5.py): names in capitals with no strong cue, title case
# after a sentence-initial word, and e-mail addresses with "at" and written-out dots.
DEV5 = Path(__file__).resolve().parents[2] / "bench" / "data" / "pii_dev5.json"
CLASSES = [
    (DEV, "name_lower"),
    (DEV, "name_upper"),
    (DEV, "name_sentence_start"),
    (DEV, "email_spelled"),
    (DEV, "phone_spelled"),
    (DEV5, "name_caps"),
    (DEV5, "name_title_start"),
    (DEV5, "email_at"),
]
PER_CLASS = 20
# The sixth pass's classes (ADR 0061 addendum): a domain with its dot glued in words, a first
# name of three letters in capitals, a name in capitals whose surname is an English word, a
# lone first name in capitals amid lower case. Values are the test's own, not a set's.
SIXTH = [
    ("email me at aoife.doyle at gmaildotcom thanks", ["aoife.doyle at gmaildotcom"]),
    ("my email is jdoe at yahoodotcodotuk", ["jdoe at yahoodotcodotuk"]),
    ("i told ZOE the deadline was october.", ["ZOE"]),
    ("CAN IDA CLAIM THE HOME CARER CREDIT.", ["IDA"]),
    ("i sent the deposit to LISA BOUTS last week.", ["LISA BOUTS"]),
    ("paid MAIREAD FIELD for the extension.", ["MAIREAD FIELD"]),
    ("is the car NUALA uses a benefit in kind?", ["NUALA"]),
    ("the house is in SIOBHAN's name only.", ["SIOBHAN"]),
]

# Session 7's classes (tuned on bench/data/pii_dev7.json; values are the test's own): two name
# words in a person's place that the trigram model reads as English, a compound surname, a word
# that is a name after "my name is", a title-case name before what only a person does, and an
# address written with "at the".
SEVENTH = [
    ("the van was sold by MATEUSZ THORNBERRY in may", ["MATEUSZ THORNBERRY"]),
    ("gulnara stockham is the director of the firm", ["gulnara stockham"]),
    ("does jovita thornbury need to register", ["jovita thornbury"]),
    ("MY NAME IS PRUDENCE STOCKBRIDGE AND I OWE CGT", ["PRUDENCE STOCKBRIDGE"]),
    ("my name is honour vasquez, i rent a flat", ["honour vasquez"]),
    ("Has Rogatien missed the deadline?", ["Rogatien"]),
    ("reply to olek.b at the gmail dot com address", ["olek.b at the gmail dot com"]),
]


@dataclass
class Stack:
    base: str
    llm: StandinServer
    sqlite: Path


@pytest.fixture(scope="module")
def stack(seeded_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    from tests.support.seeded import copy_data_dir

    data_dir = copy_data_dir(seeded_template, tmp_path_factory.mktemp("as_typed") / "data")
    with running_standin() as standin:
        key = "sk-standin-key"
        settings = Settings(
            data_dir=data_dir,
            log_json=False,
            llm_provider="openai_chat",
            llm_model="model-x",
            llm_fallback="extractive:extractive-v1",
            llm_first_token_timeout_seconds=10,
            llm_max_retries=0,
            openai_chat_api_key=key,
            openai_chat_base_url=f"{standin.url}/v1",
            rate_limit_tenant_per_minute=10_000,  # many turns in a few seconds, on purpose
            rate_limit_user_per_minute=10_000,
        )
        with running_server(create_app(settings)) as base:
            yield Stack(base, standin.server, settings.resolved_sqlite_path)


def _samples(path: Path, cls: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    of_class = [s for s in data if s["metadata"]["class"] == cls]
    step = max(1, len(of_class) // PER_CLASS)
    return of_class[::step][:PER_CLASS]


async def _turn(client: httpx.AsyncClient, message: str) -> None:
    async with client.stream(
        "POST", "/api/chat", headers=ALICE, json={"message": message}
    ) as response:
        assert response.status_code == 200
        with anyio.fail_after(30):
            async for _ in sse_events(response):
                pass


@pytest.mark.parametrize(("path", "cls"), CLASSES, ids=[cls for _, cls in CLASSES])
async def test_no_value_of_a_class_reaches_the_model_in_enforce_mode(
    stack: Stack, path: Path, cls: str
):
    stack.llm.script(Reply(text=["The standard rate is 23% ", "[IE:RATE:VAT_STANDARD]."]))
    samples = _samples(path, cls)
    assert len(samples) == PER_CLASS
    async with httpx.AsyncClient(base_url=stack.base, timeout=30) as client:
        for sample in samples:
            await _turn(client, sample["full_text"] + QUESTION)
    bodies = [json.dumps(body, ensure_ascii=False) for body in stack.llm.requests]
    assert len(bodies) == len(samples)  # every turn called the model: nothing skipped egress
    leaked = {
        s["full_text"]: passed
        for s in samples
        if (passed := passed_values(s["metadata"]["values"], bodies))
    }
    assert leaked == {}
    store = SqliteConversationStore(stack.sqlite)
    try:
        audit = store.egress_adapters().audit
        assert isinstance(audit, SqlAuditSink)
        records = await audit.recent("acme")
    finally:
        await store.aclose()
    assert len(records) >= len(samples) and {r.effective_mode for r in records} == {"enforce"}
    assert all(not r.blocked for r in records)


async def test_the_sixth_pass_classes_never_reach_the_model_in_enforce_mode(stack: Stack):
    stack.llm.script(Reply(text=["The standard rate is 23% ", "[IE:RATE:VAT_STANDARD]."]))
    async with httpx.AsyncClient(base_url=stack.base, timeout=30) as client:
        for message, _ in SIXTH:
            await _turn(client, message + QUESTION)
    bodies = [json.dumps(body, ensure_ascii=False) for body in stack.llm.requests]
    assert len(bodies) == len(SIXTH)  # every turn called the model
    leaked = {m: p for m, values in SIXTH if (p := passed_values(values, bodies))}
    assert leaked == {}


async def test_the_seventh_pass_classes_never_reach_the_model_in_enforce_mode(stack: Stack):
    stack.llm.script(Reply(text=["The standard rate is 23% ", "[IE:RATE:VAT_STANDARD]."]))
    async with httpx.AsyncClient(base_url=stack.base, timeout=30) as client:
        for message, _ in SEVENTH:
            await _turn(client, message + QUESTION)
    bodies = [json.dumps(body, ensure_ascii=False) for body in stack.llm.requests]
    assert len(bodies) == len(SEVENTH)  # every turn called the model
    leaked = {m: p for m, values in SEVENTH if (p := passed_values(values, bodies))}
    assert leaked == {}
