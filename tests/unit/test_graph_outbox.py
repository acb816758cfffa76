import pytest

from engine.concepts import CapturedConcept
from engine.graph_outbox import GraphOutbox

pytestmark = pytest.mark.unit

VAT = CapturedConcept(domain="TAX", kind="VAT", jurisdiction="IE", prefLabel="VAT")
USC = CapturedConcept(domain="TAX", kind="USC", jurisdiction="IE", prefLabel="USC")


def test_pending_captures_survive_a_restart_and_done_ones_do_not(tmp_path):
    path = tmp_path / "outbox.jsonl"
    outbox = GraphOutbox(path)
    first = outbox.add([VAT])
    outbox.add([USC])
    outbox.done(first)
    reopened = GraphOutbox(path)
    assert [[c.id for c in cs] for _, cs in reopened.pending()] == [["TAX:IE:USC"]]
    assert len(path.read_text().splitlines()) == 1  # compacted on open


def test_a_torn_last_line_is_ignored(tmp_path):
    path = tmp_path / "outbox.jsonl"
    GraphOutbox(path).add([VAT])
    with path.open("a") as file:
        file.write('{"op": "add", "id": "x", "conc')
    assert [cs[0].id for _, cs in GraphOutbox(path).pending()] == ["TAX:IE:VAT"]


def test_without_a_path_it_is_in_memory():
    outbox = GraphOutbox()
    entry = outbox.add([VAT])
    assert len(outbox) == 1
    outbox.done(entry)
    outbox.done(entry)  # twice is harmless
    assert len(outbox) == 0
