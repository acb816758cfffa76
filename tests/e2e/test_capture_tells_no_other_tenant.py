"""Issue 26, defect 1: a turn whose capture meets another tenant's quarantined concept must not
learn that someone asked about it. Tenant B's whole reply, byte for byte, is the reply B gets
when it is the first to capture the concept, apart from the ids B's own turn made (its
conversation id). Two servers over real HTTP, each on its own copy of the seeded graph: on one
B asks first; on the other acme asked the same thing first (ADR 0020)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from egress.wire import Done, LlmRequest, StreamChunk, Text, Tool, Usage
from engine.concepts import CAPTURE_TOOL_NAME
from engine.lexicon import ConceptLexicon
from tests.support.seeded import copy_data_dir
from tests.support.server import running_server

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

ALICE = {"Authorization": "Bearer dev-acme-alice"}
CAROL = {"Authorization": "Bearer dev-globex-carol"}
QUESTION = "In Ireland, does falcon acquisition relief or the CG50 clearance threshold apply?"
CAPTURE = [
    {
        "domain": "TAX",
        "kind": "FALCON_ACQUISITION_RELIEF",
        "jurisdiction": "IE",
        "prefLabel": "Falcon acquisition relief",
        "altLabels": ["falcon relief"],
    },
    {  # names a seeded rule node: a first capture aligns with it
        "domain": "TAX",
        "kind": "CG50_CLEARANCE_THRESHOLD",
        "jurisdiction": "IE",
        "prefLabel": "CG50 clearance threshold",
        "altLabels": [],
    },
]


@dataclass
class CapturingModel:
    """Answers briefly and captures the same two concepts for every question."""

    name: str = "extractive"

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        yield Text("I have noted the reliefs you asked about.")
        yield Tool(name=CAPTURE_TOOL_NAME, args={"concepts": CAPTURE})
        yield Done(Usage(input_tokens=10, output_tokens=8))

    async def aclose(self) -> None:
        return None


def app(data_dir: Path) -> Any:
    settings = Settings(data_dir=data_dir, log_json=False)
    return create_app(
        settings, lexicon=ConceptLexicon(), providers={"extractive": CapturingModel()}
    )


async def ask(base: str, headers: dict[str, str], conversation: str | None = None) -> bytes:
    body: dict[str, Any] = {"message": QUESTION}
    if conversation:
        body["conversationId"] = conversation
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        response = await client.post("/api/chat", json=body, headers=headers)
    assert response.status_code == 200, response.text
    return response.content


def concepts_of(reply: bytes) -> list[dict[str, Any]]:
    for line in reply.split(b"\n"):
        if line.startswith(b"data:") and b'"type":"concepts"' in line.replace(b" ", b""):
            found: list[dict[str, Any]] = json.loads(line[5:])["concepts"]
            return found
    raise AssertionError(f"no concepts event in {reply!r}")


def comparable(reply: bytes) -> bytes:
    """The reply without heartbeat comments (timing) and with B's own conversation id (B
    received it in its own ``metadata``) replaced."""
    lines = [line for line in reply.split(b"\n") if not line.startswith(b":")]
    text = b"\n".join(lines)
    ids = set(re.findall(rb'"conversationId": ?"([^"]+)"', text))
    assert len(ids) == 1, ids
    return text.replace(ids.pop(), b"<conversation>")


async def test_another_tenants_capture_is_told_as_a_first_capture(seeded_template, tmp_path):
    with running_server(app(copy_data_dir(seeded_template, tmp_path / "first"))) as base:
        first = await ask(base, CAROL)
    with running_server(app(copy_data_dir(seeded_template, tmp_path / "second"))) as base:
        await ask(base, ALICE)  # acme captures both concepts first
        after = await ask(base, CAROL)
    concepts = {c["id"]: c for c in concepts_of(first)}
    assert all(c["created"] for c in concepts.values()), concepts
    assert concepts["TAX:IE:CG50_CLEARANCE_THRESHOLD"]["alignedWith"], concepts  # names a rule
    assert comparable(after) == comparable(first)


async def test_the_capturing_conversation_still_knows_its_own_concept(seeded_data_dir):
    """The concept captured in this conversation, met again there, is its own: told as met."""
    with running_server(app(seeded_data_dir)) as base:
        first = await ask(base, ALICE)
        conversation = re.findall(rb'"conversationId": ?"([^"]+)"', first)[0].decode()
        again = await ask(base, ALICE, conversation)
    assert [(c["matchedBy"], c["created"]) for c in concepts_of(again)] == [("key", False)] * 2
