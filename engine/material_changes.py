"""Material changes (ADR 0035): when a source value changes on re-seeding or ingestion, compare
normalised numbers and record a ``ChangeEvent`` only when the change is material.

Normalisation (:func:`normalise`) turns a value and its unit (and, for money, the period its
``basis`` or wording names) into a :class:`Quantity` in one base unit per dimension:

- percent: a fraction (``23``/``percent`` = ``"23%"`` = ``"23 per cent"`` = ``0.23``/``fraction``);
- money: the currency's units, per year when the wording says per month (×12, exact); a weekly or
  daily amount keeps its period (52 or 52.18 weeks a year is the rule's business, not ours);
- durations: days (a week is 7 days) or months (a year is 12 months); days and months are not
  converted into each other (a month is not a fixed number of days);
- anything else: a count of its unit.

:func:`assess` applies the thresholds of :data:`MATERIALITY` to two quantities: a difference
below the kind's threshold (rounding, the same number reworded) is no change; a unit, currency
or period change, a sign change, a value that disappears, a rate outside 0–100 % or moving by
more than its bound, an amount or duration more than doubling or halving, is implausible and
held for review. Text (names, descriptions, definitions) is never compared: rewording is not a
change.

:func:`screen_node_writes` runs this over node writes before they are written: it reads the
stored nodes, keeps a held value as it was (the rest of the write goes ahead), and returns the
``ChangeEvent`` nodes and their ``CHANGE_OF`` edges to write after the nodes. Event ids are a
digest of the node and the two quantities, so writing the same change twice records it once.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal, Protocol

from graph.models import EdgeWrite, GraphNode, NodeWrite

__all__ = [
    "APPLIED",
    "CHANGE_EDGE",
    "CHANGE_LABEL",
    "MATERIALITY",
    "NEEDS_REVIEW",
    "Assessment",
    "Materiality",
    "NodeReader",
    "Quantity",
    "ScreenedWrites",
    "Verdict",
    "assess",
    "normalise",
    "quantity_of",
    "screen_node_writes",
]

CHANGE_LABEL: Final = "ChangeEvent"
CHANGE_EDGE: Final = "CHANGE_OF"
APPLIED: Final = "applied"
NEEDS_REVIEW: Final = "needs_review"

Verdict = Literal["none", "material", "needs_review"]


@dataclass(frozen=True)
class Quantity:
    """A value in its dimension's base unit. ``dimension``: ``percent``, ``money:EUR``,
    ``duration:days``, ``duration:months`` or ``count:<unit>``; ``period``: ``year``,
    ``week`` or ``day`` for money stated per period, else ``None``."""

    amount: float
    dimension: str
    period: str | None = None

    @property
    def kind(self) -> str:
        return self.dimension.split(":", 1)[0]

    def text(self) -> str:
        if self.dimension == "percent":
            return f"{_fmt(self.amount * 100)}%"
        unit = self.dimension.split(":", 1)[1]
        per = f" per {self.period}" if self.period else ""
        return f"{_fmt(self.amount)} {unit}{per}"


@dataclass(frozen=True)
class Materiality:
    """Per kind: ``minimum`` absolute difference (percent: as a fraction, 0.0001 = 0.01
    points) and ``relative`` difference below which a change is no change; ``max_step``
    (percent: absolute, as a fraction) or ``max_factor`` (others) beyond which it is held."""

    minimum: float
    relative: float = 0.0
    max_step: float | None = None
    max_factor: float | None = None


MATERIALITY: Final[Mapping[str, Materiality]] = {
    "percent": Materiality(minimum=0.0001, max_step=0.05),
    "money": Materiality(minimum=0.01, relative=0.001, max_factor=2.0),
    "duration": Materiality(minimum=1e-9, max_factor=2.0),
    "count": Materiality(minimum=1e-9, max_factor=2.0),
}


@dataclass(frozen=True)
class Assessment:
    verdict: Verdict
    reason: str = ""


# -- normalisation -------------------------------------------------------------------------

_PERCENT = {"percent", "per cent", "%", "pct", "percentage", "percentage points"}
_FRACTION = {"fraction", "ratio", "proportion"}
_CURRENCY = {"eur": "EUR", "€": "EUR", "euro": "EUR", "euros": "EUR",
             "gbp": "GBP", "£": "GBP", "pound": "GBP", "pounds": "GBP", "sterling": "GBP",
             "usd": "USD", "$": "USD"}  # fmt: skip
_DURATION = {"day": ("days", 1.0), "week": ("days", 7.0), "month": ("months", 1.0),
             "year": ("months", 12.0)}  # fmt: skip
_EVERY = r"\b(?:per|a|each|every)\s+"
_PERIODS = (
    (re.compile(_EVERY + r"(?:year|annum)\b|\bannual(?:ly)?\b|\byearly\b|\bp\.?\s?a\b"), "year"),
    (re.compile(_EVERY + r"month\b|\bmonthly\b|\bp\.?\s?m\b"), "month"),
    (re.compile(_EVERY + r"week\b|\bweekly\b|\bp\.?\s?w\b"), "week"),
    (re.compile(_EVERY + r"day\b|\bdaily\b"), "day"),
)  # fmt: skip
_NUMBER = re.compile(r"[-−]?\d[\d,]*(?:\.\d+)?|[-−]?\.\d+")


def _fmt(amount: float) -> str:
    return f"{amount:,.6f}".rstrip("0").rstrip(".")


def _period(text: str) -> str | None:
    lowered = text.lower()
    for pattern, period in _PERIODS:
        if pattern.search(lowered):
            return period
    return None


def _parse(value: object) -> tuple[float, str] | None:
    """A number and the words around it ("€1,200 per year" -> 1200.0, "€ per year")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return (float(value), "") if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    match = _NUMBER.search(value)
    if match is None:
        return None
    number = float(match.group().replace(",", "").replace("−", "-"))
    rest = f"{value[: match.start()]} {value[match.end() :]}"
    return number, " ".join(rest.split())


