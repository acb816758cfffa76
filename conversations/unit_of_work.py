"""The seam between the store's algorithms and a SQL database: a tenant-scoped unit of work.

The algorithms (``conversations.sql_store``, ``conversations.sql_egress``) are written once
against :class:`TenantDatabase`; an adapter gives its :class:`SqlDialect` (statements and how
values are stored) and opens a :class:`UnitOfWork`: one transaction, scoped to one tenant, that
rolls back unless :meth:`UnitOfWork.commit` was called and the block ended without an error.
Reads simply do not commit. Library errors raised inside become
:class:`errors.ConversationStoreUnavailable`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple, Protocol

from conversations.statements import Statements

__all__ = [
    "Params",
    "Result",
    "Row",
    "RunStatement",
    "SqlDialect",
    "StatementUnitOfWork",
    "TenantDatabase",
    "UnitOfWork",
]

Params = Mapping[str, object]
"""Named parameters of a statement; keys a statement does not use are ignored."""

Row = Mapping[str, Any]
"""A result row by column name, as the database returned it (see :class:`SqlDialect`)."""


class UnitOfWork(Protocol):
    """One transaction of one tenant."""

    async def execute(self, statement: str, params: Params) -> int:
        """Run a statement; the number of rows it changed."""
        ...

    async def fetch_one(self, statement: str, params: Params) -> Row | None: ...

    async def fetch_all(self, statement: str, params: Params) -> list[Row]: ...

    async def commit(self) -> None:
        """Keep the work: it is committed when the unit ends without an error."""
        ...


class Result(NamedTuple):
    """What one statement did: the rows it changed, the rows it returned."""

    rowcount: int
    rows: list[Row]


RunStatement = Callable[[str, Params], Awaitable[Result]]
"""How an adapter runs one statement inside its open transaction."""


class StatementUnitOfWork:
    """The :class:`UnitOfWork` of every adapter, over its :data:`RunStatement`.

    :meth:`commit` only records the wish; the adapter's context manager reads
    :attr:`committed` when the block ends and commits or rolls back.
    """

    def __init__(self, run: RunStatement) -> None:
        self._run = run
        self.committed = False

    async def execute(self, statement: str, params: Params) -> int:
        return (await self._run(statement, params)).rowcount

    async def fetch_one(self, statement: str, params: Params) -> Row | None:
        rows = (await self._run(statement, params)).rows
        return rows[0] if rows else None

    async def fetch_all(self, statement: str, params: Params) -> list[Row]:
        return (await self._run(statement, params)).rows

    async def commit(self) -> None:
        self.committed = True


@dataclass(frozen=True)
class SqlDialect:
    """What differs between two SQL databases once the algorithms are shared: the statements'
    text, and how a timestamp, a list of strings and a JSON object are stored and read back
    (SQLite: ISO text and JSON text; PostgreSQL: ``timestamptz``, ``text[]``, ``jsonb``)."""

    name: str
    statements: Statements
    timestamp: Callable[[datetime], object]
    encode_list: Callable[[Sequence[str]], object]
    decode_list: Callable[[Any], list[str]]
    encode_object: Callable[[Mapping[str, int]], object]
    decode_object: Callable[[Any], dict[str, int]]


class TenantDatabase(Protocol):
    """A database the shared algorithms can run on."""

    @property
    def dialect(self) -> SqlDialect: ...

    def unit_of_work(
        self,
        tenant_id: str,
        user_id: str | None = None,
        *,
        admin: bool = False,
        erasure: bool = False,
    ) -> AbstractAsyncContextManager[UnitOfWork]:
        """A transaction scoped to ``tenant_id`` (and ``user_id``, for a user's conversations)
        that rolls back unless committed. ``admin``: the work is the tenant admin's (its users
        and usage), which reads every user's conversations of the tenant (ADR 0041).
        ``erasure``: the work erases ``user_id``'s conversations, the only work that deletes
        (on PostgreSQL it runs as the eraser role, ADR 0048)."""
        ...
