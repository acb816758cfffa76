"""What only the PostgreSQL conversation store has: row-level security on its own, the role it
runs as, migrations under concurrency, and a server that is down or goes away.

The behaviours shared with SQLite run against both adapters in ``test_sqlite_store.py``.
"""

import asyncio
import time

import psycopg
import pytest
from psycopg import errors as pg_errors

from conversations.models import ConversationContext, NewMessage
from conversations.postgres import APP_ROLE, PostgresConversationStore
from errors import ConversationStoreUnavailable, NotFound
from tests.support.postgres import _free_port, as_app_role

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

TENANT_TABLES = [
    "tenants",
    "conversations",
    "messages",
    "contexts",
    "tenant_policies",
    "user_policies",
    "pseudonyms",
    "egress_audit",
]


@pytest.fixture
async def store(postgres_dsn):
    store = PostgresConversationStore(postgres_dsn, app_role=APP_ROLE, timeout=2.0)
    await store.init()
    yield store
    await store.aclose()


def turn(text="q"):
    return [
        NewMessage(role="user", content=text, content_sanitised=text),
        NewMessage(role="assistant", content="a", content_sanitised="a", referenced_nodes=["IE"]),
    ]


async def acme_conversation_with_a_turn(store):
    conversation = await store.create_conversation("acme", "alice")
    await store.save_turn("acme", conversation.id, turn(), ConversationContext(), user_id="alice")
    return conversation.id


async def test_rls_alone_hides_another_tenants_messages(store, postgres_dsn):
    conversation_id = await acme_conversation_with_a_turn(store)
    no_tenant_filter = "SELECT id, content FROM regintel.messages WHERE conversation_id = %s"
    assert await as_app_role(postgres_dsn, "globex", no_tenant_filter, (conversation_id,)) == []
    owner = await as_app_role(
        postgres_dsn, "acme", no_tenant_filter, (conversation_id,), user_id="alice"
    )
    assert len(owner) == 2
    for table in TENANT_TABLES:  # not even a count leaks, on any table
        [(count,)] = await as_app_role(
            postgres_dsn, "globex", f"SELECT count(*) FROM regintel.{table}"
        )
        assert count == 0, table
    # a forgotten tenant setting fails closed
    assert await as_app_role(postgres_dsn, None, no_tenant_filter, (conversation_id,)) == []


async def test_rls_refuses_writing_rows_of_another_tenant(store, postgres_dsn):
    conversation_id = await acme_conversation_with_a_turn(store)
    with pytest.raises(pg_errors.InsufficientPrivilege, match="row-level security"):
        await as_app_role(
            postgres_dsn,
            "globex",
            "INSERT INTO regintel.messages (id, tenant_id, conversation_id, seq, role, content,"
            " content_sanitised, status, created_at) VALUES ('m', 'acme', %s, 99, 'user', 'x',"
            " 'x', 'complete', now())",
            (conversation_id,),
        )
    # an UPDATE of another tenant's rows finds nothing to update
    assert (
        await as_app_role(
            postgres_dsn,
            "globex",
            "UPDATE regintel.contexts SET active_node_ids = '{X}' WHERE conversation_id = %s"
            " RETURNING conversation_id",
            (conversation_id,),
        )
        == []
    )
    assert (
        await store.load_context("acme", conversation_id, user_id="alice")
    ).active_node_ids == []


async def test_rls_holds_inside_the_adapters_own_transactions(store):
    conversation_id = await acme_conversation_with_a_turn(store)
    async with store.tenant_transaction("globex") as conn:
        cur = await conn.execute("SELECT * FROM regintel.messages")
        assert await cur.fetchall() == []
    with pytest.raises(ConversationStoreUnavailable) as caught:
        async with store.tenant_transaction("globex") as conn:
            await conn.execute(
                "INSERT INTO regintel.tenants (id, created_at) VALUES ('acme2', now())"
            )
    assert isinstance(caught.value.__cause__, pg_errors.InsufficientPrivilege)
    with pytest.raises(NotFound):
        await store.get_conversation("globex", conversation_id, user_id="carol")


async def test_tables_force_rls_and_the_app_role_cannot_bypass_it(store, postgres_dsn):
    async with await psycopg.AsyncConnection.connect(postgres_dsn) as conn:
        cur = await conn.execute(
            "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class"
            " WHERE relnamespace = 'regintel'::regnamespace AND relkind = 'r'"
        )
        flags = {name: (on, forced) for name, on, forced in await cur.fetchall()}
        cur = await conn.execute(
            "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = %s", (APP_ROLE,)
        )
        assert await cur.fetchone() == (False, False)
    assert {t: flags[t] for t in TENANT_TABLES} == {t: (True, True) for t in TENANT_TABLES}
    # every table the migrations made since (usage, scenarios, summaries, leases …: issue 27,
    # "row-level security covers every new table"), the migrations' own record excepted
    unforced = {t for t, f in flags.items() if f != (True, True)}
    assert unforced <= {"schema_migrations"}, unforced


async def test_a_role_that_bypasses_rls_is_refused(postgres_dsn):
    superuser = PostgresConversationStore(postgres_dsn)  # the cluster's superuser, no SET ROLE
    with pytest.raises(ConversationStoreUnavailable, match="bypasses row-level security"):
        await superuser.init()
    await superuser.aclose()


