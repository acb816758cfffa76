"""Which labels may match free text, and how: the concept lexicon's guard against flooding.

Many one-word EuroVoc labels are everyday words ("child", "house", "travel", "tax", "impôt"),
and French function words collide with acronyms ("est" and EST). So (``docs/adr/0005``):

* a label with no token, a one-character token or only digits never matches;
* graph labels and multi-word EuroVoc labels always match;
* one-word EuroVoc labels match in the core domains (TAX, WELFARE, PENSIONS) unless generic;
* elsewhere only EuroVoc acronyms match, and only when written in capitals ("AIDS", not
  "hearing aids").

Every label stays known to exact look-ups (``ConceptLexicon.lookup``) whatever its policy.
"""

from __future__ import annotations

from typing import Final, Literal

from engine.lexicon_entry import LexiconEntry

__all__ = ["EUROVOC_CORE_DOMAINS", "EUROVOC_GENERIC_SINGLE_WORDS", "LabelPolicy", "label_policy"]

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