def _unit(words: str) -> tuple[str, float]:
    """The dimension the unit words name and the factor to its base unit."""
    text = words.strip().lower()
    if not text:
        return "count:", 1.0
    if text in _PERCENT or text.startswith("%") or text.startswith("percent"):
        return "percent", 0.01
    if text.startswith("per cent"):
        return "percent", 0.01
    if text in _FRACTION:
        return "percent", 1.0
    first = text.split()[0]
    for token in (text, first, first[:1]):
        if token in _CURRENCY:
            return f"money:{_CURRENCY[token]}", 1.0
    singular = first.rstrip("s") if first.endswith("s") and len(first) > 3 else first
    if singular in _DURATION:
        base, factor = _DURATION[singular]
        return f"duration:{base}", factor
    return f"count:{singular}", 1.0


def normalise(value: object, unit: str | None = None, basis: str | None = None) -> Quantity | None:
    """``value`` (a number or wording such as ``"23%"``, ``"€1,200 per year"``) in its unit
    (the ``unit`` property wins over words around the number; ``basis`` may name the period of
    an amount). ``None``: no number to compare."""
    parsed = _parse(value)
    if parsed is None:
        return None
    number, words = parsed
    unit_words = (unit or "").strip() or _unit_words(words)
    dimension, factor = _unit(unit_words)
    if dimension == "count:" and words:
        dimension, factor = _unit(words)
    period = None
    if dimension.startswith("money:"):
        period = _period(words) or _period(basis or "")
        if period == "month":
            number, period = number * 12, "year"
    return Quantity(amount=round(number * factor, 9), dimension=dimension, period=period)


def _unit_words(words: str) -> str:
    """The unit named around a number: a leading currency sign or a following unit word."""
    text = words.strip()
    if not text:
        return ""
    if text[0] in "€£$":
        return text[0]
    return text


def quantity_of(properties: Mapping[str, object]) -> Quantity | None:
    """The quantity a node states: ``value``/``unit``/``basis``, or a timeline's
    ``duration_value``/``duration_unit``."""
    if properties.get("value") is not None:
        return normalise(
            properties["value"], _str(properties.get("unit")), _str(properties.get("basis"))
        )
    if properties.get("duration_value") is not None:
        return normalise(properties["duration_value"], _str(properties.get("duration_unit")))
    return None


def _str(value: object) -> str | None:
    return None if value is None else str(value)


# -- materiality ---------------------------------------------------------------------------


