"""The legal corpus: EU acts parsed into one provision model, their cross-references, and the
graph writes that put them in the rules graph.

Parsers for EUR-Lex / CELLAR XHTML, Formex 4 and Akoma Ntoso all produce a
:class:`ParsedAct`; :func:`parse_act` picks the parser from the content. This package does not
touch a store: :func:`to_graph_writes` returns ``graph.models`` DTOs that the caller sends
through ``GraphWriteService`` (and so through the ingress guard). It imports neither ``api``,
``conversations`` nor ``engine``, and speaks no Cypher.
"""

from __future__ import annotations

from corpus.citations import ActCitation, find_act_citations, parse_act_citation
from corpus.graph_writes import label_for_id, to_graph_writes
from corpus.model import (
    Instrument,
    InstrumentKind,
    ParsedAct,
    Provision,
    ProvisionKind,
    SourceFormat,
)
from corpus.parse import SHIPPED_ACTS_DIR, detect_format, parse_act, shipped_acts
from corpus.references import CrossReference, cited_ids, find_references

__all__ = [
    "SHIPPED_ACTS_DIR",
    "ActCitation",
    "CrossReference",
    "Instrument",
    "InstrumentKind",
    "ParsedAct",
    "Provision",
    "ProvisionKind",
    "SourceFormat",
    "cited_ids",
    "detect_format",
    "find_act_citations",
    "find_references",
    "label_for_id",
    "parse_act",
    "parse_act_citation",
    "shipped_acts",
    "to_graph_writes",
]
