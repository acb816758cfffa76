"""Generate the fourth dev set and its held-out half (``bench/data/pii_dev4*.json``, issue 25).

    .venv/bin/python bench/pii_make_dev4.py

Why a fourth set: after three dev sets the first held-out file still leaked 41 values, and
per class (``bench/pii_case_eval.py --profile``, kinds counted, no value read) the misses were
lone one-word names in lower case or capitals with no cue, title-case names after a
sentence-initial word that no list of the detector holds, and e-mails with "at" written as a
word but plain dots. The dev sets were made *by the same people who wrote the rules*, in the
same spirit; this one is generated **by rules from the official formats** instead, for every
class the egress guard must hold, and is frozen (sha256 in
``tests/unit/egress/test_egress_case_sets.py``) before any rule is tuned on it.

* **Identifiers, from their official definitions, check characters computed here** (not by
  the detector's ``stdnum``): PPSN (seven digits, weights 8…2, an optional second letter
  weighted 9, mod 23, Revenue's definition); UK National Insurance number (HMRC's prefix
  rules, suffix A–D); IBAN (ISO 13616: country, mod-97 check digits, each country's BBAN
  length; IE, GB, DE, FR, ES, NL, PL, LT, RO); Eircode (a routing key, letter of the Eircode
  alphabet and two digits or ``D6W``, and a four-character unique identifier of the same
  alphabet); UK postcodes (Royal Mail's six outward forms and their letter rules, real
  postcode areas).
* **Phones** from the Irish (ComReg) and UK (Ofcom) numbering plans: IE mobile ``08[35679]``,
  Dublin ``01``, regional two- and three-digit area codes; UK mobile ``07``, London ``020``,
  other geographic ``01``/``02`` codes; kept when ``phonenumbers`` calls them valid.
* **Names** from the only name list in ``../shared/data``: the PERSON values of the
  presidio-research dev half (Fake Name Generator data), split into first names and surnames,
  minus every name of the three earlier generators (removed by set difference, never printed).
* **E-mails**: local parts from those names, a domain list written here.
* **Variants per class**: as typed (official form), lower case, capitals, spaced, joined,
  other separators, digits spelled out in words ("oh eight seven"), and inside chat messages
  with and without a context word.

**Held-out half.** Names, e-mail domains, templates and typing variants are each split in two
disjoint halves (alternating after a seeded shuffle) before any sample is made:
``pii_dev4.json`` uses one, ``pii_dev4_heldout.json`` the other. Only the dev file's errors are
read while tuning; the held-out file is scored for aggregates.
"""

from __future__ import annotations

import json
import random
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import phonenumbers

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROOT = Path(__file__).resolve().parent.parent
OUT_DEV = ROOT / "bench" / "data" / "pii_dev4.json"
OUT_HELDOUT = ROOT / "bench" / "data" / "pii_dev4_heldout.json"
PRESIDIO = ROOT.parent / "shared" / "data" / "pii" / "presidio_synth_dataset_v2.dev.json"
SEED = 4042
PER_CLASS = 210

