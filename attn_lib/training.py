"""Attention that learns: the associative-recall task, and one or more heads trained on it in plain numpy.

Notebook 09 writes every gradient of this module out in its own cells and checks once that they give the same
numbers as :func:`loss_and_gradients`; the replay explorer (attn_lib.widgets.replay) and the tests use this module.

The task. A sequence holds ``pairs`` positions, each carrying a key symbol (``a`` to ``p``, all different) and a
value symbol (``0`` to ``9``). ``queries`` query positions each carry one of those keys and must fetch the value
stored with it (``recall``). A second target, used to show why several heads help, is the value stored at the
first position whatever the query (``first``). A position's vector is the sum of random unit-variance embeddings
of its symbols and of its place, divided by the square root of their number, so that its components have unit
variance (footnote 4's assumption, once projected by weights of variance 1/d_model).

The model. ``heads`` heads, each with its own W_q, W_k (d_model, d_k) and W_v (d_model, d_v); queries come from
the query positions, keys and values from the pair positions (so n = queries, m = pairs). The heads' outputs are
concatenated to width heads * d_v and projected by W_o to one row of logits per target; the loss is the mean
cross-entropy.

Shapes: X_q (B, n, d_model), X_kv (B, m, d_model); Q (B, h, n, d_k), K (B, h, m, d_k), V (B, h, m, d_v);
weights (B, h, n, m); output (B, h, n, d_v).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._checks import check_size
from .attention import softmax
from .backward import attention_backward

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
            raise ValueError(f"pairs must be at most {len(KEY_SYMBOLS)} (one key symbol each); got {self.pairs}")
        if self.queries > self.pairs:
            raise ValueError(f"queries must be at most pairs={self.pairs}; got {self.queries}")
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
        check_size(size, "size", minimum=1)
        keys = np.argsort(rng.random((size, len(KEY_SYMBOLS))), axis=1)[:, : self.pairs]  # (B, m), all different
        values = rng.integers(len(VALUE_SYMBOLS), size=(size, self.pairs))  # (B, m)
        match = np.argsort(rng.random((size, self.pairs)), axis=1)[:, : self.queries]  # (B, n)
        return self.encode(keys, values, match)

    def encode(self, keys, values, match):
        """The batch whose pair positions hold ``keys`` and ``values`` (B, m) and whose queries ask for the keys
        at positions ``match`` (B, n). Keys may repeat here (``batch`` never repeats them)."""
        keys, values, match = (np.asarray(a) for a in (keys, values, match))
        if keys.ndim != 2 or keys.shape[1] != self.pairs or values.shape != keys.shape:
            raise ValueError(f"keys must be (B, pairs) = (B, {self.pairs}), and values alike; got keys "
                             f"{keys.shape} and values {values.shape}")
        if match.shape != (keys.shape[0], self.queries):
            raise ValueError(f"match must be (B, queries) = ({keys.shape[0]}, {self.queries}); got {match.shape}")
        e = self.embeddings
        query_keys = np.take_along_axis(keys, match, axis=1)  # (B, n)
        X_kv = (e["key"][keys] + e["value"][values] + e["place"]) / np.sqrt(3)  # (B, m, d_model)
        X_q = (e["key"][query_keys] + e["query"]) / np.sqrt(2)  # (B, n, d_model)
        targets = {"recall": np.take_along_axis(values, match, axis=1),
                   "first": np.repeat(values[:, :1], self.queries, axis=1)}
        return RecallBatch(X_q, X_kv, keys, values, query_keys, match, targets)


def init_weights(rng, d_model=32, heads=1, d_k=16, d_v=16, outputs=1):
    """Random weights with variance 1/fan_in: W_q, W_k (heads, d_model, d_k), W_v (heads, d_model, d_v),
    W_o (heads * d_v, outputs * 10).

    With unit-variance inputs, the components of q and k then have variance about 1 whatever d_k is.
    """
    for value, name in ((d_model, "d_model"), (heads, "heads"), (d_k, "d_k"), (d_v, "d_v"), (outputs, "outputs")):
        check_size(value, name, minimum=1)
    return {
        "W_q": rng.normal(0.0, d_model**-0.5, size=(heads, d_model, d_k)),
        "W_k": rng.normal(0.0, d_model**-0.5, size=(heads, d_model, d_k)),
        "W_v": rng.normal(0.0, d_model**-0.5, size=(heads, d_model, d_v)),
        "W_o": rng.normal(0.0, (heads * d_v) ** -0.5, size=(heads * d_v, outputs * len(VALUE_SYMBOLS))),
    }


def _check_weights(weights):
    missing = {"W_q", "W_k", "W_v", "W_o"} - set(weights)
    if missing:
        raise ValueError(f"weights must hold W_q, W_k, W_v and W_o; missing {sorted(missing)}")
    heads, d_model, d_k = np.shape(weights["W_q"])
    d_v = np.shape(weights["W_v"])[-1]
    if np.shape(weights["W_k"]) != (heads, d_model, d_k) or np.shape(weights["W_v"])[:2] != (heads, d_model):
        raise ValueError(
            f"expected W_q and W_k (heads, d_model, d_k) and W_v (heads, d_model, d_v) alike; got W_q "
            f"{np.shape(weights['W_q'])}, W_k {np.shape(weights['W_k'])}, W_v {np.shape(weights['W_v'])}")
    if np.shape(weights["W_o"])[0] != heads * d_v or np.shape(weights["W_o"])[1] % len(VALUE_SYMBOLS):
        raise ValueError(f"W_o must be (heads * d_v, outputs * 10) = ({heads * d_v}, outputs * 10); "
                         f"got {np.shape(weights['W_o'])}")
    return heads, d_v, np.shape(weights["W_o"])[1] // len(VALUE_SYMBOLS)


def project(X, W):
    """Every head's projection of every position: X (B, rows, d_model), W (h, d_model, d) -> (B, h, rows, d).

    The batch is folded into the rows so that one 2-D product per head does the work (numpy's batched matmul
    over many small matrices is several times slower).
    """
    B, rows, d_model = X.shape
    heads, _, width = W.shape
    return (X.reshape(B * rows, d_model) @ W).reshape(heads, B, rows, width).transpose(1, 0, 2, 3)


def fold(d):
    """(B, h, rows, width) -> (h, B rows, width): the batch joins the rows, ready for X^T d (the inverse of the
    layout :func:`project` returns)."""
    B, heads, rows, width = d.shape
    return d.transpose(1, 0, 2, 3).reshape(heads, B * rows, width)


def loss_and_gradients(weights, batch, scale=None, targets=("recall",)):
    """Forward pass, mean cross-entropy loss, and the gradient of the loss with respect to every weight.

    Parameters
    ----------
    weights : dict
        ``W_q``, ``W_k`` (heads, d_model, d_k), ``W_v`` (heads, d_model, d_v), ``W_o`` (heads * d_v, outputs * 10).
    batch : RecallBatch
    scale : float, optional
        The factor on Q K^T; default 1/sqrt(d_k). Pass 1.0 for unscaled attention.
    targets : tuple of str
        Which targets the logits answer, in order ("recall", "first"); one per 10 columns of W_o.

    Returns
    -------
    loss : float
    accuracy : numpy.ndarray, shape (outputs,)
        Share of queries whose largest logit is the right value, per target.
    attn : numpy.ndarray, shape (B, heads, n, m)
        The attention weights.
    grads : dict
        dL/dW for each of W_q, W_k, W_v, W_o, of their shapes.
    """
    heads, d_v, outputs = _check_weights(weights)
    targets = tuple(targets)
    if len(targets) != outputs or not set(targets) <= set(TARGETS):
        raise ValueError(f"targets must name {outputs} of {TARGETS} (one per 10 columns of W_o); got {targets}")
    d_k = weights["W_q"].shape[-1]
    scale = d_k**-0.5 if scale is None else float(scale)
    X_q, X_kv = batch.X_q, batch.X_kv
    B, n, d_model = X_q.shape
    classes = len(VALUE_SYMBOLS)

    Q = project(X_q, weights["W_q"])  # (B, n, d_model) x (h, d_model, d_k) -> (B, h, n, d_k)
    K = project(X_kv, weights["W_k"])  # (B, m, d_model) x (h, d_model, d_k) -> (B, h, m, d_k)
    V = project(X_kv, weights["W_v"])  # (B, m, d_model) x (h, d_model, d_v) -> (B, h, m, d_v)
    attn = softmax(scale * (Q @ np.swapaxes(K, -1, -2)))  # (B, h, n, d_k) x (B, h, d_k, m) -> (B, h, n, m)
    output = attn @ V  # (B, h, n, m) x (B, h, m, d_v) -> (B, h, n, d_v)
    concat = output.transpose(0, 2, 1, 3).reshape(B * n, heads * d_v)  # heads side by side, one row per query
    logits = (concat @ weights["W_o"]).reshape(B, n, outputs, classes)  # (B n, h d_v) x (h d_v, outputs 10)
    probs = softmax(logits)
    right = np.stack([batch.targets[t] for t in targets], axis=-1)  # (B, n, outputs)
    one_hot = np.eye(classes)[right]  # (B, n, outputs, 10)
    loss = float(-np.mean(np.log(np.sum(probs * one_hot, axis=-1))))
    accuracy = np.mean(logits.argmax(axis=-1) == right, axis=(0, 1))

    d_logits = ((probs - one_hot) / (B * n * outputs)).reshape(B * n, outputs * classes)
    d_W_o = concat.T @ d_logits  # (h d_v, B n) x (B n, outputs 10) -> (h d_v, outputs 10)
    d_output = (d_logits @ weights["W_o"].T).reshape(B, n, heads, d_v).transpose(0, 2, 1, 3)  # (B, h, n, d_v)
    dQ, dK, dV = attention_backward(Q, K, V, d_output, scale=scale)  # the scale is inside dQ and dK

    grads = {
        "W_q": X_q.reshape(-1, d_model).T @ fold(dQ),  # (d_model, B n) x (h, B n, d_k) -> (h, d_model, d_k)
        "W_k": X_kv.reshape(-1, d_model).T @ fold(dK),  # (d_model, B m) x (h, B m, d_k) -> (h, d_model, d_k)
        "W_v": X_kv.reshape(-1, d_model).T @ fold(dV),  # (d_model, B m) x (h, B m, d_v) -> (h, d_model, d_v)
        "W_o": d_W_o,
    }
    return loss, accuracy, attn, grads


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
        A fixed batch, drawn before training, whose weights are saved.
    weights : dict
        The trained weights.
    reached : int or None
        The first step whose batch accuracy reached ``stop_at`` on every target (None if never).
    """

    losses: np.ndarray
    accuracy: np.ndarray
    saved_steps: np.ndarray
    saved_weights: np.ndarray
    example: RecallBatch
    weights: dict
    reached: int | None


