"""Generate the ninth held-out set (``bench/data/pii_heldout9.json``, issue 25, session 9).

    pip download --no-deps -d DIR presidio-evaluator==0.3.2 \\
        && unzip -d DIR/pkgs DIR/presidio_evaluator-0.3.2-py3-none-any.whl
    .venv/bin/python bench/pii_make_heldout9.py --packages DIR/pkgs

Why a ninth set: the eighth held-out half was scored before and after session 8's list change,
so a further change needs data no rule or list was chosen on. This file is a held-out set only
(no dev half): it is frozen by sha256 (``tests/unit/egress/test_egress_case_sets.py``) in a
commit of its own before any rule changes, scored for totals, and its misses are never read.

Sources, none of them the detector's:

* **names**: ``GivenName``, ``Surname`` and ``MothersMaiden`` of the 3,000 identities in
  ``FakeNameGenerator.com_3000.csv`` as shipped in the ``presidio-evaluator`` 0.3.2 wheel (Fake
  Name Generator identities, CC BY-SA 3.0 US, Corban Works, LLC; the wheel is MIT). The detector's
  lists come from Faker, ``nam_dict`` and the US Census 1990 lists (``egress/data/README.md``),
  not from this file. Every word of every value of the earlier sets (dev…dev8, their held-out
  halves) and of the presidio dev half's PERSON spans is removed, so no name here was tuned on;
* **e-mails**: local parts from those names; domains (Irish and UK providers, employers,
  universities) and obfuscated typing styles written here, the styles the dev sets lack
  ("name at domain dot ie" beside "-at-", "<at>", "full stop", spaced "@ .", capitals);
* **phones**: Irish and UK mobile and landline numbers in the numbering plans' shapes, written
  with spaces, dashes, dots, brackets, ``+353`` / ``+44`` / ``00353`` / ``0044`` prefixes and a
  ``(0)`` trunk digit;
* **negatives** (no span; nothing may be redacted): order and case ids, git and sha256 hashes,
  UUIDs, random alphanumeric tokens, product codes, amounts, dates and times, typed in chat.

Classes (``PER_CLASS`` values each): ``name_lower``, ``name_caps``, ``name_sentence``,
``email_obfuscated``, ``phone_formatted``; negatives ``neg_id``, ``neg_hash``, ``neg_code``,
``neg_amount``, ``neg_date`` (``NEG_PER_KIND`` samples each).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import string
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pii_make_dev4 import PRESIDIO, _ascii, _sample

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "data" / "pii_heldout9.json"
FNG = Path("presidio_evaluator") / "data_generator" / "raw_data" / "FakeNameGenerator.com_3000.csv"
SEED = 9099
PER_CLASS = 220
NEG_PER_KIND = 60
SPLIT = "heldout"
LATIN = re.compile(r"^[A-Za-zÀ-ÖØ-öø-ÿ]{3,14}$")
EARLIER = [
    ROOT / "tests" / "fixtures" / "pii" / "case_sets" / "dev.json",
    ROOT / "tests" / "fixtures" / "pii" / "case_sets" / "dev2.json",
    ROOT / "tests" / "fixtures" / "pii" / "case_sets" / "heldout.json",
    *sorted((ROOT / "bench" / "data").glob("pii_dev[3-8]*.json")),
    ROOT / "bench" / "data" / "pii_heldout7.json",
    ROOT / "bench" / "data" / "pii_heldout8.json",
]


def _taken() -> set[str]:
    """Every word of every value of the earlier sets and of the presidio dev half's PERSON
    spans, folded (compared silently)."""
    out: set[str] = set()
    for path in EARLIER:
        for sample in json.loads(path.read_text("utf-8")):
            for span in sample.get("spans", []):
                for w in re.findall(r"\w+", str(span.get("entity_value", ""))):
                    out.add(_ascii(w).lower())
    for item in json.loads(PRESIDIO.read_text("utf-8")):
        for span in item["spans"]:
            if span["entity_type"] == "PERSON":
                out |= {_ascii(w).lower() for w in re.findall(r"\w+", span["entity_value"])}
    return out


def pools(packages: Path) -> tuple[list[str], list[str]]:
    """(first names, surnames) of the Fake Name Generator file, minus the earlier sets'."""
    first: set[str] = set()
    last: set[str] = set()
    with (packages / FNG).open(encoding="utf-8-sig", newline="") as fh:
        for row in csv.DictReader(fh):
            if LATIN.match(row["GivenName"]):
                first.add(row["GivenName"])
            for key in ("Surname", "MothersMaiden"):
                if LATIN.match(row[key]):
                    last.add(row[key])
    taken = _taken()
    by_key: dict[str, str] = {}
    for n in sorted(first) + sorted(last):
        by_key.setdefault(_ascii(n).lower(), n)
    first_keys = {_ascii(n).lower() for n in first} - taken
    last_keys = {_ascii(n).lower() for n in last} - taken - first_keys
    return sorted(by_key[k] for k in first_keys), sorted(by_key[k] for k in last_keys)


