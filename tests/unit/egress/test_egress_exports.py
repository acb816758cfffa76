from __future__ import annotations

import pytest

import egress


@pytest.mark.unit
def test_public_api_is_pinned() -> None:
    assert sorted(egress.__all__) == [
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
    for name in egress.__all__:
        assert getattr(egress, name) is not None
