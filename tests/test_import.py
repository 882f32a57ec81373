"""`import attn_lib` needs numpy only: matplotlib and ipywidgets are loaded only when a module that needs them is."""

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def modules_after(statement):
    """The names in sys.modules after running ``statement`` in a fresh interpreter started in the repository."""
    code = f"import sys, json; {statement}; print(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    return set(json.loads(result.stdout))


def test_import_attn_lib_loads_numpy_but_not_matplotlib_or_ipywidgets():
    loaded = modules_after("import attn_lib")
    assert "attn_lib" in loaded and "numpy" in loaded
    heavy = {name for name in loaded if name.split(".")[0] in {"matplotlib", "ipywidgets", "IPython", "anywidget"}}
    assert heavy == set()


def test_the_checkers_need_numpy_only():
    loaded = modules_after("import attn_lib.exercises")
    heavy = {name for name in loaded if name.split(".")[0] in {"matplotlib", "ipywidgets", "IPython", "anywidget"}}
    assert "attn_lib.exercises" in loaded and heavy == set()


def test_the_public_names_are_there_after_a_bare_import():
    loaded = modules_after(
        "import attn_lib; assert callable(attn_lib.attention) and callable(attn_lib.chunked_attention)"
    )
    assert "matplotlib" not in loaded


def test_all_lists_exactly_the_core_api():
    import attn_lib

    assert set(attn_lib.__all__) == {
        "AttentionCost", "MultiHeadAttention", "attention", "attention_backward", "attention_cost", "causal_mask",
        "chunked_attention", "padding_mask", "scaled_scores", "softmax",
    }
    for name in attn_lib.__all__:
        assert getattr(attn_lib, name).__module__.startswith("attn_lib.")
