"""The operators' review queue over HTTP (the platform ``operator`` role only, ADR 0041): list
quarantined captures, confirm, merge, reject, and the audit trail of merges and rejections (ADR
0020, 0034)."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from api.auth import Principal, require_operator
from api.bootstrap import Container
from api.deps import ContainerDep
from api.errors import ErrorBody
from engine.review import (
    REVIEW_AUDIT_FILE,
    ReviewAudit,
    ReviewRecord,
    confirm_concept,
    merge_concepts,
    reject_concept,
    review_queue,
)

__all__ = [
    "ConfirmRequest",
    "ConfirmResult",
    "MergeRequest",
    "ReviewActionResult",
    "ReviewCandidateOut",
    "ReviewConcept",
    "ReviewFlag",
    "audit_trail",
    "confirm",
    "merge",
    "queue",
    "reject",
    "router",
]

router = APIRouter(tags=["review"])
# The shared graph's review is the platform operator's, never a tenant admin's (issue 30):
# the queue holds every tenant's captures and phrasings, the audit the operators' ids.
_Admin = Annotated[Principal, Depends(require_operator)]
_ConceptId = Annotated[str, Path(min_length=1, max_length=300)]


class ReviewFlag(BaseModel):
    field: str = Field(description="`label`, `definition` or `source_url`")
    text: str = Field(description="The text flagged")
    flags: list[str] = Field(description="What was found (engine.text_flags)")


class ConfirmRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: str = Field(
        min_length=1,
        max_length=64,
        description="The `version` of the concept as listed (GET /api/review/concepts)",
    )


class ReviewConcept(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    id: str
    pref_label: str
    labels: list[str] = Field(description="Every label conversations used for the concept")
    aligned_with: list[str]
    created_at: str
    phrasings: dict[str, int] = Field(
        description="Label text -> how many captures used it for this concept, most used "
        "first (ADR 0036); 0 for a label counted by no capture"
    )
    mentions: int = Field(description="How many captures resolved to or created the concept")
    definition: str | None = Field(
        description="The definition a capture gave (model-written text: read it before "
        "confirming; it reaches every tenant's prompts once confirmed)"
    )
    source_urls: list[str] = Field(description="The sources the capture named")
    flags: list[ReviewFlag] = Field(
        description="Texts of this concept that need a careful look: `markup`, `newline`, "
        "`instruction` (addressed to a model), `citation` (a bracketed node id), `figure` (a "
        "number, rate or amount: check it against a source)"
    )
    version: str = Field(
        description="The version of exactly this content: pass it to confirm; a concept "
        "changed since (another label, definition or source) is not confirmed (409)"
    )
    candidates: list[ReviewCandidateOut] = Field(
        default_factory=list,
        description="Concepts this one may duplicate (ADR 0049): reviewed ones and other "
        "captures awaiting review; resolution never merges a near match; merge it into a "
        "reviewed one with POST .../merge",
    )


class ReviewCandidateOut(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    id: str
    pref_label: str
    reason: str = Field(
        description="How resolution found it: `edit_distance` (a typo or a letter), "
        "`parent_child` (one name extends the other by words), `token_overlap`, `initials` / "
        "`acronym` (an abbreviation of the other), `abbreviation` (an acronym with letters from "
        "inside words, e.g. IHT for inheritance tax), `other_jurisdiction` (the same name with "
        "jurisdiction words naming another jurisdiction, e.g. a national law after an EU one), "
        "`label` (an exact label held by several concepts), `synonym` (another label of a "
        "EuroVoc concept the capture's label names, ADR 0060), `related` (a term the seeds "
        "record as *not* a label of that concept but related to it: broader, a part, a reform "
        "or a condition of it, ADR 0075/0078; usually confirm the capture as its own concept "
        "rather than merge it), `char_ngrams` (letters close to one of its labels, a reviewed "
        "concept's or another capture's, weighed over every reviewed label of the graph, when "
        "no rule above found it, ADR 0083)"
    )
    score: float = Field(description="How close, 0 to 1")
    status: str = Field(
        default="confirmed",
        description="`confirmed` (merge into it with POST .../merge) or `provisional` (another "
        "capture still awaiting review: a concept merges only into a reviewed one, so confirm "
        "one of the two first)",
    )


class ConfirmResult(BaseModel):
    id: str
    outcome: str = Field(description="`updated` (confirmed now) or `unchanged` (already was)")


@router.get(
    "/api/review/concepts",
    summary="Captured concepts awaiting review (operators)",
    description="Concepts a conversation captured that no tenant sees until an operator "
    "confirms them (ADR 0020), oldest first, each with everything confirming it makes shared "
    "(every label, the definition and source URLs, with `flags` on text that needs a careful "
    "look, and its `version`; ADR 0044), the phrasings conversations used and how often "
    "(`phrasings`: label text -> captures that used it; `mentions`: captures in all; ADR "
    "0036), to judge what is worth confirming. No tenant, user or conversation "
    "ids: the graph holds none, only label texts the ingress guard accepted and counts.",
    response_model_by_alias=True,
)
async def queue(
    container: ContainerDep,
    _: _Admin,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
) -> list[ReviewConcept]:
    items = await review_queue(container.graph, limit=limit)
    return [
        ReviewConcept(
            id=item.id,
            pref_label=item.pref_label,
            labels=list(item.labels),
            aligned_with=list(item.aligned_with),
            created_at=item.created_at,
            phrasings=dict(item.phrasings),
            mentions=item.mentions,
            definition=item.definition,
            source_urls=list(item.source_urls),
            flags=[_flag(key, kinds) for key, kinds in item.flags.items()],
            version=item.version,
            candidates=[
                ReviewCandidateOut(
                    id=c.id,
                    pref_label=c.pref_label,
                    reason=c.reason,
                    score=c.score,
                    status=c.status,
                )
                for c in item.candidates
            ],
        )
        for item in items
    ]


def _flag(key: str, kinds: tuple[str, ...]) -> ReviewFlag:
    field, _, text = key.partition(":")
    if field == "definition":
        text = ""  # the definition is in its own field
    return ReviewFlag(field=field, text=text, flags=list(kinds))


@router.post(
    "/api/review/concepts/{concept_id}/confirm",
    summary="Confirm a captured concept, its labels and definition as listed (operators)",
    description="From then on every tenant sees the concept (snapshots, patches, prompts) and "
    "it is evidence. The body names the `version` listed: 409 `review_conflict` when the "
    "concept changed since (list it again and read what it holds now); 404 for an unknown "
    "id.",
    responses={
        409: {"model": ErrorBody, "description": "`review_conflict`: changed since listed."}
    },
)
async def confirm(
    container: ContainerDep,
    _: _Admin,
    concept_id: Annotated[str, Path(min_length=1, max_length=300)],
    body: ConfirmRequest,
) -> ConfirmResult:
    outcome = await confirm_concept(
        container.graph, container.writer, concept_id, version=body.version
    )
    return ConfirmResult(id=concept_id, outcome=outcome.value)


class MergeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    into: str = Field(min_length=1, max_length=300, description="The surviving concept's id")


class ReviewActionResult(BaseModel):
    """A merge or rejection as audited (``GET /api/review/audit`` lists them)."""

    action: str = Field(description="`merge` or `reject`")
    concept: str
    into: str | None = Field(default=None, description="The surviving concept of a merge")
    at: str
    by: str = Field(description="`api:<operator user id>` or `cli`")
    previous_status: str = Field(description="The concept's status before the action")
    labels: list[str] = Field(description="Label ids moved (merge) or removed (reject)")
    edges: int = Field(description="Edges copied onto the survivor (merge)")
    removed: list[str] = Field(description="Node ids deleted (reject)")

    @classmethod
    def of(cls, record: ReviewRecord) -> ReviewActionResult:
        return cls(
            action=record.action,
            concept=record.concept,
            into=record.into,
            at=record.at,
            by=record.by,
            previous_status=record.previous_status,
            labels=list(record.labels),
            edges=record.edges,
            removed=list(record.removed),
        )


def _audit(container: Container) -> ReviewAudit:
    return ReviewAudit(container.settings.data_dir / REVIEW_AUDIT_FILE)


@router.post(
    "/api/review/concepts/{concept_id}/merge",
    summary="Merge a concept into another (operators)",
    description="Copies the concept's labels and edges (HAS_ALT_LABEL, ALIGNS_WITH, BROADER, "
    "RELATED) onto `into`, confirms the moved labels, and leaves the concept as a hidden "
    "redirect (`status: merged`, `merged_into`) that resolution follows (ADR 0034). Audited; "
    "live graph patches report it (the concept `removed` if tenants had seen it). "
    "404 `not_found`: unknown concept; 422 `invalid_input`: unknown `into`; "
    "409 `review_conflict`: `into` is the concept itself, is quarantined or merged, or the "
    "concept was merged already.",
    responses={
        404: {"model": ErrorBody, "description": "`not_found`: unknown concept."},
        409: {
            "model": ErrorBody,
            "description": "`review_conflict`: `into` is the concept itself, is quarantined "
            "or merged, or the concept was merged already.",
        },
        422: {
            "model": ErrorBody,
            "description": "`invalid_input`: no concept `into`, or a malformed body.",
        },
    },
)
async def merge(
    container: ContainerDep, principal: _Admin, concept_id: _ConceptId, body: MergeRequest
) -> ReviewActionResult:
    record = await merge_concepts(
        container.graph,
        container.writer,
        concept_id,
        body.into,
        audit=_audit(container),
        by=f"api:{principal.user_id}",
    )
    return ReviewActionResult.of(record)


@router.post(
    "/api/review/concepts/{concept_id}/reject",
    summary="Reject a captured concept (operators)",
    description="Deletes a quarantined concept with its edges and the labels no other concept "
    "uses. Audited. Tenants never saw it, so their patches do not mention it. "
    "404 `not_found`: unknown concept; 409 `review_conflict`: the concept is not quarantined "
    "(merge a reviewed one instead).",
    responses={
        404: {"model": ErrorBody, "description": "`not_found`: unknown concept."},
        409: {
            "model": ErrorBody,
            "description": "`review_conflict`: the concept is not quarantined.",
        },
    },
)
async def reject(
    container: ContainerDep, principal: _Admin, concept_id: _ConceptId
) -> ReviewActionResult:
    record = await reject_concept(
        container.graph,
        container.writer,
        concept_id,
        audit=_audit(container),
        by=f"api:{principal.user_id}",
    )
    return ReviewActionResult.of(record)


@router.get(
    "/api/review/audit",
    summary="The audit trail of merges and rejections (operators)",
    description="Oldest first, from this server's data folder (ADR 0034).",
)
async def audit_trail(container: ContainerDep, _: _Admin) -> list[ReviewActionResult]:
    records = await asyncio.to_thread(_audit(container).records)
    return [ReviewActionResult.of(record) for record in records]
