"""A question refused for the quota (ADR 0050, addendum) on a real SQLite conversation store: it
stays on the active branch (the next turn follows it), but it is never a later turn's history."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any, cast

import pytest
from opentelemetry.trace import NoOpTracer

from conversations.models import ConversationContext, NewMessage
from conversations.sqlite import SqliteConversationStore
from engine.turn.prepare import ChatLimits, TurnPreparer, TurnRequest

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


def _message(role: str, text: str, status: str = "complete") -> NewMessage:
    return NewMessage.model_validate(
        {"role": role, "content": text, "content_sanitised": text, "status": status}
    )


async def test_a_refused_question_is_on_the_branch_but_not_in_the_history(tmp_path: Path) -> None:
    store = SqliteConversationStore(tmp_path / "c.db")
    await store.init()
    try:
        unused = cast(Any, None)  # load_conversation reads the store only
        preparer = TurnPreparer(
            store=store, egress=unused, router=unused, evidence=unused, lexicon=None,
            limits=ChatLimits(), aspects=(), today=date.today, tracer=NoOpTracer(),
        )  # fmt: skip
        conversation = await store.create_conversation("t1", "u1")
        answered = [_message("user", "VAT in Ireland?"), _message("assistant", "23%.")]
        await store.save_turn("t1", conversation.id, answered, ConversationContext(), user_id="u1")
        (refused,) = await store.save_turn(
            "t1",
            conversation.id,
            [_message("user", "And USC?", "quota_exceeded")],
            ConversationContext(),
            user_id="u1",
        )
        request = TurnRequest("t1", "u1", "And PRSI?", conversation_id=conversation.id)
        loaded = await preparer.load_conversation(request)
        assert [m.content for m in loaded.history] == ["VAT in Ireland?", "23%."]
        assert loaded.parent_id == refused.id  # the next turn follows it on the branch
        view = await store.conversation_view("t1", conversation.id, 50, user_id="u1")
        assert [m.status for m in view.messages] == ["complete", "complete", "quota_exceeded"]
    finally:
        await store.aclose()
