"""Compaction (issue 27, ADR 0065): a conversation's prompt within a token budget.

The turn reads its whole branch path; :func:`compact` keeps the most recent messages that fit
(the *window*, at most ``max_window`` messages, starting at a question) and replaces the older
ones with an extractive summary: each summarised question, and the first sentence of each
summarised answer, quoted, plus the ids of the provisions those answers cited. The first
question of the path is pinned: always kept, word for word (there is no pinning of messages
yet). The conversation's active concepts stay in their own prompt section, outside this budget's
trimming. Deterministic: the same path and budget give the same summary (nothing is called).

A summary belongs to a branch path: it is keyed by the last message it replaced. A range its
owner rolled back is never summarised again: the summary starts after the latest rolled-back
range on the path, and those messages go back into the window as they fit (else they are left
out, as every message was before compaction).

Tokens are estimated as ``ceil(characters / 4)`` (:func:`estimate_tokens`), the usual rule of
thumb for English with BPE tokenisers; the budget is a bound on that estimate.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from conversations.models import NewSummary, StoredMessage, StoredSummary

__all__ = [
    "Compacted",
    "compact",
    "estimate_tokens",
    "first_sentence",
    "summary_lines",
]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")
_MAX_LINE_CHARS = 400  # a summarised question or sentence longer than this is cut
_WINDOW_SHARE = 0.6  # of the available tokens, at most this much for the verbatim window


def estimate_tokens(text: str) -> int:
    """Tokens of ``text``, estimated as ``ceil(len / 4)`` (0 for an empty text)."""
    return (len(text) + 3) // 4


def first_sentence(text: str) -> str:
    """The first sentence of an answer (its first line, up to the first sentence end), cut at
    :data:`_MAX_LINE_CHARS`."""
    line = next((part.strip() for part in text.strip().splitlines() if part.strip()), "")
    sentence = _SENTENCE_END.split(line, maxsplit=1)[0]
    return _cut(sentence)


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_LINE_CHARS else text[: _MAX_LINE_CHARS - 1] + "…"


@dataclass(frozen=True)
class Compacted:
    """What a turn's prompt holds of its branch: the pinned first question (outside the window,
    else ``None``), the summary's quoted lines and cited ids, the verbatim window, and the
    summary to store (``None``: nothing summarised, or stored already)."""

    window: list[StoredMessage]
    pinned: StoredMessage | None = None
    lines: list[str] = field(default_factory=list)
    cited: list[str] = field(default_factory=list)
    summarised: int = 0  # messages the summary replaced
    dropped: int = 0  # older messages neither summarised nor in the window
    record: NewSummary | None = None

    @property
    def compacted(self) -> bool:
        return self.pinned is not None or bool(self.lines) or bool(self.cited)

    def prompt_lines(self) -> list[str]:
        """The lines of the prompt's summary section: the pinned question, the summary, the
        cited ids."""
        pinned = self.pinned
        first = [f"- [first question] {_quote(pinned.content_sanitised)}"] if pinned else []
        cited = [_cited_line(self.cited)] if self.cited else []
        return [*first, *self.lines, *cited]


def summary_lines(messages: Iterable[StoredMessage]) -> list[str]:
    """The extractive summary: ``Q: question`` and ``A: first sentence`` per message, as one
    JSON string literal each (quoted data, like graph text in the prompt)."""
    lines = []
    for message in messages:
        text = message.content_sanitised
        if not text.strip():
            continue  # an answer that failed or was interrupted says nothing worth keeping
        said = _cut(text) if message.role == "user" else first_sentence(text)
        lines.append(f"- [{'Q' if message.role == 'user' else 'A'}] {_quote(said)}")
    return lines


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _message_tokens(message: StoredMessage) -> int:
    return estimate_tokens(message.content_sanitised) + 4  # the role and separators


def compact(
    path: Sequence[StoredMessage],
    available_tokens: int,
    max_window: int,
    summaries: Sequence[StoredSummary] = (),
) -> Compacted:
    """The branch ``path`` (oldest first) compacted into ``available_tokens``.

    Everything fits (at most ``max_window`` messages and the tokens): the path, unchanged.
    Otherwise the window holds the newest messages that fit in a share of the tokens (at most
    ``max_window``, starting at a question), the first question is pinned, and the older
    messages (after any range rolled back, ``summaries``) are summarised; the summary's oldest
    lines are left out until it fits what is left, then its newest cited ids."""
    if len(path) <= max_window and sum(map(_message_tokens, path)) <= available_tokens:
        return Compacted(window=list(path))
    window: list[StoredMessage] = []
    used = 0
    for message in reversed(path):
        cost = _message_tokens(message)
        if len(window) >= max_window or used + cost > available_tokens * _WINDOW_SHARE:
            break
        window.insert(0, message)
        used += cost
    while window and window[0].role != "user":  # the window starts at a question
        used -= _message_tokens(window.pop(0))
    older = list(path[: len(path) - len(window)])
    pinned = older[0] if older and older[0].role == "user" else None
    pinned_cost = _message_tokens(pinned) if pinned is not None else 0
    on_path = {m.id: n for n, m in enumerate(older)}
    start = 1 if pinned is not None else 0
    for summary in summaries:  # a rolled-back range is never summarised again
        if summary.rolled_back_at is not None and summary.last_message_id in on_path:
            start = max(start, on_path[summary.last_message_id] + 1)
    summarised = older[start:]
    lines = summary_lines(summarised)
    cited = list(dict.fromkeys(n for m in summarised for n in m.referenced_nodes))
    room = max(0, available_tokens - used - pinned_cost - 40)  # 40: the section's header
    while lines and estimate_tokens("\n".join([*lines, _cited_line(cited)])) > room:
        lines.pop(0)  # the oldest first: the pinned question still says what it began with
    while cited and estimate_tokens("\n".join([*lines, _cited_line(cited)])) > room:
        cited.pop()  # the newest first: the concepts of the first turns stay named
    record = None
    if summarised:
        record = NewSummary(
            first_message_id=summarised[0].id,
            last_message_id=summarised[-1].id,
            message_count=len(summarised),
            summary="\n".join(lines),
            cited_node_ids=cited,
        )
        if any(s.last_message_id == record.last_message_id for s in summaries):
            record = None  # stored already (or rolled back: then summarised is after it)
    return Compacted(
        window=window,
        pinned=pinned,
        lines=lines,
        cited=cited,
        summarised=len(summarised),
        dropped=start - (1 if pinned is not None else 0),
        record=record,
    )


def _cited_line(cited: Sequence[str]) -> str:
    return f"- [cited] {_quote(' '.join(cited))}" if cited else ""
