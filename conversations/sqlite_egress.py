"""The egress ports over the SQLite conversation store: policies, pseudonym vault, audit.

They share the store's connection (and so its lock and file). Every statement is scoped by
``tenant_id``; vault values never leave their ``(tenant, conversation)``.
"""

from __future__ import annotations

import json
import sqlite3

from conversations.sqlite import SqliteConversationStore, _now
from egress.audit import EgressAuditRecord
from egress.policy import EgressMode, TenantPolicy, UserPolicy


class SqlitePolicyStore:
    def __init__(self, store: SqliteConversationStore) -> None:
        self._store = store

    async def tenant_policy(self, tenant_id: str) -> TenantPolicy:
        row = await self._store.run(
            lambda conn: conn.execute(
                "SELECT * FROM tenant_policies WHERE tenant_id = ?", (tenant_id,)
            ).fetchone()
        )
        if row is None:
            return TenantPolicy()
        return TenantPolicy(
            default_mode=EgressMode(row["default_mode"]) if row["default_mode"] else None,
            allow_off_mode=bool(row["allow_off_mode"]),
            allowed_providers=frozenset(json.loads(row["allowed_providers"])),
            allowed_models=frozenset(json.loads(row["allowed_models"])),
        )

    async def user_policy(self, tenant_id: str, user_id: str) -> UserPolicy:
        row = await self._store.run(
            lambda conn: conn.execute(
                "SELECT mode FROM user_policies WHERE tenant_id = ? AND user_id = ?",
                (tenant_id, user_id),
            ).fetchone()
        )
        return UserPolicy(mode=EgressMode(row["mode"]) if row and row["mode"] else None)

    async def set_tenant_policy(self, tenant_id: str, policy: TenantPolicy) -> None:
        values = (
            tenant_id,
            policy.default_mode.value if policy.default_mode else None,
            int(policy.allow_off_mode),
            json.dumps(sorted(policy.allowed_providers)),
            json.dumps(sorted(policy.allowed_models)),
            _now(),
        )
        await self._store.run(
            lambda conn: conn.execute(
                "INSERT INTO tenant_policies (tenant_id, default_mode, allow_off_mode,"
                " allowed_providers, allowed_models, updated_at) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (tenant_id) DO UPDATE SET default_mode = excluded.default_mode,"
                " allow_off_mode = excluded.allow_off_mode,"
                " allowed_providers = excluded.allowed_providers,"
                " allowed_models = excluded.allowed_models, updated_at = excluded.updated_at",
                values,
            )
        )

    async def set_user_policy(self, tenant_id: str, user_id: str, policy: UserPolicy) -> None:
        mode = policy.mode.value if policy.mode else None
        await self._store.run(
            lambda conn: conn.execute(
                "INSERT INTO user_policies (tenant_id, user_id, mode, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (tenant_id, user_id)"
                " DO UPDATE SET mode = excluded.mode, updated_at = excluded.updated_at",
                (tenant_id, user_id, mode, _now()),
            )
        )


class SqlitePseudonymVault:
    def __init__(self, store: SqliteConversationStore) -> None:
        self._store = store

    async def get_or_assign(
        self, tenant_id: str, conversation_id: str, entity_type: str, value: str
    ) -> str:
        def assign(conn: sqlite3.Connection) -> str:
            key = (tenant_id, conversation_id, entity_type, value)
            row = conn.execute(
                "SELECT placeholder FROM pseudonyms WHERE tenant_id = ? AND conversation_id = ?"
                " AND entity_type = ? AND value = ?",
                key,
            ).fetchone()
            if row is not None:
                return str(row[0])
            (count,) = conn.execute(
                "SELECT COUNT(*) FROM pseudonyms WHERE tenant_id = ? AND conversation_id = ?"
                " AND entity_type = ?",
                key[:3],
            ).fetchone()
            placeholder = f"[{entity_type}_{count + 1}]"
            conn.execute(
                "INSERT INTO pseudonyms (tenant_id, conversation_id, entity_type, value,"
                " placeholder, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (*key, placeholder, _now()),
            )
            return placeholder

        return await self._store.run(assign)

    async def lookup(self, tenant_id: str, conversation_id: str) -> dict[str, str]:
        rows = await self._store.run(
            lambda conn: conn.execute(
                "SELECT placeholder, value FROM pseudonyms"
                " WHERE tenant_id = ? AND conversation_id = ?",
                (tenant_id, conversation_id),
            ).fetchall()
        )
        return {str(row[0]): str(row[1]) for row in rows}


class SqliteAuditSink:
    def __init__(self, store: SqliteConversationStore) -> None:
        self._store = store

    async def record(self, entry: EgressAuditRecord) -> None:
        values = (
            entry.tenant_id, entry.user_id, entry.conversation_id, entry.task, entry.provider,
            entry.model, entry.requested_mode, entry.effective_mode, json.dumps(entry.counts),
            json.dumps(entry.violations), int(entry.blocked), entry.reason,
            entry.at.isoformat(),
        )  # fmt: skip
        await self._store.run(
            lambda conn: conn.execute(
                "INSERT INTO egress_audit (tenant_id, user_id, conversation_id, task, provider,"
                " model, requested_mode, effective_mode, counts, violations, blocked, reason, at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )
        )

    async def recent(self, tenant_id: str, limit: int = 100) -> list[EgressAuditRecord]:
        rows = await self._store.run(
            lambda conn: conn.execute(
                "SELECT * FROM egress_audit WHERE tenant_id = ? ORDER BY id DESC LIMIT ?",
                (tenant_id, limit),
            ).fetchall()
        )
        return [
            EgressAuditRecord(
                **{
                    k: row[k]
                    for k in (
                        "tenant_id",
                        "user_id",
                        "conversation_id",
                        "task",
                        "provider",
                        "model",
                        "requested_mode",
                        "effective_mode",
                        "reason",
                        "at",
                    )
                },
                counts=json.loads(row["counts"]),
                violations=json.loads(row["violations"]),
                blocked=bool(row["blocked"]),
            )
            for row in rows
        ]
