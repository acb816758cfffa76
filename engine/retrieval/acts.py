"""Which acts a question names, and whether the graph holds them.

:class:`ActCatalogue` is built from the graph's act nodes (``Instrument``, ``EURegulation``,
``EUDirective``, ``Statute``, ``Treaty``, ``Agreement``) and the ``instrument`` of its provisions.
An act is known by its number (``2016/679``, ``Regulation (EC) No 883/2004``) and by its names:
the short name (``GDPR``, ``AI Act``), the parenthetical of its title or name (``Artificial
Intelligence Act``, ``VAT Directive``) and a statute's own name (``Finance Act 2024``).

:meth:`ActCatalogue.mentions` finds, in a question, (1) the graph's own act names and numbers,
(2) any other act citation (``Directive 2003/88/EC``), (3) a short list of widely used names of
acts that are *not* necessarily in the graph (``DORA``, ``DSA``, ``NIS2``, ``CCPA``), each with its
number so that ingesting the act makes it known, and (4) any capitalised name ending in
``Act``/``Directive``/``Regulation``/``Code`` ("Texas Data Privacy and Security Act"), which is
a held act when it is one of the names above or **a name made of the act's own title** (issue
26, defect 11): at least two of its words, running one after the other in exactly one held
act's title (plurals and "of", "on", "the" ... aside) — at the title's start or after a word
that introduces a name ("related to", "as regards"), never inside a longer name ("distance sales
of goods" is not the Sale of Goods Directive; ADR 0087) —, and its last word the act's kind
("Payment Accounts Directive" is Directive 2014/92/EU "on the comparability of fees related to
payment accounts, ..."; an "Act" may be of any kind). A provision before the name ("Article 16
of the ...") is not part of it. A mention without an ``instrument_id`` is an act the graph does
not cover: the relevance gate refuses on it when the question names no covered act besides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from corpus.citations import find_act_citations
from graph.models import GraphNode

__all__ = [
    "ACT_LABELS",
    "EXTERNAL_ACTS",
    "ActCatalogue",
    "ActMention",
]

ACT_LABELS: Final = frozenset(
    {"Instrument", "EURegulation", "EUDirective", "EUDecision", "Statute", "Treaty", "Agreement"}
)
#: Widely used names of acts, with (year, number) for EU acts. Known only once the graph has them.
EXTERNAL_ACTS: Final[tuple[tuple[tuple[str, ...], tuple[int, int] | None], ...]] = (
    (("DORA", "Digital Operational Resilience Act"), (2022, 2554)),
    (("DSA", "Digital Services Act"), (2022, 2065)),
    (("DMA", "Digital Markets Act"), (2022, 1925)),
    (("NIS2", "NIS 2", "NIS2 Directive", "NIS Directive"), (2022, 2555)),
    (("MiFID II", "MiFID", "MiFID2"), (2014, 65)),
    (("MiFIR",), (2014, 600)),
    (("MiCA", "MiCAR", "Markets in Crypto-Assets Regulation"), (2023, 1114)),
    (("Data Act",), (2023, 2854)),
    (("Data Governance Act", "DGA"), (2022, 868)),
    (("Cyber Resilience Act", "CRA"), (2024, 2847)),
    (("CSRD", "Corporate Sustainability Reporting Directive"), (2022, 2464)),
    (("CSDDD", "CS3D", "Corporate Sustainability Due Diligence Directive"), (2024, 1760)),
    (("eIDAS", "eIDAS 2"), (2014, 910)),
    (("PSD2", "Payment Services Directive"), (2015, 2366)),
    (("ePrivacy Directive", "ePrivacy Regulation"), (2002, 58)),
    (("Working Time Directive",), (2003, 88)),
    (("Whistleblower Directive", "Whistleblowing Directive"), (2019, 1937)),
    (("Law Enforcement Directive", "LED"), (2016, 680)),
    (("EUDPR",), (2018, 1725)),
    (("Copyright Directive", "DSM Directive"), (2019, 790)),
    (("Software Directive",), (2009, 24)),
    (("AMLD", "AMLD5", "AMLD6", "Anti-Money Laundering Directive"), (2015, 849)),
    (("European Accessibility Act",), (2019, 882)),
    (("SFDR", "Sustainable Finance Disclosure Regulation"), (2019, 2088)),
    (("Product Liability Directive",), (2024, 2853)),
    # Acts a compliance question often names that the shipped graph does not hold (issue 22):
    # recognised by name, acronym or number, so the gate refuses them by name.
    (("PSD3", "PSD 3", "Payment Services Regulation", "PSR"), None),
    (("CRR", "Capital Requirements Regulation"), (2013, 575)),
    (("CRR3", "CRR 3", "CRR III"), (2024, 1623)),
    (("CRD", "CRD IV", "Capital Requirements Directive"), (2013, 36)),
    (("CRD VI", "CRD6"), (2024, 1619)),
    (("Solvency II",), (2009, 138)),
    (("EMIR",), (2012, 648)),
    (("MAR", "Market Abuse Regulation"), (2014, 596)),
    (("UCITS", "UCITS Directive"), (2009, 65)),
    (("IDD", "Insurance Distribution Directive"), (2016, 97)),
    (("PRIIPs", "PRIIPs Regulation"), (2014, 1286)),
    (("Prospectus Regulation",), (2017, 1129)),
    (("AMLR", "Anti-Money Laundering Regulation", "AML Regulation"), (2024, 1624)),
    (("AMLA Regulation",), (2024, 1620)),
    (("Pay Transparency Directive",), (2023, 970)),
    (("Batteries Regulation", "Battery Regulation"), (2023, 1542)),
    (
        ("ESPR", "Ecodesign for Sustainable Products Regulation", "Ecodesign Regulation"),
        (2024, 1781),
    ),
    (("Consumer Credit Directive", "CCD2"), (2023, 2225)),
    (("Late Payment Directive",), (2011, 7)),
    (("Consumer Rights Directive",), (2011, 83)),
    (("Unfair Commercial Practices Directive", "UCPD"), (2005, 29)),
    (("Green Claims Directive",), None),
    (("AI Liability Directive",), None),
    (("Platform Work Directive",), (2024, 2831)),
    (("European Media Freedom Act", "EMFA"), (2024, 1083)),
    (("Political Advertising Regulation",), (2024, 900)),
    (("REACH",), (2006, 1907)),
    (("Construction Products Regulation",), (2024, 3110)),
    (("Instant Payments Regulation",), (2024, 886)),
    (("FIDA", "Financial Data Access Regulation"), None),
    (("ESG Ratings Regulation",), (2024, 3005)),
    (("NIS1", "NIS 1"), (2016, 1148)),
    (("Services Directive",), (2006, 123)),
    (("E-Commerce Directive", "eCommerce Directive"), (2000, 31)),
    (("AVMSD", "Audiovisual Media Services Directive"), (2010, 13)),
    (("VAT Directive",), (2006, 112)),
    (("DAC6", "DAC7", "DAC8", "Directive on Administrative Cooperation"), (2011, 16)),
    (("ATAD", "Anti-Tax Avoidance Directive"), (2016, 1164)),
    (("Pillar Two Directive", "Minimum Tax Directive"), (2022, 2523)),
    (("Posting of Workers Directive",), (1996, 71)),
    (("SEPA Regulation",), (2012, 260)),
    (("Digital Networks Act",), None),
    (("Cyber Solidarity Act",), (2025, 38)),
    (("Critical Raw Materials Act", "CRMA"), (2024, 1252)),
    (("Chips Act",), (2023, 1781)),
    (("EHDS", "European Health Data Space"), (2025, 327)),
    (("MDR", "Medical Devices Regulation"), (2017, 745)),
    (("IVDR",), (2017, 746)),
    (("GPSR", "General Product Safety Regulation"), (2023, 988)),
    (("CBAM",), (2023, 956)),
    (("EUDR", "Deforestation Regulation"), (2023, 1115)),
    (("AIFMD",), (2011, 61)),
    (("EECC", "European Electronic Communications Code"), (2018, 1972)),
    (("Cybersecurity Act",), (2019, 881)),
    (("Machinery Regulation",), (2023, 1230)),
    (("Radio Equipment Directive", "RED"), (2014, 53)),
    (("CER Directive", "Critical Entities Resilience Directive"), (2022, 2557)),
    (("Taxonomy Regulation", "EU Taxonomy"), (2020, 852)),
    (("CCPA", "CPRA", "California Consumer Privacy Act"), None),
    (("HIPAA",), None),
    (("COPPA",), None),
    (("PIPEDA",), None),
    (("LGPD",), None),
    (("PIPL",), None),
    (("Sarbanes-Oxley", "SOX"), None),
)
_GENERIC: Final = frozenset(
    "act acts regulation regulations directive directives code convention the of on for and in "
    "eu ec eec european union general council commission new".split()
)
_LEADING: Final = frozenset(
    "what which who whom whose how does do did is are was can could may might must should would "
    "will under in on of the a an to for and or by with about explain summarise summarize "
    "describe tell please according as per if when where why".split()
)
_NAMED_ACT: Final = re.compile(
    r"\b((?:[A-Z0-9][\w’'-]*\s+(?:(?:and|of|on|for|in|the)\s+)*){1,8})"
    r"(Act|Directive|Regulation|Code)\b(\s+(?:of\s+)?(?:19|20)\d\d\b)?"
)
_PROVISION_LEAD: Final = re.compile(  # "Article 16(2) of the ", "Annex III to the "
    r"(?:(?:Articles?|Art\.?|Recitals?|Annex(?:es)?|Chapters?|Sections?|Paragraphs?|Points?)\s+"
    r"(?:\d+[a-z]?|[IVXLC]+)(?:\(\w{1,4}\))*\s+(?:(?:of|in|to|under)\s+)?(?:the\s+)?)+",
    re.IGNORECASE,
)
#: The kind a popular name ends with -> the id prefixes of acts of that kind.
_KIND_PREFIXES: Final = {
    "directive": ("EU:DIR_",),
    "regulation": ("EU:REG_",),
    "decision": ("EU:DEC_",),
    "act": ("EU:REG_", "EU:DIR_", "EU:DEC_"),
}
_BARE_NUMBER: Final = re.compile(r"\b(?P<year>(?:19|20)\d\d)/(?P<number>\d{1,4})\b")
_PARENTHETICAL: Final = re.compile(r"\(([^()]{2,80})\)\s*$")


@dataclass(frozen=True, slots=True)
class ActMention:
    """An act named in a question; ``instrument_id`` is ``None`` when the graph lacks it."""

    start: int
    end: int
    name: str
    instrument_id: str | None


_MENTIONS_KEPT = 256  # questions whose mentions an ActCatalogue keeps


def _words(text: str) -> frozenset[str]:
    return frozenset(w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _GENERIC)


def _stems(text: str) -> tuple[str, ...]:
    """Content words of ``text`` in order, a plural's ``s`` dropped ("accounts" ~ "account")."""
    words = [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _GENERIC]
    return tuple(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                 for w in words if not w.isdigit())  # fmt: skip


