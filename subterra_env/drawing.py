"""Text on Pillow images, for both games' frames (Sub Terra's ``frames``, In the Cave's ``in_the_cave/render``).

Pillow is imported inside the functions: only the ``rgb_array`` render needs it.
"""

from __future__ import annotations

from typing import Any

Colour = tuple[int, int, int]


def default_font(size: int) -> Any:
    """Pillow's default font at ``size`` pixels (the fixed bitmap font where Pillow is old or lacks FreeType)."""
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, AttributeError):  # old Pillow or no FreeType: the bitmap font
        return ImageFont.load_default()


def ink_for(colour: Colour) -> Colour:
    """Black or white text, whichever reads on this background."""
    return (0, 0, 0) if 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2] > 120 else (255, 255, 255)


def text_width(draw: Any, text: str, font: Any) -> int:
    """The width in pixels of ``text`` drawn in ``font``."""
    box = draw.textbbox((0, 0), text, font=font)
    return int(box[2] - box[0])


def fit(draw: Any, text: str, font: Any, max_w: int) -> str:
    """The text, cut with '...' to fit in max_w pixels."""
    if text_width(draw, text, font) <= max_w:
        return text
    while text and text_width(draw, text + "...", font) > max_w:
        text = text[:-1]
    return text + "..."


__all__ = ["default_font", "fit", "ink_for", "text_width"]
