"""PII detection shared by the egress sanitiser and the graph ingress guard."""

from egress.pii.detector import (
    PiiDetector,
    build_ingress_detector,
    build_pii_detector,
    resolve_overlaps,
)
from egress.pii.findings import ALL_ENTITY_TYPES, PiiFinding, Recogniser

__all__ = [
    "ALL_ENTITY_TYPES",
    "PiiDetector",
    "PiiFinding",
    "Recogniser",
    "build_ingress_detector",
    "build_pii_detector",
    "resolve_overlaps",
]
