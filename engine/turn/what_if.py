"""The what-if step of a chat turn (issue 28, ADR 0063): the scenario engine before the model.

:meth:`WhatIfStep.run` is called by :meth:`engine.turn.prepare.TurnPreparer.prepare` after the
evidence is found and before the prompt is built. In order:

1. the cheap check (:func:`scenarios.stated.maybe_scenario`, one regex search): a question
   with no amount and no what-if word ends the step here — no parse, no store read;
2. the parse (:func:`scenarios.stated.parse_what_if`): the facts the message states and the
   change its what-if asks; a message that states no income and no sale and asks no what-if
   ends here;
3. a conversation linked to one of the user's stored scenarios (the request's ``scenarioId``,
   kept in the conversation store; ADR 0063 second addendum): a what-if evaluates that
   scenario's latest snapshot, with the facts this message states laid over it, as the first
   column and the change asked as the second; nothing is written to the scenario (facts
   stated without a what-if are not the engine's matter then). Otherwise
   the conversation's scenario (labelled ``Stated in conversation <id>``, the user's own, in
   the conversation store — never in the graph): the facts stated earlier, else those of the
   conversation's earlier questions; the facts of this message laid over them are stored;
4. the what-if, when asked: both sets of facts evaluated from the graph's parameter nodes as
   the in-memory evidence index holds them (no graph read before the first token), compared;
   with the index's rule nodes and their ``REQUIRES``/``HAS_TIMELINE`` edges (a
   :class:`scenarios.RuleSet` built once per index generation), each column also says which
   reliefs and obligations apply and which deadlines bind (ADR 0071).

The result joins the turn as (a) a ``WHAT-IF`` prompt section of quoted data (it carries the
user's figures, so egress scans it, alone, before it joins the prompt), (b) the parameter nodes
(and the items, conditions and timelines that decided eligibility) as evidence, so the answer's
citations of them are kept, and (c) ``done``'s ``scenario``. A what-if the engine
computed is answerable even where the relevance gate would have refused its words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from decimal import Decimal
from typing import Any, Protocol

from pydantic import TypeAdapter, ValidationError

from conversations.models import StoredMessage, StoredScenario
from conversations.port import ScenarioStore
from engine.evidence import Evidence, EvidenceHit, describe
from engine.retrieval.gate import RelevanceVerdict
from graph.models import GraphNode
from scenarios.chat import (
    CHAT_SCENARIO_PREFIX,
    WhatIfResult,
    latest_snapshot,
    prompt_section,
    prompt_section_lines,
    snapshot_of,
    to_facts,
    what_if,
    what_if_stored,
)
from scenarios.eligibility import RuleSet, RulesReader, load_rules
from scenarios.models import Disposal, Facts, Snapshot
from scenarios.stated import StatedDisposal, StatedFacts, maybe_scenario, parse_what_if

__all__ = ["IndexedParameters", "IndexedRules", "NodeLookup", "WhatIfOutcome", "WhatIfStep"]

_SNAPSHOTS: TypeAdapter[list[Snapshot]] = TypeAdapter(list[Snapshot])
_SCAN = 200  # the user's most recently updated scenarios searched for the conversation's


class NodeLookup(Protocol):
    """What the step needs of :class:`engine.evidence.EvidenceIndex`: a node by id, in memory."""

    def get(self, node_id: str) -> GraphNode | None: ...


class IndexedRules(RulesReader, Protocol):
    """What the step needs for eligibility: the in-memory rules (:meth:`EvidenceIndex.snapshot`)
    and a number that changes whenever they may have (:attr:`EvidenceIndex.generation`)."""

    @property
    def generation(self) -> int: ...


class IndexedParameters:
    """:class:`scenarios.ParameterReader` over the in-memory evidence index: parameter nodes
    are seed rule nodes, which the index holds, so the turn reads no graph for them."""

    def __init__(self, index: NodeLookup) -> None:
        self._index = index

    async def get_nodes(self, ids: Sequence[str]) -> list[GraphNode]:
        return [node for i in ids if (node := self._index.get(i)) is not None]


@dataclass(frozen=True)
class WhatIfOutcome:
    """What the step found: the result (``None`` when the message only stated facts)."""

    result: WhatIfResult | None
    scenario_id: str | None

    def section(self) -> str | None:
        return prompt_section(self.result) if self.result is not None else None

    def section_lines(self) -> list[tuple[str, bool]] | None:
        """The section's lines, each with whether egress must scan it (user text it may hold)."""
        return prompt_section_lines(self.result) if self.result is not None else None

    def data(self) -> dict[str, object] | None:
        if self.result is None:
            return None
        data = self.result.model_dump(mode="json", by_alias=True)
        data["scenario_id"] = self.scenario_id
        return data

    def evidence(
        self, evidence: Evidence, refusal: str | None, index: NodeLookup
    ) -> tuple[Evidence, str | None]:
        """The turn's evidence with the parameter nodes the computation used (cited by the
        table); a computed what-if lifts the gate's refusal of its words."""
        if self.result is None or self.result.comparison is None:
            return evidence, refusal
        known = set(evidence.ids()) if refusal is None else set()
        hits = list(evidence.hits) if refusal is None else []
        for node_id in self.result.node_ids:
            if node_id not in known and (node := index.get(node_id)) is not None:
                hits.append(EvidenceHit(node=node, text=describe(node), score=0.0))
                known.add(node_id)
        verdict = evidence.verdict if refusal is None else RelevanceVerdict(True, confidence=1.0)
        return Evidence(hits=hits, verdict=verdict), None


