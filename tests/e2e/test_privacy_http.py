"""Export and erasure over real HTTP (``api/routes/privacy.py``, ADR 0048), on SQLite and on
PostgreSQL as ``regintel_app`` with row-level security: the export returns everything the user
owns; after an erasure a full dump of the database (SQLite's ``.dump`` and the file's bytes;
``pg_dump``) holds no text of what was erased; a turn streaming while its conversation is
erased writes nothing back; another user's or tenant's ids are 404s."""

import asyncio
import sqlite3
import subprocess
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from egress.wire import Done, LlmRequest, StreamChunk, Text, Usage
from engine.lexicon import ConceptLexicon
from tests.support.server import running_server, sse_events

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

KEYS = {
    "k-acme-admin": "acme:ann:admin",
    "k-acme-alice": "acme:alice",
    "k-acme-bob": "acme:bob",
    "k-globex-admin": "globex:gus:admin",
}
ADMIN = {"Authorization": "Bearer k-acme-admin"}
ALICE = {"Authorization": "Bearer k-acme-alice"}
BOB = {"Authorization": "Bearer k-acme-bob"}
GLOBEX_ADMIN = {"Authorization": "Bearer k-globex-admin"}


@dataclass
class EchoModel:
    """Answers with a marker made of the question's first word, so each answer's text is
    unique and can be searched for; ``gate``: when set, the stream waits for it half-way."""

    name: str = "extractive"
    gate: threading.Event | None = None
    waiting: threading.Event = field(default_factory=threading.Event)

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        question = str(request.messages[-1].content)
        marker = question.split()[0]
        yield Text(f"Answer {marker}-reply first part. ")
        if self.gate is not None:
            self.waiting.set()
            # the server's loop runs in another thread than the test's: a thread event, polled
            while not self.gate.is_set():  # noqa: ASYNC110
                await asyncio.sleep(0.01)
        yield Text(f"Answer {marker}-reply second part.")
        yield Done(Usage(input_tokens=1, output_tokens=1))

    async def aclose(self) -> None:
        return None


@dataclass
class Stack:
    url: str
    model: EchoModel
    dump: Any  # () -> str: everything the database holds, as text


@pytest.fixture(params=["sqlite", "postgres"])
def stack(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stack]:
    store: dict[str, Any] = {}
    if request.param == "postgres":
        cluster = request.getfixturevalue("postgres_cluster")
        name = f"privacy_{uuid.uuid4().hex[:12]}"
        dsn = cluster.create_database(name)
        store = {"conversation_store": "postgres", "postgres_dsn": dsn}

        def dump() -> str:
            done = subprocess.run(
                [str(cluster.bin_dir / "pg_dump"), "--data-only", "-d", dsn],
                capture_output=True, text=True, check=True, timeout=120,
            )  # fmt: skip
            return done.stdout
    else:
        path = tmp_path / "data" / "conversations.db"

        def dump() -> str:
            conn = sqlite3.connect(path)
            try:
                logical = "\n".join(conn.iterdump())
            finally:
                conn.close()
            # the file's own bytes too: no erased text left in free pages or the log
            raw = b"".join(
                p.read_bytes() for p in path.parent.glob("conversations.db*") if p.is_file()
            )
            return logical + raw.decode("utf-8", errors="replace")

    settings = Settings(data_dir=tmp_path / "data", log_json=False, api_keys=KEYS, **store)
    model = EchoModel()
    app = create_app(settings, lexicon=ConceptLexicon(), providers={"extractive": model})
    with running_server(app) as url:
        yield Stack(url, model, dump)


async def chat(
    client: httpx.AsyncClient, headers: dict[str, str], message: str, conversation: str | None
) -> str:
    body: dict[str, Any] = {"message": message}
    if conversation:
        body["conversationId"] = conversation
    async with client.stream("POST", "/api/chat", json=body, headers=headers) as response:
        assert response.status_code == 200
        events = [e async for e in sse_events(response)]
    assert events[-1].event == "done", events[-1]
    return str(events[-1].payload["conversationId"])


