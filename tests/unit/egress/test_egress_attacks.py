"""Evasive chat messages (``tests/fixtures/attacks/chat_messages.jsonl``) through the real
egress sanitiser: nothing the message must not pass survives, in any spelling (ADR 0016)."""

from __future__ import annotations

import pytest

from egress.pii import PiiDetector
from egress.sanitiser import InMemoryPseudonymVault, Sanitiser
from tests.support.attacks import load_cases, passed_values

CASES = load_cases("chat_messages")


@pytest.mark.unit
def test_the_message_corpus_is_big_enough() -> None:
    assert len(CASES) >= 50
    assert len({case["category"] for case in CASES}) >= 20


@pytest.mark.unit
@pytest.mark.anyio
async def test_no_evasive_message_gets_a_value_past_egress(detector: PiiDetector) -> None:
    sanitiser = Sanitiser(detector, InMemoryPseudonymVault())
    leaked: dict[str, list[str]] = {}
    for case in CASES:
        sent = await sanitiser.sanitise("t", case["id"], case["message"])
        if passed := passed_values(case["must_not_pass"], [sent.text]):
            leaked[case["id"]] = passed
    assert leaked == {}


@pytest.mark.unit
@pytest.mark.anyio
async def test_placeholders_replace_the_original_characters(detector: PiiDetector) -> None:
    """Detection runs on the canonical form; replacement on the text as written."""
    sanitiser = Sanitiser(detector, InMemoryPseudonymVault())
    text = "PPSN 52601\u200d81E, mail mary\uff20example.ie, IBAN IE29\u200bAIBK93115212345678."
    out = await sanitiser.sanitise("t", "c", text)
    assert out.text == "PPSN [PPSN_1], mail [EMAIL_ADDRESS_1], IBAN [IBAN_CODE_1]."
    assert await sanitiser.vault.lookup("t", "c") == {
        "[PPSN_1]": "52601\u200d81E",
        "[EMAIL_ADDRESS_1]": "mary\uff20example.ie",
        "[IBAN_CODE_1]": "IE29\u200bAIBK93115212345678",
    }