class WhatIfStep:
    """Runs the scenario engine for a turn that states facts or asks a what-if."""

    def __init__(
        self, scenarios: ScenarioStore, index: NodeLookup, rules: IndexedRules | None = None
    ) -> None:
        """``rules`` (the evidence index): eligibility and deadlines are assessed; without,
        the what-if gives amounts only."""
        self._scenarios = scenarios
        self._index = index
        self._reader = IndexedParameters(index)
        self._rules = rules
        self._rule_set: tuple[int, RuleSet] | None = None  # (generation, rules) last built

    async def _current_rules(self) -> RuleSet | None:
        if self._rules is None:
            return None
        generation = self._rules.generation
        if self._rule_set is None or self._rule_set[0] != generation:
            self._rule_set = (generation, await load_rules(self._rules))
        return self._rule_set[1]

    async def check_link(self, tenant_id: str, user_id: str, scenario_id: str) -> None:
        """A request's ``scenarioId``, checked before the conversation is loaded (or created):
        :class:`errors.NotFound` unless it is the caller's scenario in the caller's tenant."""
        await self._scenarios.get_scenario(tenant_id, scenario_id, user_id=user_id)

    async def run(
        self,
        tenant_id: str,
        user_id: str,
        conversation_id: str,
        message: str,
        history: Sequence[StoredMessage],
        link: str | None = None,
    ) -> WhatIfOutcome | None:
        """The step (module docstring); ``None`` when the message is no scenario matter.
        ``link``: the request's ``scenarioId``, stored as the conversation's scenario first."""
        linked: StoredScenario | None = None
        if link is not None:
            linked = await self._scenarios.link_conversation(
                tenant_id, conversation_id, link, user_id=user_id
            )
        if not maybe_scenario(message):
            return None
        question = parse_what_if(message)
        if question.change is None and not _computable(question.stated):
            return None
        if linked is None:
            linked = await self._scenarios.linked_scenario(
                tenant_id, conversation_id, user_id=user_id
            )
        if linked is not None and (base := _latest(linked)) is not None:
            if question.change is None:
                return None  # facts alone: the stored scenario is edited in the panel
            on_stored = await what_if_stored(
                self._reader,
                linked.id,
                linked.label,
                base,
                question.stated,
                question.change,
                await self._current_rules(),
            )
            return WhatIfOutcome(on_stored, linked.id)
        label = f"{CHAT_SCENARIO_PREFIX}{conversation_id}"
        stored_id, earlier = await self._stored(tenant_id, user_id, label)
        if earlier is None:
            earlier = _from_history(history)
        stated = question.stated.over(earlier)
        if question.change is not None and not (
            _computable(stated) or question.change.states_income()
        ):
            return None  # "what if I sell in May?" with no facts of ours: not the engine's matter
        result = None
        if question.change is not None:
            rules = await self._current_rules()
            result = await what_if(self._reader, stated, question.change, rules)
        snapshots = self._snapshots(stated, question.change)
        if snapshots:
            body = _SNAPSHOTS.dump_json(snapshots).decode()
            if stored_id is None:
                created = await self._scenarios.create_scenario(tenant_id, user_id, label, body)
                stored_id = created.id
            else:
                await self._scenarios.replace_scenario(
                    tenant_id, stored_id, label, body, user_id=user_id
                )
        if result is not None:
            result = result.model_copy(update={"scenario_id": stored_id})
        return WhatIfOutcome(result, stored_id)

    async def _stored(
        self, tenant_id: str, user_id: str, label: str
    ) -> tuple[str | None, StatedFacts | None]:
        found = await self._scenarios.list_scenarios(tenant_id, user_id, _SCAN)
        for scenario in found:
            if scenario.label == label:
                try:
                    snapshots = _SNAPSHOTS.validate_json(scenario.body)
                except ValidationError:
                    return scenario.id, None
                return scenario.id, _stated(snapshots[0].facts) if snapshots else None
        return None, None

    def _snapshots(self, stated: StatedFacts, change: StatedFacts | None) -> list[Snapshot]:
        """The facts as stated, and as changed by the what-if, when the engine accepts them."""
        out = []
        base, _, missing = to_facts(stated)
        if base is not None and not missing:
            out.append(snapshot_of(base, "as stated"))
            if change is not None:
                alternative, _, missing = to_facts(change.over(stated))
                if alternative is not None and not missing:
                    out.append(snapshot_of(alternative, "what if"))
        return out


