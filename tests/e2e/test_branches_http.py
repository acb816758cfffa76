"""Edit and regenerate as branches over real HTTP (issue 27, ADR 0062), on SQLite and on
PostgreSQL as ``regintel_app`` with row-level security: an edit makes a branch whose prompts
hold only that branch's messages, a regeneration keeps both answers, the conversation shows the
active branch and its branch points, a switch changes what the next turn continues (and its
jurisdictions), two edits at once make two branches, a switch during a running turn leaves the
turn on its own branch, and what the caller may not touch is a 404."""

import asyncio
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

KEYS = {"k-acme-alice": "acme:alice", "k-acme-bob": "acme:bob", "k-globex": "globex:gus"}
ALICE = {"Authorization": "Bearer k-acme-alice"}
BOB = {"Authorization": "Bearer k-acme-bob"}
GLOBEX = {"Authorization": "Bearer k-globex"}


@dataclass
class PromptRecorder:
    """Answers "Answer <first word of the question> #<call>"; keeps every prompt it was sent.
    ``hold``: while set, a stream waits half-way (thread events: the server runs in another
    thread) until ``release`` is set; ``holding`` counts the streams waiting."""

    name: str = "extractive"
    prompts: list[str] = field(default_factory=list)
    hold: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    holding: int = 0

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        self.prompts.append("\n".join(str(m.content) for m in request.messages))
        marker = str(request.messages[-1].content).split()[0]
        yield Text(f"Answer {marker} #{len(self.prompts)}, first part. ")
        if self.hold.is_set():
            self.holding += 1
            while not self.release.is_set():  # noqa: ASYNC110
                await asyncio.sleep(0.01)
        yield Text("Second part.")
        yield Done(Usage(input_tokens=1, output_tokens=1))

    async def aclose(self) -> None:
        return None


@dataclass
class Stack:
    url: str
    model: PromptRecorder


@pytest.fixture(params=["sqlite", "postgres"])
def stack(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stack]:
    store: dict[str, Any] = {}
    if request.param == "postgres":
        cluster = request.getfixturevalue("postgres_cluster")
        dsn = cluster.create_database(f"branches_{uuid.uuid4().hex[:12]}")
        store = {"conversation_store": "postgres", "postgres_dsn": dsn}
    settings = Settings(data_dir=tmp_path / "data", log_json=False, api_keys=KEYS, **store)
    model = PromptRecorder()
    app = create_app(settings, lexicon=ConceptLexicon(), providers={"extractive": model})
    with running_server(app) as url:
        yield Stack(url, model)


async def turn(
    client: httpx.AsyncClient, path: str, body: dict[str, Any] | None, headers=ALICE
) -> list[Any]:
    """One streamed turn; its events (``done`` last)."""
    async with client.stream("POST", path, json=body, headers=headers) as response:
        assert response.status_code == 200, await response.aread()
        events = [e async for e in sse_events(response) if e.event]
    assert events[-1].event == "done" and events[-1].payload["status"] == "complete", events
    return events


async def chat(client: httpx.AsyncClient, message: str, conversation: str | None = None) -> str:
    body: dict[str, Any] = {"message": message}
    if conversation:
        body["conversationId"] = conversation
    events = await turn(client, "/api/chat", body)
    return str(events[-1].payload["conversationId"])


async def shown(client: httpx.AsyncClient, cid: str, headers=ALICE) -> dict[str, Any]:
    response = await client.get(f"/api/conversations/{cid}", headers=headers)
    assert response.status_code == 200
    view: dict[str, Any] = response.json()
    return view


def firsts(conversation: dict[str, Any]) -> list[str]:
    """Each message of the active branch by its first word (the answers': their marker)."""
    return [m["content"].split()[0 if m["role"] == "user" else 1] for m in conversation["messages"]]


