"""Concept lexicon: recognise concept mentions in a user question.

The offline extractive provider "knows" two vocabularies:

* the concepts already in the rules graph (``scheme="graph"``), added by the engine with
  :meth:`ConceptLexicon.add` at start-up and after self-population, and
* the EuroVoc taxation (microthesaurus 2446) and SOCIAL QUESTIONS (domain 28) vocabulary in
  English and French (``scheme="eurovoc"``), loaded from the compact file
  ``engine/data/eurovoc_tax_social.json`` (built by ``tools/build_eurovoc_lexicon.py``; see
  ``docs/adr/0005-eurovoc-lexicon.md``). EuroVoc is not seeded into the graph: a EuroVoc
  concept enters it through self-population the first time a conversation names it.

Matching works on normalised token sequences (see :func:`normalise_label`): labels live in a
token trie, and :meth:`ConceptLexicon.match` walks the question's tokens through it, so the cost
grows with the question length, not with the number of labels.

EuroVoc data © European Union, reused under CC BY 4.0 (attribution in the data file).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Final, Literal

__all__ = [
    "EUROVOC_CORE_DOMAINS",
    "EUROVOC_DOMAIN_BY_MICROTHESAURUS",
    "EUROVOC_DOMAIN_BY_SUBTREE",
    "EUROVOC_GENERIC_SINGLE_WORDS",
    "ConceptLexicon",
    "LexiconEntry",
    "LexiconHit",
    "kind_from_label",
    "normalise_label",
]

EUROVOC_DATA_FILE: Final = "eurovoc_tax_social.json"
EUROVOC_URI_PREFIX: Final = "http://eurovoc.europa.eu/"

#: Lexicon ``domain`` of a EuroVoc concept, by the notation of its microthesaurus.
EUROVOC_DOMAIN_BY_MICROTHESAURUS: Final[dict[str, str]] = {
    "2446": "TAX",  # taxation
    "2806": "FAMILY",  # family
    "2811": "MIGRATION",  # migration
    "2816": "DEMOGRAPHY",  # demography and population
    "2821": "SOCIAL",  # social framework
    "2826": "SOCIAL",  # social affairs
    "2831": "CULTURE",  # culture and religion
    "2836": "WELFARE",  # social protection
    "2841": "HEALTH",  # health
    "2846": "HOUSING",  # construction and town planning
}
#: Overrides for whole subtrees: the concept and everything below it (via ``broader``).
#: 3751 "pension scheme" (in 2836 social protection) and its narrower concepts -> PENSIONS.
EUROVOC_DOMAIN_BY_SUBTREE: Final[dict[str, str]] = {"3751": "PENSIONS"}
#: Domains whose one-word EuroVoc labels are specific enough to match (minus the generic ones).
EUROVOC_CORE_DOMAINS: Final = frozenset({"TAX", "WELFARE", "PENSIONS"})
#: One-word EuroVoc labels of the core domains that are too generic to signal a concept
#: (compared after :func:`normalise_label`).
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
_DEFAULT_EUROVOC_DOMAIN: Final = "SOCIAL"
_KIND_MAX_LEN: Final = 64
_USAGE_NOTE_PREFIXES: Final = ("use ", "do not ", "not to be ", "from release ", "see ")

# --------------------------------------------------------------------------- normalisation

# A token is a run of letters/digits (Unicode), possibly carrying combining marks (so that
# decomposed input such as "e" + U+0301 stays one token). Everything else separates tokens.
_COMBINING: Final = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_TOKEN_RE: Final = re.compile(rf"[^\W_](?:[^\W_]|[{_COMBINING}])*")
# Letters that NFKD does not decompose but that users type without the diacritic or ligature.
_EXTRA_FOLD: Final = str.maketrans(
    {"ø": "o", "đ": "d", "ð": "d", "ł": "l", "ħ": "h", "ı": "i", "œ": "oe", "æ": "ae", "þ": "th"}
)


@lru_cache(maxsize=65536)
def _fold_token(raw: str) -> tuple[str, ...]:
    """Fold one raw token (non-ASCII path): NFKD, drop marks, casefold, split leftovers."""
    decomposed = unicodedata.normalize("NFKD", raw.casefold())
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    folded = unicodedata.normalize("NFKD", stripped.translate(_EXTRA_FOLD)).casefold()
    return tuple(_TOKEN_RE.findall(folded))


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """Normalised tokens of ``text`` with the character span of their source token."""
    out: list[tuple[str, int, int]] = []
    for m in _TOKEN_RE.finditer(text):
        raw = m.group()
        if raw.isascii():
            out.append((raw.lower(), m.start(), m.end()))
        else:
            start, end = m.span()
            out.extend((tok, start, end) for tok in _fold_token(raw))
    return out


def normalise_label(text: str) -> str:
    """Normalise a label or phrase for comparison. Deterministic; shared by the lexicon, the
    concept resolver and ``Label`` nodes, so changing it changes stored keys.

    Rules, in order, per token:

    1. Tokens are maximal runs of Unicode letters and digits; every other character
       (spaces, punctuation, apostrophes, hyphens, slashes, underscores) separates tokens.
    2. Each token is case-folded (``str.casefold``: "ß" -> "ss"), decomposed (NFKD, so
       ligatures and full-width forms become plain letters) and stripped of combining marks
       (accents): "Ajoutée" -> "ajoutee". "œ æ ø ł đ ð þ ı" fold to "oe ae o l d d th i".
    3. Tokens are joined with single spaces; leading and trailing space never appears.

    Examples: "Taxe sur la valeur ajoutée" -> "taxe sur la valeur ajoutee";
    "tax-free  allowance" -> "tax free allowance"; "taxe à l'importation" ->
    "taxe a l importation"; "widow's pension" -> "widow s pension"; "COVID-19" -> "covid 19".
    """
    return " ".join(tok for tok, _, _ in _tokens(text))


def kind_from_label(label: str) -> str:
    """UPPER_SNAKE ``kind`` from a label: "value added tax" -> "VALUE_ADDED_TAX".

    The tokens of :func:`normalise_label`, upper-cased and joined with "_", keeping only
    ``[A-Z0-9_]``, cut to 64 characters (trailing "_" removed): "survivor's benefit" ->
    "SURVIVOR_S_BENEFIT", "taxe à l'importation" -> "TAXE_A_L_IMPORTATION". For Latin-script
    labels this equals ``engine.concepts.upper_snake``. Raises ``ValueError`` if nothing is left.
    """
    kind = re.sub(r"[^A-Z0-9_]", "", "_".join(normalise_label(label).split()).upper())
    kind = re.sub(r"_+", "_", kind)[:_KIND_MAX_LEN].strip("_")
    if not kind:
        raise ValueError(f"cannot derive a kind from label {label!r}")
    return kind


# --------------------------------------------------------------------------- data types


@dataclass(frozen=True, slots=True)
class LexiconEntry:
    """A concept the lexicon can recognise.

    ``key`` is stable: ``"eurovoc:<id>"`` for EuroVoc, the concept node id for graph entries.
    ``broader`` holds keys of broader concepts and ``microthesaurus`` the EuroVoc
    microthesaurus notation (both only for EuroVoc; they default to empty).
    """

    key: str
    pref_label: str
    alt_labels: tuple[str, ...]
    domain: str
    kind: str
    jurisdiction: str | None
    definition: str | None
    source_urls: tuple[str, ...]
    scheme: str
    notation: str | None
    broader: tuple[str, ...] = ()
    microthesaurus: str | None = None

    @property
    def labels(self) -> tuple[str, ...]:
        """The preferred label followed by the alternative labels."""
        return (self.pref_label, *self.alt_labels)


@dataclass(frozen=True, slots=True)
class LexiconHit:
    """One recognised mention: ``text[start:end] == matched``."""

    entry: LexiconEntry
    matched: str
    start: int
    end: int


_Policy = Literal["skip", "upper_only", "any"]


@dataclass(frozen=True, slots=True)
class _Candidate:
    entry: LexiconEntry
    upper_only: bool
    rank: tuple[int, int, int]  # (scheme: graph first, label: preferred first, insertion order)


@dataclass(slots=True)
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    candidates: tuple[_Candidate, ...] = ()


def _is_acronym(label: str) -> bool:
    stripped = label.strip()
    return " " not in stripped and stripped.isupper() and sum(ch.isalpha() for ch in stripped) >= 2


def _label_policy(entry: LexiconEntry, label: str, tokens: tuple[str, ...]) -> _Policy:
    """Whether (and how) a label may match. See :meth:`ConceptLexicon.match`."""
    if not tokens or (len(tokens) == 1 and len(tokens[0]) < 2):
        return "skip"
    if all(tok.isdigit() for tok in tokens):
        return "skip"
    if entry.scheme != "eurovoc" or len(tokens) > 1:
        return "any"
    if entry.domain in EUROVOC_CORE_DOMAINS:
        return "skip" if tokens[0] in EUROVOC_GENERIC_SINGLE_WORDS else "any"
    return "upper_only" if _is_acronym(label) else "skip"


# --------------------------------------------------------------------------- the lexicon


class ConceptLexicon:
    """Recognises concept labels in free text (English and French, accent- and
    case-insensitive, whole words only). Not thread-safe for concurrent ``add`` calls; reads
    (``match``) may run while one writer adds entries."""

    def __init__(self, entries: Iterable[LexiconEntry] = ()) -> None:
        self._root = _Node()
        self._entries: dict[str, LexiconEntry] = {}
        self._paths: dict[str, list[tuple[tuple[str, ...], bool]]] = {}
        self._by_label: dict[str, tuple[_Candidate, ...]] = {}
        self._seq = 0
        for entry in entries:
            self.add(entry)

    # ---- construction

    @classmethod
    def from_eurovoc(cls, path: Path | None = None) -> ConceptLexicon:
        """Load the EuroVoc subset (default: the packaged ``engine/data`` file)."""
        lexicon = cls()
        for entry, preferred in _load_eurovoc(path):
            lexicon._add(entry, preferred)
        return lexicon

    def add(self, entry: LexiconEntry) -> None:
        """Add or replace (same ``key``) an entry; its ``pref_label`` and ``alt_labels`` become
        matchable. Graph entries win over EuroVoc ones on the same normalised label."""
        self._add(entry, frozenset({normalise_label(entry.pref_label)}))

    def _add(self, entry: LexiconEntry, preferred: frozenset[str]) -> None:
        if entry.key in self._entries:
            self.remove(entry.key)
        self._entries[entry.key] = entry
        self._seq += 1
        scheme_rank = 1 if entry.scheme == "eurovoc" else 0
        paths: list[tuple[tuple[str, ...], bool]] = []
        seen: set[tuple[str, ...]] = set()
        for label in entry.labels:
            tokens = tuple(tok for tok, _, _ in _tokens(label))
            if not tokens or tokens in seen:
                continue
            seen.add(tokens)
            normalised = " ".join(tokens)
            policy = _label_policy(entry, label, tokens)
            label_rank = 0 if normalised in preferred else 1
            cand = _Candidate(entry, policy == "upper_only", (scheme_rank, label_rank, self._seq))
            self._by_label[normalised] = _insert(self._by_label.get(normalised, ()), cand)
            if policy != "skip":
                node = self._root
                for tok in tokens:
                    nxt = node.children.get(tok)
                    if nxt is None:
                        nxt = node.children[tok] = _Node()
                    node = nxt
                node.candidates = _insert(node.candidates, cand)
            paths.append((tokens, policy != "skip"))
        self._paths[entry.key] = paths

    def remove(self, key: str) -> None:
        """Forget an entry (no error if unknown)."""
        self._entries.pop(key, None)
        for tokens, in_trie in self._paths.pop(key, []):
            normalised = " ".join(tokens)
            rest = tuple(c for c in self._by_label.get(normalised, ()) if c.entry.key != key)
            if rest:
                self._by_label[normalised] = rest
            else:
                self._by_label.pop(normalised, None)
            if not in_trie:
                continue
            node: _Node | None = self._root
            for tok in tokens:
                node = node.children.get(tok) if node is not None else None
            if node is not None:
                node.candidates = tuple(c for c in node.candidates if c.entry.key != key)

    # ---- queries

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __iter__(self) -> Iterator[LexiconEntry]:
        return iter(list(self._entries.values()))

    def get(self, key: str) -> LexiconEntry | None:
        return self._entries.get(key)

    def lookup(self, label: str) -> list[LexiconEntry]:
        """Entries having exactly this label (after :func:`normalise_label`), best first (graph
        before EuroVoc, preferred before alternative label, earlier added first). Unlike
        ``match``, this also considers the generic labels that ``match`` ignores."""
        return [c.entry for c in self._by_label.get(normalise_label(label), ())]

    def match(
        self, text: str, limit: int = 10, *, jurisdiction: str | None = None
    ) -> list[LexiconHit]:
        """Concept mentions in ``text``, ordered by position.

        * Whole tokens only ("tax" never matches inside "taxi"); case-, accent- and
          punctuation-insensitive via :func:`normalise_label`.
        * Overlaps: longer matches (in tokens, then characters) win, then the earlier one.
        * On the same label, graph entries win over EuroVoc ones; then an entry's preferred
          label over another entry's alternative label; then the first added. With
          ``jurisdiction``, a graph entry of that jurisdiction (then one without) is preferred.
        * Each entry is reported once, at its first selected mention.
        * EuroVoc one-word labels match only in the TAX, WELFARE and PENSIONS domains and not
          when generic (:data:`EUROVOC_GENERIC_SINGLE_WORDS`); elsewhere only acronyms match,
          and only when written in capitals ("AIDS", not "aids"). Graph labels always match,
          case-insensitively ("VAT", "vat").
        * When there are more than ``limit`` hits, graph hits, then longer ones, then earlier
          ones are kept.
        """
        if limit <= 0 or not text:
            return []
        toks = _tokens(text)
        n = len(toks)
        root = self._root
        found: list[tuple[int, int, int, int, LexiconEntry]] = []  # -ntok, -nchar, i, j, entry
        for i in range(n):
            node = root.children.get(toks[i][0])
            j = i
            while node is not None:
                if node.candidates:
                    start, end = toks[i][1], toks[j][2]
                    entry = _choose(node.candidates, text[start:end], jurisdiction)
                    if entry is not None:
                        found.append((i - j - 1, start - end, i, j, entry))
                j += 1
                if j >= n:
                    break
                node = node.children.get(toks[j][0])
        if not found:
            return []
        found.sort(key=lambda f: (f[0], f[1], f[2]))
        taken = [False] * n
        hits: list[tuple[int, int, LexiconHit]] = []  # (priority, -ntok) for the limit
        for neg_ntok, _, i, j, entry in found:
            if any(taken[i : j + 1]):
                continue
            for k in range(i, j + 1):
                taken[k] = True
            start, end = toks[i][1], toks[j][2]
            hit = LexiconHit(entry, text[start:end], start, end)
            hits.append((0 if entry.scheme != "eurovoc" else 1, neg_ntok, hit))
        # one entry, one hit: keep the earliest of the selected mentions
        hits.sort(key=lambda h: h[2].start)
        unique: dict[str, tuple[int, int, LexiconHit]] = {}
        for h in hits:
            unique.setdefault(h[2].entry.key, h)
        chosen = list(unique.values())
        if len(chosen) > limit:
            chosen = sorted(chosen, key=lambda h: (h[0], h[1], h[2].start))[:limit]
        return sorted((h[2] for h in chosen), key=lambda hit: hit.start)


def _insert(candidates: tuple[_Candidate, ...], cand: _Candidate) -> tuple[_Candidate, ...]:
    # a new tuple, never mutated in place: concurrent readers see a consistent snapshot
    return tuple(sorted((*candidates, cand), key=lambda c: c.rank))


def _choose(
    candidates: tuple[_Candidate, ...], surface: str, jurisdiction: str | None
) -> LexiconEntry | None:
    ok = [c for c in candidates if not c.upper_only or surface.isupper()]
    if not ok:
        return None
    if jurisdiction is None:
        return ok[0].entry

    def key(c: _Candidate) -> tuple[int, int, int, int]:
        jur = c.entry.jurisdiction
        jur_rank = 0 if jur == jurisdiction else 1 if jur is None else 2
        return (c.rank[0], jur_rank, c.rank[1], c.rank[2])

    return min(ok, key=key).entry


# --------------------------------------------------------------------------- EuroVoc loading


def _read_eurovoc(path: Path | None) -> dict[str, Any]:
    if path is None:
        text = resources.files("engine").joinpath("data", EUROVOC_DATA_FILE).read_text("utf-8")
    else:
        text = path.read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    if data.get("format") != 1:
        raise ValueError(f"unsupported EuroVoc lexicon format: {data.get('format')!r}")
    return data


def _eurovoc_domain(cid: str, mts: list[str], broader: dict[str, list[str]]) -> str:
    todo, seen = [cid], set()
    while todo:  # the concept itself, then its ancestors (within the subset)
        cur = todo.pop()
        if cur in seen:
            continue
        seen.add(cur)
        if cur in EUROVOC_DOMAIN_BY_SUBTREE:
            return EUROVOC_DOMAIN_BY_SUBTREE[cur]
        todo.extend(broader.get(cur, ()))
    for mt in mts:
        if mt in EUROVOC_DOMAIN_BY_MICROTHESAURUS:
            return EUROVOC_DOMAIN_BY_MICROTHESAURUS[mt]
    return _DEFAULT_EUROVOC_DOMAIN


def _definition(concept: dict[str, Any]) -> str | None:
    definition = concept.get("definition", {}).get("en")
    if definition:
        return str(definition)
    note = concept.get("scope_note", {}).get("en")
    if note and not str(note).lower().startswith(_USAGE_NOTE_PREFIXES):
        return str(note)
    return None


def _load_eurovoc(path: Path | None) -> list[tuple[LexiconEntry, frozenset[str]]]:
    data = _read_eurovoc(path)
    concepts: list[dict[str, Any]] = data["concepts"]
    broader = {str(c["id"]): [str(b) for b in c.get("broader", [])] for c in concepts}
    out: list[tuple[LexiconEntry, frozenset[str]]] = []
    for c in concepts:
        cid = str(c["id"])
        pref: dict[str, str] = c["pref"]
        alt: dict[str, list[str]] = c.get("alt", {})
        pref_label = pref.get("en") or pref.get("fr") or cid
        alt_labels: list[str] = []
        for label in (pref.get("fr"), *alt.get("en", ()), *alt.get("fr", ())):
            if label and label != pref_label and label not in alt_labels:
                alt_labels.append(label)
        mts = [str(m) for m in c.get("mt", [])]
        entry = LexiconEntry(
            key=f"eurovoc:{cid}",
            pref_label=pref_label,
            alt_labels=tuple(alt_labels),
            domain=_eurovoc_domain(cid, mts, broader),
            kind=kind_from_label(pref_label),
            jurisdiction=None,
            definition=_definition(c),
            source_urls=(f"{EUROVOC_URI_PREFIX}{cid}",),
            scheme="eurovoc",
            notation=str(c["notation"]) if c.get("notation") else None,
            broader=tuple(f"eurovoc:{b}" for b in broader[cid]),
            microthesaurus=mts[0] if mts else None,
        )
        preferred = frozenset(normalise_label(lbl) for lbl in pref.values() if lbl)
        out.append((entry, preferred))
    return out
