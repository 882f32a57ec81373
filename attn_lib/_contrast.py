"""WCAG 2 colour contrast: relative luminance, contrast ratio, a translucent colour over its background.

Used to choose the course's text colours (the checkers' verdicts, the reading copy's code and tracebacks) and to
test them. Colours are ``"#rrggbb"`` strings or ``(r, g, b)`` tuples of 0-255 integers.
"""

from __future__ import annotations

AA_NORMAL = 4.5  # WCAG 2 AA, normal text (1.4.3)
AA_LARGE = 3.0  # WCAG 2 AA, large text: at least 18 pt, or 14 pt bold


def rgb(colour) -> tuple[int, int, int]:
    """``(r, g, b)`` of a ``"#rrggbb"`` (or ``"#rgb"``) string or of an (r, g, b) tuple."""
    if isinstance(colour, str):
        hex_digits = colour.lstrip("#")
        if len(hex_digits) == 3:
            hex_digits = "".join(2 * d for d in hex_digits)
        if len(hex_digits) != 6:
            raise ValueError(f"colour must be '#rrggbb' or '#rgb'; got {colour!r}")
        return tuple(int(hex_digits[i:i + 2], 16) for i in (0, 2, 4))
    if len(colour) != 3:
        raise ValueError(f"colour must be (r, g, b); got {colour!r}")
    return tuple(int(c) for c in colour)


def hex_colour(colour) -> str:
    """``"#rrggbb"`` of a colour."""
    return "#{:02x}{:02x}{:02x}".format(*rgb(colour))


def relative_luminance(colour) -> float:
    """WCAG 2 relative luminance, from 0 (black) to 1 (white)."""
    def linear(c):
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a, b) -> float:
    """WCAG 2 contrast ratio of two colours, from 1 (same luminance) to 21 (black on white)."""
    light, dark = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def over(colour, alpha: float, background) -> tuple[int, int, int]:
    """The colour seen when ``colour`` at opacity ``alpha`` (0-1) is painted over ``background``."""
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
