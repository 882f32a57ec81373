"""The course's problems as the review counts them: every prediction problem (attn_lib.exercises' problem book)
and every function-writing problem, by the checker its notebook calls (each function checker is called by exactly
one problem of the course; tests/review/test_course.py reads the notebooks to hold this table to them)."""

from __future__ import annotations

from ._prompts import PROMPTS

NOTEBOOKS = tuple(f"{n:02d}" for n in range(11))

# The function checker -> the problem whose checker cell calls it.
FUNCTION_PROBLEMS = {
    "check_scores": "02-P1",
    "check_scaled_scores": "03-P4",
    "check_softmax": "04-P5",
    "check_temperature_softmax": "04-P7",
    "check_weighted_average": "05-P1",
    "check_masked_softmax": "06-P1",
    "check_causal_mask": "06-P5",
    "check_padding_mask": "06-P6",
    "check_multihead": "07-P1",
    "check_split_heads": "07-P3",
    "check_cross_attention": "07-P5",
    "check_softmax_backward": "08-P3",
    "check_chunked_attention": "08-P6",
    "check_decode_step": "08-P8",
    "check_attention": "08-P10",
    "check_dW_q": "09-P1",
    "check_previous_token": "10-P4",
    "check_weight_times_value": "10-P5",
}


def predictions() -> dict:
    from ..exercises._problem_book import PREDICTIONS

    return PREDICTIONS


def problems_of(notebook: str) -> list[str]:
    """The ids of notebook ``notebook``'s problems, in order."""
    ids = [i for i in list(predictions()) + list(FUNCTION_PROBLEMS.values()) if i[:2] == notebook]
    return sorted(ids, key=lambda i: int(i.split("-P")[1]))


def has_variants(problem_id: str) -> bool:
    prediction = predictions().get(problem_id)
    return prediction is not None and prediction.has_variants


def prompts_of_notebook(notebook: str) -> list:
    return [prompt for prompt in PROMPTS if prompt.notebook == notebook]


def checked_notebook(notebook, name: str = "notebook") -> str:
    """``notebook`` as "05"; an int 5 is accepted. Anything else is refused, naming the notebooks."""
    if isinstance(notebook, int) and not isinstance(notebook, bool):
        notebook = f"{notebook:02d}"
    if not isinstance(notebook, str) or notebook not in NOTEBOOKS:
        raise ValueError(f"{name} must be a notebook's number, \"00\" to \"10\"; got {notebook!r}")
    return notebook
