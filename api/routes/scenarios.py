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
        description="Per snapshot, by position (labelled with the snapshots' label when every "
        "scenario has the same labels in the same order, else `#1`, `#2`, ...; the scenario "
        "with the fewest snapshots decides how many): each line and total with every "
        "scenario's amount and the difference last minus first, each scenario's gaps, and each "
        "eligibility item's status and deadlines per scenario (`changed` when they differ)."
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
    description="Each scenario is evaluated as `POST /api/scenarios/{scenario_id}/evaluate` "
    "does, then set side by side. Every id must be one of the caller's scenarios: any other "
    "(another user's, another tenant's, unknown) is a 404 `not_found`; fewer than two ids or "
    "more than five is a 422 `invalid_input`.",
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
    description="Computes every snapshot of one of the caller's stored scenarios from the "
    "rules graph; there is no request body, and nothing is stored or changed.\n\n"
    "Ireland (tax year = calendar year): income tax (single, joint assessment, separate "
    "assessment, separate treatment; the personal, employee, earned income and age credits, "
    "the rent tax credit when the tenancy is registered, the single person child carer "
    "credit and band, the widowed person and widowed parent credits from `bereaved_in`, and "
    "pension contribution relief within the age-related limits and the earnings limit, for "
    "income tax only), USC and PRSI (Class A, Class S). UK and Northern Ireland (tax year Y "
    "= 6 April Y to 5 April Y+1): income tax at the rates of England, Wales and Northern "
    "Ireland (the Personal Allowance and its taper; Marriage Allowance received from a "
    "spouse) and employee Class 1 and Class 4 National Insurance. Capital gains tax on the "
    "snapshot's `disposals` of its tax year: gains (proceeds less cost and "
    "`allowable_expenses`), the reliefs the graph's conditions grant (principal private "
    "residence / Private Residence Relief, revised entrepreneur relief / Business Asset "
    "Disposal Relief, Irish retirement relief within its proceeds limit, and marginal "
    "relief above it for the year's only disposal with no losses brought forward), the "
    "year's losses and `capital_losses_brought_forward`, the annual exemption, the graph's "
    "rate (UK: on top of taxable income, at the rates in force on the disposal's day); the "
    "losses left are a `losses_carried_forward` line.\n\n"
    "Every amount comes from the graph's parameter nodes for the snapshot's tax year, and "
    "every line lists their ids and the period they are in force. What is not computed is a "
    "gap with its reason, and the totals it touches read `complete: false`; a parameter the "
    "graph lacks is a gap, never a guess. Not built, among others (each a gap): the year of "
    "bereavement, the age credit under separate assessment, the exemption limit and "
    "marginal relief at 65 or over, USC reduced rates, indexation in Irish CGT, retirement "
    "relief to a child, Scottish rates, UK pension relief, Marriage Allowance transferred "
    "by you. Each snapshot's `eligibility` lists the reliefs, credits, benefits and "
    "obligations the graph's `applies_when` makes relevant to its facts: `applies`, "
    "`does_not_apply` or `cannot_tell` (with the `missing` facts), the `REQUIRES` "
    "conditions that decided it and the deadlines, lock-ins and clawbacks of its timelines "
    "(due dates from the timeline engine), each with its node id.\n\n"
    "What-if: this call evaluates the snapshots as stored; two sets of facts side by side "
    "are two snapshots, or two scenarios (`POST /api/scenarios/compare`). In the chat, a "
    "what-if asked in a conversation linked to this scenario (`PUT "
    "/api/conversations/{conversation_id}/scenario`, or `scenarioId` with a chat turn) "
    "compares the scenario's latest snapshot with the change and leaves the scenario as it "
    "is.\n\n"
    "Errors: another user's scenario (in the same tenant too), another tenant's or an "
    "unknown id is a 404 `not_found`, the same for each. Facts are checked where they are "
    "sent: impossible ones are a 422 `invalid_input` on `POST /api/scenarios` and `PUT "
    "/api/scenarios/{scenario_id}`, so a stored scenario holds none, and this call, which "
    "takes no input besides the id, has nothing to refuse.",
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