async def test_the_export_returns_everything_the_user_owns(stack: Stack) -> None:
    async with httpx.AsyncClient(base_url=stack.url, timeout=60) as client:
        first = await chat(client, ALICE, "Alpha what is the VAT rate in Ireland?", None)
        await chat(client, ALICE, "Bravo and for food?", first)
        second = await chat(client, ALICE, "Charlie my email is alice@example.com", None)
        bobs = await chat(client, BOB, "Delta bob's own question", None)
        await client.patch(f"/api/conversations/{bobs}", json={"visibility": "tenant"}, headers=BOB)
        view = (await client.get(f"/api/conversations/{first}", headers=ALICE)).json()
        pinned = view["messages"][1]["id"]  # Alpha's answer, pinned (ADR 0065 session 8)
        pin = f"/api/conversations/{first}/messages/{pinned}/pin"
        assert (await client.put(pin, headers=ALICE)).status_code == 200

        response = await client.get("/api/conversations/export", headers=ALICE)
        assert response.status_code == 200
        assert "attachment" in response.headers["content-disposition"]
        exported = response.json()
        assert exported["format"] == "regintel.conversations.v1"
        assert (exported["tenantId"], exported["userId"]) == ("acme", "alice")
        assert [c["id"] for c in exported["conversations"]] == [first, second]  # not bob's
        for conversation in exported["conversations"]:
            assert conversation["branches"] == []
            shown = (
                await client.get(f"/api/conversations/{conversation['id']}", headers=ALICE)
            ).json()
            # everything the conversation view shows, message by message
            assert conversation["activeNodeIds"] == shown["context"]["activeNodeIds"]
            assert conversation["createdAt"] == shown["createdAt"]
            assert len(conversation["messages"]) == len(shown["messages"])
            for mine, seen in zip(conversation["messages"], shown["messages"], strict=True):
                for key in ("id", "role", "content", "status", "referencedNodes", "createdAt"):
                    assert mine[key] == seen[key], key
        texts = [m["content"] for c in exported["conversations"] for m in c["messages"]]
        assert texts == [
            "Alpha what is the VAT rate in Ireland?",
            "Answer Alpha-reply first part. Answer Alpha-reply second part.",
            "Bravo and for food?",
            "Answer Bravo-reply first part. Answer Bravo-reply second part.",
            "Charlie my email is alice@example.com",  # as typed: it is hers
            "Answer Charlie-reply first part. Answer Charlie-reply second part.",
        ]
        assert [m["seq"] for m in exported["conversations"][0]["messages"]] == [1, 2, 3, 4]
        assert [c["pinnedMessageIds"] for c in exported["conversations"]] == [[pinned], []]
        empty = (await client.get("/api/conversations/export", headers=ADMIN)).json()
        assert empty["conversations"] == []
        assert (await client.get("/api/conversations/export")).status_code == 401


