"""numpy's BLAS on one thread, for the course's many small matrix products.

Split over several threads, products of a few hundred rows finish later, not sooner, and on a machine whose cores
are busy (a shared server, Binder, CI) many times later; a timing taken on one thread measures the work, not the
scheduler. ``threadpoolctl`` does the pinning where it is installed; without it nothing changes, and in the browser
(Pyodide, no threads: ``attn_lib._platform``) there is no pool to pin.
"""

from __future__ import annotations

import contextlib

from . import _platform


def one_blas_thread():
    """numpy's BLAS limited to one thread: as a context (``with one_blas_thread(): ...``), or from the call on when
    the returned object is simply kept (``threadpoolctl.threadpool_limits`` applies the limit when it is made).

    Examples
    --------
    >>> import numpy as np
    >>> with one_blas_thread():
    ...     product = np.ones((4, 4)) @ np.ones((4, 4))
    >>> float(product[0, 0])
    4.0
    """
    if _platform.in_browser():
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")
