"""Every SQL statement of the conversation adapters filters by tenant.

The statements are derived from the code, two ways: the rendered statement table of each
dialect (what actually runs), and every SQL string literal in ``conversations/*.py`` (so a
statement written outside the table is checked too). Only the bookkeeping in ``EXEMPT`` —
migrations, the role check, ``SELECT 1`` — may leave the tenant out; migrations files
(``schema/sql``) are not statements of the adapters.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

import pytest

from conversations.postgres import POSTGRES
from conversations.sqlite import SQLITE
from conversations.statements import Statements

pytestmark = pytest.mark.unit

PACKAGE = Path(__file__).resolve().parents[3] / "conversations"
DML = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b")
TENANT = r":tenant_id\b"

# (module, constant): statements that touch no tenant data
EXEMPT = {
    ("sqlite.py", "_MIGRATIONS_APPLIED"),
    ("sqlite.py", "_RECORD_MIGRATION"),
    ("sqlite.py", "_PING"),
    ("postgres.py", "_LOCK_MIGRATIONS"),
    ("postgres.py", "_MIGRATION_APPLIED"),
    ("postgres.py", "_RECORD_MIGRATION"),
    ("postgres.py", "_CHECK_ROLE"),
    ("postgres.py", "_PING"),
    # the retention job lists the tenants' ids, then works in each tenant's name (ADR 0048)
    ("sqlite.py", "_TENANT_IDS"),
    ("postgres.py", "_TENANT_IDS"),
}


def tenant_scoped(statement: str) -> bool:
    """Binds the tenant parameter, and reads/changes only the rows of that tenant."""
    statement = re.sub(r"%\((\w+)\)s", r":\1", statement)  # one parameter style: :name
    if not re.search(TENANT, statement):
        return False
    table = re.search(r"\b(?:FROM|INTO|UPDATE)\s+([\w.{}]+)", statement)
    if table is None:
        return True  # touches no table: an advisory lock keyed on the tenant, set_config
    if statement.lstrip().startswith("INSERT"):
        insert = re.match(r"\s*INSERT INTO \S+ \(([^)]*)\)\s*VALUES \(([^)]*)\)", statement)
        if insert is None:
            return False
        columns = [c.strip() for c in insert[1].split(",")]
        values = [v.strip() for v in insert[2].split(",")]
        scope = "id" if table[1].endswith("tenants") else "tenant_id"
        bound = dict(zip(columns, values, strict=True)).get(scope, "")
        return re.fullmatch(TENANT, bound) is not None
    _, where, condition = statement.partition(" WHERE ")
    return bool(where) and re.search(rf"\btenant_id = {TENANT}", condition) is not None


def sql_literals(path: Path) -> Iterator[tuple[str | None, str]]:
    """(module-level constant it is assigned to, or None; text) of each SQL string literal.

    f-strings count, with ``{}`` for what they interpolate."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {
        id(node.value): node.targets[0].id
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }
    inside_fstrings = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in node.values
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(
                part.value
                if isinstance(part, ast.Constant) and isinstance(part.value, str)
                else "{}"
                for part in node.values
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in inside_fstrings:
                continue
            text = node.value
        else:
            continue
        if DML.match(text):
            yield names.get(id(node)), text


@pytest.mark.parametrize("dialect", [SQLITE, POSTGRES], ids=lambda d: d.name)
def test_every_statement_of_every_dialect_filters_by_tenant(dialect):
    checked = 0
    for field in fields(Statements):
        statement = getattr(dialect.statements, field.name)
        if statement is None:
            assert field.name == "lock_pseudonyms"  # the only optional one
            continue
        assert tenant_scoped(statement), f"{dialect.name}.{field.name}: {statement}"
        assert "{" not in statement, f"{field.name} left a template field unrendered"
        checked += 1
    assert checked >= 20  # the table was really walked


def test_the_dialects_bind_parameters_their_own_way():
    for field in fields(Statements):
        sqlite, postgres = (
            getattr(SQLITE.statements, field.name),
            getattr(POSTGRES.statements, field.name),
        )
        assert sqlite is None or "%(" not in sqlite
        assert postgres is not None and not re.search(r"(?<!:):[a-z_]", postgres)
        assert re.search(r"\bregintel\.", postgres) or field.name == "lock_pseudonyms"


def test_every_sql_literal_in_the_adapters_filters_by_tenant_or_is_exempt():
    found: set[tuple[str, str]] = set()
    literals = 0
    for path in sorted(PACKAGE.glob("*.py")):
        for constant, text in sql_literals(path):
            literals += 1
            if constant is not None and (path.name, constant) in EXEMPT:
                found.add((path.name, constant))
                continue
            assert tenant_scoped(text), f"{path.name} ({constant or 'inline'}): {text}"
    assert literals > len(EXEMPT) + 20
    assert found == EXEMPT  # no stale entries: the allow-list stays short and true


@pytest.mark.parametrize(
    "statement",
    [
        # the bug: SQLite's next sequence number looked at every tenant's messages
        "SELECT COALESCE(MAX(seq), 0) FROM messages WHERE conversation_id = ?",
        "SELECT COALESCE(MAX(seq), 0) FROM messages WHERE conversation_id = :conversation_id",
        "SELECT :tenant_id, seq FROM messages WHERE conversation_id = :conversation_id",
        "UPDATE contexts SET tenant_id = :tenant_id WHERE conversation_id = :conversation_id",
        "INSERT INTO messages (id, seq) VALUES (:id, :tenant_id)",
        "DELETE FROM regintel.messages WHERE id = %(tenant_id)s",
    ],
)
def test_the_check_refuses_statements_that_ignore_the_tenant(statement):
    assert not tenant_scoped(statement)


def test_the_check_accepts_the_shapes_the_store_uses():
    assert tenant_scoped("INSERT INTO tenants (id, created_at) VALUES (:tenant_id, :now)")
    assert tenant_scoped("SELECT n FROM t WHERE tenant_id = %(tenant_id)s AND id = %(id)s")
    assert tenant_scoped("SELECT pg_advisory_xact_lock(hashtextextended(%(tenant_id)s, 0))")
