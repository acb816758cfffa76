import pytest

from engine.concepts import CapturedConcept
from engine.graph_outbox import GraphOutbox

pytestmark = [pytest.mark.unit, pytest.mark.anyio]

VAT = CapturedConcept(domain="TAX", kind="VAT", jurisdiction="IE", prefLabel="VAT")
USC = CapturedConcept(domain="TAX", kind="USC", jurisdiction="IE", prefLabel="USC")


async def test_pending_captures_survive_a_restart_and_done_ones_do_not(tmp_path):
    path = tmp_path / "outbox.jsonl"
    outbox = await GraphOutbox.open(path)
    first = await outbox.add([VAT])
    await outbox.add([USC])
    await outbox.done(first)
    reopened = await GraphOutbox.open(path)
    assert [[c.id for c in d.concepts] for _, d in reopened.pending()] == [["TAX:IE:USC"]]
    assert len(path.read_text().splitlines()) == 1  # compacted on open


async def test_a_torn_last_line_is_ignored(tmp_path):
    path = tmp_path / "outbox.jsonl"
    await (await GraphOutbox.open(path)).add([VAT])
    with path.open("a") as file:
        file.write('{"op": "add", "id": "x", "conc')
    assert [d.concepts[0].id for _, d in (await GraphOutbox.open(path)).pending()] == ["TAX:IE:VAT"]


async def test_without_a_path_it_is_in_memory():
    outbox = await GraphOutbox.open()
    entry = await outbox.add([VAT])
    assert len(outbox) == 1
    await outbox.done(entry)
    await outbox.done(entry)  # twice is harmless
    assert len(outbox) == 0


async def test_a_missing_file_opens_empty(tmp_path):
    outbox = await GraphOutbox.open(tmp_path / "none" / "outbox.jsonl")
    assert outbox.pending() == []


async def test_the_turns_jurisdictions_survive_a_restart_and_old_entries_still_load(tmp_path):
    path = tmp_path / "outbox.jsonl"
    outbox = await GraphOutbox.open(path)
    await outbox.add([VAT], ("IE", "EU"))
    await outbox.add([USC])  # a turn that did not check
    with path.open("a") as file:  # written before entries kept jurisdictions
        file.write('{"op": "add", "id": "old", "concepts": [' + VAT.model_dump_json() + "]}\n")
    pending = [d.jurisdictions for _, d in (await GraphOutbox.open(path)).pending()]
    assert pending == [("IE", "EU"), None, None]
