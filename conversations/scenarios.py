"""Scenarios in the conversation store (issue 28, ADR 0054): one user's what-if facts.

Written once for SQLite and PostgreSQL over :class:`~conversations.unit_of_work.TenantDatabase`
(each store hands it out with ``scenario_store()``), like the egress ports. Owner-only: every
statement binds the tenant and the calling user, so another user's scenario — or another
tenant's, or an unknown id — is :class:`errors.NotFound`; PostgreSQL's row-level security
checks both again (migration 009). The body is opaque text here: the store knows nothing of
tax facts or of the graph.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from conversations.models import StoredScenario
from conversations.unit_of_work import Row, TenantDatabase
from errors import NotFound

__all__ = ["SqlScenarioStore"]


class SqlScenarioStore:
    """:class:`conversations.port.ScenarioStore` over a tenant database."""

    def __init__(self, database: TenantDatabase) -> None:
        self._database = database

    async def create_scenario(
        self, tenant_id: str, user_id: str, label: str, body: str
    ) -> StoredScenario:
        statements = self._database.dialect.statements
        now = datetime.now(UTC)
        params = {
            "tenant_id": tenant_id,
            "user_id": user_id,
            "scenario_id": str(uuid.uuid4()),
            "label": label,
            "body": body,
            "now": self._database.dialect.timestamp(now),
        }
        async with self._database.unit_of_work(tenant_id, user_id) as work:
            await work.execute(statements.insert_tenant, params)
            await work.execute(statements.insert_scenario, params)
            row = await work.fetch_one(statements.select_scenario, params)
            await work.commit()
        return _scenario(row, str(params["scenario_id"]))

    async def get_scenario(
        self, tenant_id: str, scenario_id: str, *, user_id: str
    ) -> StoredScenario:
        key = {"tenant_id": tenant_id, "scenario_id": scenario_id, "user_id": user_id}
        async with self._database.unit_of_work(tenant_id, user_id) as work:
            row = await work.fetch_one(self._database.dialect.statements.select_scenario, key)
        return _scenario(row, scenario_id)

    async def list_scenarios(
        self, tenant_id: str, user_id: str, limit: int = 100
    ) -> list[StoredScenario]:
        params = {"tenant_id": tenant_id, "user_id": user_id, "limit": limit}
        statement = self._database.dialect.statements.select_user_scenarios
        async with self._database.unit_of_work(tenant_id, user_id) as work:
            rows = await work.fetch_all(statement, params)
        return [StoredScenario.model_validate(dict(row)) for row in rows]

    async def replace_scenario(
        self, tenant_id: str, scenario_id: str, label: str, body: str, *, user_id: str
    ) -> StoredScenario:
        statements = self._database.dialect.statements
        params = {
            "tenant_id": tenant_id,
            "scenario_id": scenario_id,
            "user_id": user_id,
            "label": label,
            "body": body,
            "now": self._database.dialect.timestamp(datetime.now(UTC)),
        }
        async with self._database.unit_of_work(tenant_id, user_id) as work:
            changed = await work.execute(statements.update_scenario, params)
            row = await work.fetch_one(statements.select_scenario, params)
            await work.commit()
        if changed != 1:
            raise NotFound(f"scenario {scenario_id} not found")
        return _scenario(row, scenario_id)

    async def delete_scenario(self, tenant_id: str, scenario_id: str, *, user_id: str) -> None:
        key = {"tenant_id": tenant_id, "scenario_id": scenario_id, "user_id": user_id}
        # a delete is an erasure's work: on PostgreSQL only the eraser role deletes (ADR 0048)
        async with self._database.unit_of_work(tenant_id, user_id, erasure=True) as work:
            deleted = await work.execute(self._database.dialect.statements.delete_scenario, key)
            await work.commit()
        if deleted != 1:
            raise NotFound(f"scenario {scenario_id} not found")

    async def link_conversation(
        self, tenant_id: str, conversation_id: str, scenario_id: str, *, user_id: str
    ) -> StoredScenario:
        """Link the caller's conversation to one of their scenarios (replacing an earlier
        link); the scenario is read first, bound to the caller, so another user's or tenant's
        id, or an unknown one, is :class:`errors.NotFound` and nothing is written."""
        statements = self._database.dialect.statements
        params = {
            "tenant_id": tenant_id,
            "conversation_id": conversation_id,
            "scenario_id": scenario_id,
            "user_id": user_id,
            "now": self._database.dialect.timestamp(datetime.now(UTC)),
        }
        async with self._database.unit_of_work(tenant_id, user_id) as work:
            row = await work.fetch_one(statements.select_scenario, params)
            scenario = _scenario(row, scenario_id)
            await work.execute(statements.upsert_conversation_scenario, params)
            await work.commit()
        return scenario

    async def linked_scenario(
        self, tenant_id: str, conversation_id: str, *, user_id: str
    ) -> StoredScenario | None:
        """The caller's scenario their conversation is linked to; ``None`` without a link (or
        when the scenario was deleted since)."""
        key = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        statement = self._database.dialect.statements.select_conversation_scenario
        async with self._database.unit_of_work(tenant_id, user_id) as work:
            row = await work.fetch_one(statement, key)
        return None if row is None else StoredScenario.model_validate(dict(row))

    async def unlink_conversation(
        self, tenant_id: str, conversation_id: str, *, user_id: str
    ) -> bool:
        """Remove the caller's link from their conversation (the scenario stays); ``False``
        when there was none. Bound to the caller: another user's link is never reached."""
        key = {"tenant_id": tenant_id, "conversation_id": conversation_id, "user_id": user_id}
        statement = self._database.dialect.statements.delete_user_conversation_scenario
        # on PostgreSQL only the eraser role deletes (ADR 0048), still under owner_only
        async with self._database.unit_of_work(tenant_id, user_id, erasure=True) as work:
            deleted = await work.execute(statement, key)
            await work.commit()
        return deleted == 1


def _scenario(row: Row | None, scenario_id: str) -> StoredScenario:
    if row is None:
        raise NotFound(f"scenario {scenario_id} not found")
    return StoredScenario.model_validate(dict(row))
