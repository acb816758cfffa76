"""What a detector returns, and the port every recogniser implements.

Entity types are plain strings so the sanitiser can name placeholders after them
(``[PERSON_1]``, ``[PPSN_1]``); the constants below are the ones Regintel's recognisers emit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "ALL_ENTITY_TYPES",
    "CREDIT_CARD",
    "DATE_OF_BIRTH",
    "EIRCODE",
    "EMAIL_ADDRESS",
    "IBAN_CODE",
    "IP_ADDRESS",
    "PASSPORT",
    "PERSON",
    "PHONE_NUMBER",
    "PPSN",
    "SECRET",
    "STREET_ADDRESS",
    "UK_BANK_ACCOUNT",
    "UK_NINO",
    "UK_POSTCODE",
    "UK_UTR",
    "US_SSN",
    "VAT_NUMBER",
    "PiiFinding",
    "Recogniser",
]

PERSON = "PERSON"
STREET_ADDRESS = "STREET_ADDRESS"
EMAIL_ADDRESS = "EMAIL_ADDRESS"
PHONE_NUMBER = "PHONE_NUMBER"
CREDIT_CARD = "CREDIT_CARD"
IBAN_CODE = "IBAN_CODE"
US_SSN = "US_SSN"
IP_ADDRESS = "IP_ADDRESS"
PPSN = "PPSN"
EIRCODE = "EIRCODE"
UK_NINO = "UK_NINO"
UK_POSTCODE = "UK_POSTCODE"
SECRET = "SECRET"
DATE_OF_BIRTH = "DATE_OF_BIRTH"
PASSPORT = "PASSPORT"
UK_UTR = "UK_UTR"
VAT_NUMBER = "VAT_NUMBER"
UK_BANK_ACCOUNT = "UK_BANK_ACCOUNT"

ALL_ENTITY_TYPES: frozenset[str] = frozenset(
    {
        PERSON,
        STREET_ADDRESS,
        EMAIL_ADDRESS,
        PHONE_NUMBER,
        CREDIT_CARD,
        IBAN_CODE,
        US_SSN,
        IP_ADDRESS,
        PPSN,
        EIRCODE,
        UK_NINO,
        UK_POSTCODE,
        SECRET,
        DATE_OF_BIRTH,
        PASSPORT,
        UK_UTR,
        VAT_NUMBER,
        UK_BANK_ACCOUNT,
    }
)


@dataclass(frozen=True, slots=True)
class PiiFinding:
    """One detected span: ``text[start:end]`` is the value, ``score`` in ``[0, 1]``."""

    entity_type: str
    start: int
    end: int
    score: float


class Recogniser(Protocol):
    """Finds spans of one or more entity types. Implementations are immutable after
    construction, so one instance may serve many threads."""

    def find(self, text: str) -> list[PiiFinding]: ...
