"""``parse_act(path)``: detect the format of a legal act and parse it.

Formats: EUR-Lex / CELLAR XHTML (``.html``, ``.xhtml``), Formex 4 (a folder of ``*.fmx.xml``
or one file of it) and Akoma Ntoso (``.xml`` with the AKN namespace). Files may be gzipped
(``.gz``), as the shipped copies under ``seeds/legal/`` are. Detection reads the content, not
the name, so a renamed file still parses.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from corpus.akn import parse_akoma_ntoso
from corpus.formex import parse_formex
from corpus.model import ParsedAct, SourceFormat
from corpus.xhtml import parse_eurlex_xhtml
from errors import InvalidInput

__all__ = ["SHIPPED_ACTS_DIR", "detect_format", "parse_act", "read_source", "shipped_acts"]

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
    if b"akomaNtoso" in head:
        return SourceFormat.AKOMA_NTOSO
    if b"<html" in head or b"<HTML" in head:
        return SourceFormat.EURLEX_XHTML
    if any(root in head for root in _FORMEX_ROOTS) and b"formex" in head.lower():
        return SourceFormat.FORMEX
    raise InvalidInput(f"{path.name}: not EUR-Lex XHTML, Formex or Akoma Ntoso")


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
    return parse_eurlex_xhtml(data)


def shipped_acts(folder: Path = SHIPPED_ACTS_DIR) -> list[Path]:
    """The gzipped acts under ``seeds/legal/``, sorted by name."""
    return sorted(folder.glob("*.gz"))
