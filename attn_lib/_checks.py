"""Validation at the boundary of every public function.

Each helper raises ``TypeError`` or ``ValueError`` whose message names the argument, what was expected and
what was received, so that a learner never meets a silent NaN or a broadcasting message from deep inside numpy.
They are :class:`InputTypeError` and :class:`InputValueError`, ordinary subclasses of the two that IPython shows
as the message under the learner's own frames, without attn_lib's (no source of this package, no path of the
machine it lies on). Sibling modules raise them too, for their own checks of arguments.
"""

from __future__ import annotations

import numbers
import os
import traceback
import types

import numpy as np

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep  # attn_lib/, where the frames left out live


class _ShownWithoutLibraryFrames:
    """Mixin: in IPython, the exception shows as the learner's own frames and its message, without attn_lib's.

    A check at the boundary raises deep inside attn_lib; IPython's traceback would show every frame down to the
    ``raise``, with its source and the absolute path of the file (in a notebook's stored output, the folder the
    course was built in). The message names the argument, what was expected and what was received: the frames
    below the learner's call add nothing to it. ``_render_traceback_`` is IPython's hook for this (the checkers'
    ``CheckFailed`` uses it too); outside IPython the exception is an ordinary one, traceback included.
    """

    def _render_traceback_(self) -> list[str]:
        """The lines IPython shows: its own traceback of the frames outside attn_lib, then ``ValueError: ...``."""
        shown = (kind for kind in type(self).__mro__ if kind.__module__ == "builtins")
        kind = next(shown)  # the builtin this error is (ValueError, TypeError): what the learner reads and catches
        frames = []
        tb = self.__traceback__
        while tb is not None:
            if not tb.tb_frame.f_code.co_filename.startswith(_PACKAGE):
                frames.append(tb)
            tb = tb.tb_next
        kept = None
        for tb in reversed(frames):  # the same frames, linked without attn_lib's
            kept = types.TracebackType(kept, tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
        try:
            from IPython import get_ipython
            shell = get_ipython()
        except ImportError:  # pragma: no cover - IPython calls this hook, so it is there
            shell = None
        if shell is None or kept is None:
            return "".join(traceback.format_exception_only(kind, self)).rstrip("\n").split("\n")
        return shell.InteractiveTB.structured_traceback(kind, self, kept)


class InputValueError(_ShownWithoutLibraryFrames, ValueError):
    """A ValueError for a bad argument of an attn_lib function, shown in IPython without attn_lib's frames."""


class InputTypeError(_ShownWithoutLibraryFrames, TypeError):
    """A TypeError for an argument of the wrong type, shown in IPython without attn_lib's frames."""


def _describe(x) -> str:
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape} and dtype {x.dtype}"
    return f"{type(x).__name__} {x!r}"


def as_array(x, name: str, layout: str = "", holds: str = "real numbers") -> np.ndarray:
    """``np.asarray(x)``, with errors that name ``x`` for what numpy cannot or should not read.

    Refuses a tensor that requires grad (numpy cannot read it; PyTorch's own message does not say which argument),
    a ragged nested list, and dates or durations (numpy would count seconds or days as plain numbers).
    """
    if getattr(x, "requires_grad", False) is True:  # a PyTorch tensor, recognised without importing torch
        raise InputTypeError(f"{name} is a tensor that requires grad: pass an array, e.g. {name}.detach().numpy()")
    try:
        arr = np.asarray(x)
    except ValueError as exc:  # ragged nested lists
        layout = f" {layout}" if layout else ""
        raise InputValueError(f"{name} must be a rectangular array{layout}; could not build one: {exc}") from None
    if arr.dtype.kind in "mM":
        what = "durations" if arr.dtype.kind == "m" else "dates and times"
        raise InputTypeError(f"{name} must hold {holds}; got {what} (dtype {arr.dtype}): convert them to numbers first")
    return arr


