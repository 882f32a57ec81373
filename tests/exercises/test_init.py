"""The package's docstring: its table names every mistake id of every function checker."""

import importlib
import pkgutil

import attn_lib.exercises as exercises
from attn_lib.exercises._explain import NAIVE_OVERFLOW
from attn_lib.exercises._types import FunctionProblem


def _problems():
    for info in pkgutil.iter_modules(exercises.__path__):
        module = importlib.import_module(f"attn_lib.exercises.{info.name}")
        yield from (value for value in vars(module).values() if isinstance(value, FunctionProblem))


def test_every_checker_module_is_found():
    checkers = {problem.checker for problem in _problems()}
    assert {"check_attention", "check_softmax", "check_masked_softmax", "check_chunked_attention"} <= checkers


def test_the_module_table_lists_every_mistake_id_of_every_function_checker():
    table = exercises.__doc__
    for problem in _problems():
        for mistake in problem.mistakes():
            assert mistake.id in table, (problem.checker, mistake.id)
        assert (problem.overflow or NAIVE_OVERFLOW)[0] in table, problem.checker


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


def test_no_hint_or_reason_writes_out_the_solution():
    for name, expressions in SOLUTIONS.items():
        module = importlib.import_module(f"attn_lib.exercises.{name}")
        for text in _texts(module):
            for expression in expressions:
                assert expression not in text, (name, text)
