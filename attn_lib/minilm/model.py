"""all-MiniLM-L6-v2's forward pass in numpy, with every head's attention computed by ``attn_lib.attention``.

The model is BERT-shaped: 6 layers, d_model = 384, 12 heads of d_k = d_v = 32, a feed-forward block of width 1536.
One layer, for x (b, n, d_model):

    Q, K, V = x W_q^T + b_q, ...            projections (01 shapes), split into 12 heads (07)
    heads   = attention(Q, K, V, mask)      softmax(Q K^T / sqrt(d_k)) V per head (00-05), padding mask (06)
    x       = LayerNorm(x + concat(heads) W_o^T + b_o)       concatenate and W^O (07)
    x       = LayerNorm(x + GELU(x W_1^T + b_1) W_2^T + b_2)  the feed-forward block

The sentence embedding is the mean of the last layer's rows over the real tokens, scaled to length 1. LayerNorm,
GELU and the feed-forward block are not part of the attention line; they are written out here so that nothing is
hidden.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._blas import one_blas_thread
from .._checks import InputTypeError, InputValueError
from ..attention import attention
from ..masks import padding_mask

LAYERS = 6
D_MODEL = 384
HEADS = 12
D_K = D_MODEL // HEADS  # 32: the per-head width the 1/sqrt(d_k) is about, not d_model
D_FF = 1536
LAYER_NORM_EPS = 1e-12
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model


def layer_norm(x, gamma, beta, eps=LAYER_NORM_EPS):
    """Each row (..., d_model) shifted to mean 0, scaled to variance 1, then ``* gamma + beta``."""
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def erf(x):
    """The error function, elementwise, to within 1.2e-7 (Numerical Recipes' erfc by Chebyshev fitting).

    ``math.erf`` is exact but takes one Python call per number; this is numpy on the whole array.
    """
    x = np.asarray(x)
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
    erfc = t * np.exp(poly)
    return np.where(x >= 0, 1.0 - erfc, erfc - 1.0).astype(x.dtype, copy=False)


def gelu(x):
    """GELU in its exact (erf) form, as BERT uses it: ``x * P(Z <= x)`` for a standard normal Z."""
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0).astype(x.dtype)))


def split_heads(x, heads=HEADS):
    """(..., n, heads * d_k) -> (..., heads, n, d_k): head i owns columns i*d_k .. (i+1)*d_k - 1 (notebook 07)."""
    *batch, n, width = x.shape
    x = x.reshape(*batch, n, heads, width // heads)  # (..., n, heads, d_k)
    return np.swapaxes(x, -3, -2)  # (..., heads, n, d_k)


def merge_heads(x):
    """(..., heads, n, d_v) -> (..., n, heads * d_v): the heads' outputs side by side (notebook 07)."""
    x = np.swapaxes(x, -3, -2)  # (..., n, heads, d_v)
    return x.reshape(*x.shape[:-2], x.shape[-2] * x.shape[-1])  # (..., n, heads * d_v)


@dataclass
class LayerRecord:
    """What one layer's attention saw and did, for a batch of b sentences padded to n tokens.

    Q, K, V and output are (b, heads, n, d_k); weights is (b, heads, n, n), queries on axis -2, keys on axis -1.
    residual is the layer's input x (b, n, d_model): the residual stream that the heads' sum, projected by W^O, is
    added to.
    """

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    residual: np.ndarray


@dataclass
class Run:
    """A forward pass: tokens, their mask, the sentence embeddings and (if kept) each layer's attention."""

    tokens: list  # b lists of strings, [CLS] ... [SEP], without padding
    ids: np.ndarray  # (b, n) int
    mask: np.ndarray  # (b, n) bool, True for a real token
    embeddings: np.ndarray  # (b, d_model), each of length 1
    layers: list = field(default_factory=list)  # LayerRecord per layer, if asked for


class MiniLM:
    """all-MiniLM-L6-v2 read with numpy: its tensors (``safetensors``) and its tokenizer (``tokenizers``).

    Build it with ``attn_lib.minilm.load()``, which verifies the files first.

    Examples
    --------
    >>> model = load()  # fetches the two files once if they are not on the machine
    >>> model.encode(["a cat sat", "a dog sat"]).shape
    (2, 384)
    """

    def __init__(self, tensors, tokenizer):
        self.paths = {}  # where the files were read from, set by load()
        self.tensors = tensors
        self.tokenizer = tokenizer
        tokenizer.no_padding()  # the file pads to 128; padding is done here, to the longest sentence of a batch
        tokenizer.enable_truncation(MAX_TOKENS)

    @classmethod
    def from_files(cls, weights_path, tokenizer_path):
        """Read verified files (see ``attn_lib.minilm.sources``); safetensors and tokenizers load only here."""
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        return cls(load_file(str(weights_path)), Tokenizer.from_file(str(tokenizer_path)))

    @property
    def where(self) -> str:
        """Where the files were read from, in words and without this machine's paths: "the cache folder" (see
        ``attn_lib.minilm.cache_dir``), a folder relative to the working directory, or the folder's own name."""
        from .sources import cache_dir

        if not self.paths:
            return "tensors given directly"
        folder = next(iter(self.paths.values())).parent.resolve()
        if folder == cache_dir().expanduser().resolve():
            return "the cache folder"
        try:
            return f"the folder {folder.relative_to(Path.cwd().resolve())}"
        except ValueError:
            return f"a folder named {folder.name}"

    @property
    def parameter_count(self) -> int:
        """How many parameters training fixed: the numbers in every float tensor (not the position_ids buffer)."""
        return sum(int(t.size) for t in self.tensors.values() if t.dtype.kind == "f")

    def __repr__(self):
        return (f"MiniLM(layers={LAYERS}, d_model={D_MODEL}, heads={HEADS}, d_k={D_K}, "
                f"parameters={self.parameter_count:,})")

    def tokenize(self, sentences, max_tokens=MAX_TOKENS):
        """Token ids (b, n) padded with 0, a mask (b, n) True for real tokens, and the tokens as strings.

        A sentence longer than ``max_tokens`` (counting [CLS] and [SEP]) is cut to that length.
        """
        if isinstance(sentences, str):
            raise InputTypeError("sentences must be a list of strings; got one str (wrap it: [sentence])")
        if not sentences or not all(isinstance(s, str) for s in sentences):
            raise InputTypeError(f"sentences must be a non-empty list of strings; got {sentences!r}")
        if not 2 <= max_tokens <= MAX_TOKENS:
            raise InputValueError(f"max_tokens must lie between 2 and {MAX_TOKENS}; got {max_tokens!r}")
        self.tokenizer.enable_truncation(max_tokens)
        try:
            encodings = self.tokenizer.encode_batch(list(sentences))
        finally:
            self.tokenizer.enable_truncation(MAX_TOKENS)
        n = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), n), dtype=np.int64)  # 0 is [PAD]
        for row, e in zip(ids, encodings):
            row[: len(e.ids)] = e.ids
        lengths = np.array([len(e.ids) for e in encodings])
        return ids, np.arange(n) < lengths[:, None], [list(e.tokens) for e in encodings]

    def _dense(self, x, name):
        # PyTorch stores a Linear layer's weight as (out, in): y = x W^T + b
        return x @ self.tensors[f"{name}.weight"].T + self.tensors[f"{name}.bias"]

    def _layer_norm(self, x, name):
        return layer_norm(x, self.tensors[f"{name}.weight"], self.tensors[f"{name}.bias"])

    def embed(self, ids, positions=True):
        """Token + position + segment embeddings, then LayerNorm: (b, n) -> (b, n, d_model).

        With ``positions=False`` the position embeddings are left out: nothing then tells the layers where a token
        stands, and every layer's attention is permutation-equivariant (permute the tokens, the outputs permute).
        """
        if not isinstance(positions, (bool, np.bool_)):
            raise InputTypeError(f"positions must be True or False; got {type(positions).__name__} {positions!r}")
        t = self.tensors
        n = ids.shape[-1]
        x = (t["embeddings.word_embeddings.weight"][ids]  # (b, n, d_model)
             + t["embeddings.token_type_embeddings.weight"][0])  # (d_model,): every token is in segment 0
        if positions:
            x = x + t["embeddings.position_embeddings.weight"][:n]  # (n, d_model): where each token stands
        return self._layer_norm(x, "embeddings.LayerNorm")

    def layer(self, x, key_mask, index, scale=None):
        """One encoder layer on x (b, n, d_model); ``key_mask`` (b, 1, 1, n). Returns x and its LayerRecord."""
        p = f"encoder.layer.{index}"
        x_in = x  # the residual stream entering the layer
        # Three projections of the same tokens (01 shapes), each cut into 12 heads of 32 columns (07 heads).
        Q = split_heads(self._dense(x, f"{p}.attention.self.query"))  # (b, n, d_model) -> (b, heads, n, d_k)
        K = split_heads(self._dense(x, f"{p}.attention.self.key"))  # (b, heads, n, d_k)
        V = split_heads(self._dense(x, f"{p}.attention.self.value"))  # (b, heads, n, d_v)
        # softmax(Q K^T / sqrt(d_k)) V for every head at once (02 to 05), padded keys masked before the softmax (06).
        output, weights = attention(Q, K, V, mask=key_mask, scale=scale, return_weights=True)  # (b, heads, n, d_v)
        # The heads side by side, projected back by W^O (07 heads).
        concat = merge_heads(output)  # (b, heads, n, d_v) -> (b, n, heads * d_v)
        attended = self._dense(concat, f"{p}.attention.output.dense")  # (b, n, heads * d_v) -> (b, n, d_model)
        # BERT's own, not the course's: a residual sum and LayerNorm, then the GELU feed-forward block.
        x = self._layer_norm(x + attended, f"{p}.attention.output.LayerNorm")
        hidden = gelu(self._dense(x, f"{p}.intermediate.dense"))  # (b, n, d_model) -> (b, n, d_ff)
        x = self._layer_norm(x + self._dense(hidden, f"{p}.output.dense"), f"{p}.output.LayerNorm")  # (b, n, d_model)
        return x, LayerRecord(Q, K, V, weights, output, residual=x_in)

    def run(self, sentences, scale=None, keep=True, max_tokens=MAX_TOKENS, positions=True, keys=None):
        """The whole forward pass on a list of sentences.

        Parameters
        ----------
        sentences : list of str
        scale : float, optional
            What every layer multiplies Q K^T by; default 1 / sqrt(d_k), as the model was trained.
        keep : bool
            Keep each layer's Q, K, V, weights and head outputs in ``Run.layers``.
        max_tokens : int
            Longest sentence, in tokens with [CLS] and [SEP]; longer ones are cut.
        positions : bool
            Add the position embeddings (the default, as the model was trained); False leaves them out.
        keys : bool array, optional
            Broadcast to (b, n), n the padded length: False blocks that key from every query, in every head of every
            layer, masked before the softmax as padding is (06); the default blocks none. A blocked token stays a
            query and stays in the sentence vector. Every sentence must keep at least one key.

        Returns
        -------
        Run
        """
        ids, mask, tokens = self.tokenize(sentences, max_tokens)
        key_mask = padding_mask(mask.sum(axis=1), ids.shape[1])[:, None]  # (b, 1, 1, n): the same for every head
        if keys is not None:
            allowed = _allowed_keys(keys, mask.shape) & mask  # (b, n): real tokens not blocked
            if not allowed.any(axis=1).all():
                raise InputValueError(f"keys blocks every token of sentence {int(np.argmin(allowed.any(axis=1)))}: "
                                      "each query needs at least one key to attend to")
            key_mask = allowed[:, None, None, :]  # (b, 1, 1, n): a blocked key gets weight 0 from every query
        layers = []
        with one_blas_thread():  # one sentence's products are small
            x = self.embed(ids, positions)  # (b, n, d_model)
            for index in range(LAYERS):
                x, record = self.layer(x, key_mask, index, scale)
                if keep:
                    layers.append(record)
        real = mask[..., None].astype(x.dtype)  # (b, n, 1)
        pooled = (x * real).sum(axis=1) / real.sum(axis=1)  # (b, d_model): the mean over real tokens only
        embeddings = pooled / np.linalg.norm(pooled, axis=-1, keepdims=True)
        return Run(tokens, ids, mask, embeddings, layers)

    def encode(self, sentences, scale=None, keys=None):
        """Sentence embeddings (b, d_model), each of length 1: cosine similarity is their dot product.

        ``scale`` and ``keys`` as in :meth:`run`.
        """
        return self.run(sentences, scale=scale, keep=False, keys=keys).embeddings


