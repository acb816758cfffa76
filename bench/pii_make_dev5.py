"""Generate the fifth dev set and its held-out half (``bench/data/pii_dev5*.json``, issue 25).

    .venv/bin/python bench/pii_make_dev5.py

Why a fifth set: after the fourth pass the leaks left on both held-out files were of three
kinds (``bench/pii_case_eval.py --profile``, counts only): names in capitals that no list
holds, title-case names right after a sentence-initial word, and e-mail addresses with "at"
(or "@") and written-out dots. dev4's held-out half has been scored five times; this set gives
those three kinds fresh templates, written before any rule of the fifth pass, and frozen
(sha256 in ``tests/unit/egress/test_egress_case_sets.py``) in a commit of its own.

* **Names**: dev4's halves of the presidio dev names, kept as they were (``pii_make_dev4``'s
  seeded split): the dev file uses dev4's dev names, the held-out file dev4's held-out names,
  which were never read.
* **Templates, e-mail styles, start words and decoys** are new, each split in two disjoint
  halves after a seeded shuffle; one half per file.
* **Classes** (``PER_CLASS`` values each): ``name_caps`` (capitals amid lower case, or a
  whole message in capitals, with no cue of the strong kind), ``name_title_start`` (title
  case right after a sentence-initial word), ``email_at`` (addresses with the at- and
  dot-markers people write), and ``decoy`` (tax and legal vocabulary in capitals and after
  sentence-initial words: nothing to find).
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pii_make_dev4 import SEED as DEV4_SEED
from bench.pii_make_dev4 import _ascii, _halves, _sample, name_pools

ROOT = Path(__file__).resolve().parent.parent
OUT_DEV = ROOT / "bench" / "data" / "pii_dev5.json"
OUT_HELDOUT = ROOT / "bench" / "data" / "pii_dev5_heldout.json"
SEED = 5055
PER_CLASS = 210

CAPS_TEMPLATES = [
    # {F} a first name, {N} a full name, {S} a surname: filled in capitals
    "can you check if {F} owes cgt on the shares",
    "i gave {F} 5k towards the deposit, is that a gift",
    "{F} asked me whether the rent credit applies",
    "my partner and {F} share the house, who claims",
    "we hired {N} as a childminder last month",
    "{N} rang about the tax bill, what do i say",
    "does the payment to {F} count as income for her",
    "{F} says the employer never sent a p60",
    "lent {F} money for college, any relief",
    "sent {N} the invoice but got no reply",
    "spoke with {S} in the tax office yesterday",
    "{F} thinks she overpaid usc last year",
    "i met {N} at the revenue clinic",
    "{F} and her husband moved to cork in may",
    "is the car {F} uses a benefit in kind",
    "paid {N} for the kitchen in cash, is that ok",
    "the house is in {F}'s name only",
    "{N} left the company in june",
    "ask {F} about the pension lump sum",
    "my mother {F} died in march, what about the estate",
    "{F} earned 40k and got a bonus",
    "i told {N} the deadline was october",
    "emailed {F} about the payslip",
    "{S} owns half the rental property",
]
SHOUTED = [
    "CAN {F} CLAIM THE HOME CARER CREDIT",
    "DOES {N} NEED TO REGISTER FOR VAT",
    "I OWE {F} MONEY FOR THE CAR, IS IT TAXABLE",
    "{F} WANTS TO TRANSFER THE SITE TO HER SON",
    "WE PAID {N} FOR THE EXTENSION",
    "{N} SAYS THE P45 IS WRONG",
    "WHAT IF {F} MOVES BACK FROM AUSTRALIA",
    "HELP {F} WITH THE TAX RETURN PLEASE",
    "IS {F} ENTITLED TO THE RENT CREDIT",
    "{F} INHERITED THE FARM FROM HIS UNCLE",
]
START_WORDS = """Should Would Could Might Must Shall Will Can Does Did Has Have Had Is Was Were
Are Ask Tell Remind Pay Send Call Let Help Give Show Email Text Perhaps Maybe Surely Apparently
Honestly Basically Anyway Meanwhile Yesterday Today Recently Now Then So And But Because Since
Unless Once Though When Where Why How What Who Whom Which""".split()
START_TEMPLATES = [
    "{w} {n} claim relief on the medical bills?",
    "{w} {n} still owe the preliminary tax?",
    "{w} {n} told me the P60 was late.",
    "{w} {n} need a PPSN to work here?",
    "{w} {n} filed the Form 11 online.",
    "Quick question: {w} {n} pay stamp duty on the site?",
    "{w} {n} qualify for the help to buy scheme?",
    "Thanks. {w} {n} get the single person child carer credit?",
    "{w} {n} moved to Galway, does it matter?",
    "{w} {n} is self-employed, what then?",
]
AT_DOMAINS = [
    ("gmail", "com"),
    ("yahoo", "co.uk"),
    ("hotmail", "com"),
    ("icloud", "com"),
    ("live", "ie"),
    ("eir", "ie"),
    ("mail", "com"),
    ("aol", "com"),
    ("virginmedia", "com"),
    ("ucd", "ie"),
    ("tcd", "ie"),
    ("nhs", "net"),
]


def _dotted(words: list[str], dot: str) -> str:
    return dot.join(words)


EMAIL_STYLES: list[Callable[[list[str], str, str], str]] = [
    lambda local, d, s: f"{'.'.join(local)} at {d}.{s}",
    lambda local, d, s: f"{'.'.join(local)}@{d} dot {s.replace('.', ' dot ')}",
    lambda local, d, s: f"{_dotted(local, ' dot ')} at {d} dot {s.replace('.', ' dot ')}",
    lambda local, d, s: f"{'.'.join(local)} [at] {d} [dot] {s.replace('.', ' [dot] ')}",
    lambda local, d, s: f"{''.join(local)} (at) {d}.{s}",
    lambda local, d, s: f"{'_'.join(local)} AT {d} DOT {s.replace('.', ' DOT ')}",
    lambda local, d, s: f"{'.'.join(local)} {{at}} {d} {{dot}} {s.replace('.', ' {dot} ')}",
    lambda local, d, s: f"{_dotted(local, ' dot ')}@{d}.{s}",
    lambda local, d, s: f"{'.'.join(local)} -at- {d} -dot- {s.replace('.', ' -dot- ')}",
    lambda local, d, s: f"{''.join(local)} at {d} . {s.replace('.', ' . ')}",
    lambda local, d, s: f"{'.'.join(local)} <at> {d}.{s}",
    lambda local, d, s: f"{'-'.join(local)} at sign {d} dot {s.replace('.', ' dot ')}",
    lambda local, d, s: f"{'.'.join(local)} @ {d} . {s.replace('.', ' . ')}",
    lambda local, d, s: f"{''.join(local)} at {d}dot{s.replace('.', 'dot')}",
]
EMAIL_TEMPLATES = [
    "email me at {v} if you need the receipts",
    "my email is {v}",
    "contact me at {v} thanks",
    "you can reach my accountant at {v}",
    "send the reply to {v} please",
    "Reply to: {v}",
    "it's {v}, not the old one",
    "write to me at {v} about the refund",
    "my address for letters is {v}",
    "cc {v} on the answer",
    "I'm at {v} during the day",
    "her email ({v}) is on the form",
]
DECOYS = [
    "CAN I CLAIM THE RENT TAX CREDIT FOR 2024",
    "DOES THE VAT REVERSE CHARGE APPLY TO CONSTRUCTION",
    "IS STAMP DUTY PAYABLE ON A GIFT OF SHARES",
    "WHAT IS THE CAT THRESHOLD FOR GROUP A",
    "HOW DOES MARGINAL RELIEF WORK FOR CORPORATION TAX",
    "tell me if DIRT applies to the deposit interest",
    "does ESMA or EIOPA supervise the fund",
    "the CJEU ruled on the SCHREMS case",
    "is MIFID relevant to crypto brokers",
    "ask if PRSI class S covers me",
    "Should Revenue Commissioners accept a late return?",
    "Would Capital Gains Tax apply on the sale?",
    "Does Principal Private Residence relief cover the garden?",
    "Can Small Benefit Exemption cover two vouchers?",
    "Has Local Property Tax gone up this year?",
    "Ask Citizens Information about the Working Family Payment.",
    "Tell Social Welfare about the change in circumstances.",
    "Is Home Renovation Incentive still open?",
    "Did Help To Buy end in 2025?",
    "Remind Payroll that Emergency Tax applied in January.",
    "Since Article Six of the Regulation applies, what changes?",
    "When Annex Three lists the system, is it high risk?",
    "Does Data Protection Commission fine small firms?",
    "Why Universal Social Charge applies to my pension?",
    "Pay Preliminary Tax by October, right?",
    "EMAIL the form at revenue dot ie or post it",
    "look it up at citizens information dot ie",
    "i was at work dot dot dot and forgot the deadline",
    "check the rates at revenue.ie before filing",
    "we met at the office at 10 dot com era style",
    "the ADVISER said GDPR ARTICLE 17 covers erasure",
    "DORA and NIS2 both apply to the BANK",
    "the HIGH COURT ruled on the APPEAL",
    "my EMPLOYER pays the PENSION LEVY",
    "THE TAX APPEALS COMMISSION decided in MAY",
    "UNDER SECTION 481 FILM RELIEF IS AVAILABLE",
    "Could Annual Exemption reduce the gain?",
    "Shall Tax Clearance be required for the grant?",
    "Once Form 12 is filed, what happens?",
    "Perhaps Standard Rate Cut Off Point changed?",
]


def _fill_caps(
    template: str, rng: random.Random, first: list[str], last: list[str], split: str
) -> dict[str, Any]:
    f, s = rng.choice(first), rng.choice(last)
    if rng.random() < 0.3:
        f, s = _ascii(f), _ascii(s)
    values = {"N": f"{f} {s}".upper(), "F": f.upper(), "S": s.upper()}
    return _sample(template, values, "name_caps", split)


def build() -> dict[str, list[dict[str, Any]]]:
    # dev4's own split of the names, replayed: the same seed and the same order of draws.
    dev4_rng = random.Random(DEV4_SEED)
    first, last = name_pools()
    first_halves = _halves(first, dev4_rng)
    last_halves = _halves(last, dev4_rng)
    rng = random.Random(SEED)
    halves = {
        "caps_t": _halves(CAPS_TEMPLATES, rng),
        "shout_t": _halves(SHOUTED, rng),
        "start_w": _halves(START_WORDS, rng),
        "start_t": _halves(START_TEMPLATES, rng),
        "domains": _halves(AT_DOMAINS, rng),
        "email_s": _halves(EMAIL_STYLES, rng),
        "email_t": _halves(EMAIL_TEMPLATES, rng),
        "decoys": _halves(DECOYS, rng),
    }
    out: dict[str, list[dict[str, Any]]] = {}
    for index, split in enumerate(("dev", "heldout")):
        h = {key: pair[index] for key, pair in halves.items()}
        h["first"], h["last"] = first_halves[index], last_halves[index]
        out[split] = _split(random.Random(SEED + index), split, h)
    return out


def _split(rng: random.Random, split: str, h: dict[str, list[Any]]) -> list[dict[str, Any]]:
    samples: list[dict[str, Any]] = []
    first, last = h["first"], h["last"]
    caps = h["caps_t"] + h["shout_t"]
    for k in range(PER_CLASS):
        samples.append(_fill_caps(caps[k % len(caps)], rng, first, last, split))
    for k in range(PER_CLASS):
        f, s = rng.choice(first), rng.choice(last)
        n = f"{f} {s}" if k % 3 else f
        t = h["start_t"][k % len(h["start_t"])].replace("{w}", h["start_w"][k % len(h["start_w"])])
        samples.append(_sample(t, {"n": n}, "name_title_start", split))
    for k in range(PER_CLASS):
        f, s = _ascii(rng.choice(first)).lower(), _ascii(rng.choice(last)).lower()
        local = rng.choice([[f, s], [f[0], s], [f], [s, f[0]], [f, s + str(rng.randint(1, 99))]])
        d, suffix = h["domains"][k % len(h["domains"])]
        email = h["email_s"][k % len(h["email_s"])](local, d, suffix)
        t = h["email_t"][k % len(h["email_t"])]
        samples.append(_sample(t, {"v": email}, "email_at", split))
    for text in h["decoys"]:
        samples.append(_sample(text, {}, "decoy", split))
    return samples


def main() -> int:
    built = build()
    for split, path in (("dev", OUT_DEV), ("heldout", OUT_HELDOUT)):
        path.write_text(json.dumps(built[split], ensure_ascii=False, indent=1) + "\n", "utf-8")
        print(f"{len(built[split])} samples -> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
