"""The guard reads the shapes that legislation writes in a provision's published wording as
what they are (periods of years, standards' numbers, outline numbers, bare names of public
persons and of products), and still refuses personal data there and everywhere else.

The provisions below were refused before (ADR 0045): each is checked from the shipped act
itself, through the real guard with the real ingress detector.
"""

from __future__ import annotations

import pytest

from corpus import parse_act, shipped_acts, to_graph_writes
from egress.pii import build_ingress_detector
from errors import PiiInGraphWrite
from graph.ingress_guard import IngressGuard
from graph.models import NodeWrite
from graph.schema import load_schema

pytestmark = pytest.mark.unit

# Every provision of the 49 acts the guard refused before this change, by act file.
ONCE_REFUSED = {
    "REG_2024_2847": ["REC_12"],  # "Platform as a Service (PaaS)"
    "REG_2023_2854": ["REC_81", "REC_100"],  # PaaS
    "DIR_2022_2555": ["REC_33"],  # PaaS
    "DIR_2024_1760": ["REC_14"],  # "Action Plan on Human Rights and Democracy 2020-2024"
    "REG_2023_1115": ["REC_19", "REC_21"],  # "Strategic Plan for Forests 2017-2030"
    "DIR_2014_65": ["REC_39", "ART_4", "ART_4_1", "ART_4_DEF_STRUCTURED_DEPOSIT"],  # Libor
    "REG_2014_600": ["REC_2"],  # "chaired by Jacques de Larosière"
    "REG_2019_2088": ["ART_9", "ART_9_3"],  # "Paris Agreement", "EU Paris-aligned Benchmark"
    "UNECE_R155": ["ART_7", "ART_12", "ART_ANNEX_5", "ART_ANNEX_5_4"],  # 7.2.2.1, ISO, Sybil
    "UNECE_R156": ["ART_7"],  # "7.1.1.1."
}


@pytest.fixture(scope="module")
def guard() -> IngressGuard:
    return IngressGuard(load_schema(), build_ingress_detector())


def _once_refused() -> list[NodeWrite]:
    wanted = {f"EU:{act}:{part}" for act, parts in ONCE_REFUSED.items() for part in parts}
    found: list[NodeWrite] = []
    for path in shipped_acts():
        act = parse_act(path)
        if act.instrument.id.removeprefix("EU:") not in ONCE_REFUSED:
            continue
        nodes, _ = to_graph_writes(act)
        found += [node for node in nodes if node.id in wanted]
    assert {node.id for node in found} == wanted  # every one, from its act
    return found


def test_provisions_once_refused_now_pass(guard: IngressGuard) -> None:
    nodes = _once_refused()
    assert len(nodes) == 19
    assert [node.id for node in guard.check_nodes(nodes)] == [node.id for node in nodes]


def _recital(text: str) -> NodeWrite:
    return NodeWrite(id="EU:REG_2099_1:REC_1", label="Recital", properties={"text": text})


@pytest.mark.parametrize(
    "text",
    [
        "Platform as a Service (PaaS), rates such as Euribor or Libor, the Paris Agreement.",
        "The Strategic Plan for Forests 2017-2030 and the Plan 2011–2020.",
        "E.g. ISO 26262-2018, ISO/PAS 21448.",
        "7.2.2.1. The vehicle manufacturer shall, in paragraph 7.2.2.2(c) and 7.2.2.3, ...",
        "The group chaired by Jacques de Larosière invited the Union to act.",
    ],
)
def test_legal_shapes_pass_in_published_wording(guard: IngressGuard, text: str) -> None:
    assert guard.check_nodes([_recital(text)])


@pytest.mark.parametrize(
    "text",
    [
        "Write to mary.murphy@example.ie for details.",
        "Call +353 87 123 4567 for details.",
        "Call 087 123 4567 for details.",
        "Mr Jacques de Larosière invited the Union to act.",
        "For details contact Siobhan Murphy.",
        "The server at IP address 10.1.2.3 logged it.",
        "The request came from 192.168.10.20. It was logged.",
        "Pay to IE29AIBK93115212345678 by Friday.",
        "Her PPSN is 5260181E.",
        "Plan 2030-2017 is no period.",
    ],
)
def test_personal_data_in_published_wording_is_still_refused(
    guard: IngressGuard, text: str
) -> None:
    with pytest.raises(PiiInGraphWrite):
        guard.check_nodes([_recital(text)])


@pytest.mark.parametrize("text", ["Jacques de Larosière", "Siobhan Murphy 2017-2030"])
def test_other_labels_keep_the_whole_scan(guard: IngressGuard, text: str) -> None:
    # Only a provision's published wording reads those shapes as law: a label (what a chat
    # capture writes) or a provision's other properties are scanned as before.
    with pytest.raises(PiiInGraphWrite):
        guard.check_nodes([NodeWrite(id="LABEL:x", label="Label", properties={"text": text})])
    with pytest.raises(PiiInGraphWrite):
        guard.check_nodes(
            [NodeWrite(id="EU:REG_2099_1:REC_1", label="Recital", properties={"name": text})]
        )
