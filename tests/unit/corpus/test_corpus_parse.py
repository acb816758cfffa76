"""Format detection, gzipped input and the public API list."""

from __future__ import annotations

import gzip
import importlib
import inspect
import pkgutil

import pytest

import corpus
from corpus import ProvisionKind, SourceFormat, detect_format, parse_act, shipped_acts
from corpus.assembly import parse_division_title
from corpus.text import clean
from errors import InvalidInput
from tests.unit.corpus.conftest import AI_ACT_PATH, GDPR_PATH, IEA_FORMEX, IEA_XHTML, PAD_AKN

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (AI_ACT_PATH, SourceFormat.EURLEX_XHTML),
        (GDPR_PATH, SourceFormat.EURLEX_XHTML),
        (IEA_XHTML, SourceFormat.EURLEX_XHTML),
        (IEA_FORMEX, SourceFormat.FORMEX),
        (IEA_FORMEX / "L_202400903EN.000101.fmx.xml", SourceFormat.FORMEX),
        (PAD_AKN, SourceFormat.AKOMA_NTOSO),
    ],
    ids=lambda value: getattr(value, "name", str(value)),
)
def test_detect_format(path, expected):
    assert detect_format(path) is expected


def test_detection_reads_content_not_names(tmp_path, iea_xhtml):
    renamed = tmp_path / "act.bin.gz"
    renamed.write_bytes(gzip.compress(IEA_XHTML.read_bytes()))
    assert parse_act(renamed) == iea_xhtml


@pytest.mark.parametrize(
    "content", [b"plain text", b"<?xml version='1.0'?><root/>", b"<ACT>not formex</ACT>"]
)
def test_unknown_content_is_invalid_input(tmp_path, content):
    path = tmp_path / "act.xml"
    path.write_bytes(content)
    with pytest.raises(InvalidInput):
        parse_act(path)


def test_a_folder_without_formex_is_invalid_input(tmp_path):
    with pytest.raises(InvalidInput):
        parse_act(tmp_path)


def test_html_without_an_act_title_is_invalid_input(tmp_path):
    path = tmp_path / "page.html"
    path.write_bytes(b"<html><body><p class='oj-doc-ti'>Minutes</p></body></html>")
    with pytest.raises(InvalidInput, match="no act citation"):
        parse_act(path)


def test_shipped_acts():
    shipped = shipped_acts()
    assert shipped[:2] == sorted([AI_ACT_PATH, GDPR_PATH])  # the Official Journal files first
    assert len(shipped) == 2 + 49 and all(p.name.endswith(".json.gz") for p in shipped[2:])


def test_every_public_name_is_exported():
    modules = [
        importlib.import_module(f"corpus.{info.name}")
        for info in pkgutil.iter_modules(corpus.__path__)
    ]
    assert modules
    for module in [corpus, *modules]:
        exported = set(module.__all__)
        assert all(hasattr(module, name) for name in exported), module.__name__
        defined = {
            name
            for name, value in vars(module).items()
            if not name.startswith("_")
            and (inspect.isfunction(value) or inspect.isclass(value))
            and value.__module__ == module.__name__
        }
        assert defined <= exported, (module.__name__, defined - exported)


def test_corpus_does_not_import_api_engine_or_conversations():
    for info in pkgutil.iter_modules(corpus.__path__):
        source = inspect.getsource(importlib.import_module(f"corpus.{info.name}"))
        for forbidden in ("api", "engine", "conversations"):
            assert f"from {forbidden}" not in source and f"import {forbidden}" not in source


@pytest.mark.parametrize(
    ("printed", "expected"),
    [
        ("CHAPTER III", (ProvisionKind.CHAPTER, "III")),
        ("Chapter 1", (ProvisionKind.CHAPTER, "1")),
        ("Section 2", (ProvisionKind.SECTION, "2")),
        ("TITLE  IV", (ProvisionKind.TITLE, "IV")),
        ("Sub-section 1", (ProvisionKind.SUBSECTION, "1")),
        ("GENERAL PROVISIONS", None),
    ],
)
def test_division_titles(printed, expected):
    assert parse_division_title(printed) == expected


def test_formex_division_with_an_unknown_title_is_invalid_input(tmp_path):
    (tmp_path / "act.fmx.xml").write_text(
        "<ACT><TITLE><TI><P>REGULATION (EU) 2024/903 OF THE COUNCIL</P></TI></TITLE>"
        "<ENACTING.TERMS><DIVISION><TITLE><TI><P>Heading only</P></TI></TITLE>"
        "</DIVISION></ENACTING.TERMS></ACT>",
        encoding="utf-8",
    )
    with pytest.raises(InvalidInput, match="unknown title"):
        parse_act(tmp_path)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1.\u00a0\u00a0\u00a0The", "1. The"),  # EUR-Lex's no-break spaces after a number
        (" a\u2009b\u202fc ", "a b c"),
        ("zero\u200bwidth\ufeff", "zero width"),
        ("\n\t", ""),
    ],
)
def test_clean(raw, expected):
    assert clean(raw) == expected
