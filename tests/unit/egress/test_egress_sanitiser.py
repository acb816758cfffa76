from __future__ import annotations

import pytest

from egress.pii import PiiDetector
from egress.restorer import PlaceholderRestorer
from egress.sanitiser import InMemoryPseudonymVault, Sanitiser


@pytest.mark.unit
@pytest.mark.anyio
async def test_same_value_same_placeholder_within_a_conversation(detector: PiiDetector) -> None:
    sanitiser = Sanitiser(detector, InMemoryPseudonymVault())
    first = await sanitiser.sanitise("t1", "c1", "My PPSN is 1234567TW and my email a@b.ie.")
    second = await sanitiser.sanitise("t1", "c1", "Again: 1234567TW. Also x@y.ie")
    assert first.text == "My PPSN is [PPSN_1] and my email [EMAIL_ADDRESS_1]."
    assert second.text == "Again: [PPSN_1]. Also [EMAIL_ADDRESS_2]"
    assert first.counts == {"PPSN": 1, "EMAIL_ADDRESS": 1}


@pytest.mark.unit
@pytest.mark.anyio
async def test_placeholders_are_per_tenant_and_conversation(detector: PiiDetector) -> None:
    vault = InMemoryPseudonymVault()
    sanitiser = Sanitiser(detector, vault)
    await sanitiser.sanitise("t1", "c1", "email a@b.ie")
    other = await sanitiser.sanitise("t1", "c2", "email z@b.ie")
    other_tenant = await sanitiser.sanitise("t2", "c1", "email q@b.ie")
    assert other.text == other_tenant.text == "email [EMAIL_ADDRESS_1]"
    assert await vault.lookup("t1", "c1") == {"[EMAIL_ADDRESS_1]": "a@b.ie"}
    assert await vault.lookup("t2", "c1") == {"[EMAIL_ADDRESS_1]": "q@b.ie"}


@pytest.mark.unit
@pytest.mark.anyio
async def test_sanitising_sanitised_text_changes_nothing(detector: PiiDetector) -> None:
    sanitiser = Sanitiser(detector, InMemoryPseudonymVault())
    once = await sanitiser.sanitise("t", "c", "Dear Mr. Seán Murphy, PPSN 1234567TW")
    twice = await sanitiser.sanitise("t", "c", once.text)
    assert twice.text == once.text
    assert twice.counts == {}


@pytest.mark.unit
def test_restorer_restores_whole_placeholders() -> None:
    restorer = PlaceholderRestorer({"[PERSON_1]": "Aoife", "[PPSN_1]": "1234567TW"})
    assert restorer.feed("Hello [PERSON_1], your [PPSN_1] is noted.") == (
        "Hello Aoife, your 1234567TW is noted."
    )
    assert restorer.flush() == ""


@pytest.mark.unit
@pytest.mark.parametrize("split", range(1, 30))
def test_restorer_handles_a_placeholder_split_across_chunks(split: int) -> None:
    text = "Hi [PERSON_1], see [PERSON_12]!"
    restorer = PlaceholderRestorer({"[PERSON_1]": "Aoife", "[PERSON_12]": "Niamh"})
    out = restorer.feed(text[:split]) + restorer.feed(text[split:]) + restorer.flush()
    assert out == "Hi Aoife, see Niamh!"


@pytest.mark.unit
def test_restorer_one_character_at_a_time_and_unknown_brackets() -> None:
    text = "[a] [PERSON_1] [PERSON_9] [PERS"
    restorer = PlaceholderRestorer({"[PERSON_1]": "Aoife"})
    out = "".join(restorer.feed(c) for c in text) + restorer.flush()
    assert out == "[a] Aoife [PERSON_9] [PERS"


@pytest.mark.unit
def test_restorer_does_not_hold_unrelated_text() -> None:
    restorer = PlaceholderRestorer({"[PERSON_1]": "Aoife"})
    assert restorer.feed("a list [1] of") == "a list [1] of"
    assert restorer.feed(" items [") == " items "
    assert restorer.feed("x") == "[x"
