"""What differs when attn_lib runs in the browser (the course's JupyterLite edition, Python in Pyodide), in one place.

- ``IN_BROWSER``: Pyodide reports ``sys.platform == "emscripten"``.
- Whole numbers: numpy's default integer (``np.dtype(int)``, what ``.astype(int)`` and ``np.asarray`` of Python
  ints give) is the C long: 64 bits on CPython's 64-bit builds, 32 bits in wasm32, where counts above 2**31 - 1
  (the scores of a long sequence, their bytes) overflow. ``whole`` gives 64 bits everywhere.
- Threads: the browser's Python has none, so there is no BLAS pool to pin (``attn_lib._blas``).
- Processes and signals: none in the browser (no subprocess, no ``signal.setitimer``). The checkers' time limit
  is kept there by a trace function instead (``attn_lib.exercises._running.signals_work``).

And one place that is not a platform but a reader: ``autograding`` (nbgrader executing a submission to grade it),
where no one looks at a figure or moves an explorer while it runs.
"""

from __future__ import annotations

import os
import sys

import numpy as np

IN_BROWSER = sys.platform == "emscripten"

#: the integer type for counts: 64 bits on every platform (numpy's default int is 32 bits in wasm32)
WHOLE = np.int64


def in_browser() -> bool:
    """Whether this Python runs in the browser (Pyodide); read at call time, so tests can simulate it."""
    return IN_BROWSER


def autograding() -> bool:
    """Whether nbgrader is executing this notebook to grade it (``nbgrader autograde``, or the parallel grader's
    workers): it sets ``NBGRADER_EXECUTION=autograde`` in the kernel's environment. Read at call time."""
    return os.environ.get("NBGRADER_EXECUTION") == "autograde"


def whole(values):
    """``values`` rounded to whole numbers as 64-bit integers, on every platform (not ``.astype(int)``).

    Examples
    --------
    >>> whole([2.4, 3.6]).tolist()
    [2, 4]
    >>> int(whole([1e5])[0] ** 2)
    10000000000
    """
    return np.rint(np.asarray(values, dtype=np.float64)).astype(WHOLE)
