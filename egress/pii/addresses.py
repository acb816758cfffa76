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

__all__ = [
    "WEAK_UNIT",
    "StreetAddressRecogniser",
]

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
_COMPOUND_SUFFIXED = (
    r"(?i:[^\W\d_]{2,}(?:straße|strasse|str\.|gasse|allee|platz|laan|straat|gracht|plein|gade"
    r"|vej|gatan|vägen|gata|veien|vegen|katu|kuja|polku|braut|vegur|stræti|utca|ulice|náměstí"
    r"|třída|ulica|stræde|vollen))"
)
_SEPARATE_SUFFIX = (
    r"(?i:straße|strasse|gasse|allee|platz|laan|straat|gade|vej|gatan|gata|gate|katu|utca|tér"
    r"|út|ulice|terrasse|vei|veien|vegen|u\.)"
)
_COMPOUND = rf"{_COMPOUND_SUFFIXED}|(?:[A-ZÀ-ÖØ-ÞĀ-Ž][^\W\d_]+\s+)?{_SEPARATE_SUFFIX}"
_NUM = r"\d{1,5}[A-Za-z]?(?:[-/]\d{1,4})?"
_UNIT = (
    r"(?:(?i:apt\.?|apartment|suite|ste\.|p\.?\s?o\.?\s+box|postbox|postfach|psc|cmr)"
    r"|Unit|Flat|Floor|Fl\.|Box|Room|(?i:unit)(?=\s*#?\s*\d+,?\s+(?i:box)))\s*#?\s*\d+\w*"
)
_MILITARY = r"\b(?i:APO|FPO|DPO)\s+(?i:AA|AE|AP)\s+\d{5}\b"
# A ship's line above a military postcode: "USNS Møller\nFPO AA 85844".
_SHIP = r"\b(?:USNS|USS|USNV|USCGC)\s+[^\W\d_][\w'’-]*(?=[ \t]*\n[ \t]*(?:FPO|APO|DPO)\b)"
# Lower-case text ("2613 avenida praia 1"): only the unambiguous foreign street words.
_LOWER_LEAD = r"(?i:rue|rua|rúa|calle|avenida|avda\.|ul\.)"

