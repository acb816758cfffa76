"""Erasure notices across workers through a real redis-server (issue 27, ADR 0048 addendum):
what one worker erases, another worker's streaming turns of it are cancelled; a malformed
notice is ignored; a Redis that is gone loses the notice and raises nothing."""

import asyncio

import pytest

from engine.turn.cancel import RunningTurns
from infra.erasure_notices import RedisErasureNotices
from infra.redis_client import connect_redis

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


async def test_an_erasure_in_one_worker_cancels_the_turns_of_another(redis_server, redis_prefix):
    client = connect_redis(redis_server.url(), timeout_s=0.5)
    a = RedisErasureNotices(client, redis_prefix)
    b = RedisErasureNotices(client, redis_prefix)
    running_b = RunningTurns()
    heard = asyncio.Event()

    async def told(tenant, user, conversation):
        await running_b.cancel(tenant, user, conversation)
        heard.set()

    b.subscribe(told)
    await a.start()
    await b.start()
    try:
        with (
            running_b.track("acme", "alice", "c1") as erased,
            running_b.track("acme", "alice", "c2") as kept,
        ):
            await client.publish(f"{redis_prefix}:erasures", "not json")  # ignored
            await client.publish(f"{redis_prefix}:erasures", '{"t": 1, "u": "x", "c": null}')
            await a.publish("acme", "alice", "c1")
            async with asyncio.timeout(5):
                await heard.wait()
            assert erased.cancelled and not kept.cancelled
            heard.clear()
            await a.publish("acme", "alice", None)  # the whole user
            async with asyncio.timeout(5):
                await heard.wait()
            assert kept.cancelled and running_b.cancelled == 2
    finally:
        await a.aclose()
        await b.aclose()
        await client.aclose()


async def test_a_redis_that_is_gone_loses_the_notice_quietly(redis_prefix):
    gone = connect_redis("redis://127.0.0.1:1/0", timeout_s=0.2)  # nothing listens there
    notices = RedisErasureNotices(gone, redis_prefix)
    try:
        await notices.publish("acme", "alice", "c1")
        assert notices.publish_failures == 1
    finally:
        await notices.aclose()
        await gone.aclose()
