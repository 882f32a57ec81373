"""The package's docstring: its table of mistake ids is generated (tools/mistake_table.py) from the catalogue
and the checkers' own tables and declared ids, and compared here exactly; and no hint or reason writes out a
function problem's solution."""

import importlib
import pkgutil
import sys
from pathlib import Path

import attn_lib.exercises as exercises
from attn_lib.exercises._catalogue import CATALOGUE
from attn_lib.exercises._types import FunctionProblem

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import mistake_table  # noqa: E402  (tools/mistake_table.py)


def _problems():
    for info in pkgutil.iter_modules(exercises.__path__):
        module = importlib.import_module(f"attn_lib.exercises.{info.name}")
        yield from (value for value in vars(module).values() if isinstance(value, FunctionProblem))


def test_every_checker_module_is_found():
    checkers = {problem.checker for problem in _problems()}
    assert {"check_attention", "check_softmax", "check_masked_softmax", "check_chunked_attention"} <= checkers


def test_the_docstring_table_is_the_generated_one():
    assert mistake_table.current() == mistake_table.section(), (
        "attn_lib/exercises/__init__.py's table of mistake ids differs from the catalogue and the checkers: run "
        "python tools/mistake_table.py --write (a checker's new id goes in its table, its FunctionProblem's "
        "gives or its module's GIVES; its words in _data/_mistakes.py)")


def test_the_table_has_a_row_for_every_checker():
    checkers = {name for name in exercises.__all__ if name.startswith("check_")}
    assert set(mistake_table.rows()) == checkers | {"check"}  # check(...): a prediction's verdict on a variant


# The expression that answers each function problem whole; no hint (or reason) may write it out: a hint points at
# the step that is wrong.
SOLUTIONS = {
    "_check_masked_softmax": ["np.where(mask, scores, -np.inf)"],
    "_check_causal_mask": ["np.tri(n, m", "np.arange(n)[:, None] >= np.arange(m)[None, :]"],
    "_check_padding_mask": ["np.arange(m) < lengths[:, None]", "np.arange(m)[None, :] < lengths[:, None]",
                            "mask[:, None, :]"],
    "_check_split_heads": ["reshape(n, heads, d_k).transpose(1, 0, 2)", ".transpose(1, 0, 2)"],
    "_check_softmax_backward": ["(dP * P).sum(axis=-1, keepdims=True)"],
    "_check_dW_q": ["X.reshape(-1, d_model).T @ dQ.reshape(-1, d_k)", "dQ = d_scores @ K / np.sqrt(d_k)",
                    "...nd,...nm,...mk->dk"],
    "_check_weighted_average": ["weights @ V"],
    "_check_multihead": ["np.concatenate(head_outputs, axis=-1) @ W_o", "X_q @ W_q[h]"],
    "_check_temperature_softmax": ["my_softmax(scores / temperature)", "np.exp(s - s.max(axis=-1, keepdims=True))"],
    "_check_scores": ["Q @ np.swapaxes(K, -1, -2)", "np.einsum('...nd,...md->...nm', Q, K)"],
    "_check_scaled_scores": ["Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)", "np.einsum('...nd,...md->...nm', Q, K)"],
}


def _texts(module):
    """Every string the module can show a learner: its string constants, docstrings (examples) left out."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(module))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def _catalogue_texts(module) -> list[str]:
    """The reasons and hints of the catalogue entries the module's checker gives (their templates)."""
    problem = module.PROBLEM
    entries = [CATALOGUE[mistake_table.catalogue_id(i)] for i in mistake_table.rows()[problem.checker]
               if i not in mistake_table.PATTERNS]
    return [text for e in entries for text in (e.reason, e.hint)]


def test_no_hint_or_reason_writes_out_the_solution():
    for name, expressions in SOLUTIONS.items():
        module = importlib.import_module(f"attn_lib.exercises.{name}")
        for text in _texts(module) + _catalogue_texts(module):
            for expression in expressions:
                assert expression not in text, (name, text)
