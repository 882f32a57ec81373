"""tools/contrast.py: WCAG 2 luminance and contrast, translucent colours, darkening to a ratio, and the colours it
refuses."""

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from contrast import contrast_ratio, darken_to, hex_colour, over, relative_luminance, rgb  # noqa: E402

colours = st.tuples(*[st.integers(0, 255)] * 3)


def test_luminance_and_ratio_at_the_ends_of_the_scale():
    assert relative_luminance("#000") == 0 and relative_luminance("#ffffff") == pytest.approx(1)
    assert contrast_ratio("#000000", "#fff") == pytest.approx(21)
    # WCAG's own example of a pass at 4.5:1 is #767676 on white (4.54:1)
    assert 4.5 < contrast_ratio("#767676", "#ffffff") < 4.6 < contrast_ratio("#757575", "#ffffff")


@given(colours, colours)
def test_contrast_is_symmetric_and_between_1_and_21(a, b):
    assert contrast_ratio(a, b) == contrast_ratio(b, a)
    assert 1 <= contrast_ratio(a, b) <= 21


@given(colours)
def test_a_colour_against_itself_has_ratio_1_in_every_spelling(colour):
    assert contrast_ratio(colour, colour) == 1
    assert contrast_ratio(colour, hex_colour(colour)) == 1
    assert rgb(hex_colour(colour)) == colour and rgb(hex_colour(colour).upper()) == colour


@given(st.text("0123456789abcdefABCDEF", min_size=3, max_size=3))
def test_the_three_digit_form_doubles_each_digit(digits):
    assert rgb("#" + digits) == rgb("#" + "".join(2 * d for d in digits))


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


@pytest.mark.parametrize("colour", ["#12", "#1234", "#ggg", "#12345g", "fff", "", "#"])
def test_a_string_that_is_not_hash_and_3_or_6_hex_digits_is_refused(colour):
    with pytest.raises(ValueError, match=rf"^colour must be '#rrggbb' or '#rgb' \(hex digits\); got {colour!r}$"):
        rgb(colour)


@pytest.mark.parametrize("colour", [(1, 2), (1, 2, 3, 4), (256, 0, 0), (-1, 0, 0), (True, 0, 0), (1.0, 0, 0)])
def test_a_tuple_that_is_not_three_0_255_integers_is_refused(colour):
    with pytest.raises(ValueError, match=r"^colour must be \(r, g, b\) of three integers from 0 to 255"):
        rgb(colour)


def test_floats_from_0_to_1_are_refused_with_a_hint():
    with pytest.raises(ValueError, match=r"floats from 0 to 1 are not accepted: multiply by 255 and round\); "
                                         r"got \(0\.5, 0\.5, 0\.5\)$"):
        contrast_ratio((0.5, 0.5, 0.5), "#ffffff")


def test_a_colour_of_another_type_is_refused():
    with pytest.raises(TypeError, match=r"^colour must be a '#rrggbb' string or an \(r, g, b\) tuple; got int 3$"):
        rgb(3)


@pytest.mark.parametrize("alpha", [-0.1, 1.5, 26, float("nan"), "0.5", True])
def test_an_opacity_outside_0_1_is_refused(alpha):
    with pytest.raises(ValueError, match=rf"^alpha must be an opacity from 0 to 1; got {alpha!r}$".replace("(", r"\(")):
        over("#000000", alpha, "#ffffff")
