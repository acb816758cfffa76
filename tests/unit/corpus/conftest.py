"""Parsed acts shared by the corpus tests (parsed once per session).

The AI Act and the GDPR come from the copies shipped under ``seeds/legal/``. The other acts
and the expected parses come from ``../shared/data/eu-legislation`` beside the checkout, which
CI and development machines have; these tests fail, not skip, when it is missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import ParsedAct, parse_act

REPO = Path(__file__).resolve().parents[3]
LEGAL = REPO / "seeds" / "legal"
SHARED = REPO.parent / "shared" / "data" / "eu-legislation"
AI_ACT_PATH = LEGAL / "32024R1689_OJ-L-202401689_EN.html.gz"
GDPR_PATH = LEGAL / "32016R0679_OJ-L-2016-119_EN.xhtml.gz"
IEA = SHARED / "interoperable-europe-act_32024R0903"
IEA_FORMEX = IEA / "formex"
IEA_XHTML = IEA / "cellar-xhtml" / "L_202400903EN.000101.fmx.xml.html"
IEA_EXPECTED = IEA / "tulit_expected_parse_from_formex.json"
PAD_AKN = SHARED / "payment-accounts-directive_32014L0092" / "32014L0092_akn4eu.xml"
GDPR_EXPECTED = SHARED / "gdpr_32016R0679" / "gdprtext_gdpr_structured.json"


@pytest.fixture(scope="session")
def ai_act() -> ParsedAct:
    return parse_act(AI_ACT_PATH)


@pytest.fixture(scope="session")
def gdpr() -> ParsedAct:
    return parse_act(GDPR_PATH)


@pytest.fixture(scope="session")
def iea_formex() -> ParsedAct:
    return parse_act(IEA_FORMEX)


@pytest.fixture(scope="session")
def iea_xhtml() -> ParsedAct:
    return parse_act(IEA_XHTML)


@pytest.fixture(scope="session")
def payment_accounts() -> ParsedAct:
    return parse_act(PAD_AKN)
