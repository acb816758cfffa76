"""The tax-adviser fact set through the real turn over HTTP (issue 23).

``bench/data/tax_facts.jsonl``: IE/UK/EU questions with the expected fact and its official
source, by kind (deadline, rate, threshold, should_refuse, follow_up; a follow-up carries the
``previous`` question asked first in the same conversation). The held-out part is fixed by a
hash rule, never looked at while tuning: ``sha256(id)`` starting with 0-3 (about a quarter) for
the first 89 questions (ids numbered below 100, frozen with ADR 0047), 0-7 (about half) for the
second batch (ids from 100, frozen with ADR 0059); the third batch (ids from 300, 24
questions, written after the second batch's held-out part had been read once) is held out
whole, and so is the fourth (ids from 400, 30 questions from official pages no earlier batch
cites, frozen on 2026-11-27 before this session's fixes were run on it), and so is the fifth
(ids from 500, 41 questions written from stored official pages and from how advisers ask,
frozen on 2026-11-27 before any run or code change of issue 23's fourth pass), and so is the sixth
(ids from 600, 47 questions written the same way, frozen on 2026-11-27 and run once on main's code
as a clean measurement of the fourth pass), and so is the seventh (ids from 700, 48 questions
written from stored official pages and adviser phrasing, frozen on 2026-11-27 before any code or
seed change of issue 23's fifth pass), and so is the eighth (ids from 800, written by another
engineer without seeing engine output, frozen on 2026-11-28 with its sources in
``bench/data/tax_facts_batch8_sources.md``). ``--batch N [M ...]`` asks those batches only.
A fact the seeds do not hold carries ``"graph_holds": false``: it is reported apart from the
facts the graph holds.

Each question is asked over HTTP of a server on a copy of a seeded data folder (the offline
extractive provider, the real egress); an answer is *refused* when it says the graph has no
evidence, *right* when it states the expected fact (a rate as "N %"/"N percent", an amount or
date as written, thousands separators ignored), else *wrong*. A should-refuse question is right
only when refused.

    .venv/bin/python bench/tax_facts_bench.py --data DIR [--json]
    .venv/bin/python bench/tax_facts_bench.py --seed   # seeds a fresh folder first (~1 min)
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FACTS = ROOT / "bench" / "data" / "tax_facts.jsonl"
KINDS = ("deadline", "rate", "threshold", "should_refuse", "follow_up")
HEADERS = {"Authorization": "Bearer dev-acme-alice"}
REFUSAL = "The rules graph has no evidence"
#: One user asks every question in a row: the per-user rate limit is not what is measured.
BENCH_LIMITS = {"rate_limit_user_per_minute": 0, "rate_limit_tenant_per_minute": 0}  # 0: none


def split_of(fact_id: str) -> str:
    """``heldout`` by the hash rule of the module docstring, else ``dev``."""
    number = int(re.sub(r"\D", "", fact_id) or 0)
    if number >= 300:  # the third to eighth batches are held out whole
        return "heldout"
    digits = "01234567" if number >= 100 else "0123"
    return "heldout" if hashlib.sha256(fact_id.encode()).hexdigest()[0] in digits else "dev"


def batch_of(fact_id: str) -> int:
    """1 (ids below 100), 2 (100-299), 3 (300-399), 4 (400-499), 5 (500-599), 6 (600-699), 7
    (700-799), 8 (800-899) or 9 (from 900)."""
    number = int(re.sub(r"\D", "", fact_id) or 0)
    if number >= 500:
        return min(9, number // 100)
    return 1 if number < 100 else 2 if number < 300 else 3 if number < 400 else 4


def load(path: Path = FACTS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _flat(text: str) -> str:
    return re.sub(r"(?<=\d)[,\u00a0](?=\d{3}\b)", "", text).replace("£", "").replace("€", "")


def states(answer: str, kind: str, expected: str) -> bool:
    """Whether ``answer`` states ``expected`` (see the module docstring)."""
    text = _flat(answer)
    if kind == "rate":
        pattern = rf"(?<![\d.]){re.escape(expected)}(?!\.?\d)\s*(?:%|percent)"
        return re.search(pattern, text) is not None
    if re.fullmatch(r"\d+(\.\d+)?", expected):  # an amount, an age, a follow-up's rate
        # A full stop after the number ends the sentence ("over 100000."); "4.8" is not "4".
        return re.search(rf"(?<![\d.]){expected}(?!\.?\d)", text) is not None
    return expected.lower() in text.lower()


def grade(fact: dict[str, Any], answer: str, done: dict[str, Any]) -> str:
    refused = bool(done.get("refused")) or answer.startswith(REFUSAL)
    if fact["kind"] == "should_refuse":
        return "right" if refused else "wrong"
    if refused:
        return "refused"
    return "right" if any(states(answer, fact["kind"], e) for e in fact["expect"]) else "wrong"


async def _ask(
    client: httpx.AsyncClient, message: str, conversation: str | None
) -> tuple[str, dict[str, Any]]:
    from tests.support.server import sse_events

    body: dict[str, Any] = {"message": message}
    if conversation:
        body["conversationId"] = conversation
    async with client.stream("POST", "/api/chat", json=body, headers=HEADERS) as response:
        response.raise_for_status()
        events = [e async for e in sse_events(response) if e.event]
    answer = "".join(e.payload["delta"] for e in events if e.event == "text")
    return answer, events[-1].payload


async def run_facts(base: str, facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each fact asked over HTTP at ``base``; the fact with its ``split``, ``grade``, answer."""
    results = []
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        for fact in facts:
            conversation = None
            if previous := fact.get("previous"):
                _, first = await _ask(client, previous, None)
                conversation = first.get("conversationId")
            answer, done = await _ask(client, fact["question"], conversation)
            results.append({**fact, "split": split_of(fact["id"]),
                            "grade": grade(fact, answer, done), "answer": answer})  # fmt: skip
    return results