def assess(old: Quantity | None, new: Quantity | None) -> Assessment:
    """Is ``old`` -> ``new`` no change, a material change, or one to hold for review?"""
    if old is None and new is None:
        return Assessment("none")
    if new is None:
        return Assessment(NEEDS_REVIEW, "the value disappeared")
    if old is None:
        return Assessment("material", "a value was added")
    if old.dimension != new.dimension:
        return Assessment(NEEDS_REVIEW, f"unit changed from {old.dimension} to {new.dimension}")
    if old.period != new.period:
        return Assessment(NEEDS_REVIEW, f"period changed from {old.period} to {new.period}")
    rule = MATERIALITY[new.kind]
    step = abs(new.amount - old.amount)
    scale = abs(old.amount)
    if step < rule.minimum or (scale > 0 and step / scale < rule.relative):
        return Assessment("none")
    if (old.amount > 0 > new.amount) or (old.amount < 0 < new.amount):
        return Assessment(NEEDS_REVIEW, "the value changed sign")
    if new.kind == "percent":
        if not 0.0 <= new.amount <= 1.0:
            return Assessment(NEEDS_REVIEW, "a rate outside 0-100%")
        if rule.max_step is not None and step > rule.max_step:
            return Assessment(
                NEEDS_REVIEW, f"a rate moving by more than {_fmt(rule.max_step * 100)} points"
            )
    elif rule.max_factor is not None and old.amount != 0:
        ratio = abs(new.amount) / abs(old.amount)
        if ratio > rule.max_factor or ratio < 1 / rule.max_factor:
            return Assessment(
                NEEDS_REVIEW, f"a value changing by more than a factor of {_fmt(rule.max_factor)}"
            )
    return Assessment("material")


# -- screening writes ----------------------------------------------------------------------

_VALUE_KEYS = ("value", "unit", "basis", "duration_value", "duration_unit")


class NodeReader(Protocol):
    """What the screen reads: the stored nodes (a :class:`graph.port.GraphReader` is one)."""

    async def get_nodes(self, ids: Sequence[str]) -> list[GraphNode]: ...


@dataclass
class ScreenedWrites:
    """Node writes with held values kept as stored, and the events to write after them."""

    nodes: list[NodeWrite]
    events: list[NodeWrite] = field(default_factory=list)
    edges: list[EdgeWrite] = field(default_factory=list)
    held: list[str] = field(default_factory=list)  # node ids whose new value awaits review


async def screen_node_writes(
    reader: NodeReader, nodes: Sequence[NodeWrite], *, origin: str
) -> ScreenedWrites:
    """Compare each write with the stored node (one read); ``origin`` says which source the
    new values came from (``seed``, ``ingestion``), recorded on the events."""
    candidates = [n for n in nodes if any(k in n.properties for k in ("value", "duration_value"))]
    stored = {node.id: node for node in await reader.get_nodes([n.id for n in candidates])}
    screened = ScreenedWrites(nodes=[])
    for node in nodes:
        before = stored.get(node.id)
        if before is None or before.label != node.label:
            screened.nodes.append(node)  # new (or another label's id): nothing to compare
            continue
        old_props = dict(before.properties)
        old = quantity_of(old_props)
        new = quantity_of({**old_props, **node.properties})
        verdict = assess(old, new)
        if verdict.verdict == "none":
            screened.nodes.append(node)
            continue
        status = APPLIED if verdict.verdict == "material" else NEEDS_REVIEW
        if status == NEEDS_REVIEW:
            kept = {k: v for k, v in node.properties.items() if k not in _VALUE_KEYS}
            screened.nodes.append(NodeWrite(id=node.id, label=node.label, properties=kept))
            screened.held.append(node.id)
        else:
            screened.nodes.append(node)
        event = _event(node, old_props, old, new, status, verdict.reason, origin)
        screened.events.append(event)
        screened.edges.append(
            EdgeWrite(
                type=CHANGE_EDGE,
                source_id=event.id,
                source_label=CHANGE_LABEL,
                target_id=node.id,
                target_label=node.label,
            )
        )
    return screened


def _event(
    node: NodeWrite,
    old_props: Mapping[str, object],
    old: Quantity | None,
    new: Quantity | None,
    status: str,
    reason: str,
    origin: str,
) -> NodeWrite:
    digest = hashlib.sha256(repr((node.id, old, new)).encode()).hexdigest()[:12].upper()
    title = str(node.properties.get("name") or old_props.get("name") or node.id)
    before = old.text() if old is not None else "no value"
    after = new.text() if new is not None else "no value"
    stated = new if new is not None else old
    props: dict[str, object] = {
        "name": f"Change of {title}"[:200],
        "description": f"{title}: {before} -> {after}",
        "category": stated.kind if stated is not None else "unknown",
        "status": status,
        "change_of": node.id,
        "source": origin,
    }
    if reason:
        props["notes"] = reason
    if old is not None:
        props["old_value"] = old.amount
        props["old_unit"] = old.dimension
    if new is not None:
        props["new_value"] = new.amount
        props["new_unit"] = new.dimension
    return NodeWrite(id=f"{node.id}:CHANGE:{digest}", label=CHANGE_LABEL, properties=props)