_PLAIN = r"[A-ZÀ-ÖØ-ÞĀ-Ž][^\W\d_]+\.?"
# "971 Kesk 53", "0138 Brisas 6802": postcode or number, street name, house number;
# "9816 214 Pavlou Drandaki": postcode, house number, street name; "2505 Heatherleigh Suite 620":
# number, street name, unit. None of the plain words may be an English word.
_PLAIN_STREETS = (
    re.compile(rf"\b\d{{3,5}}[ \t]+(?P<plain>(?:{_PLAIN}[ \t]+){{1,3}})\d{{1,4}}\b(?![/.,]\d)"),
    re.compile(
        rf"\b\d{{3,5}}[ \t]+\d{{1,4}}[A-Za-z]?[ \t]+(?P<plain>{_PLAIN}(?:[ \t]+{_PLAIN}){{0,2}})"
        r"(?=[ \t]*(?:[,;\n]|$))"
    ),
    re.compile(rf"\b{_NUM}[ \t]+(?P<plain>(?:{_PLAIN}[ \t]+){{1,3}})(?={_UNIT})"),
)
# Each alternative runs on its own so that overlapping evidence ("08428 Rue" by suffix, "Rue de
# Piétrain 371" by lead word) merges into one span instead of the first match hiding the second.
_STREETS = (
    re.compile(rf"\b{_NUM},?\s+(?:{_CAP}\s+){{0,4}}{_EN_SUFFIX}(?!\w)"),
    re.compile(rf"\b{_LEAD_WORD}\s+(?:{_CAP}\s+){{0,4}}?{_NUM}\b"),
    # "1812 Rue De La Gare", "69 Av Sidi Lakhmi": number, street word, name, no second number.
    re.compile(rf"\b{_NUM}[ \t]+(?:{_LEAD_WORD}|{_LOWER_LEAD})(?:[ \t]+{_CAP}){{1,4}}"),
    re.compile(rf"\b{_LOWER_LEAD}\s+(?:[^\W\d_]+\.?\s+){{0,4}}?{_NUM}\b"),
    re.compile(rf"\b{_UNIT}(?:,?\s+(?:(?i:box)|{_NUM})\s*\d*)?"),
    re.compile(_MILITARY),
    re.compile(_SHIP),
)
# "the corner of Grafton Street and Nassau Street": the second street needs no number.
_CORNER = re.compile(
    r"\b(?i:the\s+)?(?i:corner)\s+of\s+(?P<a>[^\n,;?!]{2,60}?)\s+(?:and|&)\s+"
    r"(?P<b>[^\W\d_][\w'’-]*(?:[ \t]+[^\W\d_][\w'’-]*){0,3}?)"
    r"(?=[ \t]*(?:[,;?!\n]|\.(?:\s|$)|$|[ \t]+(?:in|at|on|and|for|to|near|is|was|st\.?)\b))"
)
# Compound street names ("Søndergade 52", "Bundesstr. 3", "Trenerys gate 232"): a word before a
# house number, checked against the compound pattern. Scanning for the few words that precede a
# number is ~10x cheaper than trying every suffix at every word.
_BEFORE_NUMBER = re.compile(rf"(?<![\w'’-])[^\W\d_][\w'’-]*\.?(?=\s+{_NUM}\b)")
_COMPOUND_WORD = re.compile(_COMPOUND_SUFFIXED)
_SEPARATE_WORD = re.compile(_SEPARATE_SUFFIX)
_CAPITAL_BEFORE = re.compile(r"(?<![\w'’-])[A-ZÀ-ÖØ-ÞĀ-Ž][^\W\d_]+\s+$")
_NUMBER_AFTER = re.compile(rf"\s+{_NUM}\b")
_STREET_WORD = re.compile(
    rf"{_EN_SUFFIX}|{_LEAD_WORD}|{_COMPOUND}|\d|(?i:street|road|avenue|lane|court|square)",
)
_CUE = re.compile(
    r"(?:\baddress\s+of\s+[^\n.?!]{1,60}?\s+(?:is|was)\s+"
    r"|\baddress(?:\s+is|\s*:)|\blives?\s+(?:at|on)|\bliving\s+(?:at|on)|\blocated\s+at"
    r"|\bmoved\s+to|\bresides?\s+at|\bship\s+to|\bdeliver\s+to)\s*",
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
# After a cue, an address starts with a house number or with a street name and its number;
# "moved to Ireland in 2024" and "moved to section 12" do not.
_CUE_START = re.compile(
    r"(?!(?i:section|s\.|part|article|chapter|schedule|regulation|paragraph|class|band|table"
    r"|page|step|level|tier|line|item|rule|note)\s+\d)"
    rf"(?:\d|(?:{_CAP}[ \t]+){{1,4}}{_NUM}\b)"
)
_CUE_WINDOW = 240
_CUE_TAIL = re.compile(r"[^\n.!?;]*\d[^\n!?;]*?(?=[.!?;]?\s*(?:\n\s*\n|$)|\.\s|[!?;])")
# A following line that reads like the rest of an address: town, region, country, postcode.
# Lines may carry a quoting prefix ("> "); a word ends before sentence punctuation, except a
# short abbreviation ("St. Felicien").
_WORD = r"(?:[A-Z][a-z]{0,2}\.(?=[ \t]+[A-Z0-9])|[A-ZÀ-ÞĀ-ŽΑ-Ω0-9(](?:[^\s,:@?!.]|\.(?=\S))*)"
_NEXT_LINE = re.compile(
    rf"\.?[ \t]*\n[ \t>]*\n?[ \t>]*,?[ \t]*(?:{_WORD}[ \t]*,?[ \t]*){{1,6}}"
    r"(?<![ \t,])(?=[ \t]*(?:\n|$|[.?!,]|[ \t]+[a-z]))"
)
# A line with seven or more digits is a phone or account number, not a town or a postcode.
_PHONE_LIKE = re.compile(r"(?:\d[^\n\d]{0,3}){7}")
_LINE_TAIL = re.compile(
    r"(?:,[ \t]*(?:Co\.[ \t]+)?[A-ZÀ-ÞĀ-ŽΑ-Ω0-9(][\w'’()-]*"
    r"(?:[ \t]+[A-ZÀ-ÞĀ-ŽΑ-Ω0-9(][\w'’()-]*){0,3})+"
)
# Continuation on the same line: numbers, units, "Co. Cork", a capitalised word before a number.
_TAIL = re.compile(rf"(?:,?[ \t]+(?:{_UNIT}|{_NUM}\b|Co\.\s+[A-Z]\w+|{_CAP}[ \t]+\d{{1,5}}\b))+")
# After a street name, more capitalised words up to the line end ("14 Crown Street Kishiev
# Squares\n"); after a flat or suite number, the town on the same line ("Suite 215 NUNGATTA
# Australia last night").
_CAPS = r"(?:[ \t]+[A-ZÀ-ÞĀ-ŽΑ-Ω][\w'’-]*){1,3}"
_STREET_TAIL = re.compile(rf"{_CAPS}(?=[ \t]*(?:[,;\n]|$|{_UNIT}))")
_UNIT_TAIL = re.compile(rf"{_CAPS}(?=[ \t]*(?:[,;.?!\n]|$|[ \t]+[a-z]))")
# "Box 12 of the P60", "Room 2", "Unit 4": alone these are form boxes and rooms; they count
# only when they join other address evidence (merged spans keep the higher score).
_WEAK_UNIT = re.compile(r"(?:Unit|Flat|Floor|Fl\.|Box|Room)\s*#?\s*\d+\w*")
WEAK_UNIT = 0.45
_ENDS_WITH_UNIT = re.compile(rf"{_UNIT}$")
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
        matches = [m.span() for pattern in _STREETS for m in pattern.finditer(text)]
        for word in _BEFORE_NUMBER.finditer(text):
            span = self._compound(text, word.start(), word.end())
            if span is not None:
                matches.append(span)
        for pattern in _PLAIN_STREETS:
            for match in pattern.finditer(text):
                plain = match["plain"].split()
                if not any(w.rstrip(".").lower() in self._words or w.isupper() for w in plain):
                    matches.append(match.span())
        reach = -1
        for start, end in sorted(matches):
            # Inside a span already grown over it ("Flat 1, Flat 1, ..."): growing it again
            # would rescan the same tail once per match, quadratic in the length of the run.
            if end <= reach:
                continue
            head = _HEAD.search(text, max(0, start - 24), start)
            if head is not None:
                start = head.start()
            tail = _TAIL.match(text, end)
            if tail is not None:
                end = tail.end()
            more = (_UNIT_TAIL if _ENDS_WITH_UNIT.search(text, start, end) else _STREET_TAIL).match(
                text, end
            )
            if more is not None:
                end = more.end()
            weak = _WEAK_UNIT.fullmatch(text, start, end) is not None
            spans.append((start, end, WEAK_UNIT if weak else 0.9))
            reach = max(reach, end)
        for corner in _CORNER.finditer(text):
            if self._corner(corner["a"], corner["b"]):
                spans.append((corner.start(), corner.end(), 0.85))
        found = list(spans)
        for cue in _CUE.finditer(text):
            if _QUANTITY_START.match(text, cue.end()) or not _CUE_START.match(text, cue.end()):
                continue
            # A tail longer than 160 characters is refused anyway: look no further than that
            # (a line of repeated cues would otherwise be scanned to its end from every cue).
            limit = min(len(text), cue.end() + _CUE_WINDOW)
            tail = _CUE_TAIL.match(text, cue.end(), limit)
            if tail is None or tail.end() - cue.end() > 160:
                continue
            if limit < len(text) and tail.end() == limit:
                continue  # cut by the window, not by the end of the sentence
            if not any(cue.end() <= s < tail.end() for s, _, _ in found):
                spans.append((cue.end(), tail.end(), 0.7))  # nothing better: the whole line
        # Grow each span over the lines that follow, but not a span that ends inside one
        # already grown: that growth would rescan the same lines (quadratic on a long list).
        grown: list[tuple[int, int, float]] = []
        reach = -1
        for s, e, score in sorted(spans):
            if e > reach:
                e = self._extend(text, e)
                reach = e
            grown.append((s, e, score))
        spans = grown
        return [PiiFinding(STREET_ADDRESS, s, e, score) for s, e, score in _merge(text, spans)]

    @staticmethod
    def _compound(text: str, start: int, end: int) -> tuple[int, int] | None:
        """A compound street name (``text[start:end]``, the word before a number) and its number:
        "Søndergade 52", or a separate suffix with the capitalised word before it ("Trenerys gate
        232", "Piroska u. 97")."""
        if _COMPOUND_WORD.fullmatch(text, start, end) is None:
            if _SEPARATE_WORD.fullmatch(text, start, end) is None:
                return None
            before = _CAPITAL_BEFORE.search(text, max(0, start - 40), start)
            if before is not None:
                start = before.start()
        number = _NUMBER_AFTER.match(text, end)
        return None if number is None else (start, number.end())

    def _corner(self, first: str, second: str) -> bool:
        """Two streets: a number or street word in either, or both written as names."""
        if _STREET_WORD.search(first) or _STREET_WORD.search(second):
            return True
        return all(
            w[0].isupper() and w.lower() not in self._words
            for w in (first.split()[0], second.split()[0])
        )

    @staticmethod
    def _extend(text: str, end: int) -> int:
        """Grow over ", Town, Country" on the line and up to four following address lines."""
        tail = _LINE_TAIL.match(text, end)
        if tail is not None:
            end = tail.end()
        for _ in range(4):
            line = _NEXT_LINE.match(text, end)
            if line is None or _PHONE_LIKE.search(line.group()):
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
