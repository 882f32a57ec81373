"""The package's docstring: its table names every mistake id of every function checker."""

import importlib
import pkgutil

import attn_lib.exercises as exercises
from attn_lib.exercises._judge import FunctionProblem


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
        assert problem.overflow[0] in table, problem.checker
