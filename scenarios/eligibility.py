"""Which reliefs, credits, benefits and obligations apply to a snapshot, and which deadlines,
lock-ins and clawbacks bind — decided by the graph's own conditions (ADR 0071).

The graph says when an item is *relevant* (``applies_when`` on a ``Relief``, ``Obligation``,
``Benefit`` or ``Timeline`` node: ``"rent_paid > 0"``, ``"gain > 0"``) and what each of its
``REQUIRES`` conditions *tests* (``test`` on a ``Condition``: ``"years_owned >= value"``, where
``value`` is the condition's own value, 3 years). This module holds no rule: it reads those
expressions, evaluates them over a snapshot's facts in three-valued logic and says for every
relevant item ``applies``, ``does_not_apply`` or ``cannot_tell`` with the facts that are missing.
A condition the graph states only in words is ``cannot_tell`` and says so. The deadlines come
from the item's (and its conditions') ``HAS_TIMELINE`` rules through the timeline engine
(ADR 0033), anchored on the snapshot's tax year or, for an item about a disposal, the disposal.

Expression grammar: ``clause (and clause)* (or clause (and clause)*)*``; a clause is
``fact op operand`` with ``op`` one of ``>= <= > < == !=`` and ``operand`` a number,
``true``/``false`` or ``value``. Facts: the numeric and yes/no fields of :class:`Facts`,
``disposals`` (their count) and, per disposal, ``gain``, ``cost``, ``proceeds``,
``years_owned`` (whole years held), ``disposal_month`` and the disposal's yes/no facts. An
expression naming a disposal fact is evaluated once per disposal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from engine.timeline import (
    TimelineRule,
    due_after,
    due_in_tax_year,
    lock_in_end,
    tax_year,
    tax_year_of,
)
from graph.models import GraphNode, GraphSnapshot
from scenarios.models import Disposal, Facts

__all__ = [
    "DISPOSAL_FACTS",
    "RULE_LABELS",
    "ConditionCheck",
    "DeadlineCheck",
    "Eligibility",
    "ExpressionError",
    "RuleSet",
    "RulesReader",
    "assess",
    "disposal_reliefs",
    "evaluate_expression",
    "load_rules",
    "parse_expression",
]

RULE_LABELS: tuple[str, ...] = ("Relief", "Obligation", "Benefit", "Condition", "Timeline")
_ITEM_LABELS = frozenset({"Relief", "Obligation", "Benefit"})
_RULES_LIMIT = 5000
DISPOSAL_FACTS = frozenset({
    "gain", "cost", "proceeds", "years_owned", "disposal_month", "main_residence",
    "residential_property", "shareholding_percent", "working_director", "to_child",
})  # fmt: skip
_JURISDICTIONS: dict[str, tuple[str, ...]] = {"IE": ("IE",), "UK": ("UK", "NI"), "NI": ("UK", "NI")}
_CLAUSE = re.compile(
    r"^\s*(?P<fact>[a-z_][a-z0-9_]*)\s*(?:(?P<op>>=|<=|==|!=|>|<)\s*(?P<operand>\S+))?\s*$"
)

Verdict = bool | None  # None: cannot tell


class _NoSuchPerson:
    """A spouse's fact when there is no spouse: every clause about it is false, not unknown."""


_NO_SPOUSE = _NoSuchPerson()
FactValue = Decimal | bool | _NoSuchPerson | None


class ExpressionError(ValueError):
    """An ``applies_when`` or ``test`` the grammar does not read."""


@dataclass(frozen=True)
class _Clause:
    fact: str
    op: str | None
    operand: Decimal | bool | Literal["value"] | None


def parse_expression(text: str) -> list[list[_Clause]]:
    """``text`` as alternatives (``or``) of conjunctions (``and``) of clauses."""
    alternatives = []
    for alternative in re.split(r"\s+or\s+", text.strip()):
        clauses = []
        for part in re.split(r"\s+and\s+", alternative):
            match = _CLAUSE.match(part)
            if match is None:
                raise ExpressionError(f"cannot read {part!r} in {text!r}")
            operand = match["operand"]
            clauses.append(_Clause(match["fact"], match["op"], _operand(operand, text)))
        alternatives.append(clauses)
    return alternatives


def _operand(raw: str | None, text: str) -> Decimal | bool | Literal["value"] | None:
    if raw is None:
        return None
    if raw in ("true", "false"):
        return raw == "true"
    if raw == "value":
        return "value"
    try:
        return Decimal(raw)
    except InvalidOperation:
        raise ExpressionError(f"cannot read the operand {raw!r} in {text!r}") from None