def _allowed_keys(keys, shape):
    """``keys`` broadcast to ``shape`` (b, n), a bool array: True where a query may attend to the key."""
    keys = np.asarray(keys)
    if keys.dtype != bool:
        raise InputTypeError(f"keys must be a bool array (True: the key may be attended to); got dtype {keys.dtype}")
    try:
        return np.broadcast_to(keys, shape)
    except ValueError:
        raise InputValueError(f"keys must broadcast to (sentences, tokens) = {shape}, the padded batch; got shape "
                              f"{keys.shape}") from None


_LOADED = {}  # (folder, download) -> MiniLM: a notebook and its explorer share one copy of the 90 MB of weights


def load(folder=None, download=True):
    """The model, from files verified by sha256 (fetched once if ``download`` and they are not here).

    Loaded once per process: later calls with the same arguments return the same model.

    Raises ``attn_lib.minilm.WeightsError``, saying what to run, if a file is missing, truncated or wrong.
    """
    from . import sources

    key = (None if folder is None else str(folder), bool(download))
    if key not in _LOADED:
        paths = sources.fetch(folder) if download else sources.locate(folder)
        model = MiniLM.from_files(paths[sources.WEIGHTS], paths[sources.TOKENIZER])
        model.paths = paths
        _LOADED[key] = model
    return _LOADED[key]
