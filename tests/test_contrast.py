"""attn_lib._contrast: WCAG 2 luminance and contrast, translucent colours, darkening to a ratio."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attn_lib._contrast import contrast_ratio, darken_to, hex_colour, over, relative_luminance, rgb

colours = st.tuples(*[st.integers(0, 255)] * 3)


def test_luminance_and_ratio_at_the_ends_of_the_scale():
    assert relative_luminance("#000") == 0 and relative_luminance("#ffffff") == pytest.approx(1)
    assert contrast_ratio("#000000", "#fff") == pytest.approx(21)
    # WCAG's own example of a pass at 4.5:1 is #767676 on white (4.54:1)
    assert 4.5 < contrast_ratio("#767676", "#ffffff") < 4.6 < contrast_ratio("#757575", "#ffffff")


@given(colours, colours)
def test_contrast_is_symmetric_and_at_least_one(a, b):
    assert contrast_ratio(a, b) == contrast_ratio(b, a) >= 1


@given(colours, colours, st.floats(0, 1))
def test_a_translucent_colour_lies_between_itself_and_its_background(colour, background, alpha):
    seen = over(colour, alpha, background)
    assert all(min(c, b) <= s <= max(c, b) for s, c, b in zip(seen, colour, background))
    assert over(colour, 1, background) == colour and over(colour, 0, background) == background


@given(colours)
def test_darken_to_reaches_the_ratio_and_keeps_a_colour_that_already_does(colour):
    backgrounds = ["#ffffff", "#ffdddd"]
    darker = darken_to(colour, backgrounds)
    assert all(contrast_ratio(darker, bg) >= 4.5 for bg in backgrounds)
    assert all(d <= c for d, c in zip(rgb(darker), colour))
    if all(contrast_ratio(colour, bg) >= 4.5 for bg in backgrounds):
        assert darker == hex_colour(colour)


def test_bad_colours_name_what_was_received():
    with pytest.raises(ValueError, match="'#12'"):
        rgb("#12")
