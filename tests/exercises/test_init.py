"""The package's docstring: its table names every mistake id of every function checker."""


def test_the_module_table_lists_every_mistake_id_of_every_function_checker():
    import attn_lib.exercises as exercises
    from attn_lib.exercises import _check_attention, _check_causal_mask, _check_chunked, _check_softmax
    from attn_lib.exercises import _check_split_heads

    problems = [_check_attention._ATTENTION, _check_softmax._SOFTMAX, _check_softmax._MASKED,
                _check_causal_mask._CAUSAL, _check_split_heads._SPLIT, _check_chunked._CHUNKED]
    table = exercises.__doc__
    for problem in problems:
        for mistake in problem.mistakes():
            assert mistake.id in table, (problem.checker, mistake.id)
        assert problem.overflow[0] in table
