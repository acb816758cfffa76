"""Compaction (issue 27, ADR 0065): a conversation's prompt within a token budget.

The turn reads its whole branch path; :func:`compact` keeps the most recent messages that fit
(the *window*, at most ``max_window`` messages, starting at a question) and replaces the older
ones with an extractive summary: each summarised question, and the first sentence of each
summarised answer, quoted, plus the ids of the provisions those answers cited. The first
question of the path is pinned: always kept, word for word, and so are the messages its owner
pinned (``PUT …/messages/{id}/pin``, ADR 0065 session 8 addendum) that left the window. The
conversation's active concepts stay in their own prompt section, outside this budget's
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
    "reusable_summary",
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
    # the owner's pinned messages of the branch outside the window, oldest first, word for word
    kept: tuple[StoredMessage, ...] = ()
    lines: list[str] = field(default_factory=list)
    cited: list[str] = field(default_factory=list)
    summarised: int = 0  # messages the summary replaced
    dropped: int = 0  # older messages neither summarised nor in the window
    record: NewSummary | None = None
    # what ``record`` adds to the summary it continues (``base``), for a model's summary
    # written after the turn (engine.model_summary)
    added: tuple[StoredMessage, ...] = ()
    base: StoredSummary | None = None
    # the record's extractive lines that no model summary covers (all of them without one):
    # how much a model's call would add (throttle, ADR 0065 fourth addendum)
    uncovered: tuple[str, ...] = ()

    @property
    def uncovered_tokens(self) -> int:
        return estimate_tokens("\n".join(self.uncovered))

    @property
    def compacted(self) -> bool:
        return self.pinned is not None or bool(self.kept) or bool(self.lines) or bool(self.cited)

    def prompt_lines(self) -> list[str]:
        """The lines of the prompt's summary section: the pinned question, the summary, the
        cited ids."""
        pinned = self.pinned
        first = [f"- [first question] {_quote(pinned.content_sanitised)}"] if pinned else []
        kept = [
            f"- [pinned {'Q' if m.role == 'user' else 'A'}] {_quote(m.content_sanitised)}"
            for m in self.kept
        ]
        cited = [_cited_line(self.cited)] if self.cited else []
        return [*first, *kept, *self.lines, *cited]


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
    *,
    base: StoredSummary | None = None,
    first: StoredMessage | None = None,
    keep_tokens: int | None = None,
    pinned_messages: Sequence[StoredMessage] = (),
) -> Compacted:
    """The branch ``path`` (oldest first) compacted into ``available_tokens``.

    Everything fits (at most ``max_window`` messages and the tokens): the path, unchanged.
    Otherwise the window holds the newest messages that fit in a share of the tokens (at most
    ``max_window``, starting at a question), the first question is pinned, and the older
    messages (after any range rolled back, ``summaries``) are summarised; the summary's oldest
    lines are left out until it fits what is left, then its newest cited ids.

    With ``base`` (a stored summary, see :func:`reusable_summary`), ``path`` is only what
    follows the messages ``base`` replaced and ``first`` is the branch's first message: the
    summary is ``base``'s lines followed by those of the messages after it, as the whole path
    would give (the messages ``base`` replaced are not read again, and do not come back into
    the window). The summary to store is kept to ``keep_tokens`` (default: what the prompt
    holds), so that a later turn with more room gets the same lines as from the whole path.

    ``pinned_messages`` (the owner's pins on the branch) outside the window are kept word for
    word, like the first question, before the summary; the summary fills what they leave (they
    are summarised too, so that unpinning one loses nothing)."""
    if base is None and (
        len(path) <= max_window and sum(map(_message_tokens, path)) <= available_tokens
    ):
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
    continued = base is not None  # path is what follows base's range
    if not continued:
        pinned = older[0] if older and older[0].role == "user" else None
        start = 1 if pinned is not None else 0
    else:
        pinned = first if first is not None and first.role == "user" else None
        start = 0
    in_window = {m.id for m in window} | ({pinned.id} if pinned is not None else set())
    kept = tuple(m for m in pinned_messages if m.id not in in_window and m.content_sanitised)
    pinned_cost = (_message_tokens(pinned) if pinned is not None else 0) + sum(
        _message_tokens(m) + 2 for m in kept
    )
    on_path = {m.id: n for n, m in enumerate(older)}
    for summary in summaries:  # a rolled-back range is never summarised again
        if summary.rolled_back_at is not None and summary.last_message_id in on_path:
            start = max(start, on_path[summary.last_message_id] + 1)
            base = None  # what the base replaced comes before it: left out
    summarised = older[start:]
    lines = summary_lines(summarised)
    added_lines = len(lines)
    cited = list(dict.fromkeys(n for m in summarised for n in m.referenced_nodes))
    replaced = len(summarised)
    stored_lines = lines
    model: str | None = None  # the model summary the record carries, and its pending lines
    model_by: str | None = None
    pending = 0
    uncovered = lines  # the extractive lines no model summary covers
    if base is not None:
        base_lines = base.summary.splitlines()
        stored_lines = [*base_lines, *lines]
        uncovered = stored_lines
        if base.model_summary:
            # a model's summary of base's range (written after its turn, or carried to it)
            # stands in the prompt for base's extractive lines but the newest ones it does not
            # cover (ADR 0065 third and fourth addenda)
            late = base_lines[len(base_lines) - base.model_pending_lines :]
            late = late if base.model_pending_lines else []
            uncovered = [*late, *lines]
            lines = [f"- [summary] {_quote(base.model_summary)}", *uncovered]
            model, model_by = base.model_summary, base.model_summary_by
            pending = base.model_pending_lines + added_lines
        else:
            lines = stored_lines
        cited = list(dict.fromkeys([*base.cited_node_ids, *cited]))
        replaced += base.message_count
    room = max(0, available_tokens - used - pinned_cost - 40)  # 40: the section's header
    record = None
    if summarised:
        kept_lines, kept_cited = _fitted(
            stored_lines, cited, room if keep_tokens is None else keep_tokens
        )
        record = NewSummary(
            first_message_id=base.first_message_id if base is not None else summarised[0].id,
            last_message_id=summarised[-1].id,
            message_count=replaced,
            summary="\n".join(kept_lines),
            cited_node_ids=kept_cited,
            model_summary=model,
            model_summary_by=model_by,
            model_pending_lines=min(pending, len(kept_lines)) if model else 0,
            base_last_message_id=base.last_message_id if base is not None else None,
            added_lines=added_lines,
        )
        if any(s.last_message_id == record.last_message_id for s in summaries):
            record = None  # stored already (or rolled back: then summarised is after it)
    lines, cited = _fitted(lines, cited, room)
    return Compacted(
        window=window,
        pinned=pinned,
        kept=kept,
        lines=lines,
        cited=cited,
        summarised=replaced,
        dropped=start - (1 if pinned is not None and not continued else 0),
        record=record,
        added=tuple(summarised) if record is not None else (),
        base=base,
        uncovered=tuple(uncovered) if record is not None else (),
    )


def _fitted(lines: list[str], cited: list[str], room: int) -> tuple[list[str], list[str]]:
    """The summary's lines and cited ids within ``room`` tokens: its oldest lines left out
    first (the pinned question still says what the conversation began with), then its newest
    cited ids (the concepts of the first turns stay named)."""
    # the characters of "\n".join([*lines, cited line]), kept as lines leave (linear time)
    cited_chars = len(_cited_line(cited))
    chars = sum(map(len, lines)) + len(lines) + cited_chars
    first = 0
    while first < len(lines) and (chars + 3) // 4 > room:
        chars -= len(lines[first]) + 1
        first += 1
    kept, cited = lines[first:], list(cited)
    while cited and estimate_tokens("\n".join([*kept, _cited_line(cited)])) > room:
        cited.pop()
    return kept, cited


def reusable_summary(
    summaries: Sequence[StoredSummary], last_message_id: str | None, *, margin_seconds: float = 60
) -> StoredSummary | None:
    """The stored summary a turn may continue instead of reading its whole branch: the one that
    ends at ``last_message_id`` (the nearest summary end up the branch, as the store found it),
    not rolled back, and stored after every rollback of the conversation (with a ``margin`` for
    the clocks of several workers). A rollback since may concern messages it replaced: then the
    whole branch is read again, as before a summary existed (:func:`compact` without ``base``)."""
    found = next(
        (s for s in summaries if s.last_message_id == last_message_id and s.rolled_back_at is None),
        None,
    )
    if found is None:
        return None
    for summary in summaries:
        rolled_back = summary.rolled_back_at
        if rolled_back is not None and (found.created_at - rolled_back).total_seconds() < (
            margin_seconds
        ):
            return None
    return found


def _cited_line(cited: Sequence[str]) -> str:
    return f"- [cited] {_quote(' '.join(cited))}" if cited else ""
