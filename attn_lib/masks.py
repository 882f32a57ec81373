"""Boolean masks for attention: True where a query may attend to a key."""

from __future__ import annotations

import numpy as np

from ._checks import InputTypeError, InputValueError, as_array, check_size


def causal_mask(n, m=None):
    """Causal (decoder) mask: query i may attend to key j only when j <= i.

    Top-left aligned, as in PyTorch's ``is_causal``: row i keeps keys 0..i whatever m is, so with m > n the
    last m - n keys are blocked for every query.

    Parameters
    ----------
    n : int
        Number of queries (rows).
    m : int, optional
        Number of keys (columns); defaults to ``n``.

    Returns
    -------
    numpy.ndarray of bool, shape (n, m)

    Examples
    --------
    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    n = check_size(n, "n")
    m = n if m is None else check_size(m, "m")
    return np.tri(n, m, dtype=bool)


def padding_mask(lengths, m):
    """Padding mask for a batch: sequence b keeps its first ``lengths[b]`` keys.

    Parameters
    ----------
    lengths : sequence of int, shape (batch,)
        True length of each sequence, each between 0 and ``m``.
    m : int
        Padded length (number of keys).

    Returns
    -------
    numpy.ndarray of bool, shape (batch, 1, m)
        The axis of length 1 broadcasts over the queries.

    Examples
    --------
    >>> padding_mask([2, 3], 4).astype(int)
    array([[[1, 1, 0, 0]],
    <BLANKLINE>
           [[1, 1, 1, 0]]])
    """
    m = check_size(m, "m")
    lengths = as_array(lengths, "lengths", "(batch,)", holds="integers")
    if lengths.ndim != 1:
        raise InputValueError(f"lengths must be a 1-D sequence of ints (batch,); got shape {lengths.shape}")
    if lengths.size and not np.issubdtype(lengths.dtype, np.integer):
        raise InputTypeError(f"lengths must hold integers; got dtype {lengths.dtype}")
    outside = (lengths < 0) | (lengths > m)  # compared in their own dtype: an unsigned value never wraps
    if outside.any():
        b = int(np.argmax(outside))
        raise InputValueError(f"lengths[{b}] = {lengths[b].item()} is outside 0..m = 0..{m}")
    return (np.arange(m) < lengths[:, None])[:, None, :]
