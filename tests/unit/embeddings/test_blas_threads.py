"""The embedder runs numpy's BLAS on one thread unless the operator chose a count (ADR 0072)."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

from embeddings.minilm import one_blas_thread

pytestmark = pytest.mark.unit


def _blas() -> ctypes.CDLL:
    libs = sorted((Path(np.__file__).resolve().parent.parent / "numpy.libs").glob("*openblas*"))
    if not libs:
        pytest.skip("this numpy is not linked to a bundled OpenBLAS")
    return ctypes.CDLL(str(libs[0]))


def test_one_thread_unless_the_operator_chose_a_count(monkeypatch: pytest.MonkeyPatch) -> None:
    blas = _blas()
    get = getattr(blas, "scipy_openblas_get_num_threads64_", None)
    set_ = getattr(blas, "scipy_openblas_set_num_threads64_", None)
    if get is None or set_ is None:
        pytest.skip("not numpy's scipy-openblas build")
    before = get()
    try:
        set_(2)
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
        assert not one_blas_thread() and get() == 2  # the operator's count stands
        monkeypatch.delenv("OPENBLAS_NUM_THREADS")
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
        assert one_blas_thread() and get() == 1
    finally:
        set_(before)
