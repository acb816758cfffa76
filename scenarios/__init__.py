"""The scenario engine (issue 28): "what if" facts evaluated against the graph's own parameters.

Pure logic, no I/O but one narrow read port (:class:`ParameterReader`, nodes by id): a scenario
is labelled dated snapshots of facts (:mod:`scenarios.models`); :func:`evaluate` computes each
snapshot's Irish income tax, USC and PRSI, or UK income tax and National Insurance, from the
rates, bands and credits the graph holds (:mod:`scenarios.parameters`, :mod:`scenarios.ireland`,
:mod:`scenarios.uk`), each line citing its node ids and the
period they are in force; :func:`compare` sets scenarios side by side. A parameter the graph
lacks is a :class:`Gap` in the result, never a number of the engine's own (ADR 0053). With a
:class:`RuleSet` read by :func:`load_rules`, each snapshot also says which reliefs, credits,
benefits and obligations apply by the graph's conditions and which deadlines bind (ADR 0071).
"""

from scenarios.eligibility import Eligibility, RuleSet, RulesReader, load_rules
from scenarios.evaluate import compare, evaluate, evaluate_snapshot
from scenarios.models import Disposal, Facts, Scenario, ScenarioInput, Snapshot
from scenarios.parameters import Gap, ParameterReader
from scenarios.result import Comparison, Line, SnapshotResult, Total

__all__ = [
    "Comparison",
    "Disposal",
    "Eligibility",
    "Facts",
    "Gap",
    "Line",
    "ParameterReader",
    "RuleSet",
    "RulesReader",
    "Scenario",
    "ScenarioInput",
    "Snapshot",
    "SnapshotResult",
    "Total",
    "compare",
    "evaluate",
    "evaluate_snapshot",
    "load_rules",
]
