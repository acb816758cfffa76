"""Places a question names, and whether the graph covers their law.

The rules graph covers Ireland, the United Kingdom (with Northern Ireland) and EU law. A question
naming another country or a US state may be about that place's own law, which the graph cannot
answer; the relevance gate (``gate.py``) decides what follows. The gazetteer is deliberately
short: the EU and EEA states (their own national law is not covered, EU law in them is), the
other countries questions most often name, and the US states. Names and adjectives match whole
words, case-insensitively, except the few that are also common words (``Polish``, ``Turkey``,
``Chad``, ``Jersey``...), which must be capitalised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

__all__ = [
    "NATIONAL_LAW_CUE",
    "Place",
    "PlaceKind",
    "find_places",
    "place_code",
]


class PlaceKind(StrEnum):
    COVERED = "covered"  # IE, UK, NI, EU
    MEMBER_STATE = "member_state"  # EU/EEA state: EU law covered, national law not
    OTHER = "other"  # any other country or a US state


#: Words that make a named member state the owner of the rule asked about ("under Polish law",
#: "Spain's digital services tax", "the Czech Civil Code"): its national law, not EU law there.
NATIONAL_LAW_CUE: Final = re.compile(
    r"\b(?:laws?|code|statutory|statute|national|tax|taxes|duty|duties|decree|legislation)\b"
    r"|\b[A-Z][a-z]+'s\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Place:
    """A place named in a question: its display name (for the refusal text) and its kind."""

    name: str
    kind: PlaceKind
    start: int
    text: str = ""  # as written in the question


# display name: (kind, spellings). Spellings are names, adjectives and short codes.
_GAZETTEER: Final[dict[str, tuple[PlaceKind, tuple[str, ...]]]] = {
    "Ireland": (PlaceKind.COVERED, ("Ireland", "Irish", "Republic of Ireland", "ROI")),
    "Northern Ireland": (PlaceKind.COVERED, ("Northern Ireland", "Northern Irish")),
    "the United Kingdom": (
        PlaceKind.COVERED,
        (
            "United Kingdom",
            "UK",
            "U.K.",
            "Britain",
            "Great Britain",
            "British",
            "England",
            "Scotland",
            "Scottish",
            "Wales",
            "HMRC",
        ),
    ),
    "the European Union": (
        PlaceKind.COVERED,
        (
            "European Union",
            "EU",
            "E.U.",
            "Europe",
            "European",
            "EEA",
            "Union law",
            "Member State",
            "Member States",
            "Union",
        ),
    ),
    "Austria": (PlaceKind.MEMBER_STATE, ("Austria", "Austrian")),
    "Belgium": (PlaceKind.MEMBER_STATE, ("Belgium", "Belgian")),
    "Bulgaria": (PlaceKind.MEMBER_STATE, ("Bulgaria", "Bulgarian")),
    "Croatia": (PlaceKind.MEMBER_STATE, ("Croatia", "Croatian")),
    "Cyprus": (PlaceKind.MEMBER_STATE, ("Cyprus", "Cypriot")),
    "Czechia": (PlaceKind.MEMBER_STATE, ("Czechia", "Czech Republic", "Czech")),
    "Denmark": (PlaceKind.MEMBER_STATE, ("Denmark", "Danish")),
    "Estonia": (PlaceKind.MEMBER_STATE, ("Estonia", "Estonian")),
    "Finland": (PlaceKind.MEMBER_STATE, ("Finland", "Finnish")),
    "France": (PlaceKind.MEMBER_STATE, ("France", "French")),
    "Germany": (PlaceKind.MEMBER_STATE, ("Germany", "German")),
    "Greece": (PlaceKind.MEMBER_STATE, ("Greece", "Greek")),
    "Hungary": (PlaceKind.MEMBER_STATE, ("Hungary", "Hungarian")),
    "Italy": (PlaceKind.MEMBER_STATE, ("Italy", "Italian")),
    "Latvia": (PlaceKind.MEMBER_STATE, ("Latvia", "Latvian")),
    "Lithuania": (PlaceKind.MEMBER_STATE, ("Lithuania", "Lithuanian")),
    "Luxembourg": (PlaceKind.MEMBER_STATE, ("Luxembourg", "Luxembourgish")),
    "Malta": (PlaceKind.MEMBER_STATE, ("Malta", "Maltese")),
    "the Netherlands": (PlaceKind.MEMBER_STATE, ("Netherlands", "Dutch", "Holland")),
    "Poland": (PlaceKind.MEMBER_STATE, ("Poland", "*Polish")),
    "Portugal": (PlaceKind.MEMBER_STATE, ("Portugal", "Portuguese")),
    "Romania": (PlaceKind.MEMBER_STATE, ("Romania", "Romanian")),
    "Slovakia": (PlaceKind.MEMBER_STATE, ("Slovakia", "Slovak")),
    "Slovenia": (PlaceKind.MEMBER_STATE, ("Slovenia", "Slovenian")),
    "Spain": (PlaceKind.MEMBER_STATE, ("Spain", "Spanish")),
    "Sweden": (PlaceKind.MEMBER_STATE, ("Sweden", "Swedish")),
    "Norway": (PlaceKind.MEMBER_STATE, ("Norway", "Norwegian")),
    "Iceland": (PlaceKind.MEMBER_STATE, ("Iceland", "Icelandic")),
    "Liechtenstein": (PlaceKind.MEMBER_STATE, ("Liechtenstein",)),
    "the United States": (
        PlaceKind.OTHER,
        ("United States", "*US", "U.S.", "USA", "America", "American", "federal law"),
    ),
    "Switzerland": (PlaceKind.OTHER, ("Switzerland", "Swiss")),
    "Canada": (PlaceKind.OTHER, ("Canada", "Canadian", "Quebec", "Ontario")),
    "Australia": (PlaceKind.OTHER, ("Australia", "Australian")),
    "New Zealand": (PlaceKind.OTHER, ("New Zealand",)),
    "China": (PlaceKind.OTHER, ("*China", "Chinese", "Hong Kong")),
    "Japan": (PlaceKind.OTHER, ("Japan", "Japanese")),
    "India": (PlaceKind.OTHER, ("India", "Indian")),
    "Brazil": (PlaceKind.OTHER, ("Brazil", "Brazilian")),
    "Mexico": (PlaceKind.OTHER, ("Mexico", "Mexican")),
    "Singapore": (PlaceKind.OTHER, ("Singapore", "Singaporean")),
    "South Korea": (PlaceKind.OTHER, ("South Korea", "Korea", "Korean")),
    "Russia": (PlaceKind.OTHER, ("Russia", "Russian")),
    "Turkey": (PlaceKind.OTHER, ("*Turkey", "Türkiye", "Turkish")),
    "South Africa": (PlaceKind.OTHER, ("South Africa", "South African")),
    "Israel": (PlaceKind.OTHER, ("Israel", "Israeli")),
    "the United Arab Emirates": (PlaceKind.OTHER, ("United Arab Emirates", "UAE", "Dubai")),
    "Saudi Arabia": (PlaceKind.OTHER, ("Saudi Arabia", "Saudi")),
    "Ukraine": (PlaceKind.OTHER, ("Ukraine", "Ukrainian")),
    "Argentina": (PlaceKind.OTHER, ("Argentina", "Argentinian")),
    "Nigeria": (PlaceKind.OTHER, ("Nigeria", "Nigerian")),
    "the Isle of Man": (PlaceKind.OTHER, ("Isle of Man", "Manx")),
    "Jersey": (PlaceKind.OTHER, ("*Jersey", "Guernsey")),
    "California": (PlaceKind.OTHER, ("California", "Californian")),
    "Texas": (PlaceKind.OTHER, ("Texas", "Texan")),
}
_US_STATES: Final = (
    "Alabama Alaska Arizona Arkansas Colorado Connecticut Delaware Florida *Georgia "
    "Hawaii Idaho Illinois Indiana Iowa Kansas Kentucky Louisiana Maine Maryland Massachusetts "
    "Michigan Minnesota Mississippi Missouri Montana Nebraska Nevada New_Hampshire New_Jersey "
    "New_Mexico New_York North_Carolina North_Dakota Ohio Oklahoma Oregon Pennsylvania "
    "Rhode_Island South_Carolina South_Dakota Tennessee Utah Vermont Virginia *Washington "
    "West_Virginia Wisconsin Wyoming"
).split()


# ISO 3166 alpha-2 codes of the gazetteer's places (the graph's own: IE, UK, NI, EU); a US state
# is "US". What a conversation's jurisdictions are written as.
_CODES: Final[dict[str, str]] = {
    "Ireland": "IE", "Northern Ireland": "NI", "the United Kingdom": "UK",
    "the European Union": "EU", "Austria": "AT", "Belgium": "BE", "Bulgaria": "BG",
    "Croatia": "HR", "Cyprus": "CY", "Czechia": "CZ", "Denmark": "DK", "Estonia": "EE",
    "Finland": "FI", "France": "FR", "Germany": "DE", "Greece": "GR", "Hungary": "HU",
    "Italy": "IT", "Latvia": "LV", "Lithuania": "LT", "Luxembourg": "LU", "Malta": "MT",
    "the Netherlands": "NL", "Poland": "PL", "Portugal": "PT", "Romania": "RO",
    "Slovakia": "SK", "Slovenia": "SI", "Spain": "ES", "Sweden": "SE", "Norway": "NO",
    "Iceland": "IS", "Liechtenstein": "LI", "the United States": "US", "Switzerland": "CH",
    "Canada": "CA", "Australia": "AU", "New Zealand": "NZ", "China": "CN", "Japan": "JP",
    "India": "IN", "Brazil": "BR", "Mexico": "MX", "Singapore": "SG", "South Korea": "KR",
    "Russia": "RU", "Turkey": "TR", "South Africa": "ZA", "Israel": "IL",
    "the United Arab Emirates": "AE", "Saudi Arabia": "SA", "Ukraine": "UA",
    "Argentina": "AR", "Nigeria": "NG", "the Isle of Man": "IM", "Jersey": "JE",
}  # fmt: skip


def place_code(place: Place) -> str:
    """The jurisdiction code of a place: ISO alpha-2, the graph's IE/UK/NI/EU, "US" for a
    US state."""
    return _CODES.get(place.name, "US")


def _compile() -> list[tuple[str, re.Pattern[str], str, PlaceKind]]:
    """(first word in lower case, pattern, place, kind) per spelling, longest spelling first."""
    entries: list[tuple[str, str, PlaceKind]] = []
    for display, (kind, spellings) in _GAZETTEER.items():
        entries += [(spelling, display, kind) for spelling in spellings]
    for state in _US_STATES:
        name = state.replace("_", " ")
        entries.append((name, name.lstrip("*"), PlaceKind.OTHER))
    compiled = []
    # Longest first, so "Northern Ireland" wins over "Ireland" and "New Mexico" over "Mexico".
    for spelling, display, kind in sorted(entries, key=lambda e: len(e[0]), reverse=True):
        exact_case = spelling.startswith("*") or (spelling.isupper() and len(spelling) <= 3)
        text = spelling.lstrip("*")
        pattern = r"(?<![\w.])" + re.escape(text) + r"(?![\w])"
        first = _WORD.match(text)
        if first is None:
            raise ValueError(f"a place's spelling must start with a letter: {spelling!r}")
        flags = 0 if exact_case else re.IGNORECASE
        compiled.append((first.group().lower(), re.compile(pattern, flags), display, kind))
    return compiled


_WORD: Final = re.compile(r"\w+")
_PATTERNS: Final = _compile()


def find_places(question: str) -> list[Place]:
    """Places named in ``question``, in order, each span counted once (longest name wins)."""
    taken: list[tuple[int, int]] = []
    found: list[Place] = []
    # A spelling can only match where its first word is a whole word of the question: the
    # question's words, read once, decide which of the ~200 patterns are run at all.
    words = {word.lower() for word in _WORD.findall(question)}
    for first, pattern, display, kind in _PATTERNS:
        if first not in words:
            continue
        for match in pattern.finditer(question):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            taken.append((match.start(), match.end()))
            found.append(Place(display, kind, match.start(), match.group()))
    found.sort(key=lambda place: place.start)
    return found
