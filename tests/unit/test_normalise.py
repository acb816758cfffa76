"""Label normalisation and upper-snake keys, pinned by frozen tables.

These tables are the contract of stored keys: ``Label.normalised`` and the ``LABEL:…`` ids come
from ``normalise_label``, each part of a concept id ``DOMAIN:JURISDICTION:KIND`` from
``upper_snake``, EuroVoc kinds from ``kind_from_label``. If a row fails, the change would alter
keys already in the graph: keep the old behaviour, or plan a migration of stored keys before
you edit the table.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import engine.normalise as normalise_module
from engine.normalise import (
    KEY_MAX_LEN,
    Tokens,
    kind_from_label,
    normalise_label,
    tokenise,
    upper_snake,
)

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]

# input -> normalised label (frozen: see the module docstring)
NORMALISED = [
    # case
    ("VAT", "vat"),
    ("Value Added Tax", "value added tax"),
    ("PRSI", "prsi"),
    # accents (English, French, Irish), composed and decomposed
    ("Taxe sur la valeur ajoutée", "taxe sur la valeur ajoutee"),
    ("Impôt sur le revenu", "impot sur le revenu"),
    ("Cáin bhreisluacha", "cain bhreisluacha"),
    ("Árachas Sóisialach", "arachas soisialach"),
    ("naïve façade", "naive facade"),
    ("Te\u0301le\u0301travail", "teletravail"),
    ("e\u0301", "e"),
    ("École", "ecole"),
    # punctuation separates tokens, never survives
    ("P.R.S.I.", "p r s i"),
    ("USC (2024)", "usc 2024"),
    ("tax-free/allowance", "tax free allowance"),
    ("tax_free", "tax free"),
    ("widow's pension", "widow s pension"),
    ("widow\u2019s pension", "widow s pension"),
    ("\u00abretraite complémentaire\u00bb", "retraite complementaire"),
    ("Section 481!", "section 481"),
    ("EU:REG_2016_679", "eu reg 2016 679"),
    ("?!\u2026 \u2014 \u00ab\u00bb", ""),
    (" ,;- ", ""),
    # ampersand
    ("R&D tax credit", "r d tax credit"),
    ("Tax & Duty", "tax duty"),
    ("AT&T", "at t"),
    ("&", ""),
    # plurals are not folded (no stemming)
    ("pensions", "pensions"),
    ("Benefits", "benefits"),
    ("child benefit / child benefits", "child benefit child benefits"),
    # whitespace, including no-break, ideographic and format characters
    ("  VALUE-ADDED   tax ", "value added tax"),
    ("tax\tcredit\n", "tax credit"),
    ("income\u00a0tax", "income tax"),
    ("income\u3000tax", "income tax"),
    ("tax\u200bcredit", "tax credit"),
    ("tax\u00adcredit", "tax credit"),
    ("", ""),
    # French
    ("taxe à l'importation", "taxe a l importation"),
    ("taxation de l\u2019économie numérique", "taxation de l economie numerique"),
    ("allocation de chômage", "allocation de chomage"),
    ("pension d'invalidité", "pension d invalidite"),
    ("Sécurité sociale", "securite sociale"),
    ("ÉTÉ", "ete"),
    ("Œuvre", "oeuvre"),
    ("cœur", "coeur"),
    # letters NFKD does not decompose, ligatures, full-width and compatibility forms
    ("Straße", "strasse"),
    ("Øresund", "oresund"),
    ("Łódź", "lodz"),
    ("Þór", "thor"),
    ("Æsir", "aesir"),
    ("Đurđevac", "durdevac"),
    ("İstanbul", "istanbul"),
    ("ıslak", "islak"),
    ("\ufb01scal", "fiscal"),
    ("\uff36\uff21\uff34", "vat"),
    ("m\u00b2", "m2"),
    ("\u00bd", "1 2"),
    # digits
    ("COVID-19", "covid 19"),
    ("Regulation 883/2004", "regulation 883 2004"),
    # other scripts are kept (case-folded, accents stripped)
    ("Φόρος", "φοροσ"),
]

# input -> upper_snake (frozen): concept ids are built from these
UPPER_SNAKE = [
    ("value added tax", "VALUE_ADDED_TAX"),
    ("Taxe sur la valeur ajoutée", "TAXE_SUR_LA_VALEUR_AJOUTEE"),
    ("Impôt sur le revenu", "IMPOT_SUR_LE_REVENU"),
    ("tax", "TAX"),
    (" ie ", "IE"),
    ("survivor's benefit", "SURVIVOR_S_BENEFIT"),
    ("R&D", "R_D"),
    ("p.r.s.i.", "P_R_S_I"),
    ("a-b--c", "A_B_C"),
    ("__x__", "X"),
    ("EU:REG", "EU_REG"),
    ("COVID-19", "COVID_19"),
    ("\uff36\uff21\uff34", "VAT"),
    # unlike normalise_label, letters without an ASCII decomposition are dropped
    ("Straße", "STRAE"),
    ("Œuvre", "UVRE"),
    ("Φόρος", ""),
    ("", ""),
]

# label -> kind_from_label (frozen): the kinds of EuroVoc concepts
KINDS = [
    ("value added tax", "VALUE_ADDED_TAX"),
    ("VAT", "VAT"),
    ("survivor's benefit", "SURVIVOR_S_BENEFIT"),
    ("widow\u2019s pension", "WIDOW_S_PENSION"),
    ("taxe à l'importation", "TAXE_A_L_IMPORTATION"),
    ("tax-free allowance", "TAX_FREE_ALLOWANCE"),
    ("Impôt sur le revenu", "IMPOT_SUR_LE_REVENU"),
    ("R&D tax credit", "R_D_TAX_CREDIT"),
    ("COVID-19", "COVID_19"),
    ("\uff36\uff21\uff34", "VAT"),
    ("Straße", "STRASSE"),
    ("Œuvre", "OEUVRE"),
    ("Øresund", "ORESUND"),
    ("Φόρος income tax", "INCOME_TAX"),
]


@pytest.mark.parametrize(("raw", "expected"), NORMALISED)
def test_normalise_label_frozen_table(raw: str, expected: str) -> None:
    assert normalise_label(raw) == expected
    assert normalise_label(expected) == expected  # idempotent


@pytest.mark.parametrize(("raw", "expected"), UPPER_SNAKE)
def test_upper_snake_frozen_table(raw: str, expected: str) -> None:
    assert upper_snake(raw) == expected
    assert upper_snake(expected) == expected  # idempotent


def test_upper_snake_is_bounded_without_a_trailing_underscore() -> None:
    assert upper_snake("x" * 100) == "X" * KEY_MAX_LEN
    assert upper_snake("value added tax", limit=9) == "VALUE_ADD"
    assert upper_snake("value added", limit=6) == "VALUE"


@pytest.mark.parametrize(("label", "kind"), KINDS)
def test_kind_from_label_frozen_table(label: str, kind: str) -> None:
    assert kind_from_label(label) == kind


def test_kind_from_label_is_bounded_and_never_empty() -> None:
    kind = kind_from_label(" ".join(["contribution"] * 20))
    assert len(kind) <= KEY_MAX_LEN
    assert re.fullmatch(r"[A-Z0-9_]+", kind)
    assert not kind.endswith("_")
    for nothing in ("--", "", "Φόρος"):
        with pytest.raises(ValueError):
            kind_from_label(nothing)


def test_tokenise_spans_point_into_the_original_text() -> None:
    text = "Taxe  sur l\u2019Œuvre — COVID-19, ½"
    tokens = tokenise(text)
    assert tokens == Tokens(
        texts=("taxe", "sur", "l", "oeuvre", "covid", "19", "1", "2"),
        starts=(0, 6, 10, 12, 20, 26, 30, 30),
        ends=(4, 9, 11, 17, 25, 28, 31, 31),
    )
    assert len(tokens) == 8
    assert [text[s:e] for s, e in zip(tokens.starts, tokens.ends, strict=True)] == [
        "Taxe", "sur", "l", "Œuvre", "COVID", "19", "½", "½",
    ]  # fmt: skip
    assert " ".join(tokens.texts) == normalise_label(text)


def _top_level_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_upper_snake_is_defined_once() -> None:
    """Regression: concept ids and EuroVoc kinds were built by two upper-snake helpers."""
    packages = ["engine", "graph", "egress", "api", "conversations", "errors", "tools", "bench"]
    defined = [
        path.relative_to(REPO).as_posix()
        for package in packages
        for path in (REPO / package).rglob("*.py")
        if "upper_snake" in _top_level_names(path)
    ]
    assert defined == ["engine/normalise.py"]
    assert normalise_module.upper_snake is upper_snake