def _compare(left: FactValue, op: str | None, right: Decimal | bool | None) -> Verdict:
    if left is None:
        return None
    if isinstance(left, _NoSuchPerson):
        return False
    if op is None:  # a bare fact: true when yes or non-zero
        return bool(left)
    if right is None:
        return None
    if isinstance(right, bool) or isinstance(left, bool):
        equal = bool(left) == bool(right)
        return equal if op == "==" else (not equal if op == "!=" else None)
    result = {
        ">=": left >= right, "<=": left <= right, ">": left > right, "<": left < right,
        "==": left == right, "!=": left != right,
    }[op]  # fmt: skip
    return result


def evaluate_expression(
    text: str, facts: Mapping[str, FactValue], own_value: Decimal | None = None
) -> tuple[Verdict, list[str]]:
    """Three-valued: ``True``, ``False`` or ``None`` (cannot tell) with the facts missing."""
    missing: list[str] = []
    verdicts: list[Verdict] = []
    for alternative in parse_expression(text):
        results: list[Verdict] = []
        for clause in alternative:
            left = facts.get(clause.fact)
            right = own_value if clause.operand == "value" else clause.operand
            verdict = _compare(left, clause.op, right)
            if verdict is None and left is None:
                missing.append(clause.fact)
            elif verdict is None:
                missing.append(f"the value of the condition ({clause.fact})")
            results.append(verdict)
        if False in results:
            verdicts.append(False)
        elif None in results:
            verdicts.append(None)
        else:
            verdicts.append(True)
    if True in verdicts:
        return True, []
    if None in verdicts:
        return None, list(dict.fromkeys(missing))
    return False, []


def _facts(text: str) -> set[str]:
    return {clause.fact for alt in parse_expression(text) for clause in alt}


class RulesReader(Protocol):
    """The read eligibility needs: the nodes of some labels and the edges among them (the graph
    store's ``snapshot``; the chat's in-memory index gives the same)."""

    async def snapshot(
        self, labels: Sequence[str] | None = None, limit: int = 1000
    ) -> GraphSnapshot: ...


@dataclass
class RuleSet:
    """The items with an ``applies_when``, their conditions and their timelines."""

    nodes: dict[str, GraphNode] = field(default_factory=dict)
    requires: dict[str, list[str]] = field(default_factory=dict)
    timelines: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def from_snapshot(cls, snapshot: GraphSnapshot) -> RuleSet:
        rules = cls(nodes={node.id: node for node in snapshot.nodes})
        for edge in sorted(snapshot.edges, key=lambda e: (e.source, e.target)):
            if edge.type == "REQUIRES":
                rules.requires.setdefault(edge.source, []).append(edge.target)
            elif edge.type == "HAS_TIMELINE":
                rules.timelines.setdefault(edge.source, []).append(edge.target)
        return rules

    def items(self, jurisdiction: str, as_at: date) -> list[GraphNode]:
        prefixes = _JURISDICTIONS.get(jurisdiction, (jurisdiction,))
        return [
            node
            for node_id, node in sorted(self.nodes.items())
            if node.label in _ITEM_LABELS
            and node.properties.get("applies_when")
            and node_id.split(":", 1)[0] in prefixes
            and _in_force(node, as_at)
        ]


async def load_rules(reader: RulesReader) -> RuleSet:
    """One read: every relief, obligation, benefit, condition and timeline, with their edges."""
    return RuleSet.from_snapshot(await reader.snapshot(RULE_LABELS, _RULES_LIMIT))


def _in_force(node: GraphNode, as_at: date) -> bool:
    start = str(node.properties.get("valid_from") or "")
    end = str(node.properties.get("valid_to") or "")
    day = as_at.isoformat()
    return (not start or start <= day) and (not end or day <= end)


class ConditionCheck(BaseModel):
    model_config = ConfigDict(frozen=True)

    node_id: str
    name: str
    test: str | None  # None: the graph states this condition in words only
    status: Literal["met", "not_met", "cannot_tell"]
    missing: list[str] = Field(default_factory=list)


class DeadlineCheck(BaseModel):
    """A timeline rule applied to the snapshot: a due date, or the end of a holding period."""

    model_config = ConfigDict(frozen=True)

    node_id: str
    name: str
    kind: str  # DEADLINE, LOCK_IN, CLAWBACK, RETENTION, …
    start: date | None = None
    end: date | None = None
    # ahead: still to come at the snapshot's date; passed: before it; cannot_tell: whether it
    # binds depends on a missing fact (``missing``)
    status: Literal["ahead", "passed", "cannot_tell"]
    text: str
    missing: list[str] = Field(default_factory=list)


class Eligibility(BaseModel):
    """One relevant relief, credit, benefit or obligation, and why it does or does not apply."""

    model_config = ConfigDict(frozen=True)

    node_id: str
    label: str  # Relief | Obligation | Benefit
    name: str
    about: str | None = None  # the disposal's asset, for an item decided per disposal
    status: Literal["applies", "does_not_apply", "cannot_tell"]
    applies_when: str
    conditions: list[ConditionCheck] = Field(default_factory=list)
    deadlines: list[DeadlineCheck] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    node_ids: list[str] = Field(default_factory=list)  # every node that decided it


