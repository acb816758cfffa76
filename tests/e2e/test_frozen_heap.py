"""The app leaves what it built at start-up out of the cyclic collector's full collections
(``gc.freeze``, ADR 0040) for as long as it runs, and gives it back when it stops."""

import gc

import httpx
import pytest

from api.app import create_app
from api.settings import Settings
from tests.support.server import running_server

pytestmark = pytest.mark.e2e


def test_a_running_app_keeps_its_start_up_heap_frozen_and_unfreezes_it_at_shutdown(
    seeded_data_dir,
):
    gc.unfreeze()  # whatever an earlier test left: this test counts from nothing frozen
    with running_server(create_app(Settings(data_dir=seeded_data_dir, log_json=False))) as base:
        assert httpx.get(f"{base}/health", timeout=10).status_code == 200
        frozen = gc.get_freeze_count()
        # the seeded indexes alone are hundreds of thousands of objects
        assert frozen > 100_000
        gc.collect()  # a full collection walks what arrived since, and leaves the rest frozen
        # A frozen object the app frees by reference counting (a background task's start-up
        # state replaced) leaves the permanent generation: a dozen did under CI load. What
        # must not happen is the heap coming back to the collector (the count near 0).
        assert gc.get_freeze_count() > frozen * 0.99
    assert gc.get_freeze_count() == 0  # unfrozen at shutdown: collectable again
