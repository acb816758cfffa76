"""Generate the sixth dev set (``bench/data/pii_dev6.json``, issue 25, second pass h25b).

    .venv/bin/python bench/pii_make_dev6.py

Why a sixth set: after the sixth pass the dev sets leak almost nothing on lower-case names and
postcodes, while the held-out files still leak both (counts only). This set gives those two
classes fresh phrasings, written before any rule of this pass and frozen (sha256 in
``tests/unit/egress/test_egress_case_sets.py``) in a commit of its own. It is a dev set only:
the held-out files stay the earlier ones, scored once before and once after.

* **name_lower**: first names and surnames of dev4's *dev* half of the presidio dev names
  (``pii_make_dev4``'s seeded split; the held-out half is not used), typed in lower case, in
  new chat phrasings: after a cue and alone where a person stands.
* **postcode**: Eircodes from the published format (a routing-key letter of the Eircode
  alphabet and two digits, or D6W; a four-character unique identifier of the alphabet and
  digits) and UK postcodes from Royal Mail's outward forms (real postcode areas, the A9A /
  AA9A letter rules) and inward code (a digit and two letters never C I K M O V), typed as
  people type them: lower case, joined, hyphenated, two spaces, " - ", mixed case; in
  phrasings with and without an address word.
* **decoy**: lower-case chat with shapes near a postcode (tax forms, roads, quarters,
  ordinals) and English words that are names: nothing to find.
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
OUT = ROOT / "bench" / "data" / "pii_dev6.json"
SEED = 6066
PER_CLASS = 130

NAME_TEMPLATES = [
    # {F} a first name, {N} a full name, typed in lower case
    "my name is {N}, i need help with my tax return",
    "hi im {F}, quick question on the rent credit",
    "this is {N} again, did you get my last message",
    "my wife {F} works part time, can we share the credits",
    "i pay {N} for childcare every week, do i need to register",
    "{N} here, wondering about the home carer credit",
    "ok thanks\n{N}",
    "can you draft a letter for {N} about her pension",
    "my landlord {N} wont give me a receipt",
    "dear {N}, thanks for the reply",
    "me and {F} bought the house in 2019",
    "{F} wants to know if she can claim flat rate expenses",
    "does {F} need to file a form 11",
    "i told {F} about the cgt bill",
    "{N} sold the shares last year, what does she owe",
    "gave {F} 3k for the wedding is that taxable",
    "{F} and i are married, do we file jointly",
    "ask {N} if the p60 is right",
    "my son lives with {F} in galway",
    "{F} says her employer has not paid the usc",
    "how much can {F} earn before tax",
    "{N} moved to london in june, is she still resident",
    "i work with {N} who is self employed",
    "paid {N} 400 for the gutters, cash",
]
POSTCODE_TEMPLATES = [
    "whats the lpt band for {v}",
    "is {v} inside the rent pressure zone",
    "eircode {v}",
    "the house in {v} was my mothers",
    "{v} is where i live now",
    "our shop at {v} charges vat",
    "can i claim the rent credit for {v}",
    "i rent a room in {v} to a student",
    "my parents are at {v}, can they get the fuel allowance",
    "post it to {v} please",
    "new address {v}",
    "the site ({v}) was rezoned last year",
    "is council tax higher in {v}",
    "{v} - is that band d",
]
DECOYS = [
    "got my p60 then filed the form 11",
    "i drove the a1 road to work, can i claim mileage",
    "i file form p21 each year",
    "paid 2k in q3 2024 and 1k in q4",
    "my p45 from 2023 was wrong",
    "see section 2 3rd paragraph",
    "box b12 on the 2nd page",
    "the m50 toll is it deductible",
    "we have a 4g router for work",
    "grace period for the return",
    "mark the box on page 3",
    "will power aside, can i defer the payment",
    "i paid 3k in 2023 for the course",
    "the n7 and the m7 are both tolled",
    "is form ct1 due by the 23rd",
    "a 2nd home in spain, is it taxable here",
    "p11d for the company car",
    "sa100 due 31 jan",
    "my rent went up 4 pct in 2024",
    "the b1 visa and tax residence",
]

EIR_LETTERS = "ACDEFHKNPRTVWXY"
EIR_CHARS = EIR_LETTERS + "0123456789"
UK_AREAS_1 = list("BEGLMNSW")
UK_AREAS_2 = """AB AL BA BB BD BH BL BN BR BS BT CA CB CF CH CM CO CR CT CV CW DA DD DE DG DH DL DN
DT DY EC EH EN EX FK FY GL GU HA HD HG HP HR HS HU HX IG IP IV KA KT KW KY LA LD LE LL LN LS LU
ME MK ML NE NG NN NP NR NW OL OX PA PE PH PL PO PR RG RH RM SA SE SG SK SL SM SN SO SP SR SS ST
SW SY TA TD TF TN TQ TR TS TW UB WA WC WD WF WN WR WS WV YO ZE""".split()
UK_INWARD = "ABDEFGHJLNPQRSTUWXYZ"


def eircode(rng: random.Random) -> str:
    key = "D6W" if rng.random() < 0.05 else rng.choice(EIR_LETTERS) + f"{rng.randint(0, 99):02d}"
    return key + " " + "".join(rng.choice(EIR_CHARS) for _ in range(4))


def uk_postcode(rng: random.Random) -> str:
    form = rng.randrange(6)
    if form == 0:  # A9
        outward = rng.choice(UK_AREAS_1) + str(rng.randint(1, 9))
    elif form == 1:  # A99
        outward = rng.choice(UK_AREAS_1) + str(rng.randint(10, 99))
    elif form == 2:  # A9A (London)
        outward = rng.choice("WEN") + str(rng.randint(1, 9)) + rng.choice("ABCDEFGHJKPSTUW")
    elif form == 3:  # AA9
        outward = rng.choice(UK_AREAS_2) + str(rng.randint(1, 9))
    elif form == 4:  # AA99
        outward = rng.choice(UK_AREAS_2) + str(rng.randint(10, 99))
    else:  # AA9A
        outward = rng.choice(["SW", "EC", "WC", "NW", "SE"]) + str(rng.randint(1, 9))
        outward += rng.choice("ABEHMNPRVWXY")
    return f"{outward} {rng.randint(0, 9)}{rng.choice(UK_INWARD)}{rng.choice(UK_INWARD)}"


POSTCODE_VARIANTS: list[Callable[[str], str]] = [
    lambda v: v.lower(),
    lambda v: v.lower().replace(" ", ""),
    lambda v: v.lower().replace(" ", "  "),
    lambda v: v.lower().replace(" ", "-"),
    lambda v: v.lower().replace(" ", " - "),
    lambda v: v[0] + v[1:].lower(),
    lambda v: v.replace(" ", "").title(),
    lambda v: v.split(" ")[0].lower() + " " + v.split(" ")[1],
]


def build() -> list[dict[str, Any]]:
    dev4_rng = random.Random(DEV4_SEED)
    first, last = name_pools()
    first_dev = _halves(first, dev4_rng)[0]
    last_dev = _halves(last, dev4_rng)[0]
    rng = random.Random(SEED)
    out: list[dict[str, Any]] = []
    for k in range(PER_CLASS):
        template = NAME_TEMPLATES[k % len(NAME_TEMPLATES)]
        f = _ascii(rng.choice(first_dev)).lower()
        s = _ascii(rng.choice(last_dev)).lower()
        values = {"F": f, "N": f"{f} {s}"}
        out.append(_sample(template, values, "name_lower", "dev"))
    for k in range(PER_CLASS):
        template = POSTCODE_TEMPLATES[k % len(POSTCODE_TEMPLATES)]
        value = eircode(rng) if k % 2 == 0 else uk_postcode(rng)
        variant = POSTCODE_VARIANTS[(k // 2) % len(POSTCODE_VARIANTS)]
        out.append(_sample(template, {"v": variant(value)}, "postcode", "dev"))
    for text in DECOYS:
        out.append(_sample(text, {}, "decoy", "dev"))
    return out


def main() -> int:
    samples = build()
    OUT.write_text(json.dumps(samples, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(samples)} samples -> {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