# --- templates: {F} first name, {N} full name, {S} surname (none is a dev set's) ----------------

LOWER_TEMPLATES = [
    "hiya, {N} here, quick one about my medical card",
    "my husband {N} got a bill from revenue",
    "i work for {N} cash in hand, is that legal",
    "{F} my sister is starting college in sept",
    "is {N} entitled to the carers allowance",
    "we bought the site off {N} in 2021",
    "sorry its {F} again, the form wont submit",
    "the receipt is in {N}'s name",
    "name: {N}",
    "{N} - mortgage interest relief question",
    "my landlady {N} wants the deposit in cash",
    "kind regards {N}",
    "im asking for my nephew {F}",
    "{N} has power of attorney for my mam",
    "should {F} register for vat",
    "its {N} from the credit union",
]
CAPS_TEMPLATES = [
    "HI THIS IS {N} CAN I CLAIM RENT RELIEF",
    "MY SON {F} IS IN COLLEGE IN CORK",
    "{N} OWES ME 2000 EURO",
    "PAID {N} FOR THE EXTENSION",
    "SIGNED {N}",
    "MY HUSBAND {N} DIED IN MARCH WHAT DO I DO",
    "NAME {N} DOB ATTACHED",
    "{F} HERE AGAIN NO REPLY YET",
    "DEAR SIR, I AM {N}",
    "THE CAR IS REGISTERED TO {N}",
    "GOT A LETTER FOR {N}",
    "{N} IS MY CHILDMINDER",
    "ASK {F} ABOUT IT",
    "YOURS SINCERELY {N}",
    "ME AND {F} ARE SEPARATED",
    "MY LANDLORD {N} WONT GIVE A RECEIPT",
]
SENTENCE_TEMPLATES = [
    "Good morning, my name is {N} and I rent a room out.",
    "I inherited a cottage from {N}, my godmother.",
    "Can you tell {F} what the PAYE threshold is?",
    "Regards,\n{N}",
    "{N} is the sole trader and I do the books.",
    "Dr. {S} signed my sick cert.",
    "My brother-in-law, {N}, lives in Belfast.",
    "I'm writing for {N}, who is abroad.",
    "Mrs {S} from the school asked about this.",
    "{F} and her partner bought a house in Kildare.",
    "Invoice to: {N}",
    "The solicitor ({N}) says CAT applies.",
    "Sent on behalf of {N}.",
    "Is {F} liable for the USC on her bonus?",
    "Many thanks, {F}",
    "We employ {N} two days a week.",
]
EMAIL_TEMPLATES = [
    "you can reach me at {v}",
    "email: {v}",
    "my work email is {v}",
    "send it to {v} please",
    "reply to {v}",
    "new email {v}",
    "my personal one is {v}",
    "emails go to {v}",
]
PHONE_TEMPLATES = [
    "call me on {v}",
    "mob: {v}",
    "landline {v}",
    "my number is {v}",
    "text {v} if easier",
    "best number: {v}",
    "phone {v} after 6",
    "office {v}",
]
DOMAINS = [
    ("eir", "ie"), ("vodafone", "ie"), ("tcd", "ie"), ("ucc", "ie"), ("mu", "ie"),
    ("tusla", "ie"), ("hse", "ie"), ("gmx", "co.uk"), ("talktalk", "net"), ("virginmedia", "com"),
    ("aol", "com"), ("ntlworld", "com"), ("ed.ac", "uk"), ("qub.ac", "uk"), ("me", "com"),
    ("fastmail", "com"), ("web", "de"), ("laposte", "net"), ("kpmg", "ie"), ("pwc", "com"),
]  # fmt: skip


