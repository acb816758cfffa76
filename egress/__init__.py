"""Egress: every outbound LLM call passes here (modes, policy, PII sanitiser).

Build with :func:`egress.pii.build_pii_detector`, a :class:`Sanitiser` over a
:class:`PseudonymVault`, and an :class:`EgressClient` over the provider registry, a
:class:`PolicyStore` and an :class:`AuditSink`. Nothing is built at import time.
"""

from egress.audit import AuditSink, EgressAuditRecord, InMemoryAuditSink
from egress.client import EgressClient, EgressContext
from egress.pii import PiiDetector, PiiFinding, build_ingress_detector, build_pii_detector
from egress.policy import (
    EgressMode,
    InMemoryPolicyStore,
    PolicyStore,
    TenantPolicy,
    UserPolicy,
    resolve_mode,
)
from egress.restorer import PlaceholderRestorer
from egress.sanitiser import InMemoryPseudonymVault, PseudonymVault, SanitisedText, Sanitiser

__all__ = [
    "AuditSink",
    "EgressAuditRecord",
    "EgressClient",
    "EgressContext",
    "EgressMode",
    "InMemoryAuditSink",
    "InMemoryPolicyStore",
    "InMemoryPseudonymVault",
    "PiiDetector",
    "PiiFinding",
    "PlaceholderRestorer",
    "PolicyStore",
    "PseudonymVault",
    "SanitisedText",
    "Sanitiser",
    "TenantPolicy",
    "UserPolicy",
    "build_ingress_detector",
    "build_pii_detector",
    "resolve_mode",
]