def report(results: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, int]]]:
    """``{split: {kind: {right, wrong, refused, total}}}``; the pseudo-kind ``graph_holds``
    counts the questions of every kind but should-refuse whose fact the seeds hold."""
    table: dict[str, dict[str, dict[str, int]]] = {}
    for split in ("dev", "heldout"):
        table[split] = {}
        for kind in KINDS:
            grades = Counter(
                r["grade"] for r in results if r["split"] == split and r["kind"] == kind
            )
            table[split][kind] = {g: grades.get(g, 0) for g in ("right", "wrong", "refused")}
            table[split][kind]["total"] = sum(grades.values())
        held = [r for r in results if r["split"] == split and r["kind"] != "should_refuse"
                and r.get("graph_holds", True)]  # fmt: skip
        table[split]["graph_holds"] = {
            "right": sum(r["grade"] == "right" for r in held),
            "wrong": sum(r["grade"] == "wrong" for r in held),
            "refused": sum(r["grade"] == "refused" for r in held),
            "total": len(held),
        }
    return table


def _print(table: dict[str, dict[str, dict[str, int]]]) -> None:
    for split, kinds in table.items():
        print(f"{split}:")
        for kind, counts in kinds.items():
            print(f"  {kind:14} right {counts['right']:3}  wrong {counts['wrong']:3}  "
                  f"refused {counts['refused']:3}  of {counts['total']:3}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, help="a seeded data folder (copied, never served)")
    parser.add_argument("--seed", action="store_true", help="seed a fresh folder first")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--split", choices=("dev", "heldout", "all"), default="all")
    parser.add_argument(
        "--batch", type=int, nargs="+", choices=range(1, 10), help="these batches only"
    )
    args = parser.parse_args()
    from api.app import create_app
    from api.settings import Settings
    from tests.support.server import running_server

    work = Path(tempfile.mkdtemp(prefix="tax_facts_")) / "data"
    if args.seed:
        from tests.support.seeded import seed_data_dir

        seed_data_dir(work)
    elif args.data is not None:
        shutil.copytree(args.data, work)
    else:
        parser.error("give --data DIR or --seed")
    facts = [
        f
        for f in load()
        if args.split in ("all", split_of(f["id"]))
        and (args.batch is None or batch_of(f["id"]) in args.batch)
    ]
    with running_server(
        create_app(Settings(data_dir=work, log_json=False, **BENCH_LIMITS))
    ) as base:
        results = asyncio.run(run_facts(base, facts))
    table = report(results)
    if args.json:
        print(json.dumps({"report": table, "results": results}, ensure_ascii=False, indent=1))
    else:
        _print(table)


if __name__ == "__main__":
    main()