def _local(first: str, last: str, rng: random.Random) -> list[str]:
    f, s = _ascii(first).lower(), _ascii(last).lower()
    return rng.choice([[f, s], [f[0] + s], [f + s], [s, f], [f + str(rng.randint(70, 99))]])


def _dots(s: str, word: str) -> str:
    return s.replace(".", word)


EMAIL_STYLES: list[Callable[[list[str], str, str], str]] = [
    lambda lp, d, s: f"{'.'.join(lp)} at {_dots(d, ' dot ')} dot {_dots(s, ' dot ')}",
    lambda lp, d, s: f"{'.'.join(lp)} -at- {_dots(d, ' -dot- ')} -dot- {_dots(s, ' -dot- ')}",
    lambda lp, d, s: f"{''.join(lp)}<at>{_dots(d, '<dot>')}<dot>{_dots(s, '<dot>')}",
    lambda lp, d, s: f"{'.'.join(lp)} at {d} full stop {_dots(s, ' full stop ')}",
    lambda lp, d, s: f"{'_'.join(lp)} @ {d} . {_dots(s, ' . ')}",
    lambda lp, d, s: (
        f"{'.'.join(lp).upper()} AT {_dots(d, ' DOT ').upper()} DOT {_dots(s, ' DOT ').upper()}"
    ),
    lambda lp, d, s: f"{'.'.join(lp)} (at) {_dots(d, ' (dot) ')} (dot) {_dots(s, ' (dot) ')}",
    lambda lp, d, s: f"{''.join(lp)} at {d}.{s}",
    lambda lp, d, s: f"{'.'.join(lp)}[at]{_dots(d, '[dot]')}[dot]{_dots(s, '[dot]')}",
    lambda lp, d, s: f"{'-'.join(lp)} at {d} dot {_dots(s, ' dot ')}",
    lambda lp, d, s: f"{'.'.join(lp)}@{d}.{s}",
]


def _digits(rng: random.Random, n: int) -> str:
    return "".join(str(rng.randint(0, 9)) for _ in range(n))