def as_float_array(x, name: str, min_ndim: int = 2, layout: str = "(..., n, d)") -> np.ndarray:
    """Return ``x`` as a float array (float32 stays float32, everything else real becomes float64).

    Raises TypeError for non-numeric or complex input, ValueError for too few axes or non-finite entries.
    """
    arr = as_array(x, name, layout)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise InputTypeError(f"{name} must hold real numbers; got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise InputTypeError(f"{name} must hold real numbers; got complex dtype {arr.dtype}")
    if arr.dtype == np.bool_:
        raise InputTypeError(f"{name} must hold real numbers; got a boolean array (did you pass a mask as {name}?)")
    if arr.dtype != np.float32:
        arr = arr.astype(np.float64, copy=False)
    if arr.ndim < min_ndim:
        raise InputValueError(
            f"{name} must have at least {min_ndim} dimensions {layout}; got shape {arr.shape} "
            f"({arr.ndim} dimension{'s' if arr.ndim != 1 else ''})"
        )
    check_finite(arr, name)
    return arr


def check_finite(arr: np.ndarray, name: str) -> None:
    """Raise ValueError naming the first NaN or infinite entry of ``arr``."""
    if arr.size and not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))[0]
        value = arr[tuple(bad)]
        kind = "NaN" if np.isnan(value) else "an infinite value"
        where = tuple(int(i) for i in bad)
        raise InputValueError(f"{name} contains {kind} at index {where}: every entry must be finite")


def check_size(value, name: str, minimum: int = 0) -> int:
    """Return ``value`` as an int, or raise if it is not an integer >= ``minimum``."""
    if isinstance(value, (bool, np.datetime64, np.timedelta64)) or not isinstance(value, numbers.Integral):
        raise InputTypeError(f"{name} must be an integer; got {_describe(value)}")
    value = int(value)
    if value < minimum:
        what = "non-negative" if minimum == 0 else f"at least {minimum}"
        raise InputValueError(f"{name} must be {what}; got {value}")
    return value


def check_scale(scale) -> float | None:
    """``scale``, the factor that multiplies Q K^T, as a float; None (the default, 1/sqrt(d_k)) stays None."""
    if scale is None:
        return None
    if isinstance(scale, (bool, np.datetime64, np.timedelta64)) or not isinstance(scale, numbers.Real):
        raise InputTypeError(f"scale must be a positive finite number; got {_describe(scale)}")
    scale = float(scale)
    if not np.isfinite(scale) or scale <= 0:
        raise InputValueError(f"scale must be a positive finite number; got {scale}")
    return scale


def batch_shape(**arrays: np.ndarray) -> tuple:
    """Broadcast the leading (batch) axes of the named arrays, or raise naming each batch shape."""
    shapes = {name: arr.shape[:-2] for name, arr in arrays.items()}
    try:
        return np.broadcast_shapes(*shapes.values())
    except ValueError:
        listed = ", ".join(f"{name} has batch shape {shape}" for name, shape in shapes.items())
        raise InputValueError(f"batch axes do not broadcast: {listed}") from None


def check_mask(mask, scores_shape: tuple) -> np.ndarray:
    """Return ``mask`` as a bool array broadcastable to ``scores_shape`` (..., n, m), with no fully masked row."""
    mask = as_array(mask, "mask", "(..., n, m)", holds="booleans")
    n, m = scores_shape[-2:]
    if mask.dtype != np.bool_:
        raise InputTypeError(
            "mask must be boolean, True where the query may attend to the key "
            f"(an additive mask of 0 and -inf is not accepted); got dtype {mask.dtype}"
        )
    if mask.ndim < 2:
        raise InputValueError(
            f"mask must have at least 2 dimensions (..., n, m) with n={n}, m={m}; got shape {mask.shape}")
    rows, cols = mask.shape[-2:]
    try:
        if rows not in (1, n) or cols not in (1, m):
            raise ValueError
        np.broadcast_shapes(mask.shape, scores_shape)
    except ValueError:
        raise InputValueError(
            f"mask of shape {mask.shape} does not broadcast to the scores' shape {scores_shape} (..., n, m): "
            f"its last two axes must be (n or 1, m or 1) = ({n} or 1, {m} or 1)"
        ) from None
    if n and m:
        open_keys = mask.any(axis=-1)  # (..., n or 1): does each query row keep at least one key?
        if not open_keys.all():
            where = tuple(int(i) for i in np.argwhere(~open_keys)[0])
            batch, row = where[:-1], where[-1]
            at = f"query row {row}" + (f" of batch index {batch}" if batch else "")
            if mask.shape[-2] == 1 and n > 1:
                at = "every query row" + (f" of batch index {batch}" if batch else "")
            raise InputValueError(
                f"mask blocks every key for {at}: a row whose scores are all -inf has no softmax "
                "(each query must be allowed to attend to at least one key)"
            )
    return mask


