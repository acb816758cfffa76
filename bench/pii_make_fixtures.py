"""Generate the Irish/UK identifier fixture set (``tests/fixtures/pii/ie_uk.json``).

Deterministic (fixed seed), presidio-research JSON format: ``full_text`` and ``spans``. Samples
whose ``metadata.expect`` is ``"none"`` carry a checksum-invalid PPSN or IBAN that must not be
flagged; their ``metadata.value`` is the invalid identifier. A checksum-invalid PPSN in PPSN
context ("My PPSN is ...") must be flagged: the user calls it a PPSN.

    .venv/bin/python bench/pii_make_fixtures.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from stdnum import iban
from stdnum.ie import vat

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "pii" / "ie_uk.json"
EIRCODE_CHARS = "0123456789ACDEFHKNPRTVWXY"
ROUTING_KEYS = ["D02", "D04", "D6W", "D15", "T12", "H91", "V94", "A94", "K78", "F92", "R95"]
NINO_FIRST = "ABCEGHJKLMNOPRSTWXYZ"
NINO_SECOND = "ABCEGHJKLMNPRSTWXYZ"
IBAN_BANKS = {
    "IE": lambda r: "AIBK" + _digits(r, 14),
    "GB": lambda r: "NWBK" + _digits(r, 14),
    "DE": lambda r: _digits(r, 18),
    "FR": lambda r: _digits(r, 10) + "0" + _digits(r, 10) + _digits(r, 2),
    "NL": lambda r: "ABNA" + _digits(r, 10),
    "AT": lambda r: _digits(r, 16),
}
PHONE_FORMS = [
    "+353 87 {a} {b}",
    "+353 (0)87 {a} {b}",
    "00353 87 {a} {b}",
    "087 {a} {b}",
    "087-{a}-{b}",
    "(087) {a} {b}",
    "087{a}{b}",
    "+353871{a2}{b}",
    "(01) {a} {b}",
    "01 {a} {b}",
    "+353 1 {a} {b}",
    "+44 7700 900{c}",
    "07700 900{c}",
    "+44 (0)20 7946 {b}",
    "020 7946 {b}",
    "0044 20 7946 {b}",
    "+44 161 496 {b}",
    "0161 496 {b}",
    "(0161) 496 {b}",
    "07700-900-{c}",
]
TEMPLATES = {
    "PPSN": ["My PPSN is {v}.", "PPS number: {v}", "Client {v} claimed the credit", "ref {v}"],
    "IBAN_CODE": ["Pay into {v} please.", "IBAN: {v}", "The account {v} was debited."],
    "PHONE_NUMBER": ["Call me on {v}.", "Phone: {v}", "ring {v} after 6pm", "mobile {v}"],
    "EIRCODE": ["Send it to Main Street, Naas, {v}.", "Eircode {v}", "my eircode is {v}"],
    "UK_NINO": ["NI number {v}", "My National Insurance number is {v}.", "NINO: {v}"],
}


PPSN_CONTEXT_TEMPLATES = (0, 1)  # "My PPSN is", "PPS number:"


def _digits(r: random.Random, n: int) -> str:
    return "".join(r.choice("0123456789") for _ in range(n))


def ppsn(r: random.Random, *, valid: bool) -> str:
    body = _digits(r, 7)
    check = vat.calc_check_digit(body)
    if not valid:
        check = r.choice([c for c in "ABCDEFGHIJKLMNOPQRSTUVW" if c != check])
    return body + check + r.choice(["", "", "W"])


def make_iban(r: random.Random, *, valid: bool, spaced: bool) -> str:
    country = r.choice(sorted(IBAN_BANKS))
    bban = IBAN_BANKS[country](r)
    while not iban.is_valid(country + iban.calc_check_digits(country + "00" + bban) + bban):
        bban = IBAN_BANKS[country](r)  # some countries add a national check inside the BBAN
    digits = iban.calc_check_digits(country + "00" + bban)
    if not valid:
        digits = f"{(int(digits) + r.randint(1, 90)) % 97 + 2:02d}"
        if iban.is_valid(country + digits + bban):
            digits = f"{(int(digits) + 1) % 97 + 2:02d}"
    number = country + digits + bban
    assert iban.is_valid(number) is valid, number
    return " ".join(number[i : i + 4] for i in range(0, len(number), 4)) if spaced else number


def sample(template: str, entity_type: str, value: str, expect: str = "found") -> dict[str, Any]:
    text = template.format(v=value)
    start = text.index(value)
    spans = (
        [
            {
                "entity_type": entity_type,
                "entity_value": value,
                "start_position": start,
                "end_position": start + len(value),
            }
        ]
        if expect == "found"
        else []
    )
    return {
        "full_text": text,
        "masked": None,
        "spans": spans,
        "template_id": None,
        "metadata": {"expect": expect, "entity_type": entity_type, "value": value},
    }


def main() -> None:
    r = random.Random(20240101)
    out: list[dict[str, Any]] = []
    for i in range(30):
        out.append(sample(TEMPLATES["PPSN"][i % 4], "PPSN", ppsn(r, valid=True)))
        # A checksum-invalid PPSN is flagged only where the text calls it a PPSN (issue 9).
        in_context = i % 4 in PPSN_CONTEXT_TEMPLATES
        out.append(
            sample(
                TEMPLATES["PPSN"][i % 4],
                "PPSN",
                ppsn(r, valid=False),
                "found" if in_context else "none",
            )
        )
    for i in range(30):
        tpl = TEMPLATES["IBAN_CODE"][i % 3]
        out.append(sample(tpl, "IBAN_CODE", make_iban(r, valid=True, spaced=i % 2 == 0)))
        out.append(sample(tpl, "IBAN_CODE", make_iban(r, valid=False, spaced=i % 2 == 0), "none"))
    for i, form in enumerate(PHONE_FORMS * 2):
        value = form.format(a=_digits(r, 3), a2=_digits(r, 2), b=_digits(r, 4), c=_digits(r, 3))
        out.append(sample(TEMPLATES["PHONE_NUMBER"][i % 4], "PHONE_NUMBER", value))
    for i in range(20):
        code = (
            r.choice(ROUTING_KEYS)
            + r.choice([" ", ""])
            + "".join(r.choice(EIRCODE_CHARS) for _ in range(4))
        )
        out.append(sample(TEMPLATES["EIRCODE"][i % 3], "EIRCODE", code))
    for i in range(20):
        nino = r.choice(NINO_FIRST) + r.choice(NINO_SECOND) + _digits(r, 6) + r.choice("ABCD")
        if nino[:2] in {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}:
            nino = "AB" + nino[2:]
        if i % 2:
            nino = f"{nino[:2]} {nino[2:4]} {nino[4:6]} {nino[6:8]} {nino[8]}"
        out.append(sample(TEMPLATES["UK_NINO"][i % 3], "UK_NINO", nino))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(out)} samples")


if __name__ == "__main__":
    main()