def train(task, weights, steps, lr, *, scale=None, targets=("recall",), seed=0, batch_size=128, optimizer="sgd",
          save_every=0, stop_at=None, example=None):
    """Train ``weights`` in place on ``task`` by plain gradient descent (``W -= lr * dW``) or Adam.

    Parameters
    ----------
    task : RecallTask
    weights : dict
        As from :func:`init_weights`; updated in place.
    steps : int
    lr : float
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

    Returns
    -------
    History
    """
    check_size(steps, "steps", minimum=1)
    check_size(save_every, "save_every")
    if optimizer not in ("sgd", "adam"):
        raise ValueError(f"optimizer must be 'sgd' or 'adam'; got {optimizer!r}")
    rng = np.random.default_rng(seed)
    if example is None:
        example = task.batch(np.random.default_rng(10_000 + seed), size=1)
    moments = {name: (np.zeros_like(w), np.zeros_like(w)) for name, w in weights.items()}
    losses, accuracy, saved_steps, saved = [], [], [], []
    reached = None
    for step in range(steps):
        if save_every and (step % save_every == 0):
            saved_steps.append(step)
            saved.append(loss_and_gradients(weights, example, scale, targets)[2][0])
        loss, acc, _, grads = loss_and_gradients(weights, task.batch(rng, batch_size), scale, targets)
        losses.append(loss)
        accuracy.append(acc)
        if stop_at is not None and reached is None and np.all(acc >= stop_at):
            reached = step
            break
        for name, grad in grads.items():
            if optimizer == "sgd":
                weights[name] -= lr * grad
            else:
                first, second = moments[name]
                first *= 0.9
                first += 0.1 * grad
                second *= 0.999
                second += 0.001 * grad**2
                t = step + 1
                weights[name] -= lr * (first / (1 - 0.9**t)) / (np.sqrt(second / (1 - 0.999**t)) + 1e-8)
    return History(np.array(losses), np.array(accuracy), np.array(saved_steps),
                   np.array(saved) if saved else np.zeros((0,)), example, weights, reached)
