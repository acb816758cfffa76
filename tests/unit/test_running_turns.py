"""Turns an erasure cancels (issue 27, ADR 0048 addendum): the streaming turns of this process
by tenant, user and conversation; an erasure of one conversation sets its turns' flags only,
an erasure of a user all of theirs, never another user's or tenant's."""

import pytest

from engine.turn.cancel import LocalErasureNotices, RunningTurns

pytestmark = [pytest.mark.unit, pytest.mark.anyio]


async def test_an_erasure_cancels_the_turns_it_concerns_and_no_other() -> None:
    running = RunningTurns()
    with (
        running.track("acme", "alice", "c1") as one,
        running.track("acme", "alice", "c1") as two,
        running.track("acme", "alice", "c2") as other,
        running.track("acme", "bob", "c1") as bobs,  # another user: never hers
        running.track("globex", "alice", "c1") as elsewhere,
    ):
        assert len(running) == 5
        assert await running.cancel("acme", "alice", "c1") == 2
        assert (one.cancelled, two.cancelled, other.cancelled) == (True, True, False)
        assert not bobs.cancelled and not elsewhere.cancelled
        assert await running.cancel("acme", "alice", "c1") == 0  # told once
        assert await running.cancel("acme", "alice", None) == 1  # all of hers: c2 left
        assert other.cancelled and not bobs.cancelled and not elsewhere.cancelled
        assert running.cancelled == 3
    assert len(running) == 0  # a turn that ended is forgotten
    assert await running.cancel("acme", "bob", None) == 0


async def test_one_worker_hears_its_own_notices_and_a_failing_listener_is_no_error() -> None:
    notices = LocalErasureNotices()
    running = RunningTurns()
    heard = []

    async def broken(tenant, user, conversation):
        raise RuntimeError("a listener bug")

    async def listen(tenant, user, conversation):
        heard.append((tenant, user, conversation))

    notices.subscribe(broken)
    notices.subscribe(running.cancel)
    notices.subscribe(listen)
    with running.track("acme", "alice", "c1") as flag:
        await notices.publish("acme", "alice", "c1")
        assert flag.cancelled
    assert heard == [("acme", "alice", "c1")]
