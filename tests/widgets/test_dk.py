"""The d_k explorer (attn_lib/widgets/dk.py): the variance it measures, the softmax it saturates, its arguments."""

import math

import pytest

from attn_lib.widgets import dk_explorer
from attn_lib.widgets.dk import DK_VALUES


def test_dk_explorer_measures_variance_d_k_unscaled_and_1_scaled():
    explorer = dk_explorer()
    for d_k in DK_VALUES:
        explorer.controls["d_k"].value = d_k
        for scaled, theory in ((False, d_k), (True, 1.0)):
            explorer.controls["scaled"].value = scaled
            assert explorer.measured["theory"] == theory
            assert explorer.measured["variance"] / theory == pytest.approx(1.0, abs=0.12), (d_k, scaled)


def test_dk_explorer_unscaled_large_d_k_saturates_the_softmax_and_shrinks_its_gradient():
    explorer = dk_explorer(d_k=1024)
    unscaled = dict(explorer.measured)
    explorer.controls["scaled"].value = True
    scaled = dict(explorer.measured)
    assert unscaled["largest_weight"] > 0.99 and unscaled["largest_jacobian_entry"] < 1e-2
    assert scaled["largest_weight"] < 0.9 and scaled["largest_jacobian_entry"] > 0.05
    assert unscaled["entropy"] < scaled["entropy"] <= math.log(16)


def test_dk_explorer_names_its_units():
    explorer = dk_explorer()
    assert "components" in explorer.controls["d_k"].description
    assert "nats" in explorer.readout and "components" in explorer.readout


@pytest.mark.parametrize("kwargs, argument", [({"d_k": 100}, "d_k"), ({"keys": 1}, "keys"),
                                              ({"pairs": 10.5}, "pairs")])
def test_bad_arguments_name_themselves(kwargs, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must"):
        dk_explorer(**kwargs)
