"""Build an :class:`Instrument` from the title block every format prints.

The title block is the same three or four lines in XHTML, Formex and Akoma Ntoso: the
designation (``REGULATION (EU) 2016/679 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL``), the
date line (``of 27 April 2016``), the subject, and often ``(Text with EEA relevance)``. The
instrument's title is the citation plus the subject, so two manifestations of one act get the
same title whatever their capitalisation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from corpus.citations import parse_act_citation
from corpus.ids import celex_number, eli_uri, eurlex_url, instrument_id, parse_celex
from corpus.model import Instrument
from errors import InvalidInput

__all__ = ["KNOWN_SHORT_NAMES", "build_instrument"]

# Short names in common use that the act itself does not print (the AI Act's title says
# "(Artificial Intelligence Act)"; nobody says that). Other acts fall back to the trailing
# parenthetical of their title, e.g. "(Interoperable Europe Act)".
KNOWN_SHORT_NAMES: dict[str, str] = {
    "32016R0679": "GDPR",
    "32024R1689": "AI Act",
}
_DATE_LINE = re.compile(r"^of\s+\d{1,2}\s+\w+\s+\d{4}$", re.IGNORECASE)
_BOILERPLATE = re.compile(r"^\((?:Text with EEA relevance|Codification|Recast)\)$", re.I)
_TRAILING_NAME = re.compile(r"\(([^()]+)\)\s*$")


def build_instrument(
    title_lines: Sequence[str], *, eli: str | None = None, celex: str | None = None
) -> Instrument:
    """The instrument named by ``title_lines``; ``celex`` wins over the title when given.

    Raises :class:`errors.InvalidInput` when neither names a regulation, directive or decision.
    """
    lines = [line for line in (ln.strip() for ln in title_lines) if line]
    cited = parse_act_citation(lines[0]) if lines else None
    if celex:
        kind, year, number = parse_celex(celex)
    elif cited:
        kind, year, number = cited.kind, cited.year, cited.number
    else:
        raise InvalidInput(f"no act citation in the title: {lines[:1]!r}")
    celex = celex_number(kind, year, number)
    subject_lines = [
        line for line in lines[1:] if not _DATE_LINE.match(line) and not _BOILERPLATE.match(line)
    ]
    subject = " ".join(subject_lines)
    citation = cited.printed if cited else f"{kind.value.capitalize()} {year}/{number}"
    trailing = _TRAILING_NAME.search(subject)
    short_name = KNOWN_SHORT_NAMES.get(celex) or (trailing.group(1) if trailing else None)
    return Instrument(
        id=instrument_id(kind, year, number),
        celex=celex,
        eli=eli or eli_uri(kind, year, number),
        kind=kind,
        year=year,
        number=number,
        citation=citation,
        title=f"{citation} {subject}".strip(),
        short_name=short_name,
        source_url=eurlex_url(celex),
    )
