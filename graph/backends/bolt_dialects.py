"""What differs between Bolt servers: schema DDL and error classification.

The Bolt backend (``graph/backends/bolt.py``) speaks one Cypher for reads and writes; only the
DDL and the way a server reports a lost creation race differ, and both live here. The DDL is
derived from :class:`graph.schema.GraphSchema`; label, type and property names come from the
schema (checked against :data:`graph.schema.IDENTIFIER`), never from user input.

Dialects (ADR 0003 explains each difference):

- ``memgraph``: ``CREATE CONSTRAINT ON (n:L) ASSERT n.id IS UNIQUE``. A Memgraph constraint does
  not create an index, so every constraint gets a ``CREATE INDEX ON :L(id)`` beside it. Edge
  property indexes are ``CREATE EDGE INDEX ON :T(p)``; text search is ``CREATE TEXT INDEX``
  (Tantivy; needs ``--experimental-enabled=text-search`` on older releases, so it is optional).
- ``neo4j``: the Neo4j 5 forms with ``IF NOT EXISTS`` and names; text search is a
  ``FULLTEXT`` index. The ArcadeDB stand-in accepts this DDL except ``FULLTEXT`` (it answers
  "Only standard, RANGE and TEXT index types are supported"), so that step has a ``TEXT``
  index as its fallback; and it reports a race on its lazily created label-combination types
  as an opaque error, which the ``neo4j`` race check also accepts (see ``_neo4j_race``).

Every node also carries the shared label :data:`NODE_LABEL` with a unique ``id``: it makes
``get_nodes(ids)`` and edge endpoint lookups one index seek without knowing the label.

A step is a list of alternatives tried in order (the first that succeeds wins). An error saying
the index or constraint "already exists" counts as success, so ``init_schema`` is idempotent
even where the server has no ``IF NOT EXISTS``. Optional steps (text search, edge indexes) log
a warning instead of failing when the server has no such feature.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from neo4j.exceptions import ConstraintError, Neo4jError

from graph.schema import IDENTIFIER, GraphSchema

__all__ = [
    "DIALECTS",
    "NODE_LABEL",
    "TEXT_SEARCH_PROPERTIES",
    "DdlStep",
    "Dialect",
    "DialectName",
    "get_dialect",
    "memgraph_ddl",
    "neo4j_ddl",
]

DialectName = Literal["memgraph", "neo4j"]
NODE_LABEL = "RgNode"
# Properties worth a text-search index where the server has one.
TEXT_SEARCH_PROPERTIES = ("pref_label", "definition", "text", "name", "title", "description")


@dataclass(frozen=True)
class DdlStep:
    alternatives: tuple[str, ...]
    optional: bool = False


@dataclass(frozen=True)
class Dialect:
    name: DialectName
    ddl: Callable[[GraphSchema], list[DdlStep]]
    is_creation_race: Callable[[BaseException], bool]


def _identifier(name: str) -> str:
    if not IDENTIFIER.match(name):
        raise ValueError(f"{name!r} is not a schema identifier")
    return name


def _snake(name: str) -> str:
    out = "".join(f"_{c.lower()}" if c.isupper() else c for c in name)
    return out.lstrip("_").lower()


def _text_labels(schema: GraphSchema) -> dict[str, list[str]]:
    """Label -> the text-search properties it carries, in schema order."""
    found: dict[str, list[str]] = {}
    for label, props in schema.node_properties.items():
        text = [p for p in props if p in TEXT_SEARCH_PROPERTIES]
        if text:
            found[label] = text
    return found


def _check(schema: GraphSchema) -> None:
    if NODE_LABEL in schema.labels:
        raise ValueError(f"{NODE_LABEL} is reserved for the Bolt backend's shared label")
    for name in [*schema.labels, *schema.relationships, *schema.property_types]:
        _identifier(name)


def neo4j_ddl(schema: GraphSchema) -> list[DdlStep]:
    """Neo4j 5 DDL (also what ArcadeDB's Bolt plugin understands)."""
    _check(schema)
    steps = [
        DdlStep(
            (
                f"CREATE CONSTRAINT rg_node_id IF NOT EXISTS FOR (n:{NODE_LABEL}) "
                "REQUIRE n.id IS UNIQUE",
            )
        ),
        DdlStep(
            (
                f"CREATE INDEX rg_node_updated_at IF NOT EXISTS FOR (n:{NODE_LABEL}) "
                "ON (n.updated_at)",
            )
        ),
    ]
    for label in sorted(schema.labels):
        steps.append(
            DdlStep(
                (
                    f"CREATE CONSTRAINT rg_{_snake(label)}_id IF NOT EXISTS FOR (n:`{label}`) "
                    "REQUIRE n.id IS UNIQUE",
                )
            )
        )
    if "Concept" in schema.labels:
        steps.append(
            DdlStep(
                (
                    "CREATE INDEX rg_concept_key IF NOT EXISTS FOR (n:Concept) "
                    "ON (n.domain, n.kind, n.jurisdiction)",
                )
            )
        )
    if "Label" in schema.labels:
        steps.append(
            DdlStep(
                ("CREATE INDEX rg_label_normalised IF NOT EXISTS FOR (n:Label) ON (n.normalised)",)
            )
        )
    for rel in sorted(schema.relationships):
        steps.append(
            DdlStep(
                (
                    f"CREATE INDEX rg_rel_{rel.lower()}_updated_at IF NOT EXISTS "
                    f"FOR ()-[r:`{rel}`]-() ON (r.updated_at)",
                ),
                optional=True,
            )
        )
    text = _text_labels(schema)
    if text:
        labels = "|".join(f"`{label}`" for label in sorted(text))
        props = sorted({p for ps in text.values() for p in ps})
        each = ", ".join(f"n.`{p}`" for p in props)
        fallback = (
            ("CREATE TEXT INDEX rg_label_text IF NOT EXISTS FOR (n:Label) ON (n.text)",)
            if "Label" in text
            else ()
        )
        steps.append(
            DdlStep(
                (
                    f"CREATE FULLTEXT INDEX rg_text IF NOT EXISTS FOR (n:{labels}) "
                    f"ON EACH [{each}]",
                    *fallback,
                ),
                optional=True,
            )
        )
    return steps


def memgraph_ddl(schema: GraphSchema) -> list[DdlStep]:
    """Memgraph DDL: constraints do not index, so every unique id also gets an index."""
    _check(schema)
    steps = [
        DdlStep((f"CREATE CONSTRAINT ON (n:{NODE_LABEL}) ASSERT n.id IS UNIQUE",)),
        DdlStep((f"CREATE INDEX ON :{NODE_LABEL}(id)",)),
        DdlStep((f"CREATE INDEX ON :{NODE_LABEL}(updated_at)",)),
    ]
    for label in sorted(schema.labels):
        steps.append(DdlStep((f"CREATE CONSTRAINT ON (n:`{label}`) ASSERT n.id IS UNIQUE",)))
        steps.append(DdlStep((f"CREATE INDEX ON :`{label}`(id)",)))
    if "Concept" in schema.labels:
        # Composite indexes arrived in Memgraph 3.2; older servers get the leading column.
        steps.append(
            DdlStep(
                (
                    "CREATE INDEX ON :Concept(domain, kind, jurisdiction)",
                    "CREATE INDEX ON :Concept(domain)",
                )
            )
        )
    if "Label" in schema.labels:
        steps.append(DdlStep(("CREATE INDEX ON :Label(normalised)",)))
    for rel in sorted(schema.relationships):
        steps.append(DdlStep((f"CREATE EDGE INDEX ON :`{rel}`(updated_at)",), optional=True))
    for label in sorted(_text_labels(schema)):
        steps.append(
            DdlStep((f"CREATE TEXT INDEX rg_{_snake(label)}_text ON :`{label}`",), optional=True)
        )
    return steps


def _neo4j_race(exc: BaseException) -> bool:
    """Neo4j and ArcadeDB report a lost creation race as a unique-constraint violation.

    ArcadeDB also stores each label combination as a type it creates on first use; two
    transactions creating the first ``:RgNode:Concept`` at once race on that type, and its Bolt
    plugin reports the loser as an opaque ``SemanticError`` "Error executing Cypher command"
    (``TypeAlreadyExistsException`` in its log). Retrying is right: the type exists by then.
    Neo4j never sends that message, and the retry is bounded, so a real error still surfaces.
    """
    if isinstance(exc, ConstraintError):
        return True
    return (
        isinstance(exc, Neo4jError)
        and exc.code == "Neo.ClientError.Statement.SemanticError"
        and (exc.message or "").startswith("Error executing Cypher command")
    )


def _memgraph_race(exc: BaseException) -> bool:
    """Memgraph checks unique constraints at commit and reports a violation with its own code
    (``Memgraph.ClientError.MemgraphError.MemgraphError``), so the message is what tells."""
    if isinstance(exc, ConstraintError):
        return True
    if isinstance(exc, Neo4jError):
        message = (exc.message or "").lower()
        return "unique constraint violation" in message or "unique_constraint" in message
    return False


DIALECTS: dict[str, Dialect] = {
    "memgraph": Dialect("memgraph", memgraph_ddl, _memgraph_race),
    "neo4j": Dialect("neo4j", neo4j_ddl, _neo4j_race),
}


def get_dialect(name: str) -> Dialect:
    try:
        return DIALECTS[name]
    except KeyError:
        known = sorted(DIALECTS)
        raise ValueError(f"unknown Bolt dialect {name!r}; expected one of {known}") from None
