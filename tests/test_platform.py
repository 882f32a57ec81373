"""attn_lib/_platform.py and what depends on it: the browser's conditions, simulated on CPython.

The browser edition's own test (tests/browser/test_lite.py) runs the same code in Pyodide."""

import contextlib
import sys
import types

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from attn_lib import _blas, _platform


def test_cpython_is_not_the_browser():
    assert _platform.in_browser() is (sys.platform == "emscripten") is False


@given(st.lists(st.floats(min_value=0, max_value=1e9), min_size=1, max_size=20))
def test_whole_numbers_are_64_bit_and_rounded(values):
    got = _platform.whole(values)
    assert got.dtype == np.int64  # np.dtype(int) is int32 in wasm32: .astype(int) would be 32 bits there
    assert np.all(np.abs(got - np.asarray(values)) <= 0.5)


def test_whole_keeps_products_past_32_bits():
    n = _platform.whole([100_000])
    assert int((n * n)[0]) == 10**10
    assert int((n.astype(np.int32) * n.astype(np.int32))[0]) != 10**10  # what a 32-bit default int gives


def test_one_blas_thread_pins_nothing_in_the_browser(monkeypatch):
    """No threads in the browser: no pool to pin, and threadpoolctl is not even imported."""
    monkeypatch.setattr(_platform, "IN_BROWSER", True)
    broken = types.ModuleType("threadpoolctl")

    def threadpool_limits(**kwargs):
        raise AssertionError("threadpoolctl used in the browser")

    broken.threadpool_limits = threadpool_limits
    monkeypatch.setitem(sys.modules, "threadpoolctl", broken)
    limiter = _blas.one_blas_thread()
    assert isinstance(limiter, contextlib.nullcontext)
    with limiter:
        assert float((np.ones((2, 2)) @ np.ones((2, 2)))[0, 0]) == 2.0
