"""WCAG 2 colour contrast: relative luminance, contrast ratio, a translucent colour over its background.

Used to choose the course's text colours (the checkers' verdicts, the reading copy's code and tracebacks) and to
test them: tools/build_html.py and the tests import it; the learner's package (attn_lib) does not need it.
Colours are ``"#rrggbb"`` or ``"#rgb"`` strings or ``(r, g, b)`` sequences of three integers from 0 to 255; floats
from 0 to 1 (matplotlib's convention) are refused rather than guessed: multiply them by 255 and round.
"""

from __future__ import annotations

import math
import re
from numbers import Integral

AA_NORMAL = 4.5  # WCAG 2 AA, normal text (1.4.3)
AA_LARGE = 3.0  # WCAG 2 AA, large text: at least 18 pt, or 14 pt bold


HEX_COLOUR = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")


def rgb(colour) -> tuple[int, int, int]:
    """``(r, g, b)`` of a ``"#rrggbb"`` (or ``"#rgb"``) string or of an (r, g, b) sequence of 0-255 integers.

    Raises
    ------
    ValueError
        If ``colour`` is a string that is not ``#`` and 3 or 6 hex digits, or a sequence that is not three integers
        from 0 to 255 (floats from 0 to 1 included).
    TypeError
        If ``colour`` is neither a string nor a sequence.
    """
    if isinstance(colour, str):
        match = HEX_COLOUR.fullmatch(colour.strip())
        if not match:
            raise ValueError(f"colour must be '#rrggbb' or '#rgb' (hex digits); got {colour!r}")
        hex_digits = match.group(1)
        if len(hex_digits) == 3:
            hex_digits = "".join(2 * d for d in hex_digits)
        return tuple(int(hex_digits[i:i + 2], 16) for i in (0, 2, 4))
    try:
        channels = tuple(colour)
    except TypeError:
        raise TypeError(f"colour must be a '#rrggbb' string or an (r, g, b) tuple; got {type(colour).__name__} "
                        f"{colour!r}") from None
    if len(channels) != 3 or not all(isinstance(c, Integral) and not isinstance(c, bool) and 0 <= c <= 255
                                      for c in channels):
        hint = (" (floats from 0 to 1 are not accepted: multiply by 255 and round)"
                if any(isinstance(c, float) for c in channels) else "")
        raise ValueError(f"colour must be (r, g, b) of three integers from 0 to 255{hint}; got {colour!r}")
    return tuple(int(c) for c in channels)


def hex_colour(colour) -> str:
    """``"#rrggbb"`` of a colour."""
    return "#{:02x}{:02x}{:02x}".format(*rgb(colour))


def relative_luminance(colour) -> float:
    """WCAG 2 relative luminance, from 0 (black) to 1 (white)."""
    def linear(c):
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb(colour))
    return min(1.0, 0.2126 * r + 0.7152 * g + 0.0722 * b)  # the weights sum to 1; rounding must not pass it


def contrast_ratio(a, b) -> float:
    """WCAG 2 contrast ratio of two colours, from 1 (same luminance) to 21 (black on white)."""
    light, dark = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def over(colour, alpha: float, background) -> tuple[int, int, int]:
    """The colour seen when ``colour`` at opacity ``alpha`` (0-1) is painted over ``background``.

    Raises
    ------
    ValueError
        If ``alpha`` is not a number from 0 to 1 (an opacity, not a percentage).
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or math.isnan(alpha) or not 0 <= alpha <= 1:
        raise ValueError(f"alpha must be an opacity from 0 to 1; got {alpha!r}")
    return tuple(round(alpha * c + (1 - alpha) * b) for c, b in zip(rgb(colour), rgb(background)))


def darken_to(colour, backgrounds, ratio: float = AA_NORMAL) -> str:
    """``colour`` scaled towards black, by the smallest step of 1 % that reaches ``ratio`` against every one of
    ``backgrounds`` (each lighter than the result); the colour itself when it already does."""
    start = rgb(colour)
    for percent in range(100, -1, -1):
        candidate = tuple(round(c * percent / 100) for c in start)
        if all(contrast_ratio(candidate, bg) >= ratio for bg in backgrounds):
            return hex_colour(candidate)
    raise ValueError(f"no darker shade of {hex_colour(colour)} reaches {ratio}:1 against {backgrounds}")
