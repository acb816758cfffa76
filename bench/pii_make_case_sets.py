"""Generate the "as people type" PII sets (``tests/fixtures/pii/case_sets/*.json``, issue 25).

    .venv/bin/python bench/pii_make_case_sets.py

Deterministic (fixed seed), presidio-research JSON format (``full_text``, ``spans``), with
``metadata = {"class", "split", "values"}``. Classes, at least 200 values each per file pair:

* ``name_lower``: names typed all in lower case, in chat phrasing ("my name is", "i'm",
  "for my client", greetings, sign-offs, next to a phone or PPSN, mid-sentence);
* ``name_upper``: names in capitals (whole message shouted, or a name in capitals in mixed text,
  form-style "NAME: ...");
* ``name_sentence_start``: title-case names right after a sentence-initial function word or
  verb ("Can Aoife Doyle claim ...") — the span must be the name alone;
* ``email_spelled``: e-mail addresses with "at"/"dot" in words, brackets, braces, dashes,
  underscores or spaces;
* ``phone_spelled``: IE/UK phone numbers written with words ("oh eight seven", "double four"),
  or with dots, slashes, dashes, brackets and odd groupings;
* ``decoy``: tax and legal questions typed the same ways (lower case, capitals, cue phrases
  such as "i am self-employed", "signed the contract", numbers in words) with **no** PII:
  every finding there is a false positive.

**Independence from the detector.** The name lists below are written by hand for this set
(common Irish, UK, Polish, Lithuanian, Romanian, Brazilian, Nigerian, Indian and Chinese names
as seen in Ireland), not taken from Faker, whose lists the detector's lexicon is built from;
``bench/pii_case_eval.py`` reports how many of them the detector's lexicon happens to contain.
Some surnames are deliberately English words too ("Power", "King", "White", "Moore").

**Held-out part.** Names, e-mail domains and sentence templates are each split in two disjoint
halves before any sample is made: ``dev.json`` uses one half, ``heldout.json`` the other, so a
rule tuned on dev errors cannot have seen a held-out name or template. The held-out file is
generated once and frozen (its sha256 is in ``README.md`` beside it); tuning reads only dev
errors (``bench/pii_case_eval.py --errors`` refuses the held-out file).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "pii" / "case_sets"
SEED = 2025

FIRST = """
Aoife Siobhan Niamh Ciara Saoirse Caoimhe Orla Sinead Roisin Grainne Aisling Clodagh Deirdre
Eimear Fionnuala Maeve Nuala Mairead Brid Sorcha Ailbhe Blathnaid Dearbhla Eabha Laoise Muireann
Riona Sadhbh Treasa Una Sean Padraig Ciaran Cian Oisin Darragh Eoin Fionn Liam Conor Cathal Colm
Diarmuid Donal Eamon Fergal Lorcan Niall Ronan Ruairi Tadhg Cormac Dara Enda Feidhlim Odhran
Peadar Senan Tomas Mary John Patrick Michael Margaret Catherine Anne Bridget Joseph Thomas James
David Sarah Emma Laura Rachel Karen Paul Declan Brendan Kevin Gerard Noel Martin Eileen Kathleen
Maureen Teresa Fiona Claire Louise Joanne Gillian Shane Alan Keith Colin Graham Derek
Piotr Katarzyna Agnieszka Tomasz Marta Joanna Lukasz Magdalena Krzysztof Rafael Mariana Thiago
Larissa Chinedu Ngozi Oluwaseun Chiamaka Emeka Priya Arjun Ananya Rohan Andrei Ioana Mihai
Jurgita Darius Egle Wei Mei Xiaoling Jiahui
""".split()

SURNAMES = """
Murphy Kelly O'Sullivan Walsh Smith O'Brien Byrne Ryan O'Connor O'Neill O'Reilly Doyle McCarthy
Gallagher O'Doherty Kennedy Lynch Murray Quinn Moore McLoughlin O'Carroll Connolly Daly O'Connell
Wilson Dunne Brennan Burke Collins Campbell Clarke Johnston Hughes O'Farrell Fitzgerald Brown
Maguire Nolan Flynn Thompson O'Callaghan O'Donnell Duffy O'Mahony Boyle Healy O'Shea White
Sweeney Hayes Kavanagh Power McGrath Moran Brady Stewart Casey Foley Fitzpatrick O'Leary
McDonnell MacMahon Donnelly Regan Donovan Burns Flanagan Mullan Barry Kane Robinson Cunningham
Griffin Kenny Sheehan Ward Whelan Lyons Reid Higgins Cullen Keane King Maher McKenna Bell Scott
Hogan Keogh Magee McCann Tierney Corcoran Dwyer Mulligan Nagle Kowalski Nowak Wisniewska Wojcik
Kaminska Lewandowski Zielinska Silva Santos Oliveira Pereira Costa Okafor Adeyemi Okonkwo Eze
Nwosu Sharma Patel Iyer Reddy Nair Popescu Ionescu Dumitru Kazlauskas Petrauskiene Zhang Wang
Liu Chen
""".split()

DOMAINS = """
gmail.com outlook.com hotmail.com yahoo.co.uk eircom.net icloud.com outlook.ie yahoo.ie
live.ie protonmail.com btinternet.com mail.com doylesolicitors.ie kellyaccountants.ie
corkcoco.ie tcd.ie ucd.ie hse.ie murphyandco.com byrnetax.co.uk
""".split()

# Phrasings of a name in chat; {n} is the name (as the class writes it), {f} a first name only.
NAME_TEMPLATES = [
    "my name is {n} and i want to know if i can claim the rent tax credit",
    "hi, i'm {n}. do i need to register for vat if i sell on etsy?",
    "i am {n}, how much prsi do i pay as a self-employed carpenter",
    "for my client {n}, is the gift from her mother exempt from cat?",
    "can you tell me if {n} can claim the home carer credit",
    "{n} here, quick question about usc on my occupational pension",
    "thanks for the help so far. regards, {n}",
    "hello, this is {n} from cork, what is the vat rate on takeaway coffee",
    "my wife {n} works part time, can we transfer the standard rate band",
    "my accountant {n} says i owe cgt on the shares, is that right",
    "does {n} need to file a form 11 if he has a small rental income",
    "{n} (ppsn 1234567t) wants to claim the disability allowance",
    "i'm writing on behalf of {n} about her state pension contributions",
    "dear revenue, {n} again. my tax credits look wrong this year",
    "is {n} entitled to jobseekers benefit after being let go",
    "my mother {n} moved into a nursing home, how does fair deal work",
    "please reply to {n} on 087 123 4567 about the refund",
    "the landlord {n} won't register the tenancy with the rtb",
    "i work for {n} as a childminder, do i need to pay tax",
    "hey it's {n} again, what about the small benefit exemption?",
    "signed {n}, director",
    "my son {n} starts college in september, can i claim tuition fees relief",
    "contact person: {n}, phone 01 234 5678",
    "call me {n}. is the bike to work scheme taxable",
    "my business partner {n} wants to close the company, what happens to vat",
    "i am {n} and i moved here from poland last year, am i tax resident",
    "the employer {n} didn't give me a p60, what do i do",
    "good morning, {n} speaking, how do i appeal a local property tax valuation",
    "{n} and i are getting married in june, should we opt for joint assessment",
    "cheers, {n}",
    "my late father {n} left me a house, what cat threshold applies",
    "our tenant {n} stopped paying rent, is that income still taxable",
]
# Names in capitals inside otherwise ordinary text or forms (the name is given in capitals).
UPPER_ONLY_TEMPLATES = [
    "NAME: {n}\nPPSN: on file\nQuestion: can I claim the medical expenses relief?",
    "Client {n} wants to know if the remote working relief applies to her.",
    "I'm {n}, is the Help to Buy scheme still open?",
    "From: {n}. Subject: PAYE refund for 2023",
    "Applicant: {n} - query about Working Family Payment",
    "Hi, {n} here. What is the VAT rate on electricity?",
    "Does {n} qualify for the Fuel Allowance this winter?",
    "My employer {n} LTD is a different thing, but I am {n} personally.",
]
# A title-case name right after a sentence-initial function word or verb: the span must be the
# name only. {n} is "First Last", {f} the first name.
START_TEMPLATES = [
    "Can {n} claim the home carer credit?",
    "Does {n} need to register for VAT?",
    "Will {n} pay CGT on the sale of the site?",
    "Should {n} opt for joint assessment?",
    "Is {n} entitled to the state pension?",
    "Has {n} filed her Form 11 yet?",
    "If {n} sells the house, is it exempt?",
    "When {n} retires, what happens to the pension?",
    "Could {n} get the rent tax credit?",
    "May {n} claim relief for the nursing home?",
    "Would {n} be taxed on the gift?",
    "Did {n} overpay USC last year?",
    "Tell {n} the deadline is 31 October.",
    "Ask {n} whether the invoice included VAT.",
    "Thanks {f}, that helps with the PRSI question.",
    "Since {n} moved abroad, is she still tax resident?",
    "Although {n} works from home, can she claim expenses?",
    "Why does {n} pay emergency tax?",
    "How much can {n} earn before losing the allowance?",
    "Where should {n} send the appeal?",
    "After {n} died, who files the final return?",
    "Because {n} is self-employed, does he pay Class S?",
    "Send {n} the form for the refund.",
    "Does Ms {l} qualify for the carer's allowance?",
]
EMAIL_FORMS = [
    "{u} at {d}",
    "{u} at {d_dot}",
    "{u_dot} at {d_dot}",
    "{u} AT {d_DOT}",
    "{u} (at) {d_pdot}",
    "{u}(at){d}",
    "{u} [at] {d_bdot}",
    "{u} {{at}} {d_cdot}",
    "{u} -at- {d_ddot}",
    "{u} _at_ {d}",
    "{u} @ {d_sdot}",
    "{u_dot} [at] {d_bdot}",
    "{u} <at> {d}",
    "{u} at {d_sdot}",
]
EMAIL_TEMPLATES = [
    "you can email me at {e} if you need the receipts",
    "my email is {e}",
    "send the form to {e} please",
    "contact: {e}",
    "reach my accountant on {e} about the vat return",
    "email {e} and ask for the p60",
    "my work address is {e}, the personal one is private",
    "reply to {e}, thanks",
    "is it safe to send my ppsn to {e}?",
    "(email: {e})",
]
PHONE_TEMPLATES = [
    "call me on {p} about the refund",
    "my number is {p}",
    "phone {p} after six",
    "text {p} if revenue needs more details",
    "mobile: {p}",
    "you can reach my accountant at {p}",
    "ring {p} and ask for the payroll office",
    "my landline is {p} and i'm in most mornings",
    "whatsapp {p}",
    "the number they gave me was {p}, is that revenue?",
]
DIGIT_WORDS = "zero one two three four five six seven eight nine".split()
DECOYS = [
    "i am self-employed and my name is on the lease, can i claim the rent tax credit",
    "I AM A PAYE WORKER, DO I PAY USC ON MY BONUS?",
    "for my client's company, is vat due on exports to the uk",
    "i signed the contract in may, when is the stamp duty due",
    "dear sir or madam, what is the vat rate on children's clothes",
    "hello, can i claim the home carer tax credit",
    "my name is on the deeds but my brother paid the mortgage",
    "i'm retiring in june, how is the lump sum taxed",
    "MY EMPLOYER PAYS CLASS A PRSI, WHAT DO I PAY?",
    "i am married with two children, what tax credits do i get",
    "regards the vat rate on hot food, is it 13.5%?",
    "signed up for the bike to work scheme, is it a benefit in kind",
    "the rate was nine at the start and twenty-three at the end",
    "look it up at revenue dot ie under paye services",
    "we meet at noon at the tax office on dame street",
    "one, two or three children: does the credit change?",
    "zero-rated goods at the point of export",
    "section four hundred and seventy-two of the taxes consolidation act",
    "eight per cent of 12,000 is 960",
    "CAN I CLAIM RELIEF ON MEDICAL EXPENSES FOR MY MOTHER?",
    "is the state pension taxable if i have no other income",
    "my client is a sole trader, does he need a tax clearance certificate",
    "as director i signed the annual return, am i liable",
    "hi there, what is the cat threshold for a gift from a parent",
    "good morning, is the fuel allowance means tested",
    "i'm a nurse working nights, can i claim flat rate expenses",
    "DOES THE HELP TO BUY SCHEME APPLY TO SELF-BUILDS?",
    "the article 5 prohibitions of the ai act apply from 2 february 2025",
    "under gdpr article 6 what is a lawful basis",
    "REGULATION (EU) 2024/1689 ARTICLE 50 TRANSPARENCY OBLIGATIONS",
    "mary's view in the tax appeals commission was overturned",
    "is the grant from the arts council taxable",
    "i am in receipt of jobseekers allowance, can i work two days",
    "my partner and i are cohabiting, can we be jointly assessed",
    "how do i register as an employer with revenue",
    "what's the deadline for the form 11 at pay and file",
    "is vat charged at 23% on legal fees",
    "the tenant pays rent of one thousand two hundred a month",
    "ALL EMPLOYEES MUST BE REGISTERED FOR PRSI CLASS A",
    "the court of justice ruled in case c-372/20",
    "I AM SELF EMPLOYED. DO I PAY PRELIMINARY TAX?",
    "can the carer's allowance and the carer's benefit be paid together",
    "dot the i's and cross the t's on the form 12",
    "email the tax office at the address on the letter",
    "call the helpline between nine and five",
    "phone revenue or use myaccount",
    "the lodgement was 1,234.56 on 12.03.2024",
    "ref: 2024/0123/45 dated 01/02/2024",
    "p.o. box numbers are not accepted",
    "is the lump sum of 200,000 tax free",
    "grace period for late filing is five days",
    "hope you can help with the vat on second-hand cars",
    "will the rate change in budget 2026",
    "mark the box for the single person child carer credit",
    "can i pay the balance at the post office",
    "rose by 2% in 2024 and by one percent in 2025",
    "MAY I CLAIM TUITION FEES RELIEF FOR A PART-TIME COURSE?",
    "frank question: is crypto taxed as cgt or income",
    "bill of costs from the solicitor included vat",
    "joy, the refund arrived, thanks",
]

_PARTS = {"dot": ".", "at": "@"}


def _split(items: list[str], rng: random.Random) -> tuple[list[str], list[str]]:
    shuffled = items[:]
    rng.shuffle(shuffled)
    return shuffled[0::2], shuffled[1::2]


# Identifiers some templates put next to a name: labelled too, as the detector must find them.
_FIXED = (("087 123 4567", "PHONE_NUMBER"), ("01 234 5678", "PHONE_NUMBER"), ("1234567T", "PPSN"))


def _sample(text: str, values: list[tuple[str, str]], cls: str, split: str) -> dict[str, Any]:
    spans = []
    cursor = 0
    found = []
    for value, entity in values:
        start = text.index(value, cursor)
        found.append((start, value, entity))
        cursor = start + len(value)
    for value, entity in _FIXED:
        at = text.upper().find(value.upper())
        if at != -1:
            found.append((at, text[at : at + len(value)], entity))
    values = [(v, e) for _, v, e in sorted(found)]
    cursor = 0
    for value, entity in values:
        start = text.index(value, cursor)
        spans.append(
            {
                "entity_type": entity,
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
        "metadata": {"class": cls, "split": split, "values": [v for v, _ in values]},
    }


def _fill(template: str, name: str, first: str, last: str) -> tuple[str, str]:
    """The text and the name as it appears in it (only ``{n}``, ``{f}`` or ``{l}`` is used)."""
    if "{f}" in template:
        return template.replace("{f}", first), first
    if "{l}" in template:
        return template.replace("{l}", last), last
    return template.replace("{n}", name), name


def _names(rng: random.Random, first: list[str], last: list[str]) -> tuple[str, str, str]:
    f, s = rng.choice(first), rng.choice(last)
    roll = rng.random()
    if roll < 0.7:
        return f"{f} {s}", f, s
    if roll < 0.85:
        return f, f, s
    return f"{f} {rng.choice('ABCDEFGHJKLMNPRST')}. {s}", f, s


def name_lower(
    rng: random.Random, first: list[str], last: list[str], templates: list[str], split: str, n: int
) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        name, f, s = _names(rng, first, last)
        template = templates[i % len(templates)]
        text, value = _fill(template, name.lower(), f.lower(), s.lower())
        out.append(_sample(text, [(value, "PERSON")], "name_lower", split))
    return out


def name_upper(
    rng: random.Random,
    first: list[str],
    last: list[str],
    templates: list[str],
    upper_templates: list[str],
    split: str,
    n: int,
) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        name, f, s = _names(rng, first, last)
        if i % 2 == 0:
            text, value = _fill(templates[i % len(templates)], name, f, s)
            text, value = text.upper(), value.upper()
        else:
            template = upper_templates[i % len(upper_templates)]
            text, value = _fill(template, name.upper(), f.upper(), s.upper())
        out.append(_sample(text, [(value, "PERSON")] * text.count(value), "name_upper", split))
    return out


def name_start(
    rng: random.Random, first: list[str], last: list[str], templates: list[str], split: str, n: int
) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        f, s = rng.choice(first), rng.choice(last)
        text, value = _fill(templates[i % len(templates)], f"{f} {s}", f, s)
        out.append(_sample(text, [(value, "PERSON")], "name_sentence_start", split))
    return out


def _local_part(rng: random.Random, f: str, s: str) -> str:
    f, s = f.lower(), s.lower().replace("'", "")
    return rng.choice(
        [
            f"{f}.{s}",
            f"{f[0]}{s}",
            f"{f}_{s}{rng.randint(1, 99)}",
            f"{f}{s}",
            f"{s}.{f[0]}",
            f"{f}.{s}{rng.randint(70, 99)}",
        ]
    )


def _spell(form: str, local: str, domain: str) -> str:
    labels = domain.split(".")
    return form.format(
        u=local,
        u_dot=local.replace(".", " dot "),
        d=domain,
        d_dot=" dot ".join(labels),
        d_DOT=" DOT ".join(labels),
        d_pdot=" (dot) ".join(labels),
        d_bdot=" [dot] ".join(labels),
        d_cdot=" {dot} ".join(labels),
        d_ddot=" -dot- ".join(labels),
        d_sdot=" . ".join(labels),
    )


def email_spelled(
    rng: random.Random,
    first: list[str],
    last: list[str],
    domains: list[str],
    forms: list[str],
    templates: list[str],
    split: str,
    n: int,
) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        local = _local_part(rng, rng.choice(first), rng.choice(last))
        if "." not in local and forms[i % len(forms)].startswith("{u_dot}"):
            local = local.replace("_", ".")
        value = _spell(forms[i % len(forms)], local, rng.choice(domains))
        text = templates[i % len(templates)].replace("{e}", value)
        out.append(_sample(text, [(value, "EMAIL_ADDRESS")], "email_spelled", split))
    return out


def _phone_digits(rng: random.Random) -> list[str]:
    kind = rng.random()
    if kind < 0.5:  # IE mobile
        return [
            f"08{rng.choice('35679')}",
            f"{rng.randint(0, 999):03d}",
            f"{rng.randint(0, 9999):04d}",
        ]
    if kind < 0.7:  # Dublin landline
        return ["01", f"{rng.randint(200, 999):03d}", f"{rng.randint(0, 9999):04d}"]
    if kind < 0.85:  # regional landline
        area = rng.choice(["021", "061", "091", "051", "071", "066"])
        return [area, f"{rng.randint(200, 999):03d}", f"{rng.randint(0, 9999):04d}"]
    return ["07700", "900", f"{rng.randint(0, 999):03d}"]  # UK mobile (Ofcom drama range)


def _in_words(digits: str, rng: random.Random, oh: bool) -> str:
    words: list[str] = []
    i = 0
    while i < len(digits):
        d = digits[i]
        if i + 1 < len(digits) and digits[i + 1] == d and rng.random() < 0.4:
            words.append(f"double {DIGIT_WORDS[int(d)] if d != '0' or not oh else 'oh'}")
            i += 2
            continue
        words.append("oh" if d == "0" and oh else DIGIT_WORDS[int(d)])
        i += 1
    return " ".join(words)


def _write_phone(groups: list[str], style: int, rng: random.Random) -> str:
    digits = "".join(groups)
    intl = groups[0][1:] if groups[0] != "07700" else "7700"
    code = "44" if groups[0] == "07700" else "353"
    styles = [
        lambda: ", ".join(_in_words(g, rng, oh=True) for g in groups),
        lambda: " ".join(_in_words(g, rng, oh=False) for g in groups),
        lambda: f"{_in_words(groups[0], rng, oh=True)} {' '.join(groups[1:])}",
        lambda: ".".join(groups),
        lambda: "/".join([groups[0], "".join(groups[1:])]),
        lambda: "-".join(groups),
        lambda: f"({groups[0]}) {''.join(groups[1:])}",
        lambda: f"+{code} (0) {intl} {' '.join(groups[1:])}",
        lambda: f"00{code} {intl} {' '.join(groups[1:])}",
        lambda: f"+{code}-{intl}-{'-'.join(groups[1:])}",
        lambda: " ".join(digits),
        lambda: (
            f"{groups[0]} {digits[len(groups[0]) :][:2]} {digits[len(groups[0]) + 2 :][:2]}"
            f" {digits[len(groups[0]) + 4 :]}"
        ),
        lambda: f"{groups[0]} {_in_words(''.join(groups[1:]), rng, oh=True)}",
        lambda: (
            f"plus {' '.join(DIGIT_WORDS[int(c)] for c in code)} {_in_words(intl, rng, oh=False)}"
            f" {' '.join(groups[1:])}"
        ),
    ]
    return styles[style % len(styles)]()


def phone_spelled(
    rng: random.Random, styles: list[int], templates: list[str], split: str, n: int
) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        value = _write_phone(_phone_digits(rng), styles[i % len(styles)], rng)
        text = templates[i % len(templates)].replace("{p}", value)
        out.append(_sample(text, [(value, "PHONE_NUMBER")], "phone_spelled", split))
    return out


def decoys(templates: list[str], split: str) -> list[dict[str, Any]]:
    """Each decoy as typed in lower case, in capitals and in sentence case."""
    forms = {v for t in templates for v in (t.lower(), t.upper(), t[:1].upper() + t[1:].lower())}
    return [_sample(t, [], "decoy", split) for t in sorted(forms)]


def build() -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(SEED)
    first = _split(FIRST, rng)
    last = _split(SURNAMES, rng)
    domains = _split(DOMAINS, rng)
    name_t = _split(NAME_TEMPLATES, rng)
    upper_t = _split(UPPER_ONLY_TEMPLATES, rng)
    start_t = _split(START_TEMPLATES, rng)
    email_f = _split(EMAIL_FORMS, rng)
    email_t = _split(EMAIL_TEMPLATES, rng)
    phone_t = _split(PHONE_TEMPLATES, rng)
    phone_s = _split([str(i) for i in range(14)], rng)
    decoy_t = _split(DECOYS, rng)
    out: dict[str, list[dict[str, Any]]] = {}
    for k, split, n in ((0, "dev", 240), (1, "heldout", 200)):
        out[split] = [
            *name_lower(rng, first[k], last[k], name_t[k], split, n),
            *name_upper(rng, first[k], last[k], name_t[k], upper_t[k], split, n),
            *name_start(rng, first[k], last[k], start_t[k], split, n),
            *email_spelled(rng, first[k], last[k], domains[k], email_f[k], email_t[k], split, n),
            *phone_spelled(rng, [int(s) for s in phone_s[k]], phone_t[k], split, n),
            *decoys(decoy_t[k], split),
        ]
    return out


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for split, samples in build().items():
        path = OUT / f"{split}.json"
        lines = ",\n".join(json.dumps(s, ensure_ascii=False) for s in samples)
        path.write_text(f"[\n{lines}\n]\n", encoding="utf-8")
        print(f"{path}: {len(samples)} samples")


if __name__ == "__main__":
    main()
