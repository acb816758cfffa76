from __future__ import annotations

import pytest

from egress.policy import EgressMode, TenantPolicy, UserPolicy, resolve_mode
from errors import EgressBlocked

E, R, OFF = EgressMode.ENFORCE, EgressMode.REPORT_ONLY, EgressMode.OFF
MODES = [None, E, R, OFF]


def expected(tenant_mode, allow_off, user_mode, override, global_default=E):
    """The documented rules, written out independently of the implementation."""
    rank = {OFF: 0, R: 1, E: 2}
    floor = tenant_mode or global_default
    if floor is OFF and not allow_off:
        floor = R
    mode = floor
    for requested in (user_mode, override):
        if requested is None:
            continue
        if allow_off or rank[requested] >= rank[floor]:
            mode = requested
        elif requested is OFF:
            return "refused"
        else:
            mode = floor
    return mode


@pytest.mark.unit
@pytest.mark.parametrize("allow_off", [False, True])
@pytest.mark.parametrize("tenant_mode", MODES)
@pytest.mark.parametrize("user_mode", MODES)
@pytest.mark.parametrize("override", MODES)
def test_mode_matrix(allow_off, tenant_mode, user_mode, override) -> None:
    tenant = TenantPolicy(default_mode=tenant_mode, allow_off_mode=allow_off)
    want = expected(tenant_mode, allow_off, user_mode, override)
    if want == "refused":
        with pytest.raises(EgressBlocked):
            resolve_mode(E, tenant, UserPolicy(mode=user_mode), override)
    else:
        assert resolve_mode(E, tenant, UserPolicy(mode=user_mode), override) is want


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
