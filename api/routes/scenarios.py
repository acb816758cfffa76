"""The caller's scenarios (issue 28): what-if facts, their evaluation and comparison.

A scenario belongs to the user who created it and is never shared: another user's scenario,
another tenant's or an unknown id is a 404, like a private conversation (ADR 0025). Scenarios
live in the conversation store, never in the graph. Impossible facts (a negative income, a
disposal before its acquisition, an unknown jurisdiction) are a 422 from the schema of
:mod:`scenarios.models`. The computations are :mod:`scenarios`'; this module only moves data:
every amount is read from graph parameter nodes, and every line of a result lists their ids.
Amounts are JSON strings with two decimals, so no cent is lost to binary floats.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from api.auth import Principal, authenticate
from api.deps import ContainerDep
from conversations.models import StoredScenario
from conversations.port import ScenarioStore
from errors import NotFound
from scenarios import (
    Comparison,
    ParameterReader,
    RuleSet,
    ScenarioInput,
    Snapshot,
    SnapshotResult,
    load_rules,
)
from scenarios import compare as compare_results
from scenarios import evaluate as evaluate_scenario

__all__ = [
    "DISCLAIMER",
    "CompareIn",
    "ComparisonOut",
    "ConversationScenarioOut",
    "EvaluationOut",
    "LinkIn",
    "ScenarioOut",
    "compare",
    "create_scenario",
    "delete_scenario",
    "evaluate",
    "get_conversation_scenario",
    "get_scenario",
    "link_conversation_scenario",
    "list_scenarios",
    "replace_scenario",
    "router",
    "unlink_conversation_scenario",
]

router = APIRouter(tags=["scenarios"])

DISCLAIMER = (
    "Research aid, not tax advice: amounts are computed from the rules graph's parameters for "
    "the facts given; check the gaps and the cited sources."
)
_SNAPSHOTS: TypeAdapter[list[Snapshot]] = TypeAdapter(list[Snapshot])


class ScenarioOut(BaseModel):
    id: str
    label: str
    snapshots: list[Snapshot]
    createdAt: str
    updatedAt: str


class EvaluationOut(BaseModel):
    scenarioId: str
    label: str
    snapshots: list[SnapshotResult] = Field(
        description="One per snapshot, in order: `lines` (each with the graph node ids it used "
        "and the period they are in force), `totals` (`complete: false` when a gap leaves "
        "something out), `gaps` (what could not be computed and why) and `parameters`."
    )
    disclaimer: str = DISCLAIMER


class CompareIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scenarioIds: list[str] = Field(min_length=2, max_length=5, description="In display order.")


class ComparisonOut(BaseModel):
    comparison: Comparison = Field(
        description="Per snapshot (matched by label, else by position): each line and total "
        "with every scenario's amount and the difference last minus first."
    )
    evaluations: list[EvaluationOut]
    disclaimer: str = DISCLAIMER


class LinkIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scenarioId: str = Field(
        min_length=1, max_length=200, description="One of the caller's scenarios."
    )


class ConversationScenarioOut(BaseModel):
    conversationId: str
    scenario: ScenarioOut | None = Field(
        description="The caller's scenario a what-if in this conversation starts from; null "
        "when there is no link (or the scenario was deleted since)."
    )


def _out(stored: StoredScenario) -> ScenarioOut:
    return ScenarioOut(
        id=stored.id,
        label=stored.label,
        snapshots=_SNAPSHOTS.validate_json(stored.body),
        createdAt=stored.created_at.isoformat(),
        updatedAt=stored.updated_at.isoformat(),
    )


def _store(container: ContainerDep) -> ScenarioStore:
    return container.conversations.scenario_store()


async def _evaluation(
    reader: ParameterReader, scenario: ScenarioOut, rules: RuleSet
) -> EvaluationOut:
    body = ScenarioInput(label=scenario.label, snapshots=scenario.snapshots)
    results = await evaluate_scenario(reader, body, rules)
    return EvaluationOut(scenarioId=scenario.id, label=scenario.label, snapshots=results)


_Caller = Annotated[Principal, Depends(authenticate)]


@router.post(
    "/api/scenarios",
    status_code=201,
    summary="Create a scenario: a label and dated snapshots of facts",
    response_model=ScenarioOut,
)
async def create_scenario(
    body: ScenarioInput, container: ContainerDep, principal: _Caller
) -> ScenarioOut:
    stored = await _store(container).create_scenario(
        principal.tenant_id,
        principal.user_id,
        body.label,
        _SNAPSHOTS.dump_json(body.snapshots).decode(),
    )
    return _out(stored)


@router.get(
    "/api/scenarios",
    summary="The caller's scenarios, most recently updated first",
    response_model=list[ScenarioOut],
)
async def list_scenarios(
    container: ContainerDep,
    principal: _Caller,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[ScenarioOut]:
    found = await _store(container).list_scenarios(principal.tenant_id, principal.user_id, limit)
    return [_out(s) for s in found]


@router.get(
    "/api/scenarios/{scenario_id}",
    summary="One of the caller's scenarios (anyone else's is a 404)",
    response_model=ScenarioOut,
)
async def get_scenario(
    scenario_id: str, container: ContainerDep, principal: _Caller
) -> ScenarioOut:
    stored = await _store(container).get_scenario(
        principal.tenant_id, scenario_id, user_id=principal.user_id
    )
    return _out(stored)


@router.put(
    "/api/scenarios/{scenario_id}",
    summary="Replace a scenario's label and snapshots (owner only)",
    response_model=ScenarioOut,
)
async def replace_scenario(
    scenario_id: str, body: ScenarioInput, container: ContainerDep, principal: _Caller
) -> ScenarioOut:
    stored = await _store(container).replace_scenario(
        principal.tenant_id,
        scenario_id,
        body.label,
        _SNAPSHOTS.dump_json(body.snapshots).decode(),
        user_id=principal.user_id,
    )
    return _out(stored)


@router.delete(
    "/api/scenarios/{scenario_id}",
    status_code=204,
    summary="Delete a scenario (owner only)",
    response_class=Response,
)
async def delete_scenario(
    scenario_id: str, container: ContainerDep, principal: _Caller
) -> Response:
    await _store(container).delete_scenario(
        principal.tenant_id, scenario_id, user_id=principal.user_id
    )
    return Response(status_code=204)


@router.post(
    "/api/scenarios/compare",
    summary="Compare two to five of the caller's scenarios, snapshot by snapshot",
    response_model=ComparisonOut,
)
async def compare(body: CompareIn, container: ContainerDep, principal: _Caller) -> ComparisonOut:
    store = _store(container)
    scenarios = [
        _out(await store.get_scenario(principal.tenant_id, i, user_id=principal.user_id))
        for i in body.scenarioIds
    ]
    rules = await load_rules(container.graph)
    evaluations = [await _evaluation(container.graph, s, rules) for s in scenarios]
    comparison = compare_results([e.label for e in evaluations], [e.snapshots for e in evaluations])
    return ComparisonOut(comparison=comparison, evaluations=evaluations)


@router.post(
    "/api/scenarios/{scenario_id}/evaluate",
    summary="Evaluate a scenario per snapshot, each line citing its graph nodes",
    description="Ireland: income tax, USC and PRSI (tax year = calendar year). UK and Northern "
    "Ireland: income tax (rates of England, Wales and Northern Ireland; Scottish rates are out "
    "of scope) and employee and self-employed National Insurance (tax year Y = 6 April Y to "
    "5 April Y+1). Rates, bands and credits come from the graph's parameter nodes for the "
    "snapshot's tax year; a parameter the graph lacks is a gap, never a guess. Irish capital "
    "gains tax: gains (proceeds less cost and `allowable_expenses`) less the year's losses and "
    "then `capital_losses_brought_forward`, the annual exemption, the rate (reliefs not "
    "built, so always `complete: false`); UK capital gains tax: the year's net gains less "
    "losses brought forward only down to the annual exempt amount, less that amount, on top "
    "of taxable income, at the lower rate inside the basic rate "
    "band left and the higher rate above it, the rates in force on the disposal's day for "
    "residential property or other assets (reliefs not built: `complete: false`); both give "
    "the losses left as `losses_carried_forward`. Each snapshot's `eligibility` lists the "
    "reliefs, credits, benefits and obligations the graph's "
    "`applies_when` makes relevant to its facts: `applies`, `does_not_apply` or `cannot_tell` "
    "(with the `missing` facts), the `REQUIRES` conditions that decided it and the deadlines, "
    "lock-ins and clawbacks of its timelines (due dates from the timeline engine), each with "
    "its node id.",
    response_model=EvaluationOut,
)
async def evaluate(scenario_id: str, container: ContainerDep, principal: _Caller) -> EvaluationOut:
    stored = await _store(container).get_scenario(
        principal.tenant_id, scenario_id, user_id=principal.user_id
    )
    return await _evaluation(container.graph, _out(stored), await load_rules(container.graph))


# --- a conversation's scenario (ADR 0063 second addendum) -----------------------------------


async def _own_conversation(
    container: ContainerDep, principal: Principal, conversation_id: str
) -> None:
    """``NotFound`` unless the caller owns the conversation: a link is its owner's alone, so a
    conversation shared with the caller, another user's or another tenant's is a 404."""
    conversation = await container.conversations.get_conversation(
        principal.tenant_id, conversation_id, user_id=principal.user_id
    )
    if conversation.user_id != principal.user_id:
        raise NotFound(f"conversation {conversation_id} not found")


@router.get(
    "/api/conversations/{conversation_id}/scenario",
    summary="The scenario the caller's conversation is linked to (owner only)",
    description="A what-if asked in the conversation evaluates this scenario's latest snapshot "
    "as its base column. `scenario` is null without a link. Another user's or tenant's "
    "conversation, one only shared with the caller, or an unknown id is a 404.",
    response_model=ConversationScenarioOut,
)
async def get_conversation_scenario(
    conversation_id: str, container: ContainerDep, principal: _Caller
) -> ConversationScenarioOut:
    await _own_conversation(container, principal, conversation_id)
    linked = await _store(container).linked_scenario(
        principal.tenant_id, conversation_id, user_id=principal.user_id
    )
    return ConversationScenarioOut(
        conversationId=conversation_id, scenario=None if linked is None else _out(linked)
    )


@router.put(
    "/api/conversations/{conversation_id}/scenario",
    summary="Link the caller's conversation to one of their scenarios (owner only)",
    description="Replaces an earlier link; the same as sending `scenarioId` with a chat turn. "
    "Another user's or tenant's conversation or scenario, or an unknown id, is a 404 and "
    "nothing is linked.",
    response_model=ConversationScenarioOut,
)
async def link_conversation_scenario(
    conversation_id: str, body: LinkIn, container: ContainerDep, principal: _Caller
) -> ConversationScenarioOut:
    await _own_conversation(container, principal, conversation_id)
    linked = await _store(container).link_conversation(
        principal.tenant_id, conversation_id, body.scenarioId, user_id=principal.user_id
    )
    return ConversationScenarioOut(conversationId=conversation_id, scenario=_out(linked))


@router.delete(
    "/api/conversations/{conversation_id}/scenario",
    status_code=204,
    summary="Remove the caller's conversation's scenario link (owner only; the scenario stays)",
    description="204 whether or not there was a link; another user's or tenant's "
    "conversation, or an unknown id, is a 404.",
    response_class=Response,
)
async def unlink_conversation_scenario(
    conversation_id: str, container: ContainerDep, principal: _Caller
) -> Response:
    await _own_conversation(container, principal, conversation_id)
    await _store(container).unlink_conversation(
        principal.tenant_id, conversation_id, user_id=principal.user_id
    )
    return Response(status_code=204)