#: Words that may come right before an act's name inside its title ("related to payment
#: accounts", "as regards ..."): a name follows them. Any other word qualifies what follows
#: ("distance sales of goods" is not the Sale of Goods Directive): a name there is a fragment.
_BEFORE_A_NAME: Final = frozenset(
    "to as regards concerning related relating laying down establishing amending repealing "
    "supplementing with by a an".split()
)


def _holds(title: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """Whether ``words`` run in ``title`` one after the other, at its start or after a word
    that introduces a name (:data:`_BEFORE_A_NAME`), not inside a longer name."""
    return any(
        title[i : i + len(words)] == words and (i == 0 or title[i - 1] in _BEFORE_A_NAME)
        for i in range(len(title) - len(words) + 1)
    )


def _alias_pattern(alias: str) -> str:
    return r"(?<![\w-])" + re.escape(alias).replace(r"\ ", r"[\s-]*") + r"(?![\w-])"


class ActCatalogue:
    """The acts the graph holds, by number and by name (see the module docstring)."""

    def __init__(
        self, acts: Iterable[GraphNode], provision_instruments: Iterable[str] = ()
    ) -> None:
        self._by_number: dict[tuple[int, int], str] = {}
        self._aliases: dict[str, str] = {}
        self._nodes_of: dict[str, set[str]] = {}  # act id -> graph nodes standing for it
        self._titles: dict[str, list[tuple[str, ...]]] = {}  # EU act id -> its titles' words
        self._mentioned: dict[str, tuple[ActMention, ...]] = {}  # question -> mentions
        for instrument in sorted(set(provision_instruments)):
            match = re.match(r"^EU:(?:REG|DIR|DEC)_(\d{4})_(\d+)$", instrument)
            if match:
                self._by_number[(int(match[1]), int(match[2]))] = instrument
        for node in sorted(acts, key=lambda n: n.id):
            if node.label in ACT_LABELS:
                self._add(node)
        self._names = {alias: _words(alias) for alias in self._aliases}
        ordered = sorted(self._aliases, key=len, reverse=True)
        self._pattern = (
            re.compile(
                "|".join(f"(?P<a{i}>{_alias_pattern(a)})" for i, a in enumerate(ordered)),
                re.IGNORECASE,
            )
            if ordered
            else None
        )
        self._ordered = ordered
        external = [(name, number) for names, number in EXTERNAL_ACTS for name in names]
        self._external = [
            (re.compile(_alias_pattern(name), 0 if name.isupper() else re.IGNORECASE), name, num)
            for name, num in sorted(external, key=lambda item: len(item[0]), reverse=True)
        ]

    def _add(self, node: GraphNode) -> None:
        props = node.properties
        texts = [
            str(props[key]) for key in ("citation", "title", "name", "number") if props.get(key)
        ]
        numbers = {(c.year, c.number) for t in texts for m in find_act_citations(t) for c in m.acts}
        numbers |= {
            (int(m["year"]), int(m["number"])) for t in texts for m in _BARE_NUMBER.finditer(t)
        }
        target = node.id
        for number in sorted(numbers):
            # Prefer the act whose provisions are in the graph (the corpus id) over its summary.
            target = self._by_number.setdefault(number, node.id)
        self._nodes_of.setdefault(target, {target}).add(node.id)
        if props.get("title") and re.match(r"^EU:(?:REG|DIR|DEC)_", target):
            self._titles.setdefault(target, []).append(_stems(str(props["title"])))
        names = [str(props[key]) for key in ("short_name", "code") if props.get(key)]
        for text in (props.get("title"), props.get("name")):
            if text:
                tail = _PARENTHETICAL.search(str(text))
                names.append(tail.group(1) if tail else "")
        if node.label in {"Statute", "Treaty", "Agreement"} and props.get("name"):
            names.append(str(props["name"]))
        for name in names:
            name = name.strip()
            if len(name) >= 2 and not re.fullmatch(r"[\d\s/.,-]+", name):
                self._aliases.setdefault(name.lower(), target)

    def instrument_ids(self) -> set[str]:
        """Ids of every act the catalogue knows."""
        return set(self._by_number.values()) | set(self._aliases.values())

    def nodes_of(self, instrument_ids: Iterable[str]) -> set[str]:
        """Graph nodes standing for these acts (the act's node and any summary of it)."""
        return {n for i in instrument_ids for n in self._nodes_of.get(i, {i})}

    def by_number(self, year: int, number: int) -> str | None:
        return self._by_number.get((year, number))

    def _known_name(self, name: str) -> str | None:
        words = _words(name)
        if not words:
            return None
        exact = self._aliases.get(name.lower())
        if exact:
            return exact
        for alias, alias_words in self._names.items():
            if alias_words and words <= alias_words:
                return self._aliases[alias]
        return None

    def _titled(self, name: str) -> str | None:
        """The one held act whose title holds the words of ``name``, one after the other, and
        whose kind its last word names (see the module docstring), or ``None``."""
        kind = name.split()[-1].lower() if name.split() else ""
        words = _stems(name)
        if kind not in _KIND_PREFIXES or len(words) < 2:
            return None
        found = [
            act
            for act, titles in self._titles.items()
            if act.startswith(_KIND_PREFIXES[kind]) and any(_holds(t, words) for t in titles)
        ]
        return found[0] if len(found) == 1 else None

    def mentions(self, question: str) -> list[ActMention]:
        """Every act the question names, known or not, in order of appearance.

        A turn asks this of its question several times (the search, the dates, the coverage
        check) and the catalogue does not change once built: the last answers are kept."""
        cached = self._mentioned.get(question)
        if cached is None:
            cached = self._mentioned[question] = tuple(self._find_mentions(question))
            if len(self._mentioned) > _MENTIONS_KEPT:
                del self._mentioned[next(iter(self._mentioned))]  # the oldest
        return list(cached)

    def _find_mentions(self, question: str) -> list[ActMention]:
        found: list[ActMention] = []
        taken: list[tuple[int, int]] = []

        def add(start: int, end: int, name: str, instrument: str | None) -> None:
            if any(start < e and s < end for s, e in taken):
                return
            taken.append((start, end))
            found.append(ActMention(start, end, name, instrument))

        for mention in find_act_citations(question):
            for act in mention.acts:
                add(mention.start, mention.end, act.printed, self.by_number(act.year, act.number))
        for match in _BARE_NUMBER.finditer(question):
            year, number = int(match["year"]), int(match["number"])
            add(match.start(), match.end(), match.group(), self.by_number(year, number))
        if self._pattern is not None:
            for match in self._pattern.finditer(question):
                alias = self._ordered[int((match.lastgroup or "a0")[1:])]
                add(match.start(), match.end(), match.group(), self._aliases[alias])
        for pattern, name, act_number in self._external:
            for match in pattern.finditer(question):
                known = self.by_number(*act_number) if act_number else self._known_name(name)
                add(match.start(), match.end(), name, known)
        for match in _NAMED_ACT.finditer(question):
            words = list(re.finditer(r"\S+", match.group(1)))
            while words and words[0].group().lower() in _LEADING:
                words.pop(0)
            if not words:
                continue
            start = match.start(1) + words[0].start()
            lead = _PROVISION_LEAD.match(question, start)
            start = lead.end() if lead and lead.end() < match.end(1) else start
            name = question[start : match.end()]
            add(start, match.end(), name, self._known_name(name) or self._titled(name))
        found.sort(key=lambda m: m.start)
        return found
