"""The egress ports over the PostgreSQL conversation store: policies, pseudonym vault, audit.

They share the store's pool and its :meth:`~PostgresConversationStore.tenant_transaction`, so
every statement runs as the app role with ``app.tenant_id`` set (row-level security) and is
also filtered on ``tenant_id``. Vault values never leave their ``(tenant, conversation)``.

The vault numbers placeholders ``[TYPE_n]`` by counting what is there, so two transactions
assigning in one conversation must not interleave: each takes a transaction-level advisory lock
keyed on the conversation first. The lock is per conversation, not global, and is released at
commit; the primary key still refuses a duplicate if the lock were ever bypassed.
"""

from __future__ import annotations

from psycopg.types.json import Jsonb

from conversations.postgres import PostgresConversationStore, _now
from egress.audit import EgressAuditRecord
from egress.policy import EgressMode, TenantPolicy, UserPolicy

AUDIT_COLUMNS = (
    "tenant_id, user_id, conversation_id, task, provider, model, requested_mode,"
    " effective_mode, counts, violations, blocked, reason, at"
)


class PostgresPolicyStore:
    def __init__(self, store: PostgresConversationStore) -> None:
        self._store = store

    async def tenant_policy(self, tenant_id: str) -> TenantPolicy:
        async with self._store.tenant_transaction(tenant_id) as conn:
            cur = await conn.execute(
                "SELECT default_mode, allow_off_mode, allowed_providers, allowed_models"
                " FROM regintel.tenant_policies WHERE tenant_id = %s",
                (tenant_id,),
            )
            row = await cur.fetchone()
        if row is None:
            return TenantPolicy()
        return TenantPolicy(
            default_mode=EgressMode(row["default_mode"]) if row["default_mode"] else None,
            allow_off_mode=bool(row["allow_off_mode"]),
            allowed_providers=frozenset(row["allowed_providers"]),
            allowed_models=frozenset(row["allowed_models"]),
        )

    async def user_policy(self, tenant_id: str, user_id: str) -> UserPolicy:
        async with self._store.tenant_transaction(tenant_id) as conn:
            cur = await conn.execute(
                "SELECT mode FROM regintel.user_policies WHERE tenant_id = %s AND user_id = %s",
                (tenant_id, user_id),
            )
            row = await cur.fetchone()
        return UserPolicy(mode=EgressMode(row["mode"]) if row and row["mode"] else None)

    async def set_tenant_policy(self, tenant_id: str, policy: TenantPolicy) -> None:
        values = (
            tenant_id,
            policy.default_mode.value if policy.default_mode else None,
            policy.allow_off_mode,
            sorted(policy.allowed_providers),
            sorted(policy.allowed_models),
            _now(),
        )
        async with self._store.tenant_transaction(tenant_id) as conn:
            await conn.execute(
                "INSERT INTO regintel.tenant_policies (tenant_id, default_mode, allow_off_mode,"
                " allowed_providers, allowed_models, updated_at)"
                " VALUES (%s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (tenant_id) DO UPDATE SET default_mode = excluded.default_mode,"
                " allow_off_mode = excluded.allow_off_mode,"
                " allowed_providers = excluded.allowed_providers,"
                " allowed_models = excluded.allowed_models, updated_at = excluded.updated_at",
                values,
            )

    async def set_user_policy(self, tenant_id: str, user_id: str, policy: UserPolicy) -> None:
        mode = policy.mode.value if policy.mode else None
        async with self._store.tenant_transaction(tenant_id) as conn:
            await conn.execute(
                "INSERT INTO regintel.user_policies (tenant_id, user_id, mode, updated_at)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT (tenant_id, user_id)"
                " DO UPDATE SET mode = excluded.mode, updated_at = excluded.updated_at",
                (tenant_id, user_id, mode, _now()),
            )


class PostgresPseudonymVault:
    def __init__(self, store: PostgresConversationStore) -> None:
        self._store = store

    async def get_or_assign(
        self, tenant_id: str, conversation_id: str, entity_type: str, value: str
    ) -> str:
        key = (tenant_id, conversation_id, entity_type, value)
        async with self._store.tenant_transaction(tenant_id) as conn:
            # serialise assignments within this conversation (see the module docstring)
            await conn.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                (f"regintel.pseudonyms\x1f{tenant_id}\x1f{conversation_id}",),
            )
            cur = await conn.execute(
                "SELECT placeholder FROM regintel.pseudonyms WHERE tenant_id = %s"
                " AND conversation_id = %s AND entity_type = %s AND value = %s",
                key,
            )
            row = await cur.fetchone()
            if row is not None:
                return str(row["placeholder"])
            cur = await conn.execute(
                "SELECT COUNT(*) AS n FROM regintel.pseudonyms WHERE tenant_id = %s"
                " AND conversation_id = %s AND entity_type = %s",
                key[:3],
            )
            counted = await cur.fetchone()
            placeholder = f"[{entity_type}_{int(counted['n'] if counted else 0) + 1}]"
            await conn.execute(
                "INSERT INTO regintel.pseudonyms (tenant_id, conversation_id, entity_type, value,"
                " placeholder, created_at) VALUES (%s, %s, %s, %s, %s, %s)",
                (*key, placeholder, _now()),
            )
        return placeholder

    async def lookup(self, tenant_id: str, conversation_id: str) -> dict[str, str]:
        async with self._store.tenant_transaction(tenant_id) as conn:
            cur = await conn.execute(
                "SELECT placeholder, value FROM regintel.pseudonyms"
                " WHERE tenant_id = %s AND conversation_id = %s",
                (tenant_id, conversation_id),
            )
            rows = await cur.fetchall()
        return {str(row["placeholder"]): str(row["value"]) for row in rows}


class PostgresAuditSink:
    def __init__(self, store: PostgresConversationStore) -> None:
        self._store = store

    async def record(self, entry: EgressAuditRecord) -> None:
        values = (
            entry.tenant_id, entry.user_id, entry.conversation_id, entry.task, entry.provider,
            entry.model, entry.requested_mode, entry.effective_mode, Jsonb(entry.counts),
            list(entry.violations), entry.blocked, entry.reason, entry.at,
        )  # fmt: skip
        async with self._store.tenant_transaction(entry.tenant_id) as conn:
            await conn.execute(
                f"INSERT INTO regintel.egress_audit ({AUDIT_COLUMNS})"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                values,
            )

    async def recent(self, tenant_id: str, limit: int = 100) -> list[EgressAuditRecord]:
        """The tenant's last ``limit`` records, newest first."""
        async with self._store.tenant_transaction(tenant_id) as conn:
            cur = await conn.execute(
                f"SELECT {AUDIT_COLUMNS} FROM regintel.egress_audit"
                " WHERE tenant_id = %s ORDER BY id DESC LIMIT %s",
                (tenant_id, limit),
            )
            rows = await cur.fetchall()
        return [EgressAuditRecord(**row) for row in rows]
