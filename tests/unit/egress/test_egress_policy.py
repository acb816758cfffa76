from __future__ import annotations

import pytest

from egress.policy import EgressMode, TenantPolicy, UserPolicy, resolve_mode
from errors import EgressBlocked

E, R, OFF = EgressMode.ENFORCE, EgressMode.REPORT_ONLY, EgressMode.OFF
MODES = [None, E, R, OFF]


STRICTNESS = {OFF: 0, R: 1, E: 2}


@pytest.mark.unit
@pytest.mark.parametrize("allow_off", [False, True])
@pytest.mark.parametrize("tenant_mode", MODES)
@pytest.mark.parametrize("user_mode", MODES)
@pytest.mark.parametrize("override", MODES)
def test_mode_matrix_keeps_the_documented_guarantees(
    allow_off, tenant_mode, user_mode, override
) -> None:
    """Every combination, checked against guarantees rather than a second implementation."""
    tenant = TenantPolicy(default_mode=tenant_mode, allow_off_mode=allow_off)
    requested = [m for m in (user_mode, override) if m is not None]
    if not allow_off and OFF in requested:  # off asked for where it is not allowed: refused
        with pytest.raises(EgressBlocked):
            resolve_mode(E, tenant, UserPolicy(mode=user_mode), override)
        return
    mode = resolve_mode(E, tenant, UserPolicy(mode=user_mode), override)
    floor = tenant_mode or E
    if not allow_off:
        # Never looser than the tenant's own mode (off without allow_off counts as report-only).
        lowest = R if floor is OFF else floor
        assert STRICTNESS[mode] >= STRICTNESS[lowest]
        assert mode is not OFF
        if requested and STRICTNESS[requested[-1]] >= STRICTNESS[lowest]:
            assert mode is requested[-1]  # within bounds, the later setting wins
    else:
        # The tenant allows relaxing: the last setting given wins, else the tenant's mode.
        assert mode is (requested[-1] if requested else floor)


@pytest.mark.unit
@pytest.mark.parametrize(
    ("tenant", "user", "override", "want"),
    [
        (TenantPolicy(), UserPolicy(), None, E),  # global default
        (TenantPolicy(default_mode=R), UserPolicy(), None, R),  # tenant over global
        (TenantPolicy(default_mode=R), UserPolicy(mode=E), None, E),  # user tightens
        (TenantPolicy(default_mode=R), UserPolicy(mode=E), R, R),  # override within bounds
        (TenantPolicy(default_mode=E), UserPolicy(mode=R), None, E),  # cannot loosen: clamped
        (TenantPolicy(default_mode=E, allow_off_mode=True), UserPolicy(mode=R), None, R),
        (TenantPolicy(allow_off_mode=True), UserPolicy(), OFF, OFF),  # off where allowed
        (TenantPolicy(default_mode=OFF), UserPolicy(), None, R),  # off default needs allow_off
    ],
)
def test_resolution_examples(tenant, user, override, want) -> None:
    assert resolve_mode(E, tenant, user, override) is want


@pytest.mark.unit
@pytest.mark.parametrize(("user", "override"), [(UserPolicy(mode=OFF), None), (UserPolicy(), OFF)])
def test_off_refused_without_allow_off_mode(user, override) -> None:
    with pytest.raises(EgressBlocked):
        resolve_mode(R, TenantPolicy(default_mode=R), user, override)
