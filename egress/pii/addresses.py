"""Street addresses by pattern: a house number beside a street word, units, and address cues.

Three kinds of evidence, each a regex over street vocabularies of the languages Regintel's users
write in (English/Irish, and the European forms that appear in cross-border questions):

* a number and capitalised words ending in a street suffix ("12 Harcourt Road",
  "3968 Bay Street"), a street word first ("Rua do Arenque 1634", "Via delle Coste 41"), or a
  compound street name ("Søndergade 52", "Brixtonlaan 380");
* units and boxes ("Apt. 322", "Suite 578", "Unit 7194 Box 5854", "PSC 2721, Box 8637");
* after an explicit cue ("lives at", "address:", "located at"), a line that holds a number.

A finding then grows over what follows on the same line — more numbers, units, ``Co. Cork`` —
because a bare house or flat number left behind still locates the person.
"""

from __future__ import annotations

import re

from egress.pii.findings import STREET_ADDRESS, PiiFinding

_CAP = r"(?:[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’.-]*|of|the|de|la|du|do|da|dos|del|della|delle|di)"
_EN_SUFFIX = (
    r"(?:Street|St|Road|Rd|Avenue|Ave|Av|Lane|Ln|Drive|Dr|Way|Court|Ct|Place|Pl|Boulevard|Blvd"
    r"|Terrace|Tce|Crescent|Cres|Close|Square|Sq|Row|Parade|Gardens|Grove|Park|Hill|Walk|Quay"
    r"|Highway|Hwy|Pike|Circle|Cir|Trail|Mews|View|Green|Rise|Wharf|Heights|Vale|Glen|Lawn"
    r"|Lawns|Manor|Downs|Wood|Pass|Crossing|Loop|Alley|Expressway|Freeway|Parkway|Pkwy"
    r"|Plaza|Point|Ridge|Run|Spur|Track|Estate|Cottages|Villas|Rue|Street)\.?"
)
_LEAD_WORD = (
    r"(?:Rua|Avenida|Avda\.?|Av\.|Via|Viale|Vicolo|Piazza|Piazzale|Corso|Largo|Calle|Carrer"
    r"|Camino|Paseo|Plaza|Travessa|Praça|Estrada|Rue|Avenue|Allée|Chemin|Boulevard|Impasse"
    r"|Place|Quai|Route|Ulica|ul\.|Aleja|al\.|Strada|Bulevardul|Odos|Odós|Leoforos)"
)
_COMPOUND = (
    r"(?i:[^\W\d_]{2,}(?:straße|strasse|str\.|gasse|allee|platz|laan|straat|gracht|plein|gade"
    r"|vej|gatan|vägen|gata|veien|vegen|katu|kuja|polku|braut|vegur|stræti|utca|ulice|náměstí"
    r"|třída|ulica|stræde|vollen))"
    r"|(?:[A-ZÀ-ÖØ-ÞĀ-Ž][^\W\d_]+\s+)?(?i:straße|strasse|gasse|allee|platz|laan|straat|gade"
    r"|vej|gatan|gata|gate|katu|utca|tér|út|ulice|terrasse|vei|veien|vegen|u\.)"
)
_NUM = r"\d{1,5}[A-Za-z]?(?:[-/]\d{1,4})?"
_UNIT = (
    r"(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|Flat|Floor|Fl\.|P\.?\s?O\.?\s+Box|Box|PSC|CMR|Room"
    r")\s*#?\s*\d+\w*"
)
_MILITARY = r"\b(?:APO|FPO|DPO)\s+(?:AA|AE|AP)\s+\d{5}\b"

