"""Refuse what the graph does not hold (issue 23): a step of the turn's preparation after the
relevance gate, for the questions the gate's lexical coverage lets through.

- **A tax the graph holds no rule for** ("the inheritance tax threshold in the UK", "the Irish
  net wealth tax"): the question names a tax, duty or levy ("<words> tax"); the graph holds it
  only when a rule node or provision of the question's jurisdictions (or EU law) says those
  words. Other nodes sharing words with the question (thresholds of another tax) do not count.
- **An allowance, relief, credit, exemption, incentive or programme the graph holds no rule
  for** ("the UK ISA allowance", "the Irish home renovation incentive"): the question names one by
  the words before the noun ("<words> allowance"); the graph holds it when one rule node or
  provision of the question's jurisdictions says every one of those words and the noun, in any
  order and anywhere in its text ("rent tax credit", "tax-free allowance" are held). Looser than
  a tax's test on purpose: these names are often paraphrased, and the personal allowance's
  rule answering "What is the ISA allowance?" is the failure this check exists for. "Scheme"
  and "benefit" are left out: "a class-based scheme", "a fringe benefit" describe, not name.
- **A group or class the graph holds no rule for** ("the CAT Group C threshold", "PRSI Class
  Z"): the question names a designated part of a scheme ("group", "class", "category" or "tier"
  and a letter or number); the graph holds it only when a rule node or provision of the
  question's jurisdictions says those words ("CAT Group A threshold" does not hold Group C).
- **A tax or scheme named by its acronym the graph holds no rule for** ("What rate of DIRT is
  deducted?", "the UK IHT threshold"): a word of three to six capitals in a question that names
  no concept of the graph and no act; held when the title of a rule node of the question's
  jurisdictions (or EU law) says it ("PRSI Class A employee rate", "VAT3 due by the 19th (23rd
  on ROS)"). A title, not any text: the Help to Buy rule says "income tax and DIRT paid", and
  that holds no rule on DIRT. A message in capitals throughout names no acronym by its case.
- **Scottish income tax** ("the Scottish top rate"): held only where a rule's title says
  Scottish or Scotland; the UK rate rules are those of England, Wales and Northern Ireland.
- **Outside coverage**: every jurisdiction the question names is outside the graph's (France)
  and it names no act the graph holds (the GDPR applies in France; the capital of France is
  not a rule).
- **No regulatory content** ("What is the capital of France?"): no act, no concept of the
  lexicon, no word of tax, welfare, pensions or law.

A question whose subject the graph holds is never refused here for lack of lexical overlap:
the tax words must be absent from every rule of the jurisdiction, not from this turn's hits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.answer_kind import Kind, asked_kind, value_kind
from engine.evidence import Evidence, EvidenceHit
from engine.grounding import COVERAGE
from engine.retrieval import RefusalReason, RelevanceVerdict
from graph.models import GraphNode
from graph.quarantine import is_quarantined

__all__ = [
    "COVERED",
    "Uncovered",
    "evidence_texts",
    "named_acronyms",
    "named_designators",
    "named_filings",
    "named_schemes",
    "named_taxes",
    "reviewed_concepts",
    "uncovered",
]

COVERED = frozenset({"IE", "UK", "NI", "GB", "EU"})
# A word of a name: a word, or the placeholder the sanitiser put for one ("[person_1]": "ISA"
# reads as a first name to it); no rule of the graph says a placeholder, so a name with one in
# it is never held.
_NAME_WORD = r"(?:\[[a-z]+_\d+\]|[a-z][a-z'&-]*)"
_TAX = re.compile(rf"(?<![\w\]])((?:{_NAME_WORD}\s+){{0,3}})(tax|duty|levy)\b")
_NOT_A_NAME = frozenset(
    "a an the what whats is are was were irish ireland ireland's uk british english scottish "
    "welsh northern eu european my our your their his her of on in for to pay paid paying does "
    "do did how much when which any there about under and or i we you owe owed due file filing "
    "much many can could should would will it its this that these those who where why from by "
    "with at as if than then so no not more less total new old current paper online annual "
    "late final amended joint".split()
)  # fmt: skip
_SCHEME = re.compile(
    rf"(?<![\w\]])((?:{_NAME_WORD}\s+){{0,3}})"
    r"(allowance|relief|credit|exemption|incentive|programme)s?\b"
)
#: Words that qualify a tax's name without being part of it ("the marginal income tax rate",
#: "the top income tax rate"): left out of the name looked for.
_QUALIFIERS = frozenset({"marginal", "top", "effective", "headline"})
#: "Annual" names part of a scheme ("the Annual Investment Allowance", "the annual exemption"),
#: while "annual return" is any year's return.
_NOT_A_SCHEME_NAME = _NOT_A_NAME - {"annual"}
#: A filing a question names: "the confirmation statement", "the P11D return", "the LPT return".
_FILING = re.compile(
    rf"(?<![\w\]])((?:{_NAME_WORD}\s+){{0,3}})(statement|return|declaration|certificate)s?\b"
)
#: A name's words are said together when they fall within this many words more than the name's
#: own ("credit for rent paid" says "rent credit"; a page that says "annual" in one sentence and
#: "investment" three sentences later does not name the Annual Investment Allowance).
_NEAR = 4
_REGULATORY = re.compile(
    r"\b(tax\w*|vat|duty|duties|levy|levies|revenue|hmrc|rate|rates|threshold\w*|relief\w*|"
    r"credit\w*|allowance\w*|exemption\w*|benefit\w*|pension\w*|welfare|prsi|usc|paye|cgt|cat|"
    r"lpt|vrt|deadline\w*|due|file|filing|return|returns|form|obligation\w*|law\w*|legal\w*|"
    r"act|acts|regulation\w*|directive\w*|article\w*|recital\w*|annex\w*|rule\w*|gdpr|dora|ai|"
    r"data|personal|consent|processing|controller\w*|processor\w*|employer\w*|employee\w*|"
    r"employ\w*|self-employed|company|companies|corporation|income|salary|wage\w*|gains?|"
    r"dividend\w*|shares?|property|stamp|inheritance|gift\w*|pay|paid|payment\w*|contribution\w*|"
    r"insurance|jobseeker\w*|maternity|paternity|child|children|prohibit\w*|allowed|lawful|"
    r"comply|compliance|penalt\w*|fine|fines|audit\w*|assessment\w*|resident\w*|residence|"
    r"domicile\w*|customs|excise|import\w*|export\w*|vehicle\w*|registration|register\w*|"
    r"risk|incident\w*|ict|provider\w*|deployer\w*|system\w*|biometric\w*|worker\w*|posting|"
    r"posted|social|security|state|scheme\w*|invoice\w*|accounting|period|year|tax-free)\b",
    re.I,
)


# Three to six capitals ("DIRT", "IHT"), or a form's code of capitals and digits ("P11D", "IT38",
# "SA100"; "Q1" and "A1" are too short to be one).
#: Scotland sets its own income tax rates and bands; the UK rules name England, Wales and
#: Northern Ireland. A rule whose title says Scottish or Scotland holds them.
_SCOTTISH = re.compile(r"\bscot(?:land|tish)\b", re.I)
_INCOME_TAX_RATES = re.compile(
    r"\bincome tax\b|\b(?:starter|intermediate|top|basic|higher|advanced|additional) rate\b",
    re.I,
)
_ACRONYM = re.compile(
    r"(?<![\w\[&'-])([A-Z]{3,6}|(?=[A-Z0-9]*\d)[A-Z][A-Z0-9]{2,5})s?(?![\w\]&'-])"
)
_CAPITALS = re.compile(r"\b[A-Z]{2,}\b")


def named_acronyms(question: str) -> list[str]:
    """The words of three to six capitals a question names things by ("DIRT", "IHT") and the
    forms it names by code ("P11D", "CT600"), in order; none in a message written in capitals
    throughout (its case says nothing)."""
    words = re.findall(r"[A-Za-z]+", question)
    if not words or len(_CAPITALS.findall(question)) * 2 > len(words):
        return []
    return list(dict.fromkeys(m[1] for m in _ACRONYM.finditer(question)))


_DESIGNATOR = re.compile(r"\b(group|class|category|tier) ([a-z]|\d{1,2})\b(?![-'’])")


def named_designators(question: str) -> list[str]:
    """The groups and classes a question names ("group c", "class 1"), lower case."""
    return [f"{m[1]} {m[2]}" for m in _DESIGNATOR.finditer(_flat(question))]


@dataclass(frozen=True)
class Uncovered:
    """Why the graph cannot answer: the verdict for the turn and the sentence the model says."""

    verdict: RelevanceVerdict
    sentence: str


def _flat(text: str) -> str:
    return " ".join(re.sub(r"[-‐–/]", " ", text.lower()).split())


_FREE_OF = re.compile(r"\b(?:tax|duty|levy)[-‐–]free\b", re.I)


def named_taxes(question: str) -> list[str]:
    """The taxes, duties and levies a question names by name ("inheritance tax", "net wealth
    tax"), without the words around them ("the Irish", "how much"); bare "tax" is none."""
    # "tax-free", "duty-free" (the adjective, hyphenated) say what a sum is free of, not a tax's
    # name: "How much can a child inherit tax-free" names no "child inherit tax".
    return _names_before(_TAX, _FREE_OF.sub("free", question))


def named_schemes(question: str) -> list[str]:
    """The allowances, reliefs, credits, exemptions, incentives and programmes a question names by
    name ("isa allowance", "rent tax credit", "annual investment allowance"), without the words
    around them; a bare noun ("what reliefs are there") names none."""
    return _names_before(_SCHEME, question, _NOT_A_SCHEME_NAME)


#: Words before a return that say which one, not what it is: its period ("the Sept-Oct 2024
#: VAT return", "the first quarterly return"), whose it is ("the company's VAT return").
_WHICH_RETURN = frozenset(
    "jan january feb february mar march apr april may jun june jul july aug august sep sept "
    "september oct october nov november dec december quarter quarterly month monthly months "
    "year yearly years period periodic bimonthly bi two first second third fourth fifth sixth "
    "last next previous initial interim nil client clients company business employer "
    "employee".split()
)  # fmt: skip


def named_filings(question: str) -> list[str]:
    """The statements, returns, declarations and certificates a question names by name
    ("confirmation statement", "lpt return"), without the words around them and without "tax"
    (a tax return is a return: "the self assessment tax return" is the Self Assessment return);
    "the tax return", "the Sept-Oct 2024 VAT return" name none but the VAT return, and "the SA
    return" none (two letters of shorthand)."""
    found = []
    for name in _names_before(_FILING, re.sub(r"['’]s\b", "", question)):
        *words, noun = name.split()
        kept: list[str] = []
        for word in reversed(words):
            # A word of one or two letters is shorthand no rule spells ("the SA return", "the CT
            # return"): what precedes it is not checked either.
            if word in _WHICH_RETURN or len(word) <= 2:
                break
            if word not in ("tax", "taxes"):
                kept.insert(0, word)
        if kept:
            found.append(" ".join([*kept, noun]))
    return found


def _names_before(
    pattern: re.Pattern[str], question: str, stop: frozenset[str] = _NOT_A_NAME
) -> list[str]:
    found: list[str] = []
    for match in pattern.finditer(_flat(question)):
        words = match.group(1).split()
        name: list[str] = []
        for word in reversed(words):
            if word in stop:
                break
            name.insert(0, word)
        while name and name[0] in _QUALIFIERS:
            name = name[1:]
        if name:
            found.append(" ".join([*name, match.group(2)]))
    return found


def _says_all(name: str, text: str) -> bool:
    """Whether ``text`` says every word of ``name`` (a plural too), in any order, within
    :data:`_NEAR` words more than the name has."""
    wanted = name.split()
    words = re.findall(r"[a-z0-9][\w'&-]*", text)
    found = [
        i for i, word in enumerate(words) if any(word in (w, f"{w}s", f"{w}es") for w in wanted)
    ]
    span = len(wanted) + _NEAR
    for start in found:
        window = words[start : start + span]
        if all(any(word in (w, f"{w}s", f"{w}es") for word in window) for w in wanted):
            return True
    return False


def uncovered(
    question: str,
    jurisdictions: Sequence[str],
    evidence: Evidence,
    *,
    names_act: bool,
    names_concept: bool,
    rules_saying: Callable[[str, Sequence[str]], Sequence[str]],
    rules_titled: Callable[[str, Sequence[str]], Sequence[object]] | None = None,
) -> Uncovered | None:
    """Why the graph holds no answer to ``question``, or ``None`` when it may.

    ``rules_saying(words, jurisdictions)`` gives the texts of the graph's rule nodes and
    provisions (of those jurisdictions and EU law) that a search for ``words`` finds;
    ``rules_titled(words, jurisdictions)`` the rule nodes whose title says ``words``.
    """
    outside = [j for j in jurisdictions if j not in COVERED]
    if outside and len(outside) == len(jurisdictions) and not names_act:
        subject = ", ".join(outside)
        verdict = RelevanceVerdict(
            answerable=False, reason=RefusalReason.OUT_OF_COVERAGE_JURISDICTION, subject=subject
        )
        return Uncovered(
            verdict, f"The rules graph has no evidence on {subject} law: it covers {COVERAGE}."
        )
    if rules_titled is not None and not names_act and not names_concept:
        for acronym in named_acronyms(question):
            if not rules_titled(acronym, jurisdictions):
                where = f" ({', '.join(jurisdictions)})" if jurisdictions else ""
                verdict = RelevanceVerdict(
                    answerable=False, reason=RefusalReason.NO_EVIDENCE, subject=acronym
                )
                return Uncovered(
                    verdict,
                    f"The rules graph has no evidence on {acronym}{where}: it holds no rule "
                    "for it.",
                )
    if not names_act and not names_concept and _REGULATORY.search(question) is None:
        verdict = RelevanceVerdict(answerable=False, reason=RefusalReason.NO_EVIDENCE)
        return Uncovered(
            verdict,
            "The rules graph has no evidence on this question: it holds rules on tax, social "
            "welfare, pensions and EU law, and this question is about none of them.",
        )
    if _SCOTTISH.search(question) and _INCOME_TAX_RATES.search(question):
        held = rules_saying("scottish income tax", jurisdictions)
        if not any(_SCOTTISH.search(" ".join(_flat(text).split()[:8])) for text in held):
            verdict = RelevanceVerdict(
                answerable=False, reason=RefusalReason.NO_EVIDENCE, subject="Scottish income tax"
            )
            return Uncovered(
                verdict,
                "The rules graph has no evidence on Scottish income tax: it holds the UK rates "
                "and bands of England, Wales and Northern Ireland only.",
            )
    taxes = [(tax, re.escape(tax)) for tax in named_taxes(question)]
    groups = [(group, rf"\b{re.escape(group)}\b") for group in named_designators(question)]
    # "gift tax" is held where a rule says "gift and inheritance tax" (a coordinated name)
    taxes = [(tax, _coordinated(tax)) for tax, _ in taxes]
    for tax, pattern in taxes + groups:
        held = [_flat(t) for t in evidence_texts(evidence) + reviewed_concepts(evidence)] + [
            _flat(t) for t in rules_saying(tax, jurisdictions)
        ]
        if not any(re.search(pattern, text) or _titled(tax, text) for text in held):
            where = f" ({', '.join(jurisdictions)})" if jurisdictions else ""
            verdict = RelevanceVerdict(
                answerable=False, reason=RefusalReason.NO_EVIDENCE, subject=tax
            )
            named = f"this {tax.split()[-1]}" if "[" in tax else tax
            return Uncovered(
                verdict,
                f"The rules graph has no evidence on {named}{where}: it holds no rule for it.",
            )
    if rules_titled is not None and (kind := asked_kind(question)) is not None:
        for group, _ in groups:
            # "the Class 2 NIC weekly rate": a rule says Class 2 (its abolition), but none titled
            # Class 2 states a value; quoting the Class 1 and Class 4 rates would answer another
            # question. A value asked of a group needs a rule titled with the group that states
            # one (of any kind: the CAT rate asked "for Group A" is the rate of every group).
            titled = rules_titled(group, jurisdictions)
            if not any(_value_kind(node) is not None for node in titled):
                where = f" ({', '.join(jurisdictions)})" if jurisdictions else ""
                verdict = RelevanceVerdict(
                    answerable=False, reason=RefusalReason.NO_EVIDENCE, subject=group
                )
                what = "rate" if kind == "Rate" else "threshold or amount"
                return Uncovered(
                    verdict,
                    f"The rules graph has no evidence on the {what} of {_capital(group)}{where}: "
                    "no rule of it states one.",
                )
    for scheme in [*named_schemes(question), *([] if names_act else named_filings(question))]:
        held = evidence_texts(evidence) + reviewed_concepts(evidence)
        held += rules_saying(scheme, jurisdictions)
        if not any(_says_all(scheme, _flat(text)) for text in held):
            where = f" ({', '.join(jurisdictions)})" if jurisdictions else ""
            verdict = RelevanceVerdict(
                answerable=False, reason=RefusalReason.NO_EVIDENCE, subject=scheme
            )
            named = f"this {scheme.split()[-1]}" if "[" in scheme else f"the {scheme}"
            return Uncovered(
                verdict,
                f"The rules graph has no evidence on {named}{where}: it holds no rule for it.",
            )
    return None


def _value_kind(node: object) -> Kind | None:
    if not isinstance(node, GraphNode):
        return None
    return value_kind(EvidenceHit(node=node, text="", score=0.0))


def _capital(group: str) -> str:
    """ "class 2" as rules write it: "Class 2"; "group c": "Group C"."""
    noun, _, mark = group.partition(" ")
    return f"{noun.capitalize()} {mark.upper()}"


def _coordinated(name: str) -> str:
    """The pattern of a tax's name as a rule may say it: as written, or one of two names that
    share their noun ("gift tax" in "gift and inheritance tax", "inheritance tax" too)."""
    *words, noun = name.split()
    said = re.escape(" ".join(words))
    other = r"[a-z][\w'-]*(?: [a-z][\w'-]*)?"
    return (
        rf"{re.escape(name)}|\b{said} (?:and|or|&) {other} {noun}\b"
        rf"|\b{other} (?:and|or|&) {said} {noun}\b"
        if words
        else re.escape(name)
    )


def _titled(name: str, text: str) -> bool:
    """Whether every word of ``name`` is in the title at the head of ``text``, in any order:
    "non trading corporation tax" is the rule titled "Corporation tax non-trading rate"."""
    head = set(text.split()[:8])
    return all(word in head for word in name.split())


def reviewed_concepts(evidence: Evidence) -> list[str]:
    """The labels of the reviewed concepts among the evidence: a concept an operator confirmed
    is a subject the graph holds, though no rule node says its words yet (a provisional one,
    which only its own conversation can see, is not)."""
    return [
        f"{hit.node.properties.get('pref_label', '')} {hit.text}"
        for hit in evidence.hits
        if hit.node.label == "Concept" and not is_quarantined(hit.node)
    ]


def evidence_texts(evidence: Evidence) -> list[str]:
    """The texts of the evidence's rule nodes and provisions (concepts are not rules)."""
    return [
        f"{hit.node.properties.get('name', '')} {hit.text}"
        for hit in evidence.hits
        if hit.node.label not in ("Concept", "Label")
    ]
