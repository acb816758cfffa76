"""Generate a third dev set for the "as people type" classes (``bench/data/pii_dev3.json``).

    .venv/bin/python bench/pii_make_dev3.py

``dev.json`` and ``dev2.json`` are saturated (F2 0.999 and 0.994) and the held-out file must not
be read while tuning, so its 42 leaked values can only be reduced by rules learnt elsewhere. This
set was written in the third pass of issue 25 (2026-11-27) and frozen (its sha256,
``25daf8c7…``, is in ADR 0046's third pass and checked by
``tests/unit/egress/test_egress_case_sets.py``) before any rule was tuned on it, from material
independent of both earlier generators:

* **Names**: hand-written first names and surnames of the communities of Ireland typed as
  people type them (Irish with and without the fada, Polish, Lithuanian, Romanian, Brazilian,
  Nigerian, Indian, Chinese, Filipino, Ukrainian, Pakistani, Spanish), minus every name of the
  first generator (either half) and of ``dev2`` — removed by set difference, never printed.
* **Templates**: chat messages written for this set: a name in the middle of a sentence with
  no cue, a surname alone after a title or in a phrase, sign-offs without a comma, two names
  joined by "and", names next to other identifiers; the same in capitals; a title-case name
  after 40 sentence-initial words of its own (adverbs, imperatives, question words).
* **E-mails**: the separators written as words too ("underscore", "dash", "hyphen"), "at sign",
  "full stop", "dotcom", markers of other languages ("arroba", "arobase", "malpa", "punto",
  "kropka", "punkt"), markers glued to words in capitals ("jdoeATgmailDOTcom"), a space-free
  bracket style, second-level suffixes ("co dot uk", "com dot br").
* **Decoys**: tax questions in lower case and capitals with the same surface cues and no PII.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

OUT = Path(__file__).resolve().parent / "data" / "pii_dev3.json"
SEED = 20261127

FIRST = """
Caoimhe Sadhbh Oisín Cillian Ciarán Éabha Róisín Clodagh Donncha Fiachra Saoirse Órla Tadhg
Bríd Eimear Muireann Daithí Colm Fionnuala Odhrán Agnieszka Małgorzata Katarzyna Grzegorz
Wojciech Przemysław Zbigniew Bożena Jadwiga Mateusz Rūta Gintarė Žydrūnas Mindaugas Vytautas
Aušra Eglė Darius Ionela Mihaela Bogdan Florin Cătălina Răzvan Andreea Dorin Thiago Luana
Gabriela Rodrigo Juliana Leandro Vinícius Larissa Chukwuemeka Ngozi Oluwaseun Adaeze Babajide
Funmilayo Ifeoma Tunde Yetunde Emeka Priyanka Venkatesh Arjun Lakshmi Suresh Deepika Rajesh
Ananya Xiaoming Jing Yan Hui Zhiwei Meiling Haruto Maricel Jericho Rosalinda Bayani Marites
Olena Oleksandr Bohdan Iryna Taras Asif Farah Imran Ayesha Bilal Nuria Iñaki Begoña Íker
""".split()
SURNAMES = """
Ní Bhriain|Ó Súilleabháin|Mac Giolla|Ó Ceallaigh|Nic Dhonnchadha|Uí Néill|Breathnach|Ó Dálaigh
|Mhic Aodha|Ó Gráda|Wiśniewska|Wójcik|Kamiński|Lewandowska|Zieliński|Szymańska|Dąbrowski
|Kozłowska|Jankowski|Mazur|Kazlauskienė|Petrauskas|Jankauskaitė|Žukauskas|Butkus|Vasiliauskas
|Popescu|Ionescu|Dumitrescu|Stoica|Constantin|Munteanu|Gheorghiu|Oliveira|Carvalho|Ferreira
|Rodrigues|Almeida|Nascimento|Gonçalves|Okonkwo|Adeyemi|Obi|Chukwu|Nwachukwu|Balogun|Eze
|Ogunleye|Adebayo|Venkataraman|Krishnan|Iyer|Patel|Subramaniam|Chaudhary|Nair|Deshpande
|Zhang|Wang|Liu|Chen|Huang|Zhao|Wu|Zhou|Dela Cruz|Santos|Reyes|Bautista|Mendoza|Villanueva
|Shevchenko|Kovalenko|Bondarenko|Tkachenko|Hussain|Qureshi|Malik|Siddiqui|Iqbal|Etxeberria
|García-López|Fernández|Moreno
""".replace("\n", "").split("|")

# Sentence-initial words (title case) before a title-case name: adverbs, imperatives,
# question words, conjunctions, interjections.
STARTERS = """Apparently Basically Honestly Obviously Luckily Unfortunately Anyway Meanwhile
Yesterday Today Tomorrow Recently Previously Now Then Still Perhaps Maybe Surely Presumably
Does Did Should Shall Must Might Would Could Has Have Had Is Was Why Where When Whose Ask Tell
Help Remind Email Phone Since Unless Though Once Because Sorry Thanks Ok Right""".split()

LOWER_TEMPLATES = [
    "{n} told me the vat rate on takeaway coffee went back to 13.5, is that right",
    "me and {n} bought a house together, which of us claims the mortgage interest relief",
    "my mate {n} says the help to buy scheme ended, can you check",
    "i work for {n} as a cleaner cash in hand, what should i do about tax",
    "we took on {n} as a childminder last month, do we register as an employer",
    "the invoice is made out to {n}, can the company still claim the vat back",
    "sent from my phone, {n}",
    "thanks a million {n}",
    "ta\n{n}",
    "best wishes {n}",
    "cheers {n}",
    "x {n}",
    "{n} 42 self employed plumber, how much preliminary tax do i owe",
    "is it true that {n} can transfer her tax credits to me",
    "the landlord is {n} and he will not register the tenancy with the rtb",
    "please forward this to {n} in payroll",
    "our new hire {n} starts monday, how do i get her on payroll",
    "quick one from {n}: is the small benefit exemption still 1,500",
    "{n} asked me whether the rent tax credit applies to digs",
    "i am writing for {n} who is in hospital, can she get a refund",
    "{n} and {m} are joint owners, how is the rental income split",
    "does the gift from {n} to her grandson count against group b",
    "cc {n} please",
    "name {n} ppsn to follow",
    "re: {n} - p45 never arrived",
    "hello its {n} again about the lpt",
    "i emailed {n} in accounts but no reply, who files the ct1",
    "signed by {n} on behalf of the company",
    "{n} (director) wants to know about the kdb",
    "a letter came for {n} from revenue, she moved out years ago",
]
SURNAME_TEMPLATES = [
    "mr {s} wont give me my p45, what can i do",
    "dr {s} charged me 80 euro, can i claim it on med1",
    "the {s} family next door rent out a room, do they pay tax on it",
    "my surname is {s}, do i need it on the form",
    "ms {s} from the tax office said to ring back",
    "mrs {s} is our landlord",
]
UPPER_EXTRA = [
    "HI, {n} HERE. DO I PAY USC ON MY PENSION",
    "FROM {n}\nHOW DO I REGISTER A BUSINESS NAME",
    "PLEASE CALL {n} ABOUT THE VAT RETURN",
    "Hi, this is {n}, quick question about the rent credit.",
    "Regards {n}",
    "Sent on behalf of {n}, Director",
]
START_TEMPLATES = [
    "{w} {n} pay tax on a car allowance?",
    "{w} {n} has two jobs, how are the credits split?",
    "{w} {n} claimed the remote working relief last year.",
    "{w} {n} can get the incapacitated child credit?",
    "{w} {n} sent the form in March.",
    "{w} {n} is leaving the country, what happens to her pension?",
]
EMAIL_STYLES = [
    "{l} at {d1} dot {d2}",
    "{l} at sign {d1} dot {d2}",
    "{l} @ {d1} full stop {d2}",
    "{l} at {d1} dotcom",
    "{l_us} at {d1} dot {d2}",
    "{l_dash} at {d1} dot {d2}",
    "{l_hyph} at {d1} dot {d2}",
    "{l_dotw} at {d1} dot co dot uk",
    "{l} arroba {d1} punto {d2}",
    "{l} arobase {d1} point {d2}",
    "{l} malpa {d1} kropka {d2}",
    "{l} at {d1} punkt {d2}",
    "{l}AT{d1}DOT{d2}",
    "{l}[at]{d1}[dot]{d2}",
    "{l}(at){d1}(dot){d2}",
    "{l} (at sign) {d1} (dot) {d2}",
    "{l} at {d1} dot com dot br",
    "{l}@{d1} dot {d2}",
    "{l} at {d1}.{d2}",
    "{l} AT {d1} . {d2}",
    "{l} {{at}} {d1} {{dot}} {d2}",
    "{l} -at- {d1} -dot- {d2}",
    "{l} at {d1} dot {d2} (no caps)",
    "{l} at {d1} d o t {d2}",
]
EMAIL_TEMPLATES = [
    "you can reach me on {e} if that's easier",
    "my address for correspondence is {e}",
    "reply to {e} please, not the work one",
    "email me: {e}",
    "send the statement to {e}",
    "{e} is my email",
]
DOMAINS = [
    ("eircom", "net"),
    ("gmail", "com"),
    ("yahoo", "ie"),
    ("outlook", "ie"),
    ("hotmail", "com"),
    ("onet", "pl"),
    ("wp", "pl"),
    ("inbox", "lt"),
    ("yahoo", "ro"),
    ("uol", "com"),
    ("icloud", "com"),
    ("proton", "me"),
    ("kilcullenplumbing", "ie"),
    ("dublinbakes", "ie"),
]
DECOYS = [
    "is the grace period for filing the form 11 still two weeks",
    "can my wife claim the home carer credit if she works part time",
    "the rate is set at twenty three percent, is that right",
    "i am self employed and registered for vat, do i charge it on exports",
    "we paid at source, do we still file",
    "will the rent credit go up in the budget",
    "mark the box for joint assessment or not",
    "look it up at revenue dot ie, section on deposit interest",
    "my son is a student, does he pay usc on a summer job",
    "THE DOT COM BOOM LEFT ME WITH LOSSES, CAN I OFFSET THEM",
    "CAN MY HUSBAND AND I BE JOINTLY ASSESSED",
    "DOES THE PAYE CREDIT APPLY TO PENSIONERS",
    "Apparently the threshold went up in January.",
    "Should Revenue be told about a gift from abroad?",
    "Does Ireland tax foreign dividends twice?",
    "Perhaps Section 481 relief applies here?",
    "how do i pay at the post office",
    "my accountant says the close company surcharge applies",
    "our tenant left and the deposit is held by the landlord",
    "the deceased's estate has a house in spain, who pays cat",
    "regards the new rules, what changed",
    "thanks, that helps a lot",
    "cheers for that",
    "i'm a sole trader with two employees",
    "me and my partner are buying a house, any reliefs",
    "the employee share scheme is called save as you earn",
    "HI, QUICK QUESTION ABOUT THE FLAT RATE EXPENSES FOR NURSES",
    "Tell me the standard rate cut-off point.",
    "Ask Revenue for a statement of liability?",
    "Unfortunately Brexit changed the vat on imports.",
    "dear sir or madam, is the bike to work scheme still 1,250",
    "x marks the spot on the form, do i sign there too",
    "cc the accountant please",
    "re: the p60 - never arrived",
    "sent from my phone",
    "the point is that the dot on the form is not a signature",
    "meet at nine dot on the hour? no, the deadline is at midnight",
    "the landlord is abroad, who withholds the 20 percent",
    "our new hire starts monday, how do we add her to payroll",
    "a letter came from revenue about the lpt",
]


def _ascii(s: str) -> str:
    import unicodedata

    folded = unicodedata.normalize("NFKD", s.replace("ł", "l").replace("Ł", "L"))
    return "".join(c for c in folded if not unicodedata.combining(c))


def _sample(text: str, values: list[str], cls: str) -> dict[str, Any]:
    spans, cursor = [], 0
    for value in values:
        start = text.index(value, cursor)
        spans.append(
            {
                "entity_type": "EMAIL_ADDRESS" if cls == "email_spelled" else "PERSON",
                "entity_value": value,
                "start_position": start,
                "end_position": start + len(value),
            }
        )
        cursor = start + len(value)
    return {
        "full_text": text,
        "masked": None,
        "spans": spans,
        "template_id": None,
        "metadata": {"class": cls, "split": "dev3", "values": values},
    }


def _pools() -> tuple[list[str], list[str]]:
    """This set's names, minus the earlier generators' (compared silently)."""
    from bench.pii_make_case_sets import FIRST as F1
    from bench.pii_make_case_sets import SURNAMES as S1
    from bench.pii_make_dev2 import FIRST as F2
    from bench.pii_make_dev2 import SURNAMES as S2

    taken = {_ascii(n).lower() for n in [*F1, *S1, *F2, *S2]}
    first = [n for n in FIRST if _ascii(n).lower() not in taken]
    last = [n for n in SURNAMES if _ascii(n).lower() not in taken]
    return first, last


def _name(rng: random.Random, first: list[str], last: list[str]) -> str:
    name = f"{rng.choice(first)} {rng.choice(last)}"
    return _ascii(name) if rng.random() < 0.5 else name


def build() -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    first, last = _pools()
    out: list[dict[str, Any]] = []
    for cls, case in (("name_lower", str.lower), ("name_upper", str.upper)):
        extra = UPPER_EXTRA if cls == "name_upper" else []
        templates = LOWER_TEMPLATES + SURNAME_TEMPLATES + extra
        for k in range(200):
            t = templates[k % len(templates)]
            names = [case(_name(rng, first, last)) for _ in range(2)]
            if "{s}" in t:
                names = [case(rng.choice(last))]
                text = t.format(s=names[0])
            else:
                text = t.format(n=names[0], m=names[1])
                names = names[: 2 if "{m}" in t else 1]
            if cls == "name_upper" and t not in UPPER_EXTRA:
                text = text.upper()
            out.append(_sample(text, names, cls))
    for k in range(200):
        t = START_TEMPLATES[k % len(START_TEMPLATES)]
        name = _name(rng, first, last)
        text = t.format(w=STARTERS[k % len(STARTERS)], n=name)
        out.append(_sample(text, [name], "name_sentence_start"))
    for k in range(216):
        style = EMAIL_STYLES[k % len(EMAIL_STYLES)]
        f, s = _ascii(rng.choice(first)).lower(), _ascii(rng.choice(last)).lower().replace(" ", "")
        d1, d2 = rng.choice(DOMAINS)
        digits = str(rng.randint(1, 99)) if rng.random() < 0.4 else ""
        l_plain = f"{f}{s}{digits}" if rng.random() < 0.5 else f"{f[0]}{s}{digits}"
        email = style.format(
            l=l_plain,
            L=l_plain.upper(),
            l_us=f"{f} underscore {s}{digits}",
            l_dash=f"{f} dash {s}{digits}",
            l_hyph=f"{f} hyphen {s}",
            l_dotw=f"{f} dot {s}",
            d1=d1,
            d2=d2,
            D1=d1.upper(),
            D2=d2.upper(),
        )
        if email.endswith(" (no caps)"):
            email = email[: -len(" (no caps)")]
        if rng.random() < 0.25:
            email = email.replace(" at ", " AT ").replace(" dot ", " DOT ")
        text = EMAIL_TEMPLATES[k % len(EMAIL_TEMPLATES)].format(e=email)
        out.append(_sample(text, [email], "email_spelled"))
    for text in DECOYS:
        out.append(_sample(text, [], "decoy"))
    return out


def main() -> int:
    samples = build()
    OUT.write_text(json.dumps(samples, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(samples)} samples -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