async def test_an_edit_branches_and_each_prompt_holds_only_its_branch(stack: Stack) -> None:
    model = stack.model
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
        cid = await chat(client, "Alpha what is the VAT rate in Ireland?")
        await chat(client, "Bravo and what about France?", cid)
        bravo = (await shown(client, cid))["messages"][2]
        assert bravo["content"].startswith("Bravo")

        edit = f"/api/conversations/{cid}/messages/{bravo['id']}/edit"
        events = await turn(client, edit, {"message": "Gamma and the reduced rate?"})
        assert events[0].payload["conversationId"] == cid
        assert events[0].payload["jurisdictions"] == ["IE"]  # from its branch: not France
        assert "Alpha" in model.prompts[-1] and "Bravo" not in model.prompts[-1]

        view = await shown(client, cid)
        assert firsts(view) == ["Alpha", "Alpha", "Gamma", "Gamma"]
        gamma = view["messages"][2]
        assert gamma["siblingIds"] == [bravo["id"], gamma["id"]]
        assert gamma["parentId"] == view["messages"][1]["id"]
        assert view["branchPoints"] == [
            {"parentId": gamma["parentId"], "messageIds": gamma["siblingIds"],
             "activeId": gamma["id"]}
        ]  # fmt: skip
        assert view["activeLeafId"] == view["messages"][-1]["id"]

        # the next turn continues the edited branch
        events = await turn(
            client, "/api/chat", {"message": "Kappa and the standard rate?", "conversationId": cid}
        )
        assert events[0].payload["jurisdictions"] == ["IE"]
        prompt = model.prompts[-1]
        assert "Gamma" in prompt and "Alpha" in prompt and "Bravo" not in prompt

        # back to the first branch: kept whole, and the next turn continues it
        switched = await client.put(
            f"/api/conversations/{cid}/branch", json={"messageId": bravo["id"]}, headers=ALICE
        )
        assert switched.status_code == 200
        assert firsts(switched.json()) == ["Alpha", "Alpha", "Bravo", "Bravo"]
        assert switched.json() == await shown(client, cid)
        events = await turn(
            client, "/api/chat", {"message": "Sigma and the standard rate?", "conversationId": cid}
        )
        assert events[0].payload["jurisdictions"] == ["FR"]  # Bravo's France, on this branch
        prompt = model.prompts[-1]
        assert "Bravo" in prompt and "Gamma" not in prompt and "Kappa" not in prompt

        # a switch to Gamma goes down to the latest message of that branch
        switched = await client.put(
            f"/api/conversations/{cid}/branch", json={"messageId": gamma["id"]}, headers=ALICE
        )
        assert firsts(switched.json()) == ["Alpha", "Alpha", "Gamma", "Gamma", "Kappa", "Kappa"]


async def test_a_preview_shows_the_other_branch_from_the_fork_and_switches_nothing(
    stack: Stack,
) -> None:
    """The merge preview (ADR 0062 addendum): before switching, the owner (or a reader of a
    shared conversation) sees where another branch forks from the active one and each side's
    messages after it; nothing changes; unknown ids and other people's conversations: 404."""
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
        cid = await chat(client, "Alpha what is the VAT rate in Ireland?")
        await chat(client, "Bravo and what about France?", cid)
        await chat(client, "Charlie and Spain?", cid)
        alpha_answer, bravo = (await shown(client, cid))["messages"][1:3]
        await turn(
            client,
            f"/api/conversations/{cid}/messages/{bravo['id']}/edit",
            {"message": "Delta and the reduced rate?"},
        )
        before = await shown(client, cid)
        preview = f"/api/conversations/{cid}/branch/preview?messageId={bravo['id']}"
        response = await client.get(preview, headers=ALICE)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["forkId"] == alpha_answer["id"]
        assert [m["content"].split()[0] for m in body["messages"]] == [
            "Bravo", "Answer", "Charlie", "Answer"
        ]  # fmt: skip
        assert body["leafId"] == body["messages"][-1]["id"]
        assert [m["content"].split()[0] for m in body["activeMessages"]] == ["Delta", "Answer"]
        assert body["conceptsAdded"] == [] and body["conceptsDropped"] == []
        assert await shown(client, cid) == before  # nothing switched

        await client.patch(
            f"/api/conversations/{cid}", json={"visibility": "tenant"}, headers=ALICE
        )
        assert (await client.get(preview, headers=BOB)).status_code == 200  # a reader may look
        await client.patch(
            f"/api/conversations/{cid}", json={"visibility": "private"}, headers=ALICE
        )
        for headers in (BOB, GLOBEX):
            assert (await client.get(preview, headers=headers)).status_code == 404
        unknown = f"/api/conversations/{cid}/branch/preview?messageId=no-such"
        assert (await client.get(unknown, headers=ALICE)).status_code == 404