def _phone(rng: random.Random, k: int) -> str:
    """A number in one of the Irish or UK shapes, typed with separators (style ``k``)."""
    kind = k % 4
    style = (k // 4) % 6
    if kind == 0:  # IE mobile 08x
        net, sub = "8" + rng.choice("35679"), _digits(rng, 7)
        forms = [
            f"+353 {net} {sub[:3]} {sub[3:]}",
            f"+353 (0){net} {sub}",
            f"0{net}-{sub[:3]}-{sub[3:]}",
            f"(0{net}) {sub[:3]} {sub[3:]}",
            f"00353 {net} {sub}",
            f"0{net}.{sub[:3]}.{sub[3:]}",
        ]
    elif kind == 1:  # IE landline
        area = rng.choice(["1", "21", "61", "91", "51", "71", "66", "404", "59", "49"])
        sub = _digits(rng, 7 if area == "1" else 6 if len(area) == 3 else 7)
        forms = [
            f"(0{area}) {sub[:3]} {sub[3:]}",
            f"+353 {area} {sub}",
            f"0{area}-{sub}",
            f"+353-{area}-{sub[:3]}-{sub[3:]}",
            f"0{area} {sub[:3]}-{sub[3:]}",
            f"+353 (0){area} {sub[:3]} {sub[3:]}",
        ]
    elif kind == 2:  # UK mobile 07xxx
        sub = "7" + rng.choice("4589") + _digits(rng, 8)
        forms = [
            f"+44 {sub[:4]} {sub[4:]}",
            f"0{sub[:4]} {sub[4:7]} {sub[7:]}",
            f"+44 (0){sub[:4]} {sub[4:]}",
            f"0044 {sub[:4]} {sub[4:]}",
            f"0{sub[:4]}-{sub[4:]}",
            f"(0{sub[:4]}) {sub[4:]}",
        ]
    else:  # UK geographic: London, Belfast, Manchester, Edinburgh
        area = rng.choice(["20", "28", "161", "131"])
        sub = _digits(rng, 8 if len(area) == 2 else 7)
        a, b = (sub[:4], sub[4:]) if len(area) == 2 else (sub[:3], sub[3:])
        forms = [
            f"(0{area}) {a} {b}",
            f"+44 {area} {a} {b}",
            f"+44 (0){area} {a} {b}",
            f"0{area}-{a}-{b}",
            f"0044 {area} {a}{b}",
            f"0{area} {a} {b}",
        ]
    return forms[style]


# --- negatives: nothing here is personal ---------------------------------------------------------

NEG_TEMPLATES = {
    "neg_id": [
        "my order number is {x}, it never arrived",
        "ticket {x} is still open",
        "the reference on the letter is {x}",
        "session id {x} keeps timing out",
        "transaction {x} was declined",
        "case no. {x}",
    ],
    "neg_hash": [
        "the commit {x} broke the export",
        "checksum {x} does not match",
        "file hash: {x}",
        "build {x} is the one we deployed",
        "request id {x}",
    ],
    "neg_code": [
        "i bought the {x} model last year, can i claim it",
        "product code {x}",
        "part no {x} was faulty",
        "the invoice line says {x} x2",
        "is the {x} a business expense",
    ],
    "neg_amount": [
        "i earned {x} last year",
        "the bill was {x}",
        "they paid me {x} for the car",
        "is {x} over the threshold",
        "refund of {x} came in",
        "rent is {x} a month",
    ],
    "neg_date": [
        "the payment was made on {x}",
        "i moved in on {x}",
        "deadline {x}?",
        "the letter is dated {x}",
        "from {x} onwards",
        "appointment at {x}",
    ],
}


def _token(rng: random.Random) -> str:
    """An id-like token mixing letters and digits ('Holdturn0b4bea', 'QX7-20931')."""
    kind = rng.randrange(5)
    if kind == 0:
        word = rng.choice(["hold", "turn", "pay", "order", "ship", "cart", "user", "sess"])
        return (
            word.capitalize()
            + rng.choice(["turn", "item", "line", "ref"])
            + "".join(rng.choice("0123456789abcdef") for _ in range(6))
        )
    if kind == 1:
        return "".join(rng.choice(string.ascii_uppercase) for _ in range(3)) + "-" + _digits(rng, 6)
    if kind == 2:
        return "INV-" + str(rng.randint(2019, 2026)) + "-" + _digits(rng, 5)
    if kind == 3:
        alphabet = string.ascii_letters + string.digits
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(10, 16)))
    return (
        _digits(rng, 2)
        + "".join(rng.choice(string.ascii_lowercase) for _ in range(4))
        + (_digits(rng, 4))
    )


def _hash(rng: random.Random) -> str:
    kind = rng.randrange(4)
    hexd = "0123456789abcdef"
    if kind == 0:
        return "".join(rng.choice(hexd) for _ in range(7))
    if kind == 1:
        return "".join(rng.choice(hexd) for _ in range(40))
    if kind == 2:
        parts = [8, 4, 4, 4, 12]
        return "-".join("".join(rng.choice(hexd) for _ in range(n)) for n in parts)
    return "".join(rng.choice(hexd) for _ in range(64))