async def test_erasure_leaves_no_text_of_the_erased_in_a_full_dump(stack: Stack) -> None:
    async with httpx.AsyncClient(base_url=stack.url, timeout=60) as client:
        question = "Echo my PPSN is 1234567TW and mail echo@example.com"
        gone = await chat(client, ALICE, question, None)
        await chat(client, ALICE, "Foxtrot second turn of the erased one", gone)
        await chat(client, ALICE, "Golf alice keeps this one", None)
        bobs = [
            await chat(client, BOB, "Hotel bob writes bob@example.com", None),
            await chat(client, BOB, "India bob again", None),
        ]
        await client.patch(
            f"/api/conversations/{bobs[0]}", json={"visibility": "tenant"}, headers=BOB
        )
        before = stack.dump()
        for text in ("Echo", "1234567TW", "echo@example.com", "Foxtrot", "Golf", "Hotel"):
            assert text in before, text  # the dump does show what is stored

        # another user's conversation (shared or not), another tenant's, unknown ids: 404
        for headers, conversation_id in [
            (ALICE, bobs[0]), (ALICE, bobs[1]), (GLOBEX_ADMIN, gone), (BOB, gone),
            (ALICE, "no-such-conversation"),
        ]:  # fmt: skip
            refused = await client.delete(f"/api/conversations/{conversation_id}", headers=headers)
            assert refused.status_code == 404, (headers, conversation_id)
            assert refused.json()["error"]["code"] == "not_found"

        erased = await client.delete(f"/api/conversations/{gone}", headers=ALICE)
        assert erased.status_code == 200
        receipt = erased.json()
        assert (receipt["kind"], receipt["conversations"], receipt["questions"]) == (
            "conversation", 1, 2
        )  # fmt: skip
        assert receipt["answers"] == 2 and receipt["pseudonyms"] >= 2
        assert (await client.get(f"/api/conversations/{gone}", headers=ALICE)).status_code == 404
        after = stack.dump()
        for text in ("Echo", "1234567TW", "echo@example.com", "Foxtrot", "Echo-reply"):
            assert text not in after, text
        assert "Golf" in after and "Hotel" in after  # the others' stay

        # a member may not erase a user; an admin of another tenant finds nothing of bob
        assert (await client.delete("/api/admin/users/bob", headers=ALICE)).status_code == 403
        assert (
            await client.delete("/api/admin/users/bob", headers=GLOBEX_ADMIN)
        ).status_code == 404
        assert "Hotel" in stack.dump()
        user = await client.delete("/api/admin/users/bob", headers=ADMIN)
        assert user.status_code == 200
        assert (user.json()["kind"], user.json()["conversations"]) == ("user", 2)
        after = stack.dump()
        for text in ("Hotel", "India", "bob@example.com", "Hotel-reply"):
            assert text not in after, text
        assert (await client.delete("/api/admin/users/bob", headers=ADMIN)).status_code == 404

        mine = await client.delete("/api/conversations", headers=ALICE)
        assert (mine.json()["kind"], mine.json()["conversations"]) == ("all_conversations", 1)
        assert "Golf" not in stack.dump()
        assert (await client.get("/api/conversations/export", headers=ALICE)).json()[
            "conversations"
        ] == []

        trail = await client.get("/api/admin/erasures", headers=ADMIN)
        assert [e["kind"] for e in trail.json()["erasures"]] == [
            "all_conversations", "user", "conversation"
        ]  # fmt: skip
        assert "Echo" not in trail.text and "Hotel" not in trail.text
        assert (await client.get("/api/admin/erasures", headers=ALICE)).status_code == 403
        other = (await client.get("/api/admin/erasures", headers=GLOBEX_ADMIN)).json()
        assert other == {"tenantId": "globex", "erasures": []}


async def test_a_turn_streaming_while_its_conversation_is_erased_writes_nothing_back(
    stack: Stack,
) -> None:
    stack.model.gate = threading.Event()
    async with httpx.AsyncClient(base_url=stack.url, timeout=60) as client:
        body = {"message": "Juliet write to juliet@example.com please"}
        async with client.stream("POST", "/api/chat", json=body, headers=ALICE) as response:
            assert response.status_code == 200
            events = sse_events(response)
            conversation_id = None
            async for event in events:
                if event.event == "metadata":
                    conversation_id = event.payload["conversationId"]
                if event.event == "text":
                    break  # the answer is streaming
            assert conversation_id is not None
            assert stack.model.waiting.wait(10)
            erased = await client.delete(f"/api/conversations/{conversation_id}", headers=ALICE)
            assert erased.status_code == 200
            stack.model.gate.set()
            rest = [e async for e in events]  # the turn ends at the model's next chunk
        assert rest and rest[-1].event in ("done", "error")
        # cancelled by the erasure (ADR 0048 addendum): the second part never reaches the
        # client, the upstream call is closed, the turn says why
        assert not [e for e in rest if e.event == "text"], rest
        assert any(
            e.event == "error" and e.payload["code"] == "conversation_erased" for e in rest
        ), rest
        await asyncio.sleep(0.5)  # any late write (a capture's context) has had its chance
        missing = await client.get(f"/api/conversations/{conversation_id}", headers=ALICE)
        assert missing.status_code == 404
        exported = (await client.get("/api/conversations/export", headers=ALICE)).json()
        assert exported["conversations"] == []
        dump = stack.dump()
        for text in ("Juliet", "juliet@example.com", "Juliet-reply"):
            assert text not in dump, text
