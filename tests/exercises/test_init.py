"""The package's docstring: its table of mistake ids, row by row against the checkers' own tables and code."""

import ast
import importlib
import inspect
import pkgutil
import re
import textwrap

import pytest

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


ID = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9<>]+)+|[a-z]+")
JUDGE_MODULES = ("_judge", "_explain", "_running")
NUMBER_LIKE = (ast.BinOp, ast.Name, ast.Call, ast.UnaryOp, ast.Attribute, ast.Constant)  # the ids every function checker may give


def _table() -> dict[str, set[str]]:
    """The package docstring's table, row by row: checker name -> the ids its row lists (descriptions in
    parentheses left out, "scores-/weights-transposed" read as two ids)."""
    lines = exercises.__doc__.split("\n")
    rules = [i for i, line in enumerate(lines) if line.startswith("=====")]
    width = lines[rules[0]].index(" ") + 1
    rows, name, text = {}, "", {}
    for line in lines[rules[1] + 1:rules[2]]:
        left, right = line[:width].strip(), line[width:].strip()
        if left.startswith("check_"):
            name = re.match(r"check_\w+", left).group(0)
        elif left and not left.startswith("("):  # a long name wrapped onto the next line
            carried = text.pop(name)
            name += re.match(r"\w+", left).group(0)
            text[name] = carried
        text[name] = text.get(name, "") + " " + right
    for name, row in text.items():
        while re.search(r"\([^()]*\)", row):
            row = re.sub(r"\([^()]*\)", "", row)
        ids = set()
        for item in re.split(r"[,;]", row):
            item = item.strip()
            pair = re.fullmatch(r"([a-z]+)-/([a-z]+)(-[a-z0-9-]+)", item)
            if pair:
                ids |= {pair.group(1) + pair.group(3), pair.group(2) + pair.group(3)}
            elif ID.fullmatch(item):
                ids.add(item)
        rows[name] = ids
    return rows


def _id_patterns(node) -> list[str]:
    """An id as the code writes it: a string, an f-string read as a pattern (``f"chose-{label}"``), or either
    branch of ``"a" if ... else "b"``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and ID.fullmatch(node.value):
        return [re.escape(node.value)]
    if isinstance(node, ast.JoinedStr):
        pattern = "".join(re.escape(v.value) if isinstance(v, ast.Constant) else ".+" for v in node.values)
        return [] if pattern.endswith(":") else [pattern]
    if isinstance(node, ast.IfExp):
        return _id_patterns(node.body) + _id_patterns(node.orelse)
    return []


def _ids_in(tree) -> set[str]:
    """The ids a piece of code gives: the first argument of fail(...), Mistake(...), Bad(...), a mistake=
    keyword, a hyphenated id among the first two items of an (id, value, reason) tuple, or a one-word one first
    beside a number in an (id, number, reason) tuple: ("bits", 32 * n, "that is bits")."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("fail", "Mistake", "Bad") and node.args:
            found.update(_id_patterns(node.args[0]))
        elif isinstance(node, ast.keyword) and node.arg == "mistake":
            found.update(_id_patterns(node.value))
        elif isinstance(node, ast.Tuple) and len(node.elts) >= 3:
            found.update(p for e in node.elts[:2] for p in _id_patterns(e) if "-" in p)
            if len(node.elts) in (3, 4):  # (id, number, reason[, hint]) or (number, id, ...): a one-word id too
                for text, number in ((node.elts[0], node.elts[1]), (node.elts[1], node.elts[0])):
                    if isinstance(number, NUMBER_LIKE) and not (isinstance(number, ast.Constant)
                                                                and isinstance(number.value, str)):
                        found.update(_id_patterns(text))
    return found


def _module_tree(name):
    module = importlib.import_module(f"attn_lib.exercises.{name}")
    return module, ast.parse(inspect.getsource(module))


def _reached(checker) -> set[str]:
    """The id patterns of everything ``checker`` reaches in its module by name, and the functions it imports
    from shared modules (not the judge's, which give the ids every function checker may give)."""
    module, tree = _module_tree(checker.__module__.rsplit(".", 1)[1])
    top = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    top[target.id] = node
    imported = {alias.asname or alias.name: node.module for node in tree.body
                if isinstance(node, ast.ImportFrom) and node.level == 1 for alias in node.names}
    found, seen, todo = set(), set(), [checker.__name__]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in top:
            node = top[name]
        elif imported.get(name) and imported[name] not in JUDGE_MODULES and callable(getattr(module, name, None)):
            node = ast.parse(textwrap.dedent(inspect.getsource(getattr(module, name))))
        else:
            continue
        found |= _ids_in(node)
        todo += [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
    for value in vars(module).values():  # the problem's table, as the judge will read it
        if isinstance(value, FunctionProblem) and value.checker == checker.__name__:
            found |= {re.escape(m.id) for m in value.mistakes()}
            found |= {re.escape(t[0]) for t in (value.overflow, value.no_batch) if t}
    return found


def _generic() -> set[str]:
    found = {re.escape(NAIVE_OVERFLOW[0])}
    for name in JUDGE_MODULES:
        found |= _ids_in(_module_tree(name)[1])
    return found


def _covered(row_id, patterns) -> bool:
    return any(re.fullmatch(p, row_id) or re.fullmatch(p, row_id.replace("<", "").replace(">", ""))
               or (".+" in p and re.fullmatch(p, row_id)) for p in patterns)


# What static reading over-counts: check_masked_softmax calls the weights' diagnosis shared with check_softmax,
# whose branch for plain scores (-inf entries) it never takes (it passes mask_key), and check_softmax the one for
# masked scores.
# The checkers of notebook 10 call check_number without ``decimals``, so never get its too-few-decimals.
NOT_REACHED = {"check_masked_softmax": {"neg-inf-not-zero"},
               "check_softmax": {"blocked-not-zero"},
               **{name: {"too-few-decimals"} for name in ("check_footnote4_variance", "check_unscaled_row",
                                                          "check_weights_beyond_parameters")}}


def test_the_table_has_a_row_for_every_checker():
    checkers = {name for name in exercises.__all__ if name.startswith("check_")}
    assert set(_table()) == checkers


@pytest.mark.parametrize("name", sorted(n for n in exercises.__all__ if n.startswith("check_")))
def test_each_row_of_the_table_lists_exactly_the_ids_its_checker_gives(name):
    row, code = _table()[name], _reached(getattr(exercises, name))
    assert {re.escape(i) for i in NOT_REACHED.get(name, ())} <= code, "NOT_REACHED names an id the code lacks"
    code -= {re.escape(i) for i in NOT_REACHED.get(name, ())}
    generic = _generic()
    missing = sorted(p for p in code if not any(re.fullmatch(p, r) for r in row)
                     and not any(re.fullmatch(p, g.replace("\\", "")) for g in generic) and p not in generic)
    assert not missing, f"{name} gives ids its row does not list: {missing}"
    unknown = sorted(r for r in row if not _covered(r, code | generic) and r != "the")
    assert not unknown, f"{name}'s row lists ids its checker never gives: {unknown}"


def test_the_ids_every_function_checker_gives_are_written_down():
    doc = exercises.__doc__
    for pattern in _generic():
        text = pattern.replace("\\", "").replace(".+", "<name>")
        assert text in doc, text


def test_a_row_that_lists_an_id_no_checker_gives_is_caught():
    code = _reached(exercises.check_softmax)
    assert not _covered("softmax-sideways", code | _generic())
    assert _covered("naive-overflow", code | _generic())


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