def _latest(scenario: StoredScenario) -> Snapshot | None:
    """The stored scenario's latest snapshot; ``None`` if its body holds none readable."""
    try:
        return latest_snapshot(_SNAPSHOTS.validate_json(scenario.body))
    except ValidationError:
        return None


def _stated(facts: Facts) -> StatedFacts:
    """The conversation's stored facts as stated facts, for the next turn to lay its own over:
    every field the two share (incomes, status, assessment, year, jurisdiction, age, pension,
    rent, losses, household facts, disposals), so nothing the parser stored is lost between
    turns. An amount of zero and an empty list are what the engine takes when nothing was
    stated, so they stay unstated (an income of 0 is no income stated); a disposal keeps its
    days as stored (the parser's month or year was already turned into a day)."""
    carried: dict[str, Any] = {}
    for name in _SHARED:
        value = getattr(facts, name)
        if value is None or (isinstance(value, Decimal | list) and not value):
            continue
        carried[name] = tuple(_stated_disposal(d) for d in value) if name == "disposals" else value
    return replace(StatedFacts(), **carried)


def _stated_disposal(disposal: Disposal) -> StatedDisposal:
    return StatedDisposal(
        asset=disposal.asset,
        cost=disposal.cost,
        proceeds=disposal.proceeds,
        acquired=disposal.acquired_on.isoformat(),
        disposed=disposal.disposed_on.isoformat(),
        expenses=disposal.allowable_expenses or None,
    )


# the facts a chat states that a stored snapshot also holds, by the same name
_SHARED = tuple(f.name for f in fields(StatedFacts) if f.name in Facts.model_fields)


def _computable(stated: StatedFacts) -> bool:
    """Facts the engine can compute from: an income, or a sale (Irish CGT needs no income;
    the UK's rate band does, and the result then says it is missing)."""
    return stated.states_income() or bool(stated.disposals)


def _from_history(history: Sequence[StoredMessage]) -> StatedFacts:
    """The facts the conversation's earlier questions stated, the latest winning."""
    facts = StatedFacts()
    for stored in history:
        if stored.role == "user" and maybe_scenario(stored.content):
            facts = parse_what_if(stored.content).stated.over(facts)
    return facts
