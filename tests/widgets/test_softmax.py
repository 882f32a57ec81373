"""The softmax explorer (attn_lib/widgets/softmax.py): a temperature that sharpens and flattens one row."""

import math

import pytest

from attn_lib.widgets import softmax_explorer


def test_softmax_explorer_temperature_sharpens_and_flattens():
    explorer = softmax_explorer()
    explorer.controls["temperature"].value = 0.1
    cold = dict(explorer.measured)
    explorer.controls["temperature"].value = 10.0
    hot = dict(explorer.measured)
    assert cold["largest_weight"] > 0.99
    assert hot["entropy"] == pytest.approx(math.log(5), abs=0.05)
    for state in (cold, hot):
        assert state["weight_sum"] == pytest.approx(1.0)
    explorer.controls["s3"].value = 5.0  # a score moved to the top takes the largest weight
    assert explorer.measured["w3"] == max(explorer.measured[f"w{j}"] for j in range(5))


@pytest.mark.parametrize("kwargs, argument", [({"scores": [1.0]}, "scores"), ({"temperature": 0.0}, "temperature")])
def test_bad_arguments_name_themselves(kwargs, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must"):
        softmax_explorer(**kwargs)
