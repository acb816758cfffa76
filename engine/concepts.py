"""The ``capture_concepts`` tool: its JSON schema, payload validation and concept ids.

The model never chooses node ids. A concept's id is derived from its canonical key
``(domain, jurisdiction, kind)`` as ``DOMAIN:JURISDICTION:KIND`` in upper snake case
(``TAX:IE:VAT``); a label's id from its normalised text (``LABEL:value_added_tax``). Labels
are normalised by :func:`engine.normalise.normalise_label`, the one normalisation of the project.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from egress.sanitiser import PLACEHOLDER  # an egress pseudonym, e.g. [PERSON_1]
from egress.wire import ToolSpec
from engine.normalise import normalise_jurisdiction, normalise_label, upper_snake
from errors import MalformedToolPayload

__all__ = [
    "CAPTURE_TOOL",
    "CAPTURE_TOOL_NAME",
    "CapturePayload",
    "CapturedConcept",
    "concept_id",
    "label_id",
    "parse_capture_payload",
]

CAPTURE_TOOL_NAME = "capture_concepts"
_MAX_CONCEPTS = 10
_JURISDICTION_MAX = 16  # a stored key's jurisdiction part, after normalisation


def concept_id(domain: str, jurisdiction: str, kind: str) -> str:
    return f"{upper_snake(domain)}:{upper_snake(jurisdiction)}:{upper_snake(kind)}"


def label_id(normalised: str) -> str:
    return "LABEL:" + normalised.replace(" ", "_")


class CapturedConcept(BaseModel):
    """One SKOS-style concept as the model emits it."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    domain: str = Field(min_length=1, max_length=64)
    kind: str = Field(min_length=1, max_length=64)
    # as written ("United Kingdom of Great Britain and Northern Ireland"), the project's code
    # once validated (:func:`engine.normalise.normalise_jurisdiction`, ADR 0049, ADR 0075)
    jurisdiction: str = Field(min_length=2, max_length=80)
    prefLabel: str = Field(min_length=1, max_length=200)  # the tool's camelCase names
    altLabels: list[str] = Field(default_factory=list, max_length=20)
    definition: str | None = Field(default=None, max_length=2000)
    sourceUrls: list[str] = Field(default_factory=list, max_length=10)

    @field_validator("domain", "kind", "jurisdiction")
    @classmethod
    def _key_part(cls, value: str) -> str:
        key = upper_snake(value)
        if not key:
            raise ValueError("must contain letters or digits")
        return key

    @field_validator("jurisdiction")
    @classmethod
    def _jurisdiction(cls, value: str) -> str:
        # A long official name ("Republic of Ireland", 19 letters) was refused by the length
        # limit before it was read; the code is at most a few letters, an unknown place its
        # key, short enough for an id.
        code = normalise_jurisdiction(value)
        if len(code) > _JURISDICTION_MAX:
            raise ValueError("not a jurisdiction")
        return code

    @field_validator("prefLabel", "definition")
    @classmethod
    def _no_placeholder(cls, value: str | None) -> str | None:
        if value and PLACEHOLDER.search(value):
            raise ValueError("must not carry a pseudonymised value")
        return value

    @field_validator("altLabels")
    @classmethod
    def _labels(cls, value: list[str]) -> list[str]:
        # Alternative labels echo the user's phrasing; one carrying a pseudonym is dropped.
        return [
            label.strip()[:200]
            for label in value
            if label.strip() and not PLACEHOLDER.search(label)
        ]

    @field_validator("sourceUrls")
    @classmethod
    def _urls(cls, value: list[str]) -> list[str]:
        bad = [url for url in value if not url.startswith(("https://", "http://"))]
        if bad:
            raise ValueError("source URLs must be http(s) URLs")
        return value

    @property
    def id(self) -> str:
        return concept_id(self.domain, self.jurisdiction, self.kind)

    def normalised_labels(self) -> list[str]:
        """Preferred label first, then alternatives; normalised, unique, non-empty."""
        labels = (normalise_label(text) for text in [self.prefLabel, *self.altLabels])
        return [label for label in dict.fromkeys(labels) if label]


class CapturePayload(BaseModel):
    model_config = ConfigDict(extra="ignore")

    concepts: list[CapturedConcept] = Field(max_length=_MAX_CONCEPTS)


def parse_capture_payload(args: Any) -> list[CapturedConcept]:
    """Validate the tool's arguments; raise :class:`MalformedToolPayload` with the reason."""
    try:
        if isinstance(args, str | bytes):
            return CapturePayload.model_validate_json(args).concepts
        return CapturePayload.model_validate(args).concepts
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "payload"
        raise MalformedToolPayload(
            f"capture_concepts payload is malformed at {where}: {first['msg']}"
        ) from exc


CAPTURE_TOOL = ToolSpec(
    name=CAPTURE_TOOL_NAME,
    description=(
        "Record the regulatory concepts the user's question is about, SKOS-style. Never invent "
        "ids. domain e.g. TAX, WELFARE, PENSIONS; kind e.g. VAT, VRT, PRSI; jurisdiction e.g. "
        "IE, UK, NI, EU."
    ),
    parameters={
        "type": "object",
        "additionalProperties": False,
        "required": ["concepts"],
        "properties": {
            "concepts": {
                "type": "array",
                "maxItems": _MAX_CONCEPTS,
                "items": {
                    "type": "object",
                    "required": ["domain", "kind", "jurisdiction", "prefLabel"],
                    "properties": {
                        "domain": {"type": "string"},
                        "kind": {"type": "string"},
                        "jurisdiction": {"type": "string"},
                        "prefLabel": {"type": "string"},
                        "altLabels": {"type": "array", "items": {"type": "string"}},
                        "definition": {"type": "string"},
                        "sourceUrls": {"type": "array", "items": {"type": "string"}},
                    },
                },
            }
        },
    },
)