DIGIT_WORDS = "zero one two three four five six seven eight nine".split()
TITLES = {"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "jr", "sr", "ii", "iii", "iv"}

# --- identifiers from their official definitions ---------------------------------------------

PPS_LETTERS = "WABCDEFGHIJKLMNOPQRSTUV"  # value 0..22 (W is 0)


def ppsn(rng: random.Random) -> str:
    digits = [rng.randint(0, 9) for _ in range(7)]
    second = rng.choice(["", "", "A", "W", "B", "H"])
    total = sum(d * w for d, w in zip(digits, range(8, 1, -1), strict=True))
    if second:
        total += 9 * PPS_LETTERS.index(second)
    return "".join(map(str, digits)) + PPS_LETTERS[total % 23] + second


NINO_FIRST = "ABCEGHJKLMNOPRSTWXYZ"
NINO_SECOND = "ABCEGHJKLMNPRSTWXYZ"
NINO_BAD = {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}


def nino(rng: random.Random) -> str:
    while True:
        prefix = rng.choice(NINO_FIRST) + rng.choice(NINO_SECOND)
        if prefix not in NINO_BAD:
            break
    return prefix + "".join(str(rng.randint(0, 9)) for _ in range(6)) + rng.choice("ABCD")


IBAN_BBAN: dict[str, Callable[[random.Random], str]] = {
    "IE": lambda r: r.choice(["AIBK", "BOFI", "IPBS", "ULSB", "REVO"]) + _n(r, 14),
    "GB": lambda r: r.choice(["NWBK", "BARC", "LOYD", "HBUK", "MIDL"]) + _n(r, 14),
    "DE": lambda r: _n(r, 18),
    "FR": lambda r: (
        _n(r, 10) + "".join(r.choice("ABCDEFGHJK0123456789") for _ in range(11)) + _n(r, 2)
    ),
    "ES": lambda r: _es_bban(_n(r, 8), _n(r, 10)),
    "NL": lambda r: r.choice(["ABNA", "INGB", "RABO", "TRIO"]) + _n(r, 10),
    "PL": lambda r: _n(r, 24),
    "LT": lambda r: _n(r, 16),
    "RO": lambda r: (
        r.choice(["BTRL", "RNCB", "BRDE"])
        + "".join(r.choice("ABCDEFGH0123456789") for _ in range(16))
    ),
}


def _n(rng: random.Random, k: int) -> str:
    return "".join(str(rng.randint(0, 9)) for _ in range(k))


def _es_bban(bank_branch: str, account: str) -> str:
    """Spain's BBAN carries two control digits of its own (weights 1, 2, 4, 8, 5, 10, 9, 7, 3, 6
    mod 11) over "00" + bank + branch, and over the account number."""

    def digit(s: str) -> str:
        d = (
            11
            - sum(int(c) * w for c, w in zip(s, (1, 2, 4, 8, 5, 10, 9, 7, 3, 6), strict=True)) % 11
        )
        return str({10: 1, 11: 0}.get(d, d))

    return bank_branch + digit("00" + bank_branch) + digit(account) + account


def _mod97(s: str) -> int:
    return int("".join(str(int(c, 36)) for c in s)) % 97


def iban(rng: random.Random) -> str:
    country = rng.choice(list(IBAN_BBAN))
    bban = IBAN_BBAN[country](rng)
    check = 98 - _mod97(bban + country + "00")
    return f"{country}{check:02d}{bban}"


EIR_LETTERS = "ACDEFHKNPRTVWXY"
EIR_CHARS = EIR_LETTERS + "0123456789"


def eircode(rng: random.Random) -> str:
    key = "D6W" if rng.random() < 0.05 else rng.choice(EIR_LETTERS) + _n(rng, 2)
    unique = rng.choice(EIR_LETTERS) + "".join(rng.choice(EIR_CHARS) for _ in range(3))
    return f"{key} {unique}"


UK_AREAS_1 = list("BEGLMNSW")
UK_AREAS_2 = """AB AL BA BB BD BH BL BN BR BS BT CA CB CF CH CM CO CR CT CV CW DA DD DE DG DH DL DN
DT DY EC EH EN EX FK FY GL GU HA HD HG HP HR HS HU HX IG IP IV KA KT KW KY LA LD LE LL LN LS LU
ME MK ML NE NG NN NP NR NW OL OX PA PE PH PL PO PR RG RH RM SA SE SG SK SL SM SN SO SP SR SS ST
SW SY TA TD TF TN TQ TR TS TW UB WA WC WD WF WN WR WS WV YO ZE""".split()
UK_INWARD = "ABDEFGHJLNPQRSTUWXYZ"


def uk_postcode(rng: random.Random) -> str:
    form = rng.randrange(6)
    if form == 0:
        outward = rng.choice(UK_AREAS_1) + str(rng.randint(1, 9))
    elif form == 1:
        outward = rng.choice(UK_AREAS_1) + str(rng.randint(10, 99))
    elif form == 2:
        outward = (
            rng.choice(["W", "E", "N"]) + str(rng.randint(1, 9)) + rng.choice("ABCDEFGHJKPSTUW")
        )
    elif form == 3:
        outward = rng.choice(UK_AREAS_2) + str(rng.randint(1, 9))
    elif form == 4:
        outward = rng.choice(UK_AREAS_2) + str(rng.randint(10, 99))
    else:
        outward = (
            rng.choice(["SW", "EC", "WC", "NW", "SE"])
            + str(rng.randint(1, 9))
            + rng.choice("ABEHMNPRVWXY")
        )
    inward = str(rng.randint(0, 9)) + rng.choice(UK_INWARD) + rng.choice(UK_INWARD)
    return f"{outward} {inward}"


PHONE_SHAPES = [
    ("IE", "08{m} {3} {4}", lambda r: r.choice("35679")),
    ("IE", "01 {3} {4}", None),
    ("IE", "0{a} {3} {4}", lambda r: r.choice(["21", "61", "91", "51", "71", "66", "64", "98"])),
    ("IE", "0{a} {2} {3}", lambda r: r.choice(["402", "404", "504", "505", "506", "509"])),
    ("GB", "07{m}{2} {6}", lambda r: r.choice("12345789")),
    ("GB", "020 {7}{3} {4}", lambda r: ""),
    (
        "GB",
        "0{a} {3} {4}",
        lambda r: r.choice(["161", "121", "113", "114", "117", "131", "141", "151"]),
    ),
]


def phone(rng: random.Random) -> tuple[str, str]:
    """A valid IE or GB number in its national grouping, and its region."""
    while True:
        region, shape, pick = rng.choice(PHONE_SHAPES)
        text = shape.replace("{m}", pick(rng) if pick else "").replace(
            "{a}", pick(rng) if pick else ""
        )
        text = text.replace("{7}", rng.choice("78"))
        for k in "6432":
            while "{" + k + "}" in text:
                text = text.replace("{" + k + "}", _n(rng, int(k)), 1)
        if phonenumbers.is_valid_number(phonenumbers.parse(text, region)):
            return text, region


# --- typing variants -------------------------------------------------------------------------


def spell_digits(s: str, rng: random.Random, oh: bool = True) -> str:
    words = []
    for c in s:
        if c.isdigit():
            words.append("oh" if c == "0" and oh and rng.random() < 0.5 else DIGIT_WORDS[int(c)])
        elif c.isalpha():
            words.append(c)
    return " ".join(words)


def _groups(s: str, sizes: list[int], sep: str) -> str:
    out, k = [], 0
    for size in sizes:
        if k >= len(s):
            break
        out.append(s[k : k + size])
        k += size
    if k < len(s):
        out.append(s[k:])
    return sep.join(out)


def _id_variants(
    grouped: Callable[[str], str], spelled: bool = True
) -> list[Callable[[str, random.Random], str]]:
    out: list[Callable[[str, random.Random], str]] = [
        lambda v, r: grouped(v),
        lambda v, r: v.lower(),
        lambda v, r: grouped(v).lower(),
        lambda v, r: v,
        lambda v, r: grouped(v).replace(" ", "-"),
        lambda v, r: " ".join(v),
        lambda v, r: grouped(v).replace(" ", "."),
        lambda v, r: " ".join(v).lower(),
    ]
    if spelled:
        out += [
            lambda v, r: spell_digits(v, r),
            lambda v, r: spell_digits(v, r, oh=False).upper(),
        ]
    return out


PPSN_VARIANTS = _id_variants(lambda v: v[:7] + " " + v[7:])
NINO_VARIANTS = _id_variants(lambda v: _groups(v, [2, 2, 2, 2, 1], " "))
IBAN_VARIANTS = _id_variants(lambda v: _groups(v, [4] * 9, " "), spelled=False)
POSTCODE_VARIANTS: list[Callable[[str, random.Random], str]] = [
    lambda v, r: v,
    lambda v, r: v.lower(),
    lambda v, r: v.replace(" ", ""),
    lambda v, r: v.replace(" ", "").lower(),
    lambda v, r: v.replace(" ", "  "),
    lambda v, r: v.replace(" ", "-"),
    lambda v, r: v.lower().replace(" ", "-"),
    lambda v, r: v.title(),
]


def _phone_variants() -> list[Callable[[str, random.Random], str]]:
    def intl(v: str, r: random.Random, region: str) -> str:
        code = "353" if region == "IE" else "44"
        return f"+{code} {v[1:]}"

    return [
        lambda v, r: v,
        lambda v, r: v.replace(" ", ""),
        lambda v, r: v.replace(" ", "-"),
        lambda v, r: v.replace(" ", "."),
        lambda v, r: "(" + v.replace(" ", ") ", 1),
        lambda v, r: spell_digits(v, r),
        lambda v, r: spell_digits(v, r).upper(),
        lambda v, r: " ".join(v.replace(" ", "")),
        lambda v, r: v[:3] + " " + spell_digits(v[3:], r),
        lambda v, r: spell_digits(v.replace(" ", ""), r).replace(" ", "-"),
    ]


PHONE_VARIANTS = _phone_variants()
PHONE_INTL = [
    lambda v, code: f"+{code} {v[1:]}",
    lambda v, code: f"00{code} {v[1:]}",
    lambda v, code: f"+{code} (0){v[1:]}",
    lambda v, code: f"+{code}{v[1:].replace(' ', '')}",
    lambda v, code: (
        f"plus {spell_digits(code, random.Random(0))} " + spell_digits(v[1:], random.Random(1))
    ),
]

# --- chat templates (written for this set) ----------------------------------------------------

ID_TEMPLATES = {
    "ppsn": [
        "my ppsn is {v}, can you check what tax credits i get",
        "PPS number {v} - is my PRSI class A or S?",
        "Here's my PPS no {v} for the form 11 question",
        "do i put {v} on the rent tax credit claim",
        "social welfare number: {v}",
        "the revenue letter quoted {v} and asked for a balancing statement",
        "hi, {v} is my number, when do i get the refund",
        "Child benefit was paid under {v} last year",
    ],
    "nino": [
        "my national insurance number is {v} and i moved to cork",
        "NI no: {v}. Do I need a PPSN as well?",
        "I was given {v} in the UK, does it count for the state pension here",
        "ni number {v}",
        "HMRC wrote to {v} about my P60",
        "Can you check {v} for class 2 contributions",
        "my nino is {v} thanks",
        "They asked for my N.I. number ({v}) on the form",
    ],
    "iban": [
        "pay it into {v} please",
        "My IBAN is {v}, is the refund paid there?",
        "iban: {v}",
        "the direct debit came from {v} on the 3rd",
        "Can Revenue use {v} for the PAYE refund",
        "bank account {v} (joint account)",
        "i changed my bank to {v} last month",
        "Send the grant to {v}",
    ],
    "postcode": [
        "i live at {v}, which local property tax band am i in",
        "Eircode/postcode: {v}",
        "we moved to {v} in march",
        "the property is at {v} - is it in the RPZ?",
        "my postcode is {v} if that matters",
        "send the letter to {v}",
        "Our office ({v}) is registered for VAT",
        "is {v} in the zoned area for the residential zoned land tax",
    ],
    "phone": [
        "call me on {v} after 5",
        "my number is {v}",
        "Phone: {v}",
        "text {v} if the accountant needs anything",
        "you can reach my wife at {v}",
        "mobile {v} - ring anytime",
        "is it ok to give {v} to the tax office",
        "tel {v}",
    ],
}

NAME_TEMPLATES = [
    # full name, lone first name ({f}), lone surname ({s})
    "my name is {n} and i started a new job in march",
    "does {f} need to file a return if she only has rental income",
    "{f} and i got married last year, do we get joint assessment",
    "i pay {f} to mind the kids, is that a benefit in kind",
    "can {f} claim the rent credit on my behalf",
    "{n} here, quick one about usc on a lump sum",
    "my landlord {n} will not give me his ppsn",
    "hi its {f}, i sent the form yesterday",
    "told {f} the vat rate changed, was i right",
    "{f}'s employer stopped paying the sick pay",
    "we're buying the house from {n}, do we pay stamp duty",
    "thanks, {f}",
    "cheers {n}",
    "my accountant {s} says i owe cgt on the shares",
    "the letter was addressed to {n} not me",
    "{f} wants to know if the tips are taxable",
    "would {f} be a dependent relative for the credit",
    "i work with {n} and we both got the same bonus",
    "is the gift from {f} to my son taxable",
    "Mrs {s} is my carer, can i claim for her",
]
UPPER_ONLY = [
    "NAME: {n}",
    "CLIENT {n} - QUERY RE: CAT THRESHOLD",
    "Form signed by {n} on Monday, is that valid?",
    "The payslip says {n} but I changed my name",
]
START_WORDS = """Please Kindly Just Also Again Both Either Neither Only Even Actually Frankly
Hopefully Ideally Naturally Normally Originally Personally Seriously Technically Usually Sadly
Suddenly Finally Firstly Secondly Lastly Besides Otherwise However Therefore Although Whereas
While Whether If After Before Until Unlike Like Did Does Can Could Would Will Must Might Should
Shall Has Have Had Is Are Was Were Ask Let Get Make Send Give Pay Show Call Text Tell Remind
Check Which What Who Whom How Why Where When Hey Hello Hi Dear Well Oh Yes No Ok Okay""".split()
START_TEMPLATES = [
    "{w} {n} pay the higher rate on the bonus?",
    "{w} {n} has to register for VAT, right?",
    "{w} {n} sent me the P60 last week.",
    "{w} {n} gets the home carer credit, what about me?",
    "Question. {w} {n} claim the tuition fees relief?",
    "{w}, {n} said the deadline is October.",
]
MID_TITLE = [
    "I think {n} overpaid the USC.",
    "The payslip from {n} shows emergency tax.",
    "We asked {n} about the CGT on the site.",
    "Is the car {n} drives a benefit in kind?",
]

EMAIL_DOMAINS = [
    ("eircom", "net"),
    ("iol", "ie"),
    ("vodafone", "ie"),
    ("outlook", "ie"),
    ("ntlworld", "com"),
    ("btinternet", "com"),
    ("sky", "com"),
    ("proton", "me"),
    ("gmx", "de"),
    ("wp", "pl"),
    ("o2", "pl"),
    ("inbox", "lv"),
    ("mail", "ru"),
    ("icloud", "com"),
    ("live", "co.uk"),
    ("tcd", "ie"),
    ("ucd", "ie"),
    ("hse", "ie"),
    ("nhs", "net"),
    ("murphyaccountants", "ie"),
    ("kellyandco", "co.uk"),
    ("byrne-tax", "ie"),
    ("westcorkfarms", "ie"),
    ("galwaytech", "com"),
]
EMAIL_STYLES: list[Callable[[str, str, str], str]] = [
    lambda loc, d, s: f"{loc}@{d}.{s}",
    lambda loc, d, s: f"{loc} at {d}.{s}",
    lambda loc, d, s: f"{loc} at {d} dot {s.replace('.', ' dot ')}",
    lambda loc, d, s: f"{loc.upper()}@{d.upper()}.{s.upper()}",
    lambda loc, d, s: f"{loc.upper()} AT {d.upper()} DOT {s.upper().replace('.', ' DOT ')}",
    lambda loc, d, s: f"{loc}(at){d}(dot){s.replace('.', '(dot)')}",
    lambda loc, d, s: f"{loc} @ {d} . {s}",
    lambda loc, d, s: f"{loc} at {d} period {s.replace('.', ' period ')}",
    lambda loc, d, s: f"{loc} [at] {d}.{s}",
    lambda loc, d, s: f"{loc}@{d} dot {s.replace('.', ' dot ')}",
    lambda loc, d, s: f"{loc} At {d} Dot {s.replace('.', ' Dot ')}",
    lambda loc, d, s: f"{loc} at {d}.{s.upper()}",
]
EMAIL_TEMPLATES = [
    "email me at {v} with the answer",
    "my email is {v}",
    "send the P21 to {v} please",
    "contact: {v}",
    "is it safe to give revenue {v} for myAccount",
    "{v} is my work address, use that",
]

DECOYS = [
    "Article 6(1)(c) GDPR applies to payroll data, doesn't it?",
    "is the 2016/679 regulation the same as gdpr",
    "what is section 472C TCA 1997 about",
    "EUR 1,234,567 turnover - do I need an audit?",
    "the form 11 deadline is 31 october, or 14 november online",
    "CT1 and RCT: which one for a subcontractor",
    "vat on 23 % vs 13.5 % for building work",
    "i earn 45000 a year, what band am i in",
    "code 2024 on my P60, what is it",
    "DIRECTIVE (EU) 2022/2555 (NIS2) ARTICLE 21",
    "is class a1 prsi the same as class a",
    "the usc threshold is 13000 euro right",
    "does the 2.5m lifetime limit apply to pensions",
    "REGULATION 1093/2010 ESMA POWERS",
    "form ct1 box 123 says 4567 what does that mean",
    "i pay 1200 a month rent in d8, do i get the credit",
    "Annex IV point 2(b) of the AI Act",
    "we sold shares for 250000 and bought them for 100000",
    "ppsn or pps number, which is right",
    "what is my tax credit if i earn 38000 and my wife earns 12000",
    "can i claim for a sunday newspaper? lol",
    "the budget 2025 changes to the vat on gas",
    "at what point do i register for vat",
    "Is the standard rate cut-off point 42000 for a single person",
    "LPT band 3 is 350001 to 437500",
]
# Decoys made from parts: references, amounts, forms and dates that look like identifiers.
DECOY_PARTS = [
    "article {a}({b})",
    "section {s}{l}",
    "regulation (eu) {y}/{n}",
    "directive {y}/{n}/eu",
    "eur {m}",
    "{m} euro",
    "form {f}",
    "{p} %",
    "{d}/{mo}/{y}",
    "band {b}",
    "box {s}",
    "paragraph {b}",
    "annex {r}",
    "schedule {b}",
    "s.{s}",
    "reg {n}/{y}",
]
DECOY_FRAMES = [
    "does {x} apply to me",
    "what does {x} say about {z}",
    "is {x} still in force",
    "the revenue guide quotes {x} and {z}",
    "see {x}, then {z}",
    "my accountant mentioned {x}",
]


def decoys(rng: random.Random, count: int) -> list[str]:
    """Tax questions full of numbers and references, none of them personal."""
    out = []
    for k in range(count):

        def part() -> str:
            return rng.choice(DECOY_PARTS).format(
                a=rng.randint(1, 120),
                b=rng.randint(1, 9),
                s=rng.randint(100, 1100),
                l=rng.choice(["", "A", "B", "AA"]),
                y=rng.randint(2000, 2025),
                n=rng.randint(1, 2999),
                m=f"{rng.randint(1, 999)},{rng.randint(100, 999)}",
                f=rng.choice(["11", "12", "ct1", "rct", "vat3", "p21", "cg1", "p60"]),
                p=rng.choice(["9", "13.5", "23", "4.8", "20", "40"]),
                d=rng.randint(1, 28),
                mo=rng.randint(1, 12),
                r=rng.choice(["i", "ii", "iv", "vi", "x"]),
            )

        text = DECOY_FRAMES[k % len(DECOY_FRAMES)].format(x=part(), z=part())
        out.append(text.upper() if k % 3 == 0 else text)
    return out


# --- assembly --------------------------------------------------------------------------------


def _ascii(s: str) -> str:
    folded = unicodedata.normalize("NFKD", s)
    return "".join(c for c in folded if not unicodedata.combining(c))


def _sample(template: str, values: dict[str, str], cls: str, split: str) -> dict[str, Any]:
    """Fill ``template``'s ``{key}`` fields, recording a span for each value."""
    text, spans, k = "", [], 0
    while k < len(template):
        if template[k] == "{":
            end = template.index("}", k)
            value = values[template[k + 1 : end]]
            spans.append(
                {
                    "entity_type": cls,
                    "entity_value": value,
                    "start_position": len(text),
                    "end_position": len(text) + len(value),
                }
            )
            text += value
            k = end + 1
        else:
            text += template[k]
            k += 1
    return {
        "full_text": text,
        "spans": spans,
        "metadata": {"class": cls, "split": split, "values": [s["entity_value"] for s in spans]},
    }


def _halves(items: list[Any], rng: random.Random) -> tuple[list[Any], list[Any]]:
    shuffled = list(items)
    rng.shuffle(shuffled)
    return shuffled[0::2], shuffled[1::2]


def name_pools() -> tuple[list[str], list[str]]:
    """First names and surnames of the presidio dev half's PERSON values, minus every name of
    the earlier generators (compared silently)."""
    from bench import pii_make_case_sets, pii_make_dev2, pii_make_dev3

    taken = {
        _ascii(w).lower()
        for n in [
            *pii_make_case_sets.FIRST,
            *pii_make_case_sets.SURNAMES,
            *pii_make_dev2.FIRST,
            *pii_make_dev2.SURNAMES,
            *pii_make_dev3.FIRST,
            *pii_make_dev3.SURNAMES,
        ]
        for w in n.split()
    }
    first: set[str] = set()
    last: set[str] = set()
    for item in json.loads(PRESIDIO.read_text(encoding="utf-8")):
        for span in item["spans"]:
            if span["entity_type"] != "PERSON":
                continue
            words = [w.strip(".,") for w in span["entity_value"].split()]
            words = [w for w in words if w.lower() not in TITLES and len(w) > 2 and w.isalpha()]
            words = [w[0].upper() + w[1:] if w.islower() else w for w in words]
            if len(words) >= 2:
                first.add(words[0])
                last.add(words[-1])
    # one spelling per name (with or without accents, any case), none both first and last
    by_key: dict[str, str] = {}
    for n in sorted(first) + sorted(last):
        by_key.setdefault(_ascii(n).lower(), n)
    first_keys = {_ascii(n).lower() for n in first} - taken
    last_keys = {_ascii(n).lower() for n in last} - taken - first_keys
    return sorted(by_key[k] for k in first_keys), sorted(by_key[k] for k in last_keys)


def build() -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(SEED)
    first, last = name_pools()
    halves = {
        "first": _halves(first, rng),
        "last": _halves(last, rng),
        "names_t": _halves(NAME_TEMPLATES, rng),
        "upper_t": _halves(UPPER_ONLY, rng),
        "start_w": _halves(START_WORDS, rng),
        "start_t": _halves(START_TEMPLATES, rng),
        "mid_t": _halves(MID_TITLE, rng),
        "domains": _halves(EMAIL_DOMAINS, rng),
        "email_s": _halves(EMAIL_STYLES, rng),
        "email_t": _halves(EMAIL_TEMPLATES, rng),
        "decoys": _halves(DECOYS, rng),
        "phone_v": _halves(PHONE_VARIANTS, rng),
        "phone_i": _halves(PHONE_INTL, rng),
    }
    for cls, variants in (
        ("ppsn", PPSN_VARIANTS),
        ("nino", NINO_VARIANTS),
        ("iban", IBAN_VARIANTS),
        ("postcode", POSTCODE_VARIANTS),
    ):
        halves[f"{cls}_v"] = _halves(variants, rng)
    for cls in ID_TEMPLATES:
        halves[f"{cls}_t"] = _halves(ID_TEMPLATES[cls], rng)
    out: dict[str, list[dict[str, Any]]] = {}
    for index, split in enumerate(("dev", "heldout")):
        h = {key: pair[index] for key, pair in halves.items()}
        out[split] = _split(random.Random(SEED + index), split, h)
    return out


def _split(rng: random.Random, split: str, h: dict[str, list[Any]]) -> list[dict[str, Any]]:
    samples: list[dict[str, Any]] = []
    first, last = h["first"], h["last"]

    def full(case: Callable[[str], str]) -> dict[str, str]:
        f, s = rng.choice(first), rng.choice(last)
        if rng.random() < 0.3:
            f, s = _ascii(f), _ascii(s)
        return {"n": case(f"{f} {s}"), "f": case(f), "s": case(s)}

    for cls, case in (("name_lower", str.lower), ("name_upper", str.upper)):
        templates = h["names_t"] + (h["upper_t"] if cls == "name_upper" else [])
        for k in range(PER_CLASS):
            t = templates[k % len(templates)]
            names = full(case)
            text_t = t if cls == "name_lower" or t in h["upper_t"] or k % 3 else t.upper()
            text_t = text_t.replace("{N}", "{n}").replace("{F}", "{f}").replace("{S}", "{s}")
            samples.append(_sample(text_t, names, cls, split))
    for k in range(PER_CLASS):
        names = full(lambda x: x)
        if k % 4 == 3:
            t = h["mid_t"][k % len(h["mid_t"])]
            samples.append(_sample(t, {"n": names["n"]}, "name_title", split))
            continue
        t = h["start_t"][k % len(h["start_t"])].replace("{w}", h["start_w"][k % len(h["start_w"])])
        samples.append(_sample(t, {"n": names["n"]}, "name_title", split))
    for k in range(PER_CLASS):
        f, s = _ascii(rng.choice(first)).lower(), _ascii(rng.choice(last)).lower()
        digits = str(rng.randint(1, 99)) if rng.random() < 0.3 else ""
        local = (
            rng.choice([f"{f}.{s}", f"{f}{s}", f"{f[0]}{s}", f"{f}_{s}", f"{s}.{f[0]}"]) + digits
        )
        d, suffix = h["domains"][k % len(h["domains"])]
        email = h["email_s"][k % len(h["email_s"])](local, d, suffix)
        t = h["email_t"][k % len(h["email_t"])]
        samples.append(_sample(t, {"v": email}, "email", split))
    makers: dict[str, Callable[[random.Random], str]] = {
        "ppsn": ppsn,
        "nino": nino,
        "iban": iban,
        "postcode": lambda r: eircode(r) if r.random() < 0.5 else uk_postcode(r),
    }
    for cls, make in makers.items():
        for k in range(PER_CLASS):
            variant = h[f"{cls}_v"][k % len(h[f"{cls}_v"])]
            value = variant(make(rng), rng)
            t = h[f"{cls}_t"][k % len(h[f"{cls}_t"])]
            samples.append(_sample(t, {"v": value}, cls, split))
    for k in range(PER_CLASS):
        number, region = phone(rng)
        if k % 3 == 2:
            code = "353" if region == "IE" else "44"
            value = h["phone_i"][k % len(h["phone_i"])](number, code)
        else:
            value = h["phone_v"][k % len(h["phone_v"])](number, rng)
        t = h["phone_t"][k % len(h["phone_t"])]
        samples.append(_sample(t, {"v": value}, "phone", split))
    for text in h["decoys"] + decoys(rng, 90):
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
