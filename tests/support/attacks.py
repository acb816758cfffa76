"""The attack corpus (``tests/fixtures/attacks``) and the one rule for "this value passed".

A value passed when, after canonicalising both sides (:mod:`egress.pii.canonical`) and dropping
everything but letters and digits, case-folded, it is a substring of something stored or sent:
``PPSN_5260181E``, ``5 2 6 0 1 8 1 E`` and ``５２６０１８１Ｅ`` all count as ``5260181E``.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

from egress.pii.canonical import canonicalise
from graph.models import GraphSnapshot

__all__ = ["ATTACKS", "graph_values", "load_cases", "passed_values", "squash"]

ATTACKS = Path(__file__).resolve().parents[1] / "fixtures" / "attacks"
_NOT_ALNUM = re.compile(r"[\W_]+")


def load_cases(name: str) -> list[dict[str, Any]]:
    """The cases of ``capture_payloads`` or ``chat_messages``."""
    lines = (ATTACKS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def squash(text: str) -> str:
    return _NOT_ALNUM.sub("", canonicalise(text).text).casefold()


def passed_values(values: list[str], stored: list[str]) -> list[str]:
    """The ``values`` found in any of ``stored`` (see the module docstring)."""
    haystack = [squash(s) for s in stored]
    return [v for v in values if (needle := squash(v)) and any(needle in h for h in haystack)]


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def graph_values(dump: GraphSnapshot) -> list[str]:
    """Every string a graph dump holds: node ids, string properties, edge ends, and every two
    labels joined (a value split across two labels must not be reassembled from the graph)."""
    stored: list[str] = []
    labels: list[str] = []
    for node in dump.nodes:
        stored.append(node.id)
        for name, value in node.properties.items():
            stored.extend(_strings(value))
            if node.label == "Label" and name == "text":
                labels.extend(_strings(value))
    stored += [f"{e.source} {e.type} {e.target}" for e in dump.edges]
    return stored + [a + b for a, b in itertools.permutations(labels, 2)]
