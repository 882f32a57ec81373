"""Attention that learns: the associative-recall task, and one or more heads trained on it in plain numpy.

Notebook 09 writes every gradient of this module out in its own cells (with attn_lib's softmax and
attention_backward) and shows that they give the same numbers as :func:`loss_and_gradients`, which runs the
backward pass of attention (attn_lib.backward.backward_from_weights) on the weights the forward pass kept (one
softmax per step instead of two);
notebook 09's runs over seeds, the replay explorer (attn_lib.widgets.replay) and the tests use this module.

The task. A sequence holds ``pairs`` positions, each carrying a key symbol (``a`` to ``p``, all different) and a
value symbol (``0`` to ``9``). ``queries`` query positions each carry one of those keys and must fetch the value
stored with it (``recall``). A second target, used to show why several heads help, is the value stored at the
first position whatever the query (``first``). A position's vector is the sum of random unit-variance embeddings
of its symbols and of its place, divided by the square root of their number, so that its components have unit
variance (footnote 4's assumption, once projected by parameters of variance 1/d_model).

The model. ``heads`` heads, each with its own W_q, W_k (d_model, d_k) and W_v (d_model, d_v); queries come from
the query positions, keys and values from the pair positions (so n = queries, m = pairs). The heads' outputs are
concatenated to width heads * d_v and projected by W_o to one row of logits per target; the loss is the mean
cross-entropy. With ``qk_norm`` (QK-norm), every query and key is scaled to length 1 before their product, which is
multiplied by a learned scale g per head instead of 1/sqrt(d_k).

Shapes: X_q (B, n, d_model), X_kv (B, m, d_model); Q (B, h, n, d_k), K (B, h, m, d_k), V (B, h, m, d_v);
attention weights (B, h, n, m); output (B, h, n, d_v). "Parameters" are W_q, W_k, W_v and W_o; "weights" are
the softmax's output.

Several seeds at once. :func:`stack_parameters` and :func:`stack_batches` put one model per seed along a leading
axis S (parameters (S, h, d_model, d_k), batches (S, B, n, d_model)); :func:`loss_and_gradients` and every
product below carry that axis, and :func:`train_seeds` trains the S models together, each on its own seed's
batches, giving the numbers :func:`train` gives for each seed alone (tests/test_training.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._blas import one_blas_thread
from ._checks import InputValueError, check_size
from ._kernels import softmax_rows_inplace
from .backward import backward_from_weights
from .multihead import draw_parameters

KEY_SYMBOLS = "abcdefghijklmnop"
VALUE_SYMBOLS = "0123456789"
TARGETS = ("recall", "first")


@dataclass(frozen=True)
class RecallBatch:
    """One batch of the recall task.

    Attributes
    ----------
    X_q : numpy.ndarray, shape (B, n, d_model)
        The query positions' vectors.
    X_kv : numpy.ndarray, shape (B, m, d_model)
        The pair positions' vectors (keys and values are both projected from them).
    keys, values : numpy.ndarray of int, shape (B, m)
        The symbols stored at each pair position (indices into KEY_SYMBOLS and VALUE_SYMBOLS).
    query_keys : numpy.ndarray of int, shape (B, n)
        The key symbol each query asks for.
    match : numpy.ndarray of int, shape (B, n)
        The pair position holding that key: where a perfect recall head puts its weight.
    targets : dict of str -> numpy.ndarray of int, shape (B, n)
        ``recall``: the value stored with the query's key; ``first``: the value at position 0.
    """

    X_q: np.ndarray
    X_kv: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    query_keys: np.ndarray
    match: np.ndarray
    targets: dict

    def labels(self, b=0):
        """Readable tokens of example ``b``: (query labels such as ``'c?'``, key labels such as ``'c7'``)."""
        queries = [f"{KEY_SYMBOLS[k]}?" for k in self.query_keys[b]]
        pairs = [f"{KEY_SYMBOLS[k]}{VALUE_SYMBOLS[v]}" for k, v in zip(self.keys[b], self.values[b])]
        return queries, pairs


@dataclass(frozen=True)
class RecallTask:
    """Associative recall: fixed random embeddings of the symbols, and batches drawn from a generator.

    Parameters
    ----------
    d_model : int
        Width of every position's vector.
    pairs : int
        Pair positions per sequence (m), at most 16 (the number of key symbols).
    queries : int
        Query positions per sequence (n), at most ``pairs``: each asks for a different stored key.
    seed : int
        Seed of the embeddings (the same seed gives the same task).

    Examples
    --------
    >>> task = RecallTask(d_model=32, pairs=8, queries=4)
    >>> batch = task.batch(np.random.default_rng(0), size=2)
    >>> batch.X_q.shape, batch.X_kv.shape, batch.targets["recall"].shape
    ((2, 4, 32), (2, 8, 32), (2, 4))
    """

    d_model: int = 32
    pairs: int = 8
    queries: int = 4
    seed: int = 1
    embeddings: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        check_size(self.d_model, "d_model", minimum=1)
        check_size(self.pairs, "pairs", minimum=1)
        check_size(self.queries, "queries", minimum=1)
        if self.pairs > len(KEY_SYMBOLS):
            raise InputValueError(f"pairs must be at most {len(KEY_SYMBOLS)} (one key symbol each); got {self.pairs}")
        if self.queries > self.pairs:
            raise InputValueError(f"queries must be at most pairs={self.pairs}; got {self.queries}")
        rng = np.random.default_rng(self.seed)
        d = self.d_model
        tables = {
            "key": rng.normal(size=(len(KEY_SYMBOLS), d)),
            "value": rng.normal(size=(len(VALUE_SYMBOLS), d)),
            "place": rng.normal(size=(self.pairs, d)),
            "query": rng.normal(size=d),  # marks a query position, the same at every one
        }
        # Each table rescaled to mean square exactly 1: a few rows drawn at random can be far from it.
        object.__setattr__(self, "embeddings", {k: t / np.sqrt(np.mean(t**2)) for k, t in tables.items()})

    def batch(self, rng, size=128):
        """Draw ``size`` sequences with ``rng`` (a numpy Generator): different keys, values with repeats."""
        return self.encode(*self.draw(rng, size))

    def draw(self, rng, size=128):
        """The symbols of ``size`` sequences drawn with ``rng``: keys, values (size, m) and match (size, n), as
        :meth:`encode` takes them (``batch`` is the two together)."""
        check_size(size, "size", minimum=1)
        keys = np.argsort(rng.random((size, len(KEY_SYMBOLS))), axis=1)[:, : self.pairs]  # (B, m), all different
        values = rng.integers(len(VALUE_SYMBOLS), size=(size, self.pairs))  # (B, m)
        match = np.argsort(rng.random((size, self.pairs)), axis=1)[:, : self.queries]  # (B, n)
        return keys, values, match

    def encode(self, keys, values, match):
        """The batch whose pair positions hold ``keys`` and ``values`` (..., B, m) and whose queries ask for the
        keys at positions ``match`` (..., B, n); ``...`` is nothing or a seeds axis. Keys may repeat here
        (``batch`` never repeats them)."""
        keys, values, match = (np.asarray(a) for a in (keys, values, match))
        if keys.ndim not in (2, 3) or keys.shape[-1] != self.pairs or values.shape != keys.shape:
            raise InputValueError(f"keys must be (B, pairs) = (B, {self.pairs}), or (S, B, pairs), and values alike; "
                                  f"got keys {keys.shape} and values {values.shape}")
        if match.shape != (*keys.shape[:-1], self.queries):
            raise InputValueError(f"match must be (..., B, queries) = {(*keys.shape[:-1], self.queries)}; got "
                                  f"{match.shape}")
        e = self.embeddings
        query_keys = np.take_along_axis(keys, match, axis=-1)  # (B, n)
        X_kv = e["key"][keys]  # X_kv = (key + value + place) / sqrt(3), (B, m, d_model), in one buffer
        X_kv += e["value"][values]
        X_kv += e["place"]
        X_kv *= 3**-0.5
        X_q = e["key"][query_keys]  # X_q = (key + query marker) / sqrt(2), (B, n, d_model)
        X_q += e["query"]
        X_q *= 2**-0.5
        targets = {"recall": np.take_along_axis(values, match, axis=-1),
                   "first": np.repeat(values[..., :1], self.queries, axis=-1)}
        return RecallBatch(X_q, X_kv, keys, values, query_keys, match, targets)


def init_parameters(rng, d_model=32, heads=1, d_k=16, d_v=16, outputs=1, qk_norm=False):
    """Random parameters with variance 1/fan_in: W_q, W_k (heads, d_model, d_k), W_v (heads, d_model, d_v),
    W_o (heads * d_v, outputs * 10); with ``qk_norm``, also QK-norm's scale g (heads,), each sqrt(d_k) (the same
    W's: g draws nothing from ``rng``).

    With unit-variance inputs, the components of q and k then have variance about 1 whatever d_k is.
    """
    for value, name in ((d_model, "d_model"), (heads, "heads"), (d_k, "d_k"), (d_v, "d_v"), (outputs, "outputs")):
        check_size(value, name, minimum=1)
    params = draw_parameters(rng, d_model, heads, d_k, d_v, outputs * len(VALUE_SYMBOLS))
    if qk_norm:
        params["g"] = np.full(heads, np.sqrt(d_k))
    return params


def stack_parameters(models):
    """One model per seed along a new leading axis S: a list of S dicts of :func:`init_parameters` -> one dict
    whose W_q is (S, heads, d_model, d_k), and so on."""
    models = list(models)
    if not models:
        raise InputValueError("models must hold at least one dict of parameters; got none")
    return {name: np.stack([model[name] for model in models]) for name in models[0]}


def stack_batches(batches):
    """S batches of one task (each from :meth:`RecallTask.batch`) -> one RecallBatch whose arrays carry a leading
    axis S: X_q (S, B, n, d_model), keys (S, B, m), targets (S, B, n)."""
    batches = list(batches)
    if not batches:
        raise InputValueError("batches must hold at least one RecallBatch; got none")
    arrays = [np.stack([getattr(b, name) for b in batches])
              for name in ("X_q", "X_kv", "keys", "values", "query_keys", "match")]
    targets = {t: np.stack([b.targets[t] for b in batches]) for t in batches[0].targets}
    return RecallBatch(*arrays, targets)


def _check_parameters(params, qk_norm=False):
    """(leading axes, heads, d_v, outputs) of a dict of parameters, one model or one per seed; with ``qk_norm``,
    g must be there too, and only then."""
    missing = {"W_q", "W_k", "W_v", "W_o"} - set(params)
    if missing:
        raise InputValueError(f"params must hold W_q, W_k, W_v and W_o; missing {sorted(missing)}")
    shape_q = np.shape(params["W_q"])
    if len(shape_q) not in (3, 4):
        raise InputValueError(f"params W_q must be (heads, d_model, d_k), or (S, heads, d_model, d_k) for S seeds; got "
                              f"{shape_q}")
    lead, (heads, d_model, d_k) = shape_q[:-3], shape_q[-3:]
    d_v = np.shape(params["W_v"])[-1]
    if np.shape(params["W_k"]) != shape_q or np.shape(params["W_v"]) != (*lead, heads, d_model, d_v):
        raise InputValueError(
            f"params W_q and W_k must be (heads, d_model, d_k) and W_v (heads, d_model, d_v) alike, with the same "
            f"leading axes; got W_q {shape_q}, W_k {np.shape(params['W_k'])}, W_v {np.shape(params['W_v'])}")
    shape_o = np.shape(params["W_o"])
    if shape_o[:-2] != lead or shape_o[-2] != heads * d_v or shape_o[-1] % len(VALUE_SYMBOLS):
        raise InputValueError(f"params W_o must be (heads * d_v, outputs * 10) = ({heads * d_v}, outputs * 10), after "
                              f"the leading axes {lead}; got {shape_o}")
    if qk_norm and np.shape(params.get("g")) != (*lead, heads):
        raise InputValueError(f"params must hold g, QK-norm's scale, of shape (heads,) = ({heads},) after the leading "
                              f"axes {lead}; got {np.shape(params['g']) if 'g' in params else 'no g'}")
    if not qk_norm and "g" in params:
        raise InputValueError("params must not hold g, QK-norm's scale, without qk_norm=True; got g and qk_norm False")
    return lead, heads, d_v, shape_o[-1] // len(VALUE_SYMBOLS)


def project(X, W):
    """Every head's projection of every position: X (..., B, rows, d_model), W (..., h, d_model, d) ->
    (..., B, h, rows, d), where ``...`` is nothing or the seeds axis S.

    The batch is folded into the rows so that one 2-D product per head (and seed) does the work (numpy's batched
    matmul over many small matrices is several times slower).
    """
    *lead, B, rows, d_model = X.shape
    heads, width = W.shape[-3], W.shape[-1]
    out = X.reshape(*lead, 1, B * rows, d_model) @ W  # (..., 1, B rows, d_model) x (..., h, d_model, d)
    return np.moveaxis(out.reshape(*lead, heads, B, rows, width), -3, -4)  # (..., h, B, rows, d) -> (..., B, h, ..)


def fold(d):
    """(..., B, h, rows, width) -> (..., h, B rows, width): the batch joins the rows, ready for X^T d (the inverse
    of the layout :func:`project` returns)."""
    *lead, B, heads, rows, width = d.shape
    return np.moveaxis(d, -3, -4).reshape(*lead, heads, B * rows, width)


def _rows(X):
    """X (..., B, rows, d_model) -> X^T (..., 1, d_model, B rows): the batch folded into the rows, transposed."""
    *lead, B, rows, d_model = X.shape
    return np.swapaxes(X.reshape(*lead, 1, B * rows, d_model), -1, -2)


def loss_and_gradients(params, batch, scale=None, targets=("recall",), qk_norm=False):
    """Forward pass, mean cross-entropy loss, and the gradient of the loss with respect to every parameter.

    Parameters
    ----------
    params : dict
        ``W_q``, ``W_k`` (heads, d_model, d_k), ``W_v`` (heads, d_model, d_v), ``W_o`` (heads * d_v, outputs * 10);
        or each with a leading seeds axis S (:func:`stack_parameters`), with a batch that has it too.
    batch : RecallBatch
        Arrays (B, ...), or (S, B, ...) from :func:`stack_batches`.
    scale : float, optional
        The factor on Q K^T; default 1/sqrt(d_k). Pass 1.0 for unscaled attention.
    targets : tuple of str
        Which targets the logits answer, in order ("recall", "first"); one per 10 columns of W_o.
    qk_norm : bool
        QK-norm: every query and key scaled to length 1 before their product, which is multiplied by ``params["g"]``,
        a learned scale per head ((heads,), or (S, heads)), instead of by ``scale`` (which must be None): no score
        exceeds g in size. :func:`init_parameters` with ``qk_norm=True`` starts g at sqrt(d_k).

    Returns
    -------
    loss : float, or numpy.ndarray of shape (S,)
        The mean over the batch (each seed's own batch).
    accuracy : numpy.ndarray, shape (outputs,) or (S, outputs)
        Share of queries whose largest logit is the right value, per target.
    attn : numpy.ndarray, shape (B, heads, n, m) or (S, B, heads, n, m)
        The attention weights.
    grads : dict
        dL/dW for each of W_q, W_k, W_v, W_o (and g, with ``qk_norm``), of their shapes (each seed's loss by its own
        parameters).
    """
    lead, heads, d_v, outputs = _check_parameters(params, qk_norm)
    if qk_norm and scale is not None:
        raise InputValueError(f"scale must be None with qk_norm (params' g scales the scores); got {scale}")
    targets = tuple(targets)
    if len(targets) != outputs or not set(targets) <= set(TARGETS):
        raise InputValueError(f"targets must name {outputs} of {TARGETS} (one per 10 columns of W_o); got {targets}")
    X_q, X_kv = batch.X_q, batch.X_kv
    if X_q.shape[:-3] != lead:
        raise InputValueError(f"batch must have the parameters' leading axes {lead} before (B, n, d_model); got X_q "
                              f"{X_q.shape}")
    d_k = params["W_q"].shape[-1]
    scale = d_k**-0.5 if scale is None else float(scale)
    B, n = X_q.shape[-3:-1]
    classes = len(VALUE_SYMBOLS)

    # Forward, shapes without the leading seeds axis.
    d_model = X_q.shape[-1]
    # A head as wide as d_model or wider: Q K^T = X_q (W_q W_k^T) X_kv^T, and W_q W_k^T is only (d_model, d_model),
    # so the scores are made without the (B, h, m, d_k) array K (the same numbers, far less work at d_k = 512).
    through_product = d_k >= d_model and not qk_norm
    if qk_norm:  # each query and key of length 1: q^ = q / |q|, k^ = k / |k|, scores g (q^ . k^), within +-g
        Q = project(X_q, params["W_q"])  # (B, n, d_model) x (h, d_model, d_k) -> (B, h, n, d_k)
        K = project(X_kv, params["W_k"])  # (B, m, d_model) x (h, d_model, d_k) -> (B, h, m, d_k)
        q_len, k_len = np.linalg.norm(Q, axis=-1, keepdims=True), np.linalg.norm(K, axis=-1, keepdims=True)
        Q, K = Q / q_len, K / k_len
        g = params["g"][..., None, :, None, None]  # (h,) -> (1, h, 1, 1), against (B, h, n, m)
        cosines = Q @ np.swapaxes(K, -1, -2)  # (B, h, n, d_k) x (B, h, d_k, m) -> (B, h, n, m)
        scores = g * cosines
    elif through_product:
        M = params["W_q"] @ np.swapaxes(params["W_k"], -1, -2) * scale  # (h, d_model, d_k) x (h, d_k, d_model)
        Q, K = project(X_q, M), X_kv[..., None, :, :]  # (B, h, n, d_model) and (B, 1, m, d_model)
        scores = Q @ np.swapaxes(K, -1, -2)  # (B, h, n, d_model) x (B, 1, d_model, m) -> (B, h, n, m)
    else:
        Q = project(X_q, params["W_q"])  # (B, n, d_model) x (h, d_model, d_k) -> (B, h, n, d_k)
        K = project(X_kv, params["W_k"])  # (B, m, d_model) x (h, d_model, d_k) -> (B, h, m, d_k)
        scores = Q @ np.swapaxes(K * scale, -1, -2)  # (B, h, n, d_k) x (B, h, d_k, m) -> (B, h, n, m)
    V = project(X_kv, params["W_v"])  # (B, m, d_model) x (h, d_model, d_v) -> (B, h, m, d_v)
    attn = softmax_rows_inplace(scores)  # P (B, h, n, m), in the scores' buffer
    output = attn @ V  # (B, h, n, m) x (B, h, m, d_v) -> (B, h, n, d_v)
    concat = np.moveaxis(output, -3, -2).reshape(*lead, B * n, heads * d_v)  # heads side by side, a row per query
    logits = (concat @ params["W_o"]).reshape(*lead, B, n, outputs, classes)  # (B n, h d_v) x (h d_v, outputs 10)
    probs = softmax_rows_inplace(logits.copy())  # over the 10 value symbols
    right = np.stack([batch.targets[t] for t in targets], axis=-1)  # (B, n, outputs)
    one_hot = np.eye(classes)[right]  # (B, n, outputs, 10)
    loss = -np.mean(np.log(np.sum(probs * one_hot, axis=-1)), axis=(-3, -2, -1))
    accuracy = np.mean(logits.argmax(axis=-1) == right, axis=(-3, -2))

    # Backward: each seed's mean loss by its own parameters.
    d_logits = ((probs - one_hot) / (B * n * outputs)).reshape(*lead, B * n, outputs * classes)
    d_W_o = np.swapaxes(concat, -1, -2) @ d_logits  # (h d_v, B n) x (B n, outputs 10) -> (h d_v, outputs 10)
    d_output = (d_logits @ np.swapaxes(params["W_o"], -1, -2)).reshape(*lead, B, n, heads, d_v)
    d_output = np.moveaxis(d_output, -2, -3)  # (B, n, h, d_v) -> (B, h, n, d_v)
    # Through the mix and the softmax, on the weights P kept from the forward pass (attention_backward's own lines):
    d_scores, dV = backward_from_weights(attn, V, d_output)  # (B, h, n, m), (B, h, m, d_v)
    grads = {"W_v": _rows(X_kv) @ fold(dV), "W_o": d_W_o}  # (1, d_model, B m) x (h, B m, d_v) -> (h, d_model, d_v)
    if qk_norm:  # dg = sum of dS * (q^ . k^); dq^ = g dS k^, and q = |q| q^ passes back dq^ less its part along q^
        grads["g"] = np.sum(d_scores * cosines, axis=(-4, -2, -1))  # summed over B, n, m -> (h,)
        dQ = g * d_scores @ K  # (B, h, n, m) x (B, h, m, d_k) -> (B, h, n, d_k): dL/dq^
        dK = g * np.swapaxes(d_scores, -1, -2) @ Q  # (B, h, m, n) x (B, h, n, d_k) -> (B, h, m, d_k): dL/dk^
        dQ = (dQ - Q * np.sum(Q * dQ, axis=-1, keepdims=True)) / q_len  # dL/dq
        dK = (dK - K * np.sum(K * dK, axis=-1, keepdims=True)) / k_len  # dL/dk
        grads["W_q"] = _rows(X_q) @ fold(dQ)  # (1, d_model, B n) x (h, B n, d_k) -> (h, d_model, d_k)
        grads["W_k"] = _rows(X_kv) @ fold(dK)  # (1, d_model, B m) x (h, B m, d_k) -> (h, d_model, d_k)
    elif through_product:  # dM = scale X_q^T dS X_kv, then dW_q = dM W_k and dW_k = dM^T W_q
        dS_X_kv = d_scores @ K  # (B, h, n, m) x (B, 1, m, d_model) -> (B, h, n, d_model)
        dM = _rows(X_q) @ fold(dS_X_kv) * scale  # (1, d_model, B n) x (h, B n, d_model) -> (h, d_model, d_model)
        grads["W_q"] = dM @ params["W_k"]  # (h, d_model, d_model) x (h, d_model, d_k) -> (h, d_model, d_k)
        grads["W_k"] = np.swapaxes(dM, -1, -2) @ params["W_q"]  # -> (h, d_model, d_k)
    else:
        dQ = d_scores @ (K * scale)  # (B, h, n, m) x (B, h, m, d_k) -> (B, h, n, d_k): the scale is inside dQ
        dK = np.swapaxes(d_scores, -1, -2) @ (Q * scale)  # (B, h, m, n) x (B, h, n, d_k) -> (B, h, m, d_k), and dK
        grads["W_q"] = _rows(X_q) @ fold(dQ)  # (1, d_model, B n) x (h, B n, d_k) -> (h, d_model, d_k)
        grads["W_k"] = _rows(X_kv) @ fold(dK)  # (1, d_model, B m) x (h, B m, d_k) -> (h, d_model, d_k)
    grads = {name: grads[name] for name in ("W_q", "W_k", "W_v", "W_o", "g") if name in grads}
    return (float(loss) if not lead else loss), accuracy, attn, grads


# Training multiplies small matrices, (B rows, d_model) x (d_model, d): importing this module pins numpy's BLAS to
# one thread for the whole session, as notebook 09 needs (``threadpoolctl.threadpool_limits`` undoes it).
_PINNED = one_blas_thread()


class _Optimizer:
    """Plain gradient descent (``W -= lr * dW``) or Adam (beta1 0.9, beta2 0.999, eps 1e-8) on a dict of
    parameters, in place. ``lr`` is one number, or a dict giving each parameter its own. With ``rows`` (indices
    along the leading seeds axis), only those models move, by gradients given for those rows alone."""

    def __init__(self, params, lr, optimizer):
        if optimizer not in ("sgd", "adam"):
            raise InputValueError(f"optimizer must be 'sgd' or 'adam'; got {optimizer!r}")
        if isinstance(lr, dict) and set(lr) != set(params):
            raise InputValueError(f"lr as a dict must give a learning rate for each of {sorted(params)}; got "
                                  f"{sorted(lr)}")
        lrs = lr if isinstance(lr, dict) else dict.fromkeys(params, lr)
        self.params, self.adam, self.t = params, optimizer == "adam", 0
        self.lr = {name: float(rate) for name, rate in lrs.items()}
        self.moments = {name: (np.zeros_like(w), np.zeros_like(w)) for name, w in params.items()}

    def step(self, grads, rows=slice(None)):
        self.t += 1
        for name, grad in grads.items():
            if self.adam:  # running means of the gradient and of its square, corrected for starting at 0
                first, second = self.moments[name]
                first[rows] = 0.9 * first[rows] + 0.1 * grad
                second[rows] = 0.999 * second[rows] + 0.001 * grad**2
                grad = (first[rows] / (1 - 0.9**self.t)) / (np.sqrt(second[rows] / (1 - 0.999**self.t)) + 1e-8)
            self.params[name][rows] -= self.lr[name] * grad


@dataclass
class History:
    """What :func:`train` saw.

    Attributes
    ----------
    losses : numpy.ndarray, shape (steps,)
        The loss of the batch at each step, before that step's update.
    accuracy : numpy.ndarray, shape (steps, outputs)
    saved_steps : numpy.ndarray of int
        The steps at which the attention weights of ``example`` were saved (before that step's update).
    saved_weights : numpy.ndarray, shape (len(saved_steps), heads, n, m)
        Attention weights of the first sequence of ``example`` at those steps.
    example : RecallBatch
        A fixed batch, drawn before training, whose attention weights are saved.
    parameters : dict
        The trained parameters.
    reached : int or None
        The first step whose batch accuracy reached ``stop_at`` on every target (None if never).
    """

    losses: np.ndarray
    accuracy: np.ndarray
    saved_steps: np.ndarray
    saved_weights: np.ndarray
    example: RecallBatch
    parameters: dict
    reached: int | None


def train(task, params, steps, lr, *, scale=None, targets=("recall",), seed=0, batch_size=128, optimizer="sgd",
          save_every=0, stop_at=None, example=None, qk_norm=False):
    """Train ``params`` (one model) in place on ``task`` by plain gradient descent (``W -= lr * dW``) or Adam.

    Parameters
    ----------
    task : RecallTask
    params : dict
        As from :func:`init_parameters`; updated in place.
    steps : int
    lr : float or dict
        The learning rate, or a dict of one per parameter (``{"W_q": ..., "W_k": ..., "W_v": ..., "W_o": ...}``).
    scale : float, optional
        The factor on Q K^T (default 1/sqrt(d_k)).
    targets : tuple of str
    seed : int
        Seed of the batches: the same seed gives the same batches whatever the model.
    batch_size : int
    optimizer : {"sgd", "adam"}
        Adam (beta1 0.9, beta2 0.999) divides each gradient entry by a running size of it.
    save_every : int
        Save the example's attention weights at every step that is a multiple of ``save_every`` (before that
        step's update, so after that many updates); 0 saves none.
    stop_at : float, optional
        Stop at the first step whose batch accuracy reaches this on every target.
    example : RecallBatch, optional
        The batch whose first sequence's weights are saved; default one sequence drawn with seed 10000 + seed.
    qk_norm : bool
        QK-norm, as in :func:`loss_and_gradients` (``params`` then hold g, trained with the others).

    Returns
    -------
    History
    """
    check_size(steps, "steps", minimum=1)
    check_size(save_every, "save_every")
    update = _Optimizer(params, lr, optimizer)
    rng = np.random.default_rng(seed)
    if example is None:
        example = task.batch(np.random.default_rng(10_000 + seed), size=1)
    losses, accuracy, saved_steps, saved = [], [], [], []
    reached = None
    for step in range(steps):
        if save_every and (step % save_every == 0):
            saved_steps.append(step)
            saved.append(loss_and_gradients(params, example, scale, targets, qk_norm)[2][0])
        loss, acc, _, grads = loss_and_gradients(params, task.batch(rng, batch_size), scale, targets, qk_norm)
        losses.append(loss)
        accuracy.append(acc)
        if stop_at is not None and np.all(acc >= stop_at):
            reached = step
            break
        update.step(grads)
    return History(np.array(losses), np.array(accuracy), np.array(saved_steps),
                   np.array(saved) if saved else np.zeros((0,)), example, params, reached)


@dataclass
class SeedsHistory:
    """What :func:`train_seeds` saw, one column per seed.

    Attributes
    ----------
    losses : numpy.ndarray, shape (steps, S)
        Each model's batch loss at each step, before that step's update; NaN after the model stopped.
    accuracy : numpy.ndarray, shape (steps, S, outputs)
        Likewise (NaN after the model stopped).
    parameters : dict
        The trained parameters, with the leading seeds axis.
    reached : numpy.ndarray of int, shape (S,)
        Each model's first step whose batch accuracy reached ``stop_at`` on every target; -1 if never.
    kept : dict
        For each step s of ``keep_at``, a copy of the parameters after s updates.
    diverged : numpy.ndarray of bool, shape (S,)
        True for a model stopped because its loss was no longer finite (a learning rate too large for it).
    """

    losses: np.ndarray
    accuracy: np.ndarray
    parameters: dict
    reached: np.ndarray
    kept: dict
    diverged: np.ndarray


def train_seeds(task, params, seeds, steps, lr, *, scale=None, targets=("recall",), batch_size=128,
                optimizer="sgd", stop_at=None, keep_at=(), qk_norm=False):
    """Train S models together, each on the batches of its own seed: what :func:`train` does for each seed alone
    (the same losses, accuracies, reached steps and parameters), in one product per step instead of S.

    Parameters
    ----------
    task : RecallTask
    params : dict
        One model per seed along a leading axis S, as from :func:`stack_parameters`; updated in place.
    seeds : sequence of int
        S seeds of the batches; model s sees the batches :func:`train` would with ``seed=seeds[s]``.
    steps, lr, scale, targets, batch_size, optimizer, qk_norm :
        As in :func:`train`.
    stop_at : float, optional
        A model whose batch accuracy reaches this on every target stops there (its parameters are no longer
        updated); training ends when every model has stopped, or after ``steps``.
        A model whose loss is no longer finite stops too, marked in ``diverged`` (whatever ``stop_at``).
    keep_at : sequence of int
        Keep a copy of the parameters after each of these numbers of updates (at most ``steps``).

    Returns
    -------
    SeedsHistory
    """
    check_size(steps, "steps", minimum=1)
    seeds = [int(s) for s in np.atleast_1d(seeds)]
    lead = _check_parameters(params, qk_norm)[0]
    if lead != (len(seeds),):
        raise InputValueError(f"params must carry one model per seed, a leading axis of {len(seeds)}; got leading axes "
                              f"{lead} (use stack_parameters)")
    keep_at = sorted({check_size(s, "keep_at", minimum=1) for s in keep_at})
    if keep_at and keep_at[-1] > steps:
        raise InputValueError(f"keep_at must hold numbers of updates from 1 to steps={steps}; got {keep_at[-1]}")
    update = _Optimizer(params, lr, optimizer)
    rngs = [np.random.default_rng(seed) for seed in seeds]
    losses = np.full((steps, len(seeds)), np.nan)
    accuracy = np.full((steps, len(seeds), len(targets)), np.nan)
    kept = {}
    reached = np.full(len(seeds), -1)
    diverged = np.zeros(len(seeds), dtype=bool)
    active = np.arange(len(seeds))  # the models still training: only they are computed
    for step in range(steps):
        if step in keep_at:
            kept[step] = {name: w.copy() for name, w in params.items()}
        everyone = len(active) == len(seeds)
        rows = slice(None) if everyone else active
        some = params if everyone else {name: w[active] for name, w in params.items()}
        drawn = [task.draw(rngs[s], batch_size) for s in active]  # each seed's own draws, encoded at once
        batch = task.encode(*(np.stack(symbols) for symbols in zip(*drawn)))
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # a diverging model: caught below
            loss, acc, _, grads = loss_and_gradients(some, batch, scale, targets, qk_norm)
        losses[step, active], accuracy[step, active] = loss, acc
        blown = ~np.isfinite(loss)
        diverged[active[blown]] = True
        if stop_at is not None or blown.any():
            now = np.all(acc >= stop_at, axis=-1) & ~blown if stop_at is not None else np.zeros_like(blown)
            reached[active[now]] = step
            now |= blown
            if now.any():
                active, grads = active[~now], {name: g[~now] for name, g in grads.items()}
                rows = active
            if not len(active):
                losses, accuracy = losses[: step + 1], accuracy[: step + 1]
                break
        update.step(grads, rows)
    if steps in keep_at:
        kept[steps] = {name: w.copy() for name, w in params.items()}
    return SeedsHistory(np.array(losses), np.array(accuracy), params, reached, kept, diverged)