def check_qkv(Q, K, V=None):
    """Validate Q, K (and V); return them as float arrays of one dtype, with their broadcast batch shape."""
    Q = as_float_array(Q, "Q", layout="(..., n, d_k)")
    K = as_float_array(K, "K", layout="(..., m, d_k)")
    if K.shape[-1] != Q.shape[-1]:
        raise InputValueError(
            f"K has d_k={K.shape[-1]} but Q has d_k={Q.shape[-1]}: queries and keys must share their width "
            f"(Q {Q.shape} is (..., n, d_k), K {K.shape} is (..., m, d_k))"
        )
    if Q.shape[-1] == 0:
        raise InputValueError(
            f"Q and K have d_k=0 (Q {Q.shape}, K {K.shape}): each query and key needs at least one component"
        )
    if K.shape[-2] == 0:
        raise InputValueError(f"K has no keys (m=0, shape {K.shape}): each query needs at least one key to attend to")
    arrays = {"Q": Q, "K": K}
    if V is not None:
        V = as_float_array(V, "V", layout="(..., m, d_v)")
        if V.shape[-2] != K.shape[-2]:
            raise InputValueError(
                f"V has {V.shape[-2]} rows but K has m={K.shape[-2]}: each key needs exactly one value "
                f"(K {K.shape} is (..., m, d_k), V {V.shape} is (..., m, d_v))"
            )
        arrays["V"] = V
    batch = batch_shape(**arrays)
    dtype = np.result_type(*arrays.values())
    Q, K = Q.astype(dtype, copy=False), K.astype(dtype, copy=False)
    if V is not None:
        V = V.astype(dtype, copy=False)
    return Q, K, V, batch


def check_attention_args(Q, K, V, mask=None, scale=None):
    """The arguments of attention, chunked_attention and attention_backward, checked once: (Q, K, V, mask, scale,
    batch) with Q, K, V float arrays of one dtype, mask a bool array broadcastable to the scores (or None), scale a
    float or None (the caller writes the default, 1/sqrt(d_k)), batch the broadcast batch axes of the scores."""
    Q, K, V, batch = check_qkv(Q, K, V)
    scale = check_scale(scale)
    if mask is not None:
        mask = check_mask(mask, (*batch, Q.shape[-2], K.shape[-2]))
        batch = np.broadcast_shapes(mask.shape[:-2], batch)
    return Q, K, V, mask, scale, batch


def check_softmax_input(x, axis):
    """``x`` as a float array (float32 kept) and ``axis`` checked for :func:`attn_lib.softmax`: real numbers, no
    NaN or +inf, at least one axis, and no slice along ``axis`` that is entirely -inf (nothing to attend to)."""
    x = as_array(x, "x")
    if x.dtype == object or np.issubdtype(x.dtype, np.complexfloating) or not np.issubdtype(x.dtype, np.number):
        raise InputTypeError(f"x must hold real numbers; got dtype {x.dtype}")
    x = x.astype(np.float32 if x.dtype == np.float32 else np.float64, copy=False)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise InputTypeError(f"axis must be an integer; got {type(axis).__name__} {axis!r}")
    if not -max(x.ndim, 1) <= axis < max(x.ndim, 1):
        raise InputValueError(f"axis {axis} is out of range for x with {x.ndim} dimension(s) (shape {x.shape})")
    if x.ndim == 0:
        raise InputValueError("x must have at least 1 dimension; got a scalar")
    if np.isnan(x).any():
        where = tuple(int(i) for i in np.argwhere(np.isnan(x))[0])
        raise InputValueError(f"x contains NaN at index {where}: softmax of NaN is undefined")
    if np.isposinf(x).any():
        where = tuple(int(i) for i in np.argwhere(np.isposinf(x))[0])
        raise InputValueError(f"x contains +inf at index {where}: only -inf (a masked entry) is allowed")
    if x.size and np.isneginf(x).all(axis=axis, keepdims=True).any():
        where = np.argwhere(np.isneginf(x).all(axis=axis, keepdims=True))[0]
        index = ", ".join(":" if i == (axis % x.ndim) else str(int(j)) for i, j in enumerate(where))
        raise InputValueError(
            f"every entry of x[{index}] is -inf (masked): a slice along axis {axis} with nothing left "
            "to attend to has no softmax"
        )
    return x, axis


def check_rng(rng) -> np.random.Generator:
    """A generator from ``rng``: None (fresh entropy), a non-negative integer seed, or a Generator itself."""
    accepted = "rng must be None, a non-negative integer seed or a numpy.random.Generator"
    if rng is None or isinstance(rng, np.random.Generator):
        return np.random.default_rng(rng)
    if isinstance(rng, (bool, np.bool_, np.datetime64, np.timedelta64)) or not isinstance(rng, numbers.Integral):
        raise InputTypeError(f"{accepted}; got {_describe(rng)}")
    if rng < 0:
        raise InputValueError(f"{accepted}; got {int(rng)}")
    return np.random.default_rng(int(rng))