async def test_migrations_are_recorded_and_concurrent_inits_are_safe(postgres_dsn):
    stores = [PostgresConversationStore(postgres_dsn, app_role=APP_ROLE) for _ in range(3)]
    try:
        await asyncio.gather(*[s.init() for s in stores])
        await stores[0].init()
    finally:
        for s in stores:
            await s.aclose()
    async with await psycopg.AsyncConnection.connect(postgres_dsn) as conn:
        cur = await conn.execute("SELECT name FROM regintel.schema_migrations ORDER BY name")
        names = [name for (name,) in await cur.fetchall()]
    assert names == [
        "001_conversations.sql",
        "002_egress.sql",
        "003_row_level_security.sql",
        "004_streaming_answers.sql",
        "005_conversation_owners.sql",
        "006_tenant_admin_reads.sql",
        "007_erasure.sql",
        "008_usage.sql",
        "009_scenarios.sql",
        "010_branches.sql",
        "011_summaries.sql",
        "012_quota_exceeded_status.sql",
        "013_model_summaries.sql",
        "014_conversation_scenarios.sql",
        "015_model_summary_lag.sql",
        "016_summary_leases.sql",
    ]


async def test_saved_rows_use_native_types(store, postgres_dsn):
    conversation_id = await acme_conversation_with_a_turn(store)
    [(nodes, created)] = await as_app_role(
        postgres_dsn,
        "acme",
        "SELECT referenced_nodes, created_at FROM regintel.messages"
        " WHERE conversation_id = %s AND role = 'assistant'",
        (conversation_id,),
        user_id="alice",
    )
    assert nodes == ["IE"] and created.tzinfo is not None


async def test_an_unreachable_server_is_a_store_error():
    dsn = f"host=127.0.0.1 port={_free_port()} user=postgres dbname=x connect_timeout=2"
    store = PostgresConversationStore(dsn, app_role=APP_ROLE, timeout=1.0)
    began = time.monotonic()
    with pytest.raises(ConversationStoreUnavailable) as caught:
        await store.init()
    assert isinstance(caught.value.__cause__, psycopg.Error)
    assert time.monotonic() - began < 10
    with pytest.raises(ConversationStoreUnavailable):  # and never half-open
        await store.get_conversation("acme", "c", user_id="alice")
    await store.aclose()


async def test_a_store_that_goes_down_is_a_store_error_and_comes_back(store, postgres_dsn):
    conversation_id = await acme_conversation_with_a_turn(store)
    dbname = psycopg.conninfo.conninfo_to_dict(postgres_dsn)["dbname"]
    admin_dsn = postgres_dsn.replace(f"dbname={dbname}", "dbname=postgres")
    async with await psycopg.AsyncConnection.connect(admin_dsn, autocommit=True) as admin:
        await admin.execute(f'ALTER DATABASE "{dbname}" WITH ALLOW_CONNECTIONS false')
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
            (dbname,),
        )
        try:
            with pytest.raises(ConversationStoreUnavailable):  # the pooled connection died
                await store.get_conversation("acme", conversation_id, user_id="alice")
            with pytest.raises(ConversationStoreUnavailable):  # and no new one is let in
                await store.save_turn(
                    "acme", conversation_id, turn(), ConversationContext(), user_id="alice"
                )
        finally:
            await admin.execute(f'ALTER DATABASE "{dbname}" WITH ALLOW_CONNECTIONS true')
    deadline = time.monotonic() + 15
    while True:
        try:
            history = await store.recent_messages("acme", conversation_id, 10, user_id="alice")
            break
        except ConversationStoreUnavailable:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)
    assert len(history) == 2  # the failed turn saved nothing


async def test_regression_a_pooled_connection_that_died_in_a_restart_failed_one_request(
    postgres_cluster, postgres_dsn
):
    """Regression: after PostgreSQL restarted, each dead pooled connection failed one request
    with a 503. The pool now checks a connection on checkout and replaces a dead one."""
    store = PostgresConversationStore(postgres_dsn, app_role=APP_ROLE, min_size=3, max_size=3)
    await store.init()
    try:
        conversation_id = await acme_conversation_with_a_turn(store)
        # every pooled connection has been used, then the server restarts under them
        await asyncio.gather(
            *[store.load_context("acme", conversation_id, user_id="alice") for _ in range(3)]
        )
        await asyncio.to_thread(postgres_cluster.restart)
        for _ in range(6):  # more requests than pooled connections: none may fail
            assert (
                len(await store.recent_messages("acme", conversation_id, 10, user_id="alice")) == 2
            )
    finally:
        await store.aclose()


async def test_a_pooled_connection_the_server_terminated_a_moment_after_use_is_replaced(
    postgres_dsn,
):
    """The checkout check skips its round trip for a connection used a moment ago (ADR 0029,
    second pass), but not for one the server closed meanwhile: no request fails for it."""
    store = PostgresConversationStore(postgres_dsn, app_role=APP_ROLE, min_size=2, max_size=2)
    await store.init()
    try:
        conversation_id = await acme_conversation_with_a_turn(store)
        await asyncio.gather(
            *[store.load_context("acme", conversation_id, user_id="alice") for _ in range(2)]
        )
        before = store.checkout_check.round_trips
        await store.load_context("acme", conversation_id, user_id="alice")
        assert store.checkout_check.round_trips == before  # just used: no round trip
        async with await psycopg.AsyncConnection.connect(postgres_dsn, autocommit=True) as admin:
            others = (
                " FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid()"
            )
            await admin.execute("SELECT pg_terminate_backend(pid)" + others)
            deadline = time.monotonic() + 10
            while True:  # until the backends are gone: they died while pooled
                row = await (await admin.execute("SELECT count(*)" + others)).fetchone()
                if row is not None and row[0] == 0:
                    break
                assert time.monotonic() < deadline
                await asyncio.sleep(0.01)
        for _ in range(4):  # more requests than pooled connections: none may fail
            state = await store.load_turn("acme", conversation_id, 10, user_id="alice")
            assert len(state.history) == 2
        assert store.checkout_check.round_trips > before
    finally:
        await store.aclose()
