"""attn_lib: the shared toolkit of the course on softmax(Q K^T / sqrt(d_k)) V.

The core (this namespace) and ``attn_lib.exercises`` (the checkers) need numpy only; ``attn_lib.plotting`` imports
matplotlib and ``attn_lib.widgets`` ipywidgets too. All three are loaded only when first used.

Shapes: Q (..., n, d_k), K (..., m, d_k), V (..., m, d_v); scores and weights (..., n, m); output (..., n, d_v).
"""

from importlib import import_module

from .attention import attention, scaled_scores, softmax
from .backward import attention_backward
from .chunked import chunked_attention
from .cost import AttentionCost, attention_cost
from .decoding import decode_step, kv_cache_numbers
from .masks import causal_mask, padding_mask
from .multihead import MultiHeadAttention

__all__ = [
    "AttentionCost",
    "MultiHeadAttention",
    "attention",
    "attention_backward",
    "attention_cost",
    "causal_mask",
    "chunked_attention",
    "padding_mask",
    "scaled_scores",
    "softmax",
]
__version__ = "0.1.0"

_LAZY_SUBMODULES = {"plotting", "widgets", "exercises"}


def __getattr__(name):
    # `attn_lib.widgets` works after a bare `import attn_lib`, without importing ipywidgets at startup.
    if name in _LAZY_SUBMODULES:
        return import_module(f".{name}", __name__)
    raise AttributeError(f"module 'attn_lib' has no attribute {name!r}")
