"""Generate the seventh dev set and its held-out half (``bench/data/pii_dev7.json`` and
``bench/data/pii_heldout7.json``, issue 25, session 7).

    pip install --target DIR gender-guesser==0.4.0 names==0.3.0 \
        japanese-personal-name-dataset==0.4.0 nepalpy==1.3.2
    .venv/bin/python bench/pii_make_dev7.py --packages DIR

Why a seventh set: every earlier held-out file has been scored many times and its leak classes
were read out (the caveat in ADR 0061), so none is untouched. This one is new, drawn from sources
the detector never used, and frozen (sha256 in ``tests/unit/egress/test_egress_case_sets.py``)
in a commit of its own before any rule changes.

Sources, none of them the detector's (its lexicons come from Faker; the earlier sets' names
from Faker, presidio's Fake Name Generator data, US Census lists and hand-written lists):

* **first names**: Jörg Michael's ``nam_dict.txt`` as shipped in the PyPI package
  ``gender-guesser`` 0.4.0 (GFDL 1.2), names with a frequency in one of the countries an Irish
  or British adviser meets (Ireland, Great Britain, Poland, Lithuania, Latvia, Romania, Ukraine,
  Portugal, Spain, Italy, France, Turkey, Arabia/Persia, India/Sri Lanka, China, Vietnam, Korea,
  other countries); Nepali first names from ``nepalpy`` 1.3.2 (MIT); Japanese given names in
  romaji from ``japanese-personal-name-dataset`` 0.4.0;
* **surnames**: the US Census 1990 surname list shipped by ``names`` 0.3.0 (public domain;
  the earlier dev2 drew 2% of it: every name of every earlier generator is removed), Japanese
  family names in romaji and Nepali family names from the same packages;
* **decoys**: sentences and article titles of the 49 acts in
  ``../shared/data/eu-legislation/eu-regulations-json`` typed as chat (lower case, capitals,
  as printed, in a question): nothing to find;
* **e-mails and phones**: local parts from the names; domains written here; phone numbers from
  the Irish (ComReg) and UK (Ofcom) numbering plans' shapes, written with words and separators
  as people type them.

Classes (``PER_HALF`` values each per file): ``name_lower``, ``name_caps`` (a shouted message,
or a shouted name amid lower case), ``name_title`` (title case, names of other cultures and
surnames that are English words), ``email_spelled``, ``phone_words``; ``decoy``.

**Split.** First names, surnames, e-mail domains, templates and typing styles are each split in
two disjoint halves (alternating after a seeded shuffle) before any sample is made; the dev file
uses one half of each, the held-out file the other. Only the dev file's errors may be read; the
held-out file is scored for totals.
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

from bench.pii_make_dev4 import _ascii, _halves, _sample, name_pools

ROOT = Path(__file__).resolve().parent.parent
OUT_DEV = ROOT / "bench" / "data" / "pii_dev7.json"
OUT_HELDOUT = ROOT / "bench" / "data" / "pii_heldout7.json"
ACTS = ROOT.parent / "shared" / "data" / "eu-legislation" / "eu-regulations-json"
SEED = 7077
PER_HALF = 210
DECOYS_PER_HALF = 60

COUNTRIES = """great_britain ireland usa italy malta portugal spain france belgium luxembourg
the_netherlands east_frisia germany austria swiss iceland denmark norway sweden finland estonia
latvia lithuania poland czech_republic slovakia hungary romania bulgaria bosniaand croatia
kosovo macedonia montenegro serbia slovenia albania greece russia belarus moldova ukraine
armenia azerbaijan georgia the_stans turkey arabia israel china india japan korea vietnam
other_countries""".split()
WANTED = {
    "ireland", "great_britain", "poland", "lithuania", "latvia", "romania", "ukraine",
    "portugal", "spain", "italy", "france", "turkey", "arabia", "india", "china", "vietnam",
    "korea", "other_countries",
}  # fmt: skip
ALPHA = re.compile(r"^[A-Za-z]{3,12}$")


def _nam_dict(path: Path) -> list[str]:
    """First names of ``nam_dict.txt`` with a frequency in a wanted country, letters only."""
    out: set[str] = set()
    for raw in path.read_bytes().decode("latin-1").splitlines():
        if not raw or raw[0] in "#=":
            continue
        parts = raw.split()
        if len(parts) < 2 or not ALPHA.match(parts[1]):
            continue
        freqs = raw[30:]
        if any(
            i < len(freqs) and freqs[i].strip() and freqs[i] != "$" and c in WANTED
            for i, c in enumerate(COUNTRIES)
        ):
            out.add(parts[1])
    return sorted(out)


def pools(packages: Path) -> tuple[list[str], list[str]]:
    """(first names, surnames) from the packages, minus every name of the earlier generators."""
    sys.path.insert(0, str(packages))
    from nepalpy.name.cast import CASTE_CATEGORY_MAP
    from nepalpy.name.female_names import FEMALE_NAMES
    from nepalpy.name.male_names import MALE_NAMES

    from bench import pii_make_case_sets, pii_make_dev2, pii_make_dev3

    first = set(_nam_dict(packages / "gender_guesser" / "data" / "nam_dict.txt"))
    first |= {n for n in MALE_NAMES + FEMALE_NAMES if ALPHA.match(n)}
    jp = packages / "japanese_personal_name_dataset" / "dataset"
    for f in ("first_name_man_opti.csv", "first_name_woman_opti.csv"):
        for line in (jp / f).read_text("utf-8").splitlines():
            cols = line.split(",")
            if len(cols) >= 4 and ALPHA.match(cols[3]):
                first.add(cols[3].capitalize())
    last: set[str] = set()
    for k, line in enumerate((packages / "names" / "dist.all.last").read_text().splitlines()):
        if k >= 20000:
            break
        word = line.split()[0]
        if ALPHA.match(word):
            last.add(word.capitalize())
    for line in (jp / "last_name_org.csv").read_text("utf-8").splitlines()[:1500]:
        cols = line.split(",")
        if len(cols) >= 4 and ALPHA.match(cols[3]):
            last.add(cols[3].capitalize())
    last |= {n for n in CASTE_CATEGORY_MAP if ALPHA.match(n)}
    taken = {
        _ascii(w).lower()
        for n in [
            *pii_make_case_sets.FIRST,
            *pii_make_case_sets.SURNAMES,
            *pii_make_dev2.FIRST,
            *pii_make_dev2.SURNAMES,
            *pii_make_dev3.FIRST,
            *pii_make_dev3.SURNAMES,
            *name_pools()[0],
            *name_pools()[1],
        ]
        for w in n.split()
    }
    first_list = sorted({n.capitalize() for n in first if n.lower() not in taken})
    lower_first = {n.lower() for n in first_list}
    last_list = sorted({n for n in last if n.lower() not in taken | lower_first})
    return first_list, last_list


# --- templates: {F} first name, {N} full name, {S} surname --------------------------------------

LOWER_TEMPLATES = [
    "hey its {N} here, how do i claim the medical expenses back",
    "i am {N} and i moved here from abroad last may",
    "my accountant {N} says i owe cgt, is that right",
    "can {F} claim the single person child carer credit",
    "paying {N} rent every month, can i get the rent credit",
    "my husband {F} lost his job in march",
    "regards, {N}",
    "{F} is my daughter, she starts college in september",
    "the lease is in {N}s name",
    "would {F} have to pay usc on the bonus",
    "i live with {N} and we split the bills",
    "{N} is the director of the company",
    "sent the invoice to {N} yesterday",
    "thanks {F}!",
    "for my client {N}, self assessed, what is the deadline",
    "my mam {N} gets the state pension",
    "im writing on behalf of {N} who cant use the computer",
    "{F} inherited a house from her aunt",
    "bought the car off {N} for 5k",
    "does {N} need a pps number to work",
    "signed {N}",
    "my partner {F} and i are not married",
    "i employ {N} as a nanny two days a week",
    "{F} from accounts told me to ask here",
]
CAPS_TEMPLATES = [
    "MY NAME IS {N} AND I NEED HELP WITH MY TAX",
    "HI THIS IS {N}, WHEN IS THE RETURN DUE",
    "{N} OWES ME 2000 EURO FOR THE CAR",
    "PLEASE HELP, {F} HAS NOT BEEN PAID FOR 3 MONTHS",
    "i gave {N} the keys last week",
    "CAN {N} CLAIM THE TUITION FEES",
    "the landlord is {N}, he wont register the tenancy",
    "MY SON {F} IS 17, DOES HE PAY TAX",
    "i work for {N} cash in hand",
    "{F} AND I WANT TO FILE JOINTLY",
    "DEAR {N}, I AM WRITING ABOUT MY REFUND",
    "my brother {N} passed away in june, what about his pension",
    "WHAT DOES {F} NEED TO SEND TO REVENUE",
    "{N} IS MY TENANT",
    "is the gift from {N} taxable",
    "SIGNED {N}",
    "ASK {F} ABOUT THE P60",
    "we hired {N} to do the books",
    "HOW MUCH CAN {F} EARN AND STILL GET THE CREDIT",
    "THANKS {N}",
    "{N} from next door asked me the same thing",
    "MY WIFE {N} WORKS IN THE UK",
    "the shares were sold by {N} in 2023",
    "i think {F} got the wrong tax credit cert",
]
TITLE_TEMPLATES = [
    "My name is {N} and I work as a nurse in Cork.",
    "Hello, {N} here. Do I pay tax on tips?",
    "Can {N} get the rent tax credit?",
    "Would {F} qualify for the home carer credit?",
    "{N} sold his apartment in 2024. Does he owe CGT?",
    "I rent a room to {N}. Is that rent-a-room relief?",
    "My colleague {N} says the bonus is taxed twice.",
    "Did {F} need to register for VAT last year?",
    "Should {N} file a Form 11?",
    "Kind regards,\n{N}",
    "Please contact {N} about the refund.",
    "Both {F} and I are self-employed.",
    "Is {N} entitled to the fuel allowance?",
    "The company was set up by {N} and me.",
    "We paid {N} for the renovation in cash.",
    "Has {F} missed the deadline?",
    "Mrs {S} is our childminder.",
    "Why did {N} get a tax bill?",
    "After {N} died, who files the last return?",
    "{F} works for a German company from home.",
    "Ask Mr {S} whether the invoice is right.",
    "When {N} retires, does the lump sum count?",
    "Dr {N} told me to keep the receipts.",
    "Our tenant {N} left without paying.",
]
EMAIL_TEMPLATES = [
    "my email is {v}",
    "send it to {v} please",
    "you can reach me on {v}",
    "email: {v}",
    "contact {v} for the forms",
    "is {v} the right format for revenue",
    "reply to {v}",
    "my work email is {v} but i check it rarely",
    "cc {v} on the letter",
    "i use {v} for everything",
    "write to me at {v}",
    "personal mail {v}",
]
PHONE_TEMPLATES = [
    "my number is {v}",
    "call me on {v}",
    "text {v} when you have the figures",
    "mobile {v}",
    "ring me at {v} after six",
    "phone: {v}",
    "you can get me on {v}",
    "my landline is {v}",
    "whatsapp {v}",
    "the accountant's number is {v}",
    "reach me at {v}",
    "my phone number {v}",
]
DOMAINS = [
    ("eircom", "net"), ("gmail", "com"), ("yahoo", "ie"), ("hotmail", "co.uk"),
    ("outlook", "com"), ("icloud", "com"), ("protonmail", "com"), ("live", "ie"),
    ("btinternet", "com"), ("mail", "ie"), ("tcd", "ie"), ("ucc", "ie"), ("hse", "ie"),
    ("aol", "com"), ("gmx", "net"), ("web", "de"), ("wp", "pl"), ("yahoo", "co.uk"),
    ("me", "com"), ("virginmedia", "ie"),
]  # fmt: skip
DIGITS = "zero one two three four five six seven eight nine".split()


def _local(first: str, last: str, rng: random.Random) -> list[str]:
    f, s = first.lower(), last.lower()
    return rng.choice(
        [[f, s], [f[0] + s], [f, s[0]], [f + s], [s, f], [f, s + str(rng.randint(1, 99))]]
    )


def _join(parts: list[str], dot: str) -> str:
    return dot.join(parts)


EMAIL_STYLES: list[Callable[[list[str], str, str], str]] = [
    lambda lp, d, s: f"{_join(lp, ' dot ')} at {d} dot {s.replace('.', ' dot ')}",
    lambda lp, d, s: f"{_join(lp, '.')} (at) {d} (dot) {s.replace('.', ' (dot) ')}",
    lambda lp, d, s: f"{_join(lp, '.')} [at] {d} [dot] {s.replace('.', ' [dot] ')}",
    lambda lp, d, s: f"{_join(lp, '_')} at {d}.{s}",
    lambda lp, d, s: f"{_join(lp, ' underscore ')} at {d} dot {s.replace('.', ' dot ')}",
    lambda lp, d, s: f"{_join(lp, '.')} AT {d} DOT {s.replace('.', ' DOT ')}",
    lambda lp, d, s: f"{_join(lp, '-')} -at- {d} -dot- {s.replace('.', ' -dot- ')}",
    lambda lp, d, s: f"{_join(lp, '.')} {{at}} {d} {{dot}} {s.replace('.', ' {dot} ')}",
    lambda lp, d, s: f"{_join(lp, ' dot ')} at {d}.{s}",
    lambda lp, d, s: f"{_join(lp, '.')} at sign {d} full stop {s.replace('.', ' full stop ')}",
    lambda lp, d, s: f"{_join(lp, '.')} <at> {d} <dot> {s.replace('.', ' <dot> ')}",
    lambda lp, d, s: f"{_join(lp, '.')}@{d} dot {s.replace('.', ' dot ')}",
    lambda lp, d, s: f"{_join(lp, '.').upper()} AT {d.upper()}.{s.upper()}",
    lambda lp, d, s: f"{_join(lp, '.')} at {d} . {s.replace('.', ' . ')}",
    lambda lp, d, s: f"{_join(lp, '.')} @ {d} . {s.replace('.', ' . ')}",
    lambda lp, d, s: f"{_join(lp, '.')} at the {d} dot {s.replace('.', ' dot ')} address",
]


def _ie_or_uk_phone(rng: random.Random) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return "08" + rng.choice("35679") + "".join(str(rng.randint(0, 9)) for _ in range(7))
    if kind == 1:
        return "01" + str(rng.randint(2, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(6))
    if kind == 2:
        return "07" + rng.choice("4589") + "".join(str(rng.randint(0, 9)) for _ in range(8))
    if kind == 3:
        return "020" + rng.choice("378") + "".join(str(rng.randint(0, 9)) for _ in range(7))
    return (
        "0"
        + rng.choice(["21", "61", "91", "51", "71", "404", "66", "98"])
        + "".join(str(rng.randint(0, 9)) for _ in range(6 if kind == 4 else 7))
    )


def _words(digits: str, zero: str = "zero", doubles: bool = False) -> str:
    out: list[str] = []
    k = 0
    while k < len(digits):
        d = digits[k]
        word = zero if d == "0" else DIGITS[int(d)]
        if doubles and k + 2 < len(digits) and digits[k + 1] == d == digits[k + 2]:
            out.append("triple " + word)
            k += 3
        elif doubles and k + 1 < len(digits) and digits[k + 1] == d:
            out.append("double " + word)
            k += 2
        else:
            out.append(word)
            k += 1
    return " ".join(out)


def _groups(d: str) -> list[str]:
    if d.startswith(("01", "020")):
        cut = 2 if d.startswith("01") else 3
        return [d[:cut], d[cut : cut + 4], d[cut + 4 :]]
    return [d[:3], d[3:6], d[6:]]


def _uk(d: str) -> bool:
    return d.startswith(("07", "020"))


def _country(d: str) -> str:
    return "44" if _uk(d) else "353"


def _country_words(d: str) -> str:
    return "four four " if _uk(d) else "three five three "


PHONE_STYLES: list[Callable[[str], str]] = [
    lambda d: _words(d, "oh"),
    lambda d: _words(d, "zero"),
    lambda d: _words(d, "oh", doubles=True),
    lambda d: d[:3] + " " + _words(d[3:]),
    lambda d: ".".join(_groups(d)),
    lambda d: "(" + _groups(d)[0] + ") " + "-".join(_groups(d)[1:]),
    lambda d: " ".join(d),
    lambda d: "/".join([_groups(d)[0], "".join(_groups(d)[1:])]),
    lambda d: "plus " + _country_words(d) + _words(d[1:]),
    lambda d: "+" + _country(d) + "-" + _groups(d)[0].lstrip("0") + "-" + "-".join(_groups(d)[1:]),
    lambda d: " - ".join(_groups(d)),
    lambda d: _words(d[:3], "oh") + " " + " ".join(_groups(d)[1:]),
    lambda d: ", ".join(_words(g, "oh") for g in _groups(d)),
    lambda d: _words(d, "nought", doubles=True),
]  # fmt: skip


def _law_decoys(rng: random.Random) -> list[str]:
    """Short sentences and article titles of the 49 acts, typed as chat."""
    pieces: list[str] = []
    for path in sorted(ACTS.glob("*.json")):
        act = json.loads(path.read_text("utf-8"))
        short = str(act.get("id", path.stem))
        for article in act.get("articles", []):
            title = str(article.get("title") or "").strip()
            if 8 <= len(title) <= 90:
                pieces.append(
                    f"what does article {article.get('number')} of the {short} say about {title}"
                )
            for para in str(article.get("text") or "").split("\n"):
                para = re.sub(r"^\(?[0-9a-z]{1,4}[.)]\s+", "", para.strip())
                if 50 <= len(para) <= 180 and not re.search(r"\d{4}/\d+|http", para):
                    pieces.append(para)
    rng.shuffle(pieces)
    typed: list[str] = []
    for k, piece in enumerate(pieces[: 2 * DECOYS_PER_HALF]):
        style = k % 4
        if style == 0:
            typed.append(piece.lower())
        elif style == 1:
            typed.append(piece.upper())
        elif style == 2:
            typed.append("does this apply to me: " + piece)
        else:
            typed.append(piece)
    return typed


def build(packages: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rng = random.Random(SEED)
    first, last = pools(packages)
    halves = {
        "first": _halves(first, rng),
        "last": _halves(last, rng),
        "lower_t": _halves(LOWER_TEMPLATES, rng),
        "caps_t": _halves(CAPS_TEMPLATES, rng),
        "title_t": _halves(TITLE_TEMPLATES, rng),
        "email_t": _halves(EMAIL_TEMPLATES, rng),
        "email_s": _halves(EMAIL_STYLES, rng),
        "domains": _halves(DOMAINS, rng),
        "phone_t": _halves(PHONE_TEMPLATES, rng),
        "phone_s": _halves(PHONE_STYLES, rng),
    }
    decoys = _law_decoys(rng)
    out: list[list[dict[str, Any]]] = [[], []]
    for side, split in ((0, "dev"), (1, "heldout")):
        h = {k: v[side] for k, v in halves.items()}
        r = random.Random(SEED + side)

        def names(r: random.Random = r, h: dict[str, Any] = h) -> dict[str, str]:
            f, s = r.choice(h["first"]), r.choice(h["last"])
            return {"F": f, "S": s, "N": f"{f} {s}"}

        for k in range(PER_HALF):
            t = h["lower_t"][k % len(h["lower_t"])]
            out[side].append(
                _sample(t, {k2: v.lower() for k2, v in names().items()}, "name_lower", split)
            )
        for k in range(PER_HALF):
            t = h["caps_t"][k % len(h["caps_t"])]
            out[side].append(
                _sample(t, {k2: v.upper() for k2, v in names().items()}, "name_caps", split)
            )
        for k in range(PER_HALF):
            t = h["title_t"][k % len(h["title_t"])]
            out[side].append(_sample(t, names(), "name_title", split))
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