def _code(rng: random.Random) -> str:
    letters = string.ascii_uppercase
    kind = rng.randrange(5)
    if kind == 0:
        return rng.choice(["WX", "KD", "RT", "HP", "SM"]) + _digits(rng, 4)
    if kind == 1:
        return "".join(rng.choice(letters) for _ in range(2)) + "-" + _digits(rng, 4) + "-XL"
    if kind == 2:
        return "SKU " + _digits(rng, 8)
    if kind == 3:
        return rng.choice(["iPhone 13", "Galaxy S21", "XPS 13", "ThinkPad T14", "Model 3"])
    return (
        _digits(rng, 3)
        + "/"
        + "".join(rng.choice(letters) for _ in range(3))
        + "/"
        + _digits(rng, 2)
    )


def _amount(rng: random.Random) -> str:
    n = rng.randint(100, 2_500_000)
    cents = rng.randint(0, 99)
    kind = rng.randrange(6)
    if kind == 0:
        return f"€{n:,}.{cents:02d}"
    if kind == 1:
        return f"£{n:,}"
    if kind == 2:
        return f"{n:,} euro".replace(",", " ")
    if kind == 3:
        return f"EUR {n}.{cents:02d}"
    if kind == 4:
        return f"{n / 1000:.1f}k"
    return f"{n:,}".replace(",", ".") + f",{cents:02d} €"


def _date(rng: random.Random) -> str:
    y, m, d = rng.randint(2015, 2027), rng.randint(1, 12), rng.randint(1, 28)
    months = "January February March April May June July August September October November December"
    name = months.split()[m - 1]
    kind = rng.randrange(7)
    if kind == 0:
        return f"{d:02d}/{m:02d}/{y}"
    if kind == 1:
        return f"{y}-{m:02d}-{d:02d}"
    if kind == 2:
        return f"{d}.{m}.{y}"
    if kind == 3:
        return f"{d} {name} {y}"
    if kind == 4:
        return f"{d:02d}-{m:02d}-{y % 100:02d}"
    if kind == 5:
        return f"{y}-{m:02d}-{d:02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"
    return f"{rng.randint(1, 12)}:{rng.randint(0, 59):02d}pm on {d}/{m}"


NEG_MAKERS: dict[str, Callable[[random.Random], str]] = {
    "neg_id": _token,
    "neg_hash": _hash,
    "neg_code": _code,
    "neg_amount": _amount,
    "neg_date": _date,
}


def build(packages: Path) -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    first, last = pools(packages)
    out: list[dict[str, Any]] = []

    def names() -> dict[str, str]:
        f, s = rng.choice(first), rng.choice(last)
        return {"F": f, "S": s, "N": f"{f} {s}"}

    for cls, templates, case in (
        ("name_lower", LOWER_TEMPLATES, str.lower),
        ("name_caps", CAPS_TEMPLATES, str.upper),
        ("name_sentence", SENTENCE_TEMPLATES, str),
    ):
        for k in range(PER_CLASS):
            vals = {key: case(v) for key, v in names().items()}
            out.append(_sample(templates[k % len(templates)], vals, cls, SPLIT))
    for k in range(PER_CLASS):
        n = names()
        d, suffix = rng.choice(DOMAINS)
        style = EMAIL_STYLES[(k // len(EMAIL_TEMPLATES)) % len(EMAIL_STYLES)]
        value = style(_local(n["F"], n["S"], rng), d, suffix)
        t = EMAIL_TEMPLATES[k % len(EMAIL_TEMPLATES)]
        out.append(_sample(t, {"v": value}, "email_obfuscated", SPLIT))
    for k in range(PER_CLASS):
        t = PHONE_TEMPLATES[k % len(PHONE_TEMPLATES)]
        out.append(_sample(t, {"v": _phone(rng, k)}, "phone_formatted", SPLIT))
    for cls, make in NEG_MAKERS.items():
        templates = NEG_TEMPLATES[cls]
        for k in range(NEG_PER_KIND):
            text = templates[k % len(templates)].replace("{x}", make(rng))
            out.append(_sample(text.replace("{", "(").replace("}", ")"), {}, cls, SPLIT))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--packages", type=Path, required=True)
    args = parser.parse_args()
    samples = build(args.packages)
    OUT.write_text(json.dumps(samples, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(samples)} samples -> {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