async def test_an_edit_of_the_first_question_retitles_the_conversation(stack: Stack) -> None:
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
        cid = await chat(client, "Alpha what is the VAT rate in Ireland?")
        alpha = (await shown(client, cid))["messages"][0]

        async def titles() -> list[str]:
            listed = await client.get("/api/conversations", headers=ALICE)
            assert listed.status_code == 200
            return [c["title"] for c in listed.json()]

        assert await titles() == ["Alpha what is the VAT rate in Ireland?"]
        edit = f"/api/conversations/{cid}/messages/{alpha['id']}/edit"
        await turn(client, edit, {"message": "Delta what is the VAT rate in France?"})
        assert await titles() == ["Delta what is the VAT rate in France?"]
        switched = await client.put(
            f"/api/conversations/{cid}/branch", json={"messageId": alpha["id"]}, headers=ALICE
        )
        assert switched.status_code == 200
        assert await titles() == ["Alpha what is the VAT rate in Ireland?"]


async def test_a_regeneration_keeps_both_answers(stack: Stack) -> None:
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
        cid = await chat(client, "Alpha what is the VAT rate in Ireland?")
        await chat(client, "Bravo and what about France?", cid)
        first = (await shown(client, cid))["messages"][3]
        calls = len(stack.model.prompts)

        path = f"/api/conversations/{cid}/messages/{first['id']}/regenerate"
        await turn(client, path, None)  # no body
        prompt = stack.model.prompts[-1]
        assert prompt.rstrip().endswith("Bravo and what about France?")  # the question again
        assert prompt.count("Bravo and what about France?") == 1  # once: not in the history too
        view = await shown(client, cid)
        again = view["messages"][3]
        assert again["content"] == f"Answer Bravo #{calls + 1}, first part. Second part."
        assert again["siblingIds"] == [first["id"], again["id"]]
        assert len(view["messages"]) == 4  # no second question stored
        await turn(client, path, {"asAt": "2024-01-01"})  # a body is allowed too
        assert len((await shown(client, cid))["messages"][3]["siblingIds"]) == 3

        switched = await client.put(
            f"/api/conversations/{cid}/branch", json={"messageId": first["id"]}, headers=ALICE
        )
        assert switched.json()["messages"][3]["content"] == first["content"]  # kept as it was


async def test_what_the_caller_may_not_touch_is_refused_before_the_model(stack: Stack) -> None:
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
        cid = await chat(client, "Alpha what is the VAT rate in Ireland?")
        other = await chat(client, "Omega another conversation")
        question, answer = (await shown(client, cid))["messages"]
        elsewhere = (await shown(client, other))["messages"][0]
        calls = len(stack.model.prompts)
        edit = {"message": "Bravo edited"}

        def paths(conversation: str, message: str) -> list[tuple[str, dict[str, Any] | None]]:
            base = f"/api/conversations/{conversation}/messages/{message}"
            return [(f"{base}/edit", edit), (f"{base}/regenerate", None)]

        not_found = [
            *[(p, b, BOB) for p, b in paths(cid, question["id"])],  # another user's
            *[(p, b, GLOBEX) for p, b in paths(cid, question["id"])],  # another tenant's
            *[(p, b, ALICE) for p, b in paths(cid, "no-such-message")],
            *[(p, b, ALICE) for p, b in paths(cid, elsewhere["id"])],  # of another conversation
            *[(p, b, ALICE) for p, b in paths("no-such-conversation", question["id"])],
        ]
        for path, body, headers in not_found:
            refused = await client.post(path, json=body, headers=headers)
            assert refused.status_code == 404, (path, headers, refused.text)
            assert refused.json()["error"]["code"] == "not_found"
        for path, body in [paths(cid, answer["id"])[0], paths(cid, question["id"])[1]]:
            refused = await client.post(path, json=body, headers=ALICE)  # the wrong kind
            assert refused.status_code == 422, (path, refused.text)
        for target, headers in [(question["id"], BOB), ("no-such-message", ALICE)]:
            refused = await client.put(
                f"/api/conversations/{cid}/branch", json={"messageId": target}, headers=headers
            )
            assert refused.status_code == 404
        shared = {"visibility": "tenant"}
        await client.patch(f"/api/conversations/{cid}", json=shared, headers=ALICE)
        for path, body in paths(cid, question["id"]):  # shared: bob reads, never writes
            refused = await client.post(path, json=body, headers=BOB)
            assert refused.status_code == 403, refused.text
        assert (
            await client.put(
                f"/api/conversations/{cid}/branch", json={"messageId": answer["id"]}, headers=BOB
            )
        ).status_code == 403
        assert len((await shown(client, cid, BOB))["messages"]) == 2
        assert (await client.post(paths(cid, question["id"])[0][0], json=edit)).status_code == 401
        assert len(stack.model.prompts) == calls  # nothing reached the model
        assert len((await shown(client, cid))["messages"]) == 2  # nothing stored


