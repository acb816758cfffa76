"""Tool arguments and schemas, the same for every provider.

:func:`parse_arguments` gives the parsed JSON, or the raw text when it does not parse (the
engine's validator then reports it). :func:`strict_schema` turns a JSON schema into the form
OpenAI's strict mode accepts — every object closed (``additionalProperties: false``) and every
property required, the optional ones made nullable — and :func:`drop_nulls` undoes the
nullability on the way back, so a strict provider's arguments validate like anyone else's.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["drop_nulls", "parse_arguments", "strict_schema"]


def parse_arguments(arguments: str) -> Any:
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    out = dict(schema)
    if out.get("type") == "object" and "properties" in out:
        required = set(out.get("required", []))
        properties: dict[str, Any] = {}
        for name, sub in out["properties"].items():
            converted = strict_schema(sub)
            if name not in required:
                converted = _nullable(converted)
            properties[name] = converted
        out["properties"] = properties
        out["required"] = list(properties)
        out["additionalProperties"] = False
    if out.get("type") == "array" and isinstance(out.get("items"), dict):
        out["items"] = strict_schema(out["items"])
    return out


def drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {**schema, "type": [kind, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}
