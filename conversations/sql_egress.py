"""The egress ports over a conversation store's database: policies, pseudonym vault, audit.

Written once for SQLite and PostgreSQL over :class:`~conversations.unit_of_work.TenantDatabase`
(each store hands them out with ``egress_adapters()``): every call is one unit of work scoped
to its tenant, so on PostgreSQL row-level security applies as well. Vault values never leave
their ``(tenant, conversation)``.

The vault numbers placeholders ``[TYPE_n]`` by counting what is there, so two assignments in
one conversation must not interleave: SQLite's ``BEGIN IMMEDIATE`` serialises them; PostgreSQL
takes the dialect's ``lock_pseudonyms`` (an advisory lock per conversation, released at
commit) first. The primary key still refuses a duplicate if that were ever bypassed.

Erasure (ADR 0048) takes the same vault lock and remembers the erased conversation's id: a
turn still running when its conversation was erased gets its placeholders but stores no
original, and its audit record names neither the conversation nor an erased user.
"""

from __future__ import annotations

from datetime import UTC, datetime

from conversations.unit_of_work import Row, TenantDatabase
from egress.audit import EgressAuditRecord
from egress.policy import CallerPolicies, EgressMode, TenantPolicy, UserPolicy

__all__ = ["ERASED", "SqlAuditSink", "SqlPolicyStore", "SqlPseudonymVault"]

ERASED = "(erased)"
"""What an erased conversation's (or user's) id reads as on the egress audit's records; the
statements ``anonymise_conversation_calls`` and ``anonymise_user_calls`` write it too."""


class SqlPolicyStore:
    """:class:`egress.policy.PolicyStore`, plus what operators use (the admin endpoints): the
    setters and the list of a tenant's user policies (:class:`conversations.port.PolicyAdmin`).
    """

    def __init__(self, database: TenantDatabase) -> None:
        self._database = database

    async def tenant_policy(self, tenant_id: str) -> TenantPolicy:
        statement = self._database.dialect.statements.select_tenant_policy
        async with self._database.unit_of_work(tenant_id) as work:
            row = await work.fetch_one(statement, {"tenant_id": tenant_id})
        return self._tenant(row)

    async def user_policy(self, tenant_id: str, user_id: str) -> UserPolicy:
        params = {"tenant_id": tenant_id, "user_id": user_id}
        async with self._database.unit_of_work(tenant_id) as work:
            row = await work.fetch_one(self._database.dialect.statements.select_user_policy, params)
        return _user(row)

    async def caller_policies(self, tenant_id: str, user_id: str) -> CallerPolicies:
        """Both policies of a call in one unit of work (a turn reads them once, ADR 0029)."""
        statements = self._database.dialect.statements
        params = {"tenant_id": tenant_id, "user_id": user_id}
        async with self._database.unit_of_work(tenant_id) as work:
            tenant = await work.fetch_one(statements.select_tenant_policy, params)
            user = await work.fetch_one(statements.select_user_policy, params)
        return CallerPolicies(self._tenant(tenant), _user(user))

    def _tenant(self, row: Row | None) -> TenantPolicy:
        if row is None:
            return TenantPolicy()
        decode_list = self._database.dialect.decode_list
        return TenantPolicy(
            default_mode=EgressMode(row["default_mode"]) if row["default_mode"] else None,
            allow_off_mode=bool(row["allow_off_mode"]),
            allowed_providers=frozenset(decode_list(row["allowed_providers"])),
            allowed_models=frozenset(decode_list(row["allowed_models"])),
        )

    async def user_policies(self, tenant_id: str, limit: int = 500) -> dict[str, UserPolicy]:
        """The tenant's users that have a policy row, by user id (in id order, at most
        ``limit``); a user without a row follows the tenant's policy."""
        params = {"tenant_id": tenant_id, "limit": limit}
        async with self._database.unit_of_work(tenant_id) as work:
            rows = await work.fetch_all(
                self._database.dialect.statements.select_user_policies, params
            )
        return {
            str(row["user_id"]): UserPolicy(mode=EgressMode(row["mode"]) if row["mode"] else None)
            for row in rows
        }

    async def set_tenant_policy(self, tenant_id: str, policy: TenantPolicy) -> None:
        dialect = self._database.dialect
        params = {
            "tenant_id": tenant_id,
            "default_mode": policy.default_mode.value if policy.default_mode else None,
            "allow_off_mode": policy.allow_off_mode,
            "allowed_providers": dialect.encode_list(sorted(policy.allowed_providers)),
            "allowed_models": dialect.encode_list(sorted(policy.allowed_models)),
            "now": dialect.timestamp(datetime.now(UTC)),
        }
        async with self._database.unit_of_work(tenant_id) as work:
            await work.execute(dialect.statements.upsert_tenant_policy, params)
            await work.commit()

    async def set_user_policy(self, tenant_id: str, user_id: str, policy: UserPolicy) -> None:
        dialect = self._database.dialect
        params = {
            "tenant_id": tenant_id,
            "user_id": user_id,
            "mode": policy.mode.value if policy.mode else None,
            "now": dialect.timestamp(datetime.now(UTC)),
        }
        async with self._database.unit_of_work(tenant_id) as work:
            await work.execute(dialect.statements.upsert_user_policy, params)
            await work.commit()