async def test_two_edits_at_once_make_two_branches_never_a_mix(stack: Stack) -> None:
    model = stack.model
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
        cid = await chat(client, "Alpha what is the VAT rate in Ireland?")
        await chat(client, "Bravo and what about France?", cid)
        bravo = (await shown(client, cid))["messages"][2]
        edit = f"/api/conversations/{cid}/messages/{bravo['id']}/edit"
        model.hold.set()  # both turns stream at the same time

        async def release_when_both_wait() -> None:
            while model.holding < 2:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
            model.release.set()

        await asyncio.gather(
            turn(client, edit, {"message": "Gamma and in Germany?"}),
            turn(client, edit, {"message": "Kappa and in the UK?"}),
            release_when_both_wait(),
        )
        for word, other in [("Gamma", "Kappa"), ("Kappa", "Gamma")]:
            [prompt] = [p for p in model.prompts if f"{word} and" in p]
            assert "Alpha" in prompt and other not in prompt and "Bravo" not in prompt
        versions = (await shown(client, cid))["messages"][2]["siblingIds"]
        assert len(versions) == 3 and versions[0] == bravo["id"]
        for version in versions[1:]:
            view = (
                await client.put(
                    f"/api/conversations/{cid}/branch", json={"messageId": version}, headers=ALICE
                )
            ).json()
            question, answer = view["messages"][2:]
            assert answer["content"].split()[1] == question["content"].split()[0]  # its own
            assert answer["status"] == "complete"


async def test_a_switch_during_a_running_turn_leaves_the_turn_on_its_branch(stack: Stack) -> None:
    model = stack.model
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
        cid = await chat(client, "Alpha what is the VAT rate in Ireland?")
        await chat(client, "Bravo and what about France?", cid)
        bravo = (await shown(client, cid))["messages"][2]
        model.hold.set()
        edit = f"/api/conversations/{cid}/messages/{bravo['id']}/edit"
        running = asyncio.ensure_future(turn(client, edit, {"message": "Gamma and in Germany?"}))
        while model.holding < 1:  # noqa: ASYNC110
            await asyncio.sleep(0.01)
        switched = await client.put(
            f"/api/conversations/{cid}/branch", json={"messageId": bravo["id"]}, headers=ALICE
        )
        assert firsts(switched.json()) == ["Alpha", "Alpha", "Bravo", "Bravo"]
        model.release.set()
        events = await running
        assert events[-1].payload["status"] == "complete"
        view = await shown(client, cid)
        assert firsts(view) == ["Alpha", "Alpha", "Bravo", "Bravo"]  # still the switched-to
        gamma = view["messages"][2]["siblingIds"][1]
        view = (
            await client.put(
                f"/api/conversations/{cid}/branch", json={"messageId": gamma}, headers=ALICE
            )
        ).json()
        assert firsts(view) == ["Alpha", "Alpha", "Gamma", "Gamma"]
        assert view["messages"][3]["content"].endswith("Second part.")  # finished there