def _number(value: object) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return None
    return Decimal(str(value))


def _person_facts(facts: Facts) -> dict[str, FactValue]:
    out: dict[str, FactValue] = {}
    for name, value in facts.model_dump().items():
        if isinstance(value, bool) or value is None:
            out[name] = value
        elif isinstance(value, int | Decimal):
            out[name] = Decimal(value)
    out["disposals"] = Decimal(len(facts.disposals))
    if not facts.couple:
        out.update({name: _NO_SPOUSE for name in out if name.startswith("spouse_")})
    return out


def _years_between(start: date, end: date) -> int:
    return end.year - start.year - ((end.month, end.day) < (start.month, start.day))


# Assets that are never a dwelling: a disposal named so is not a main residence nor residential
# property unless the facts say otherwise (a share sale is not "cannot tell" for home reliefs).
_NOT_A_DWELLING = re.compile(
    r"\b(shares?|stocks?|equit(?:y|ies)|etfs?|bonds?|unit trusts?|funds?|crypto\w*|bitcoin|"
    r"options?)\b",
    re.IGNORECASE,
)


def _dwelling_facts(disposal: Disposal) -> tuple[bool | None, bool | None]:
    """``(main_residence, residential_property)`` as stated, else as the asset tells: shares and
    the like are neither; a main residence is residential property."""
    main, residential = disposal.main_residence, disposal.residential_property
    if _NOT_A_DWELLING.search(disposal.asset):
        return (False if main is None else main), (False if residential is None else residential)
    if residential is None and main is True:
        residential = True
    return main, residential


def _disposal_facts(base: dict[str, FactValue], disposal: Disposal) -> dict[str, FactValue]:
    out = dict(base)
    main_residence, residential_property = _dwelling_facts(disposal)
    out.update({
        "gain": disposal.gain,  # after allowable expenses
        "cost": disposal.cost,
        "proceeds": disposal.proceeds,
        "years_owned": Decimal(_years_between(disposal.acquired_on, disposal.disposed_on)),
        "disposal_month": Decimal(disposal.disposed_on.month),
        "main_residence": main_residence,
        "residential_property": residential_property,
        "shareholding_percent": disposal.shareholding_percent,
        "working_director": disposal.working_director,
        "to_child": disposal.to_child,
    })  # fmt: skip
    return out


@dataclass(frozen=True)
class _Context:
    jurisdiction: str
    tax_year: int
    as_at: date
    facts: dict[str, FactValue]
    disposal: Disposal | None = None


def assess(rules: RuleSet, facts: Facts, as_at: date) -> list[Eligibility]:
    """Every item of the snapshot's jurisdiction in force at ``as_at`` whose ``applies_when``
    is true or cannot be told, with its conditions and deadlines (per disposal where the
    expression is about one)."""
    base = _person_facts(facts)
    out: list[Eligibility] = []
    for item in rules.items(facts.jurisdiction, as_at):
        relevance = str(item.properties["applies_when"])
        try:
            per_disposal = bool(_facts(relevance) & DISPOSAL_FACTS)
        except ExpressionError:
            continue  # a malformed expression is the seed's fault; the seed test catches it
        contexts = (
            [
                _Context(facts.jurisdiction, facts.tax_year, as_at, _disposal_facts(base, d), d)
                for d in facts.disposals
            ]
            if per_disposal
            else [_Context(facts.jurisdiction, facts.tax_year, as_at, base)]
        )
        for context in contexts:
            found = _assess_item(rules, item, relevance, context)
            if found is not None:
                out.append(found)
    return out


def disposal_reliefs(rules: RuleSet, facts: Facts, as_at: date) -> list[list[Eligibility]]:
    """Per disposal of ``facts`` (in order), the reliefs the graph makes relevant to it, each
    ``applies`` / ``does_not_apply`` / ``cannot_tell`` with the conditions that decided it: what
    a CGT computation needs to know which reliefs change its amounts (ADR 0086)."""
    base = _person_facts(facts)
    items = [
        (item, str(item.properties["applies_when"]))
        for item in rules.items(facts.jurisdiction, as_at)
        if item.label == "Relief"
    ]
    out: list[list[Eligibility]] = []
    for disposal in facts.disposals:
        context = _Context(
            facts.jurisdiction, facts.tax_year, as_at, _disposal_facts(base, disposal), disposal
        )
        found = []
        for item, relevance in items:
            try:
                if not _facts(relevance) & DISPOSAL_FACTS:
                    continue
            except ExpressionError:
                continue
            if (checked := _assess_item(rules, item, relevance, context)) is not None:
                found.append(checked)
        out.append(found)
    return out


