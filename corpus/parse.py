"""``parse_act(path)``: detect the format of a legal act and parse it.

Formats: EUR-Lex / CELLAR XHTML (``.html``, ``.xhtml``), Formex 4 (a folder of ``*.fmx.xml``
or one file of it), Akoma Ntoso (``.xml`` with the AKN namespace) and the structured JSON of
:mod:`corpus.eu_json`. Files may be gzipped
(``.gz``), as the shipped copies under ``seeds/legal/`` are. Detection reads the content, not
the name, so a renamed file still parses.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from corpus.akn import parse_akoma_ntoso
from corpus.eu_json import looks_like_eu_json, parse_eu_json
from corpus.formex import parse_formex
from corpus.model import ParsedAct, SourceFormat
from corpus.xhtml import parse_eurlex_xhtml
from errors import InvalidInput

__all__ = [
    "SHIPPED_ACTS_DIR",
    "detect_format",
    "parse_act",
    "prefer_official_journal",
    "read_source",
    "shipped_acts",
]

# The acts that ship with the project (see seeds/legal/README.md for source and licence).
SHIPPED_ACTS_DIR = Path(__file__).resolve().parents[1] / "seeds" / "legal"
_SNIFF_BYTES = 4096
_FORMEX_ROOTS = (b"<ACT", b"<ANNEX", b"<DOC", b"<PUBLICATION")


def read_source(path: Path) -> bytes:
    """The file's bytes, gunzipped when it ends in ``.gz``."""
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def detect_format(path: Path, data: bytes | None = None) -> SourceFormat:
    """Which parser reads ``path``; raises :class:`errors.InvalidInput` when none does."""
    if path.is_dir():
        if any(path.glob("*.fmx.xml")):
            return SourceFormat.FORMEX
        raise InvalidInput(f"{path}: a folder without Formex files")
    head = (data if data is not None else read_source(path))[:_SNIFF_BYTES]
    if looks_like_eu_json(head):
        return SourceFormat.EU_JSON
    if b"akomaNtoso" in head:
        return SourceFormat.AKOMA_NTOSO
    if b"<html" in head or b"<HTML" in head:
        return SourceFormat.EURLEX_XHTML
    if any(root in head for root in _FORMEX_ROOTS) and b"formex" in head.lower():
        return SourceFormat.FORMEX
    raise InvalidInput(f"{path.name}: not EUR-Lex XHTML, Formex, Akoma Ntoso or EU act JSON")


def parse_act(path: Path | str) -> ParsedAct:
    """Parse the act at ``path`` (a file, a ``.gz`` file or a Formex folder)."""
    path = Path(path)
    if path.is_dir():
        detect_format(path)
        return parse_formex(path)
    data = read_source(path)
    source_format = detect_format(path, data)
    if source_format is SourceFormat.FORMEX:
        return parse_formex(path)
    if source_format is SourceFormat.AKOMA_NTOSO:
        return parse_akoma_ntoso(data)
    if source_format is SourceFormat.EU_JSON:
        return parse_eu_json(data)
    return parse_eurlex_xhtml(data)


def shipped_acts(folder: Path = SHIPPED_ACTS_DIR) -> list[Path]:
    """The gzipped acts under ``seeds/legal/``, sorted by name: the Official Journal files
    first, then the JSON collection of ``json/`` (an act in both is read from the former,
    :func:`prefer_official_journal`)."""
    return sorted(folder.glob("*.gz")) + sorted((folder / "json").glob("*.json.gz"))


def prefer_official_journal(acts: list[ParsedAct]) -> list[ParsedAct]:
    """One parse per instrument: the Official Journal markup wins over the JSON conversion
    (the AI Act and the GDPR are in both), so no provision gets two nodes."""
    official = {a.instrument.id for a in acts if a.source_format is not SourceFormat.EU_JSON}
    kept: dict[str, ParsedAct] = {}
    for act in acts:
        if act.source_format is SourceFormat.EU_JSON and act.instrument.id in official:
            continue
        kept.setdefault(act.instrument.id, act)
    return list(kept.values())