_PLAIN = r"[A-ZÀ-ÖØ-ÞĀ-Ž][^\W\d_]+\.?"
# "971 Kesk 53", "0138 Brisas 6802": postcode or number, street name, house number.
_PLAIN_STREET = re.compile(
    rf"\b\d{{3,5}}[ \t]+(?P<plain>(?:{_PLAIN}[ \t]+){{1,3}})\d{{1,4}}\b(?![/.,]\d)"
)
_STREET = re.compile(
    rf"(?:\b{_NUM},?\s+(?:{_CAP}\s+){{0,4}}{_EN_SUFFIX}(?!\w)"
    rf"|\b{_LEAD_WORD}\s+(?:{_CAP}\s+){{0,4}}?{_NUM}\b"
    rf"|\b{_COMPOUND}\s+{_NUM}\b"
    rf"|\b{_UNIT}(?:,?\s+(?:Box|{_NUM})\s*\d*)?"
    rf"|{_MILITARY})"
)
_CUE = re.compile(
    r"(?:\baddress(?:\s+is|\s*:|(?=\s+of\s))|\blives?\s+at|\bliving\s+at|\blocated\s+at|\bmoved\s+to"
    r"|\bresides?\s+at|\bship\s+to|\bdeliver\s+to)\s*",
    re.IGNORECASE,
)
# What follows a cue but is a quantity or a date, not a place: "moved to 9%", "to €2,000",
# "extended to 30 April 2025", "moved to 2025.". Percentages and dates are not house numbers.
_MONTHS = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b"
)
_QUANTITY_START = re.compile(
    rf"(?:[€£$¥]|\d[\d,.]*[ \t]?(?:%|(?i:per[ \t]?cent|percent)\b|[kKmM]\b|bn\b)"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?[ \t]+(?:of[ \t]+)?{_MONTHS}|{_MONTHS}"
    rf"|(?:19|20)\d{{2}}(?![ \t]*[A-ZÀ-ÞĀ-Ž0-9]))"
)
_CUE_TAIL = re.compile(r"[^\n.!?;]*\d[^\n!?;]*?(?=[.!?;]?\s*(?:\n\s*\n|$)|\.\s|[!?;])")
# A following line that reads like the rest of an address: town, region, country, postcode.
_NEXT_LINE = re.compile(
    r"\n[ \t]*\n?[ \t]*,?[ \t]*(?:[A-ZÀ-ÞĀ-ŽΑ-Ω0-9(][^\s,:@]*[ \t]*,?[ \t]*){1,6}"
    r"(?=\n|$|[.?!]|[ \t]+[a-z])"
)
_LINE_TAIL = re.compile(
    r"(?:,[ \t]*[A-ZÀ-ÞĀ-ŽΑ-Ω0-9(][\w'’()-]*(?:[ \t]+[A-ZÀ-ÞĀ-ŽΑ-Ω0-9(][\w'’()-]*){0,3})+"
)
# Continuation on the same line: numbers, units, "Co. Cork", a capitalised word before a number.
_TAIL = re.compile(rf"(?:,?[ \t]+(?:{_UNIT}|{_NUM}\b|Co\.\s+[A-Z]\w+|{_CAP}[ \t]+\d{{1,5}}\b))+")
_HEAD = re.compile(rf"(?:\b(?:{_NUM}|{_UNIT})[ \t]*,?[ \t]*)$")


class StreetAddressRecogniser:
    """Finds street addresses; see the module docstring for the rules.

    ``english_words`` (lower case) keeps "1997 Section 472" from reading as "number, street
    name, house number": the words between the numbers must not be common English words.
    """

    def __init__(self, english_words: frozenset[str] = frozenset()) -> None:
        self._words = english_words

    def find(self, text: str) -> list[PiiFinding]:
        spans: list[tuple[int, int, float]] = []
        matches = list(_STREET.finditer(text))
        for match in _PLAIN_STREET.finditer(text):
            plain = match["plain"].split()
            if not any(w.rstrip(".").lower() in self._words or w.isupper() for w in plain):
                matches.append(match)
        for match in matches:
            start, end = match.span()
            head = _HEAD.search(text, max(0, start - 24), start)
            if head is not None:
                start = head.start()
            tail = _TAIL.match(text, end)
            if tail is not None:
                end = tail.end()
            spans.append((start, end, 0.9))
        for cue in _CUE.finditer(text):
            if _QUANTITY_START.match(text, cue.end()):
                continue
            tail = _CUE_TAIL.match(text, cue.end())
            if tail is not None and tail.end() - cue.end() <= 160:
                spans.append((cue.end(), tail.end(), 0.7))
        return [
            PiiFinding(STREET_ADDRESS, s, self._extend(text, e), score)
            for s, e, score in _merge(text, spans)
        ]

    @staticmethod
    def _extend(text: str, end: int) -> int:
        """Grow over ", Town, Country" on the line and up to four following address lines."""
        tail = _LINE_TAIL.match(text, end)
        if tail is not None:
            end = tail.end()
        for _ in range(4):
            line = _NEXT_LINE.match(text, end)
            if line is None:
                break
            end = line.end()
        return end


_CAPITAL_GAP = re.compile(r"[ \t]+(?:(?:[A-ZÀ-ÞĀ-Ž][\w'’-]*|du|de|la|le|del|da|do)[ \t]+){1,4}")


def _merge(text: str, spans: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    """Join findings separated only by spaces, commas or a line break: one address, one span."""
    merged: list[tuple[int, int, float]] = []
    for start, end, score in sorted(spans):
        if merged:
            p_start, p_end, p_score = merged[-1]
            gap = text[p_end:start] if start > p_end else ""
            if (
                start <= p_end
                or (gap.strip(" \t,") == "" and gap.count("\n") <= 1)
                or (_CAPITAL_GAP.fullmatch(gap) is not None)
            ):
                merged[-1] = (p_start, max(p_end, end), max(p_score, score))
                continue
        merged.append((start, end, score))
    return merged