def _user(row: Row | None) -> UserPolicy:
    return UserPolicy(mode=EgressMode(row["mode"]) if row and row["mode"] else None)


class SqlPseudonymVault:
    """:class:`egress.sanitiser.PseudonymVault` in the ``pseudonyms`` table."""

    def __init__(self, database: TenantDatabase) -> None:
        self._database = database

    async def get_or_assign(
        self, tenant_id: str, conversation_id: str, entity_type: str, value: str
    ) -> str:
        dialect = self._database.dialect
        statements = dialect.statements
        key = {
            "tenant_id": tenant_id,
            "conversation_id": conversation_id,
            "entity_type": entity_type,
            "value": value,
        }
        async with self._database.unit_of_work(tenant_id) as work:
            if statements.lock_pseudonyms is not None:  # see the module docstring
                await work.execute(statements.lock_pseudonyms, key)
            found = await work.fetch_one(statements.select_placeholder, key)
            if found is not None:
                return str(found["placeholder"])
            counted = await work.fetch_one(statements.count_placeholders, key)
            placeholder = f"[{entity_type}_{int(counted['n'] if counted else 0) + 1}]"
            if await work.fetch_one(statements.select_erased_conversation, key) is not None:
                return placeholder  # erased while its turn ran: the original is not kept
            now = dialect.timestamp(datetime.now(UTC))
            await work.execute(
                statements.insert_pseudonym, {**key, "placeholder": placeholder, "now": now}
            )
            await work.commit()
        return placeholder

    async def lookup(self, tenant_id: str, conversation_id: str) -> dict[str, str]:
        params = {"tenant_id": tenant_id, "conversation_id": conversation_id}
        async with self._database.unit_of_work(tenant_id) as work:
            rows = await work.fetch_all(self._database.dialect.statements.select_pseudonyms, params)
        return {str(row["placeholder"]): str(row["value"]) for row in rows}


class SqlAuditSink:
    """:class:`egress.audit.AuditSink` in the append-only ``egress_audit`` table."""

    def __init__(self, database: TenantDatabase) -> None:
        self._database = database

    async def record(self, entry: EgressAuditRecord) -> None:
        """Append ``entry``; a call of a conversation erased while its turn ran is recorded
        without the conversation's id (and the user's, when the user was erased: ADR 0048)."""
        dialect = self._database.dialect
        statements = dialect.statements
        key = {"tenant_id": entry.tenant_id, "conversation_id": entry.conversation_id}
        async with self._database.unit_of_work(entry.tenant_id) as work:
            erased = await work.fetch_one(statements.select_erased_conversation, key)
            if erased is not None:
                anonymous = {"conversation_id": ERASED}
                if erased["user_erased"]:
                    anonymous["user_id"] = ERASED
                entry = entry.model_copy(update=anonymous)
            await work.execute(statements.insert_audit, self._params(entry))
            await work.commit()

    def _params(self, entry: EgressAuditRecord) -> dict[str, object]:
        dialect = self._database.dialect
        return {
            **entry.model_dump(exclude={"counts", "violations", "at"}),
            "counts": dialect.encode_object(entry.counts),
            "violations": dialect.encode_list(entry.violations),
            "at": dialect.timestamp(entry.at),
        }

    async def recent(self, tenant_id: str, limit: int = 100) -> list[EgressAuditRecord]:
        """The tenant's last ``limit`` records, newest first."""
        dialect = self._database.dialect
        params = {"tenant_id": tenant_id, "limit": limit}
        async with self._database.unit_of_work(tenant_id) as work:
            rows = await work.fetch_all(dialect.statements.select_recent_audit, params)
        return [
            EgressAuditRecord.model_validate(
                {
                    **row,
                    "blocked": bool(row["blocked"]),
                    "counts": dialect.decode_object(row["counts"]),
                    "violations": dialect.decode_list(row["violations"]),
                }
            )
            for row in rows
        ]
