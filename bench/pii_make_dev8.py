"""Generate the eighth dev set and its held-out half (``bench/data/pii_dev8.json`` and
``bench/data/pii_heldout8.json``, issue 25, session 8).

    pip download --no-deps -d DIR mimesis==22.2.0 && unzip -d DIR/pkgs DIR/mimesis-*.whl
    .venv/bin/python bench/pii_make_dev8.py --packages DIR/pkgs

Why an eighth set: the seventh held-out half was scored at the start and end of session 7 and
its misses profiled; its name sources (gender-guesser, US Census, Japanese and Nepali lists) are
candidates for a broader lexicon, so it cannot judge one. This set is drawn from a source no
earlier set and no lexicon candidate used, and frozen (sha256 in
``tests/unit/egress/test_egress_case_sets.py``) in a commit of its own before any rule changes.

Sources:

* **names**: the ``person.json`` first names and surnames of ``mimesis`` 22.2.0 (MIT), a fake
  data generator whose lists were compiled apart from Faker's (the detector's lexicons come
  from Faker), every Latin-script locale (``en``, ``en-gb``, ``en-au``, ``en-ca``, ``de*``,
  ``fr``, ``it``, ``es*``, ``pt*``, ``nl*``, Nordic, Baltic, Central European, ``tr``, ``az``);
  words of every name value of the earlier sets (dev…dev7 and their held-out halves) are
  removed, so the set tests names the rules were never tuned on;
* **decoys**: sentences of the 49 acts in ``../shared/data/eu-legislation/eu-regulations-json``
  typed as chat (another seed than the seventh set's);
* **e-mails and phones**: local parts from the names; domains and typing styles written here
  (new separators beside the seventh set's); phone numbers in the Irish and UK numbering plans'
  shapes.

Classes (``PER_HALF`` values each per file): ``name_lower`` (a chat message typed all lower
case), ``name_caps`` (shouted), ``name_sentence`` (as printed, a name amid a sentence, names
next to other identifiers, possessives), ``email_spelled``, ``phone_words``; ``decoy``.

**Split.** Names, e-mail domains, templates and typing styles are each split in two disjoint
halves before any sample is made; the dev file uses one half of each, the held-out file the
other. Only the dev file's errors may be read; the held-out file is scored for totals.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pii_make_dev4 import _ascii, _halves, _sample
from bench.pii_make_dev7 import _groups, _ie_or_uk_phone, _law_decoys, _words

ROOT = Path(__file__).resolve().parent.parent
OUT_DEV = ROOT / "bench" / "data" / "pii_dev8.json"
OUT_HELDOUT = ROOT / "bench" / "data" / "pii_heldout8.json"
SEED = 8088
PER_HALF = 210
DECOYS_PER_HALF = 60
LOCALES = """en en-gb en-au en-ca de de-at de-ch fr it es es-mx pt pt-br nl nl-be da no sv fi
is et cs sk pl hr hu tr az""".split()
LATIN = re.compile(r"^[A-Za-zÀ-ÖØ-öø-ÿ]{3,14}$")
EARLIER = [
    ROOT / "tests" / "fixtures" / "pii" / "case_sets" / "dev.json",
    ROOT / "tests" / "fixtures" / "pii" / "case_sets" / "dev2.json",
    ROOT / "tests" / "fixtures" / "pii" / "case_sets" / "heldout.json",
    *sorted((ROOT / "bench" / "data").glob("pii_dev[3-7]*.json")),
    ROOT / "bench" / "data" / "pii_heldout7.json",
]


def _taken() -> set[str]:
    """Every word of every value of the earlier sets, folded (compared silently)."""
    out: set[str] = set()
    for path in EARLIER:
        if not path.exists():
            continue
        for sample in json.loads(path.read_text("utf-8")):
            for span in sample.get("spans", []):
                for w in re.findall(r"\w+", str(span.get("entity_value", ""))):
                    out.add(_ascii(w).lower())
    return out


def pools(packages: Path) -> tuple[list[str], list[str]]:
    """(first names, surnames) of mimesis' Latin-script locales, minus the earlier sets'."""
    first: set[str] = set()
    last: set[str] = set()
    for loc in LOCALES:
        data = json.loads((packages / "mimesis" / "datasets" / loc / "person.json").read_text())
        names = data.get("names", {})
        for group in names.values() if isinstance(names, dict) else [names]:
            first.update(n for n in group if LATIN.match(n))
        surnames = data.get("surnames", [])
        groups = surnames.values() if isinstance(surnames, dict) else [surnames]
        for group in groups:
            last.update(n for n in group if LATIN.match(n))
    taken = _taken()
    by_key: dict[str, str] = {}
    for n in sorted(first) + sorted(last):
        by_key.setdefault(_ascii(n).lower(), n)
    first_keys = {_ascii(n).lower() for n in first} - taken
    last_keys = {_ascii(n).lower() for n in last} - taken - first_keys
    return sorted(by_key[k] for k in first_keys), sorted(by_key[k] for k in last_keys)


# --- templates: {F} first name, {N} full name, {S} surname --------------------------------------

LOWER_TEMPLATES = [
    "hi my name is {N}, i started a new job in january",
    "{N} here again, did you get my last question",
    "me and {F} bought a house together, who gets the credit",
    "can i put {N} down as my dependent relative",
    "my son {F} turns 18 next week, does he need a pps",
    "{F} said the p60 was wrong",
    "this is {N} from the shop on main street",
    "i pay {N} 300 a week to mind the kids",
    "{N} and {F2} are the two directors",
    "its {F} again lol",
    "my ex {N} still claims the kids",
    "cheers {F}",
    "do i need to tell revenue that {N} moved in",
    "{N}'s pension started in may",
    "the house is left to me and {N} in the will",
    "i'm {F}, 34, single, renting in galway",
    "my boss {N} wont give me a p45",
    "got a letter addressed to {N}, is it a scam",
    "x {F}",
    "on behalf of my dad {N}",
    "my tenant is {N} and she pays by cash",
    "thx, {N}",
    "did {F} get the rent credit last year or not",
    "{N} (the tenant upstairs) says the boiler is broken",
]
CAPS_TEMPLATES = [
    "HELLO I AM {N} AND I HAVE A QUESTION ABOUT MY REFUND",
    "URGENT - {N} NEEDS THE TAX CLEARANCE BY FRIDAY",
    "MY DAUGHTER {F} GOT A SUMMER JOB",
    "{N} WANTS TO GIFT ME 50000",
    "IS {F} ALLOWED TO CLAIM FOR THE GLASSES",
    "REGARDS {N}",
    "i sold the van to {N} in 2022",
    "CAN I CLAIM {N} AS A DEPENDANT",
    "MY NAME: {N}",
    "{F} WORKS NIGHTS, DOES THAT CHANGE THE CREDIT",
    "FROM {N} TO REVENUE",
    "i owe {N} money for the car",
    "WHY HAS {N} NOT GOT A REFUND",
    "MY PARTNER {N} IS SELF EMPLOYED",
    "{N}, ACCOUNTANT",
    "SPEAK TO {F} ABOUT THE VAT RETURN",
    "we rent from {N} since 2019",
    "PLEASE REPLY TO {N}",
    "MY GRANNY {N} LEFT ME HER HOUSE",
    "{F} LOST THE FORM",
    "FOR THE ATTENTION OF {N}",
    "my mother in law {N} lives with us",
    "{N} IS ON MATERNITY LEAVE",
    "THANK YOU {F}",
]
SENTENCE_TEMPLATES = [
    "Hi, I'm {N}. I have two jobs; how are my credits split?",
    "{N}'s employer stopped paying him in June.",
    "We sold the field to {N} last spring.",
    "I live with my aunt, {N}, who is 82.",
    "Could {F} claim the flat rate expenses for nurses?",
    "This is {N}, asking about my refund again.",
    "Best wishes, {N}",
    "The accountant, {N}, filed it late.",
    "Yes, {F} is my stepson.",
    "{N} (my landlord) will not register with the RTB.",
    "Hi {F}, thanks for the help earlier.",
    "Please ask {N} to sign the form.",
    "Mr. {S} owes me two months' rent.",
    "Ms {S} is the company secretary.",
    "Our nanny, {F}, is paid through payroll.",
    "I got the house from {N} when she died.",
    "Do {F} and I both need to file?",
    "{N}, Director",
    "My wife's name is {N}.",
    "The invoice went to {N} on Monday.",
    "Thanks,\n{F}",
    "Is the gift from Uncle {F} taxable?",
    "{F}: do I pay tax on my pension lump sum?",
    "According to {N} the deadline is in November.",
]
EMAIL_TEMPLATES = [
    "my e-mail address is {v}",
    "mail me: {v}",
    "best to email {v}",
    "email address {v} thanks",
    "please use {v} from now on",
    "can you send the pdf to {v}",
    "my address is {v}",
    "drop a line to {v}",
    "old email was {v}",
    "{v} is my email",
    "contact me at {v} or by phone",
    "E-MAIL {v}",
]
PHONE_TEMPLATES = [
    "my mobile is {v}",
    "text me at {v}",
    "the number is {v}",
    "call {v} any time",
    "phone no. {v}",
    "tel {v}",
    "you can phone me on {v}",
    "my new number {v}",
    "ring {v}",
    "contact number: {v}",
    "{v} is my mobile",
    "whatsapp me on {v}",
]
DOMAINS = [
    ("gmail", "com"), ("hotmail", "com"), ("yahoo", "com"), ("outlook", "ie"),
    ("eircom", "net"), ("icloud", "com"), ("live", "co.uk"), ("msn", "com"), ("ul", "ie"),
    ("dcu", "ie"), ("nuigalway", "ie"), ("btinternet", "com"), ("sky", "com"),
    ("proton", "me"), ("zoho", "com"), ("mail", "com"), ("yandex", "com"), ("o2", "pl"),
    ("orange", "fr"), ("libero", "it"),
]  # fmt: skip


def _local(first: str, last: str, rng: random.Random) -> list[str]:
    f, s = _ascii(first).lower(), _ascii(last).lower()
    return rng.choice(
        [[f, s], [f[0] + s], [f + s], [s, f[0]], [f + str(rng.randint(1, 99))], [f, s]]
    )


EMAIL_STYLES: list[Callable[[list[str], str, str], str]] = [
    lambda lp, d, s: f"{'.'.join(lp)} at {d} dot {s.replace('.', ' dot ')}",
    lambda lp, d, s: f"{''.join(lp)}(at){d}(dot){s.replace('.', '(dot)')}",
    lambda lp, d, s: f"{'.'.join(lp)}[at]{d}[.]{s.replace('.', '[.]')}",
    lambda lp, d, s: f"{'.'.join(lp)} at {d}",
    lambda lp, d, s: f"{' dot '.join(lp)} at {d} dot {s.replace('.', ' dot ')}",
    lambda lp, d, s: f"{'.'.join(lp)}(@){d}.{s}",
    lambda lp, d, s: f"{'_'.join(lp)} AT {d} DOT {s.replace('.', ' DOT ')}",
    lambda lp, d, s: f"{'.'.join(lp)} at {d} point {s.replace('.', ' point ')}",
    lambda lp, d, s: f"{'.'.join(lp)} @ {d} dot {s.replace('.', ' dot ')}",
    lambda lp, d, s: f"{'.'.join(lp)} (at) {d}.{s}",
    lambda lp, d, s: f"{'.'.join(lp)} at {d}.{s}",
    lambda lp, d, s: f"{'.'.join(lp)} at sign {d} dot {s.replace('.', ' dot ')}",
    lambda lp, d, s: f"{' '.join(lp)} at {d} dot {s.replace('.', ' dot ')}",
    lambda lp, d, s: f"{'.'.join(lp)} [at] {d} dot {s.replace('.', ' dot ')}",
    lambda lp, d, s: f"{'.'.join(lp)}{{at}}{d}{{dot}}{s.replace('.', '{dot}')}",
    lambda lp, d, s: f"{'-'.join(lp)} at {d} dot {s.replace('.', ' dot ')}",
]


def _mixed(d: str) -> str:
    g = _groups(d)
    return _words(g[0], "oh") + " " + g[1] + " " + _words(g[2])


PHONE_STYLES: list[Callable[[str], str]] = [
    lambda d: _words(d, "oh", doubles=True),
    lambda d: _words(d, "zero"),
    lambda d: " ".join(_groups(d)),
    lambda d: "-".join(_groups(d)),
    lambda d: _mixed(d),
    lambda d: "+353 (0)" + d[1:] if not d.startswith(("07", "020")) else "+44 (0)" + d[1:],
    lambda d: ("00353 " if not d.startswith(("07", "020")) else "0044 ") + d[1:],
    lambda d: " ".join(d[k : k + 2] for k in range(0, len(d), 2)),
    lambda d: _words(d[:3], "oh") + " dash " + _words(d[3:]),
    lambda d: d[:3] + "." + d[3:],
    lambda d: ", ".join(_groups(d)),
    lambda d: _words(d, "o"),
    lambda d: " ".join(_groups(d)).replace("0", "O"),
    lambda d: "(" + d[:3] + ")" + d[3:],
]


def build(packages: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rng = random.Random(SEED)
    first, last = pools(packages)
    halves = {
        "first": _halves(first, rng),
        "last": _halves(last, rng),
        "lower_t": _halves(LOWER_TEMPLATES, rng),
        "caps_t": _halves(CAPS_TEMPLATES, rng),
        "sent_t": _halves(SENTENCE_TEMPLATES, rng),
        "email_t": _halves(EMAIL_TEMPLATES, rng),
        "email_s": _halves(EMAIL_STYLES, rng),
        "domains": _halves(DOMAINS, rng),
        "phone_t": _halves(PHONE_TEMPLATES, rng),
        "phone_s": _halves(PHONE_STYLES, rng),
    }
    decoys = _law_decoys(random.Random(SEED))
    out: list[list[dict[str, Any]]] = [[], []]
    for side, split in ((0, "dev"), (1, "heldout")):
        h = {k: v[side] for k, v in halves.items()}
        r = random.Random(SEED + side)

        def names(r: random.Random = r, h: dict[str, Any] = h) -> dict[str, str]:
            f, s = r.choice(h["first"]), r.choice(h["last"])
            return {"F": f, "S": s, "N": f"{f} {s}", "F2": r.choice(h["first"])}

        def fill(
            t: str, cls: str, case: Callable[[str], str], side: int = side, split: str = split
        ) -> None:
            vals = {k2: case(v) for k2, v in names().items()}
            out[side].append(_sample(t, vals, cls, split))

        for k in range(PER_HALF):
            fill(h["lower_t"][k % len(h["lower_t"])], "name_lower", str.lower)
        for k in range(PER_HALF):
            fill(h["caps_t"][k % len(h["caps_t"])], "name_caps", str.upper)
        for k in range(PER_HALF):
            fill(h["sent_t"][k % len(h["sent_t"])], "name_sentence", str)
        for k in range(PER_HALF):
            t = h["email_t"][k % len(h["email_t"])]
            style = h["email_s"][(k // len(h["email_t"])) % len(h["email_s"])]
            n = names()
            d, suffix = r.choice(h["domains"])
            value = style(_local(n["F"], n["S"], r), d, suffix)
            out[side].append(_sample(t, {"v": value}, "email_spelled", split))
        for k in range(PER_HALF):
            t = h["phone_t"][k % len(h["phone_t"])]
            style = h["phone_s"][(k // len(h["phone_t"])) % len(h["phone_s"])]
            out[side].append(_sample(t, {"v": style(_ie_or_uk_phone(r))}, "phone_words", split))
        for text in decoys[side * DECOYS_PER_HALF : (side + 1) * DECOYS_PER_HALF]:
            out[side].append(_sample(text.replace("{", "(").replace("}", ")"), {}, "decoy", split))
    return out[0], out[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--packages", type=Path, required=True)
    args = parser.parse_args()
    dev, held = build(args.packages)
    for path, samples in ((OUT_DEV, dev), (OUT_HELDOUT, held)):
        path.write_text(json.dumps(samples, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{len(samples)} samples -> {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