def _assess_item(
    rules: RuleSet, item: GraphNode, relevance: str, context: _Context
) -> Eligibility | None:
    relevant, missing = evaluate_expression(relevance, context.facts)
    if relevant is False:
        return None
    conditions = [
        _check(rules.nodes[c], context) for c in rules.requires.get(item.id, ()) if c in rules.nodes
    ]
    if relevant is None:
        status: Literal["applies", "does_not_apply", "cannot_tell"] = "cannot_tell"
    elif any(c.status == "not_met" for c in conditions):
        status = "does_not_apply"
    elif any(c.status == "cannot_tell" for c in conditions):
        status = "cannot_tell"
    else:
        status = "applies"
    missing += [m for c in conditions for m in c.missing]
    owners = [item.id, *(c.node_id for c in conditions)]
    timeline_ids = [t for owner in owners for t in rules.timelines.get(owner, ())]
    deadlines: list[DeadlineCheck] = []
    if status != "does_not_apply":
        for timeline_id in dict.fromkeys(timeline_ids):
            node = rules.nodes.get(timeline_id)
            if node is not None and (check := _deadline(node, context)) is not None:
                deadlines.append(check)
    return Eligibility(
        node_id=item.id,
        label=item.label,
        name=str(item.properties.get("name") or item.id),
        about=context.disposal.asset if context.disposal else None,
        status=status,
        applies_when=relevance,
        conditions=conditions,
        deadlines=deadlines,
        missing=list(dict.fromkeys(missing)),
        node_ids=[*owners, *(d.node_id for d in deadlines)],
    )


def _check(condition: GraphNode, context: _Context) -> ConditionCheck:
    test = condition.properties.get("test")
    name = str(condition.properties.get("name") or condition.id)
    if not test:
        return ConditionCheck(
            node_id=condition.id,
            name=name,
            test=None,
            status="cannot_tell",
            missing=[f"{condition.id} (the graph states this condition in words only)"],
        )
    try:
        verdict, missing = evaluate_expression(
            str(test), context.facts, _number(condition.properties.get("value"))
        )
    except ExpressionError:
        verdict, missing = None, [f"{condition.id} (its test cannot be read)"]
    status: Literal["met", "not_met", "cannot_tell"] = (
        "met" if verdict is True else "not_met" if verdict is False else "cannot_tell"
    )
    return ConditionCheck(
        node_id=condition.id, name=name, test=str(test), status=status, missing=missing
    )


def _deadline(node: GraphNode, context: _Context) -> DeadlineCheck | None:
    rule = TimelineRule.from_node(node.id, node.properties)
    if rule is None:
        return None
    missing: list[str] = []
    when = node.properties.get("applies_when")
    if when:
        try:
            verdict, missing = evaluate_expression(str(when), context.facts)
        except ExpressionError:
            return None
        if verdict is False:
            return None
    disposal = context.disposal
    start: date | None
    if rule.kind == "DEADLINE":
        if rule.counts_from_tax_year or "into the tax year" in rule.anchor:
            year = (
                tax_year_of(context.jurisdiction, disposal.disposed_on)
                if disposal
                else context.tax_year
            )
            start, end = None, due_in_tax_year(rule, year)
        else:
            start = disposal.disposed_on if disposal else context.as_at
            end = due_after(rule, start)
        text = f"due {end.isoformat()}"
    elif rule.kind in ("LOCK_IN", "CLAWBACK", "RETENTION"):
        if rule.kind == "LOCK_IN":
            start = disposal.acquired_on if disposal else context.as_at
        elif rule.kind == "CLAWBACK":
            start = disposal.disposed_on if disposal else context.as_at
        else:  # records kept from the end of the tax year
            start = tax_year(context.jurisdiction, context.tax_year)[1]
        end = lock_in_end(start, rule.value, rule.unit)
        what = {"LOCK_IN": "held", "CLAWBACK": "clawback", "RETENTION": "keep records"}[rule.kind]
        text = f"{what} {rule.value} {rule.unit} from {start.isoformat()}: until {end.isoformat()}"
        if disposal and rule.kind == "LOCK_IN":
            met = end <= disposal.disposed_on
            text += f" ({'met' if met else 'not met'} at the disposal on {disposal.disposed_on})"
    else:
        return None
    status: Literal["ahead", "passed", "cannot_tell"] = (
        "cannot_tell" if missing else "ahead" if end >= context.as_at else "passed"
    )
    return DeadlineCheck(
        node_id=node.id,
        name=rule.name,
        kind=rule.kind,
        start=start,
        end=end,
        status=status,
        text=text,
        missing=missing,
    )
