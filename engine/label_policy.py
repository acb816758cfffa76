"""Which labels may match free text, and how: the concept lexicon's guard against flooding.

Many one-word EuroVoc labels are everyday words ("child", "house", "travel", "tax", "impôt"),
and French function words collide with acronyms ("est" and EST). So (``docs/adr/0005``):

* a label with no token, a one-character token or only digits never matches;
* graph labels and multi-word EuroVoc labels always match;
* one-word EuroVoc labels match in the core domains (TAX, WELFARE, PENSIONS) unless generic;
* elsewhere only EuroVoc acronyms match, and only when written in capitals ("AIDS", not
  "hearing aids").

Every label stays known to exact look-ups (``ConceptLexicon.lookup``) whatever its policy.

Captured labels (a model's ``capture_concepts`` payload) must first be vocabulary at all:
:func:`term_problem` says why a captured label is not a term, :func:`definition_problem` why a
captured definition reads like chat (ADR 0017). ``engine.capture_screen`` applies both and
counts what it drops.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final, Literal

from engine.lexicon_entry import LexiconEntry
from engine.normalise import normalise_label, tokenise

__all__ = [
    "DEFINITION_MAX_CHARS",
    "EUROVOC_CORE_DOMAINS",
    "EUROVOC_GENERIC_SINGLE_WORDS",
    "TERM_MAX_CHARS",
    "TERM_MAX_WORDS",
    "LabelPolicy",
    "definition_problem",
    "label_policy",
    "term_problem",
    "undotted",
    "vocabulary_words",
]

#: ``"skip"``: never matches; ``"upper_only"``: matches text written in capitals only;
#: ``"any"``: matches in any case.
LabelPolicy = Literal["skip", "upper_only", "any"]

#: Domains whose one-word EuroVoc labels are specific enough to match (minus the generic ones).
EUROVOC_CORE_DOMAINS: Final = frozenset({"TAX", "WELFARE", "PENSIONS"})
#: One-word EuroVoc labels of the core domains that are too generic to signal a concept
#: (compared after :func:`~engine.normalise.normalise_label`).
EUROVOC_GENERIC_SINGLE_WORDS: Final = frozenset(
    {
        "tax",
        "impot",
        "taxation",
        "imposition",
        "fiscalite",
        "taxpayer",
        "contribuable",
        "welfare",
        "rates",
        "foyer",
        "hostel",
        "charity",
        "charite",
    }
)


def label_policy(entry: LexiconEntry, label: str, tokens: tuple[str, ...]) -> LabelPolicy:
    """Whether (and how) ``label`` of ``entry`` may match; ``tokens`` are its normalised
    tokens (:func:`engine.normalise.tokenise`)."""
    if not tokens or (len(tokens) == 1 and len(tokens[0]) < 2):
        return "skip"
    if all(tok.isdigit() for tok in tokens):
        return "skip"
    if entry.scheme != "eurovoc" or len(tokens) > 1:
        return "any"
    if entry.domain in EUROVOC_CORE_DOMAINS:
        return "skip" if tokens[0] in EUROVOC_GENERIC_SINGLE_WORDS else "any"
    return "upper_only" if _is_acronym(label) else "skip"


def _is_acronym(label: str) -> bool:
    stripped = label.strip()
    return " " not in stripped and stripped.isupper() and sum(ch.isalpha() for ch in stripped) >= 2


# -- captured labels are vocabulary, not text (issue 9, ADR 0017) ------------------------------

#: Why a captured label (or definition) was dropped; counted per turn, never with the text.
TERM_MAX_CHARS: Final = 80
TERM_MAX_WORDS: Final = 8
DEFINITION_MAX_CHARS: Final = 600

_SENTENCE_PUNCTUATION: Final = re.compile(r"[?!;:,\"“”«»\n\t]|\.\s+\S|\.$")
_PLACEHOLDER_TOKEN: Final = re.compile(r"[\[<{(]\s*[A-Z][A-Z0-9_]*_\d+\s*[\]>})]|\b[A-Z]+_\d+\b")
_URL: Final = re.compile(r"(?i)\b(?:https?://|www\.)|\b[\w-]+\.(?:ie|uk|com|org|eu|net|io)\b/?")
_INSTRUCTION: Final = re.compile(
    r"(?i)\b(?:ignore|disregard|override|overrule|jailbreak|pretend|obey|forget|bypass"
    r"|instructions?|prompts?|system\s*(?:message|override|rules?|:)"
    r"|(?:previous|prior|above|earlier)\s+(?:rules|instructions|messages)"
    r"|you\s+(?:are|must|should|will)|act\s+as|from\s+now\s+on|do\s+not|don'?t|never\s+mention)\b"
    r"|^(?i:tell|say|print|reveal|show|write|respond|reply|answer|repeat|output|give|return"
    r"|please|always|never|list|explain|describe|translate|summari[sz]e|call|email|send)\b"
)
# An identifier or a piece of one: five or more digits (separators inside the run ignored); a
# token that mixes letters with three or more digits ("5260181E", "758TA", "user4821"); a
# hex/uuid blob; or a label with three digits and no word of two letters ("5260", "181E": a
# PPSN split across two labels). "Form 11", "P60", "Class A1" and "Finance Act 2024" stay terms.
_IDENTIFIER: Final = re.compile(
    r"\d(?:[\s.\-]?\d){4,}|\b(?=[\w-]*[A-Za-z])(?=(?:[\w-]*\d){3})[\w-]{4,}\b"
    r"|\b[0-9a-f]{8}-[0-9a-f]{4}-|^(?!.*[^\W\d_]{2})(?=(?:.*\d){3}).*$"
)
_FIRST_PERSON: Final = re.compile(r"(?i)\b(?:i|i'm|me|my|mine|we|our|us|you|your)\b")


def term_problem(
    text: str, *, forbidden: frozenset[str] = frozenset(), names: frozenset[str] = frozenset()
) -> str | None:
    """Why ``text`` is not a term (a reason code), or ``None`` when it may be a label.

    A term is at most ``TERM_MAX_WORDS`` words and ``TERM_MAX_CHARS`` characters, with no
    sentence punctuation, no placeholder, no instruction, no URL, no identifier-like digits, no
    token of ``forbidden`` (the tenant's and user's ids, normalised) and no word of ``names``
    (person names that are not English words, lower case) unless written as an acronym.
    """
    stripped = _citation_comma(undotted(text.strip()))
    if not stripped:
        return "empty"
    if len(stripped) > TERM_MAX_CHARS:
        return "too_long"
    if len(stripped.split()) > TERM_MAX_WORDS:
        return "too_many_words"
    branded = _BRAND_MY.sub("", stripped)  # "My Future Fund": a scheme's name, not chat
    for reason, pattern in _TERM_CHECKS:
        judged = branded if reason == "chat" else stripped
        if reason == "identifier":  # an EU act's number is no identifier (ADR 0075)
            judged = _FORM_CODE.sub(" form ", _ACT_CITATION.sub(" act ", judged))
        if pattern.search(judged):
            return reason
    return _tokens_problem(stripped, forbidden, names)


# An EU act's citation, as a label or a key writes it ("Regulation (EU) 2016/679", "Council
# Directive 2006/112/EC", "Regulation (EC) No 883/2004", key "REGULATION_2016_679"): its year
# and number are the act's name, not an identifier of a person (ADR 0075).
_ACT_CITATION: Final = re.compile(
    r"(?i)\b(?:regulation|directive|decision|r[eè]glement|d[eé]cision)"
    r"(?:[\s_]+(?:\((?:eu|ec|eec|ue|ce|cee)\)|eu|ec|eec|ue|ce|cee|no\.?|n°))*"
    r"[\s_]+\d{1,4}(?:/|[\s_]+)\d{1,4}(?:/(?:eu|ec|eec|ue|ce|cee))?\b"
)


# A tax form's official code (ADR 0078): the series letters HMRC and Revenue print on their
# forms (GOV.UK: SA100 and SA800 Self Assessment returns, SA302, CT600, P11D, P800, R40, VAT100,
# IHT400, SDLT1, CWF1, CF83; Revenue: CT1) in capitals, one to three digits, at most one
# letter after them. Not a person's identifier: a PPSN is seven digits and a letter, a
# National Insurance number two letters and six digits, a user name lower case.
_FORM_CODE: Final = re.compile(
    r"(?<![^\W_])(?:SA|CT|VAT|IHT|SDLT|CWF|CF|P|R)\d{1,3}[A-Z]?(?![^\W_])"
)


# "Finance Act, 1997", "Data Protection Act, 2018": the comma of an Irish Act's citation.
_CITATION_COMMA: Final = re.compile(r",\s*(?=(?:18|19|20)\d\d$)")
# A scheme named "My ..." in title case ("My Future Fund", "My Account"); "my tax" stays chat.
_BRAND_MY: Final = re.compile(r"^(?:My|MY)(?=(?: [A-Z][\w'’-]*){2,}$)")


def _citation_comma(text: str) -> str:
    return _CITATION_COMMA.sub(" ", text) if "," in text else text


# A dotted acronym ("V.A.T.", "A.I. Act", "U.S.C."): two or more single letters each followed
# by a full stop (the last one's optional). Its dots are not sentence punctuation.
_DOTTED_ACRONYM: Final = re.compile(r"(?<![^\W\d_])((?:[^\W\d_]\.){2,}[^\W\d_]?)(?![^\W\d_])\.?")


def undotted(text: str) -> str:
    """``text`` with its dotted acronyms written without dots ("V.A.T." -> "VAT", "A.I. Act" ->
    "AI Act"): what the screen judges, so that a dotted acronym is a term like its plain
    spelling (the label is kept as written; the matcher folds both alike, ADR 0060)."""
    if "." not in text:
        return text
    return _DOTTED_ACRONYM.sub(lambda m: m.group(1).replace(".", ""), text)


def definition_problem(
    text: str, *, forbidden: frozenset[str] = frozenset(), names: frozenset[str] = frozenset()
) -> str | None:
    """Why ``text`` is not a definition (it reads like chat), or ``None``.

    A definition is prose, so sentence punctuation is allowed; a question, the first or second
    person, a placeholder, an instruction, a URL or an identifier is not.
    """
    stripped = text.strip()
    if len(stripped) > DEFINITION_MAX_CHARS:
        return "too_long"
    if "?" in stripped or _QUESTION.search(stripped):
        return "question"
    if _FIRST_PERSON.search(stripped):
        return "first_person"
    for reason, pattern in _TERM_CHECKS[3:]:
        if pattern.search(stripped):
            return reason
    return _tokens_problem(stripped, forbidden, names)


_QUESTION: Final = re.compile(
    r"(?i)^(?:what|how|when|where|why|who|whom|whose|which|can|could|should|would|is|are|am"
    r"|was|were|do|does|did|will|shall|may|might|must|has|have|had)\s+\S"
)
# Words of a conversation, not of a vocabulary: pronouns, auxiliaries and modals, greetings,
# and a label that ends on a function word (a phrase cut out of a sentence). "as you" is the one
# pronoun in scheme names ("pay as you earn", "pay-as-you-go"), so it is not chat.
_CHAT_WORDS: Final = re.compile(
    r"(?i)\b(?:i|i'm|me|my|mine|we|our|us|(?<!as[\s-])you|your|he|him|his|she|her|they|them|their"
    r"|am|is|are|was|were|do|does|did|can|could|should|would|will|shall|might|must"
    r"|need|want|thanks|thank|please|hi|hello|yesterday|today|tomorrow|ago)\b"
    r"|\b(?:the|a|an|and|or|of|to|for|in|on|at|by|with|from|if|but|so)\s*$"
)
_TERM_CHECKS: Final = (
    ("sentence", _SENTENCE_PUNCTUATION),
    ("question", _QUESTION),
    ("chat", _CHAT_WORDS),
    ("placeholder", _PLACEHOLDER_TOKEN),
    ("url", _URL),
    ("instruction", _INSTRUCTION),
    ("identifier", _IDENTIFIER),
)


def _tokens_problem(text: str, forbidden: frozenset[str], names: frozenset[str]) -> str | None:
    raw = re.findall(r"[^\W_]+", text)
    tokens = tokenise(text).texts
    if forbidden and (set(tokens) & forbidden or normalise_label(text) in forbidden):
        return "tenant_or_user_id"
    # A word of the controlled vocabulary (EuroVoc, English and French: "sur", "valeur") is no
    # evidence of a person, whatever name lists say.
    named = [
        word
        for word in raw
        if len(word) > 2 and word.lower() in names and word.lower() not in vocabulary_words()
    ]
    # One name-like word in capitals is an acronym ("PAYE" is also a first name); two are a
    # person ("SIOBHAN MURPHY"), and so is one written as a word ("alice", "Murphy").
    if len(named) >= 2 or any(not (w.isupper() and len(w) > 1) for w in named):
        return "person_name"
    return None


@cache
def vocabulary_words() -> frozenset[str]:
    """The lower-case words of the EuroVoc labels the project ships (English and French)."""
    from engine.eurovoc import load_eurovoc

    words: set[str] = set()
    for concept in load_eurovoc():
        for label in concept.entry.labels:
            words.update(w.lower() for w in re.findall(r"[^\W_]+", label))
    return frozenset(words)
