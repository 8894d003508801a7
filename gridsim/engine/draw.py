"""Small numpy drawing primitives for the families' ``rgb_array`` frames.

Frames are uint8 (H, W, 3) arrays drawn in place: rectangles, discs (whole or cut in
quarters), cell grids and text in a built-in 5x7 bitmap font; :func:`with_overlay` adds a
band of text (a step and its reward) above a frame. Only numpy is used, so a frame is the
same pixels whatever else is installed.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from gridsim.errors import ArgumentTypeError, InvalidArgumentError

__all__ = ["MAX_CELL_PX", "MAX_FRAME_PIXELS", "blend", "cell_box", "cells_frame", "check_cell_px", "draw_grid",
           "draw_text", "fill_disc", "fill_rect", "outline_rect", "step_text", "text_size", "with_overlay"]

MAX_CELL_PX = 256  # pixels per cell a frame may use
MAX_FRAME_PIXELS = 2**26  # rows * columns of a frame: 192 MiB of RGB, far below what int32 indices reach

Color = Sequence[int] | np.ndarray

# 5x7 glyphs, one int per row, bit 4 the leftmost pixel. Lower-case text is drawn in upper case.
_FONT_ROWS = {
    "0": (0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E), "1": (0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E),
    "2": (0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F), "3": (0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E),
    "4": (0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02), "5": (0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E),
    "6": (0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E), "7": (0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08),
    "8": (0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E), "9": (0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C),
    "A": (0x0E, 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11), "B": (0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E),
    "C": (0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E), "D": (0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C),
    "E": (0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F), "F": (0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10),
    "G": (0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F), "H": (0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11),
    "I": (0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E), "J": (0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C),
    "K": (0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11), "L": (0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F),
    "M": (0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11), "N": (0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11),
    "O": (0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E), "P": (0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10),
    "Q": (0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D), "R": (0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11),
    "S": (0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E), "T": (0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04),
    "U": (0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E), "V": (0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04),
    "W": (0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A), "X": (0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11),
    "Y": (0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04), "Z": (0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F),
    " ": (0, 0, 0, 0, 0, 0, 0), "-": (0, 0, 0, 0x1F, 0, 0, 0), ".": (0, 0, 0, 0, 0, 0x0C, 0x0C),
    "+": (0, 0x04, 0x04, 0x1F, 0x04, 0x04, 0),
}
GLYPH_H, GLYPH_W = 7, 5
_GLYPHS = {
    ch: np.array([[(row >> (GLYPH_W - 1 - b)) & 1 for b in range(GLYPH_W)] for row in rows], bool)
    for ch, rows in _FONT_ROWS.items()
}


def check_cell_px(cell_px, default: int, height: int, width: int) -> int:
    """The pixels per cell of a frame of ``height`` x ``width`` cells: ``cell_px``, or ``default`` when None.

    Every family's ``render_frame`` (hence ``render()``, ``gridsim render --cell-px`` and
    ``record_episode``) checks its size here, before it allocates the frame.

    Raises:
        ArgumentTypeError: ``cell_px`` is not an integer (a float, a str, a bool).
        InvalidArgumentError: it is outside 1..:data:`MAX_CELL_PX`, or the frame would have more
            than :data:`MAX_FRAME_PIXELS` pixels.
    """
    px = default if cell_px is None else cell_px
    allowed = f"an integer in 1..{MAX_CELL_PX} or None"
    if isinstance(px, (bool, np.bool_)) or not isinstance(px, numbers.Integral):
        raise ArgumentTypeError(f"cell_px must be {allowed}, got {cell_px!r:.80}")
    px = int(px)
    if not 1 <= px <= MAX_CELL_PX:
        raise InvalidArgumentError(f"cell_px must be {allowed}, got {cell_px!r:.80}")
    if height * px * width * px > MAX_FRAME_PIXELS:
        raise InvalidArgumentError(
            f"a frame of {height}x{width} cells at {px} pixels per cell would be {height * px}x{width * px} "
            f"pixels; a frame has at most {MAX_FRAME_PIXELS} pixels: pass a smaller cell_px"
        )
    return px


def blend(color: Color, other: Color, t: float) -> np.ndarray:
    """``color`` moved a fraction ``t`` of the way to ``other`` (uint8 RGB)."""
    a, b = np.asarray(color, np.float64), np.asarray(other, np.float64)
    return np.clip(np.rint(a + (b - a) * t), 0, 255).astype(np.uint8)


def cells_frame(colors: np.ndarray, px: int) -> np.ndarray:
    """A fresh frame of (H, W, 3) cell colours, each cell ``px`` x ``px`` pixels."""
    return np.repeat(np.repeat(np.asarray(colors, np.uint8), px, 0), px, 1)


def cell_box(row: int, col: int, px: int) -> tuple[int, int, int, int]:
    """The pixel box ``(y0, x0, y1, x1)`` of a cell (end exclusive)."""
    return row * px, col * px, (row + 1) * px, (col + 1) * px


def fill_rect(frame: np.ndarray, y0: float, x0: float, y1: float, x1: float, color: Color) -> None:
    """Fill the pixels whose centres lie in ``[y0, y1) x [x0, x1)`` (clipped to the frame)."""
    h, w = frame.shape[:2]
    r0, c0 = max(int(round(y0)), 0), max(int(round(x0)), 0)
    r1, c1 = min(int(round(y1)), h), min(int(round(x1)), w)
    if r1 > r0 and c1 > c0:
        frame[r0:r1, c0:c1] = color


def outline_rect(frame: np.ndarray, y0: float, x0: float, y1: float, x1: float, width: int, color: Color) -> None:
    """A rectangle's border, ``width`` pixels wide, inside the box."""
    fill_rect(frame, y0, x0, y0 + width, x1, color)
    fill_rect(frame, y1 - width, x0, y1, x1, color)
    fill_rect(frame, y0, x0, y1, x0 + width, color)
    fill_rect(frame, y0, x1 - width, y1, x1, color)


def fill_disc(frame: np.ndarray, cy: float, cx: float, radius: float, color: Color, *, cut: float = 0.0) -> None:
    """Fill a disc; ``cut > 0`` leaves a cross of that half-width through its centre (four pieces).

    Args:
        frame: the frame drawn into.
        cy: the centre's row, in pixels (a pixel's centre is at its index + 0.5).
        cx: the centre's column, in pixels.
        radius: the radius in pixels.
        color: the fill colour.
        cut: the half-width of the gaps that cut the disc in quarters; 0 for a whole disc.
    """
    h, w = frame.shape[:2]
    r0, r1 = max(int(cy - radius), 0), min(int(cy + radius) + 1, h)
    c0, c1 = max(int(cx - radius), 0), min(int(cx + radius) + 1, w)
    if r1 <= r0 or c1 <= c0:
        return
    dy = np.arange(r0, r1)[:, None] + 0.5 - cy
    dx = np.arange(c0, c1)[None, :] + 0.5 - cx
    mask = dy * dy + dx * dx <= radius * radius
    if cut > 0:
        mask &= (np.abs(dy) >= cut) & (np.abs(dx) >= cut)
    frame[r0:r1, c0:c1][mask] = color


def draw_grid(frame: np.ndarray, px: int, color: Color) -> None:
    """One-pixel lines on the top and left edge of every ``px`` cell (cells stay ``px`` apart)."""
    if px >= 8:  # below that the lines would cover too much of a cell
        frame[::px, :] = color
        frame[:, ::px] = color


def text_size(text: str, scale: int) -> tuple[int, int]:
    """The (height, width) in pixels of ``text`` drawn at ``scale`` (one pixel between glyphs)."""
    n = len(text)
    return GLYPH_H * scale, max(n * (GLYPH_W + 1) - 1, 0) * scale


def draw_text(frame: np.ndarray, text: str, y: int, x: int, scale: int, color: Color) -> None:
    """Draw ``text`` with its top-left corner at pixel ``(y, x)``; each font pixel is ``scale`` pixels.

    What falls outside the frame is cut off.

    Raises:
        ValueError: a character outside A-Z, a-z, 0-9, space, ``-``, ``+`` and ``.``.
    """
    h, w = frame.shape[:2]
    for i, ch in enumerate(text.upper()):
        glyph = _GLYPHS.get(ch)
        if glyph is None:
            raise ValueError(f"draw_text has no glyph for {ch!r}")
        big = np.repeat(np.repeat(glyph, scale, 0), scale, 1)
        gy, gx = y, x + i * (GLYPH_W + 1) * scale
        ys, xs = slice(max(gy, 0), min(gy + big.shape[0], h)), slice(max(gx, 0), min(gx + big.shape[1], w))
        if ys.stop <= ys.start or xs.stop <= xs.start:
            continue  # a glyph wholly outside the frame (text cut at its edge)
        sub = big[ys.start - gy : ys.stop - gy, xs.start - gx : xs.stop - gx]
        frame[ys, xs][sub] = color


OVERLAY_BACKGROUND = (24, 24, 24)
OVERLAY_TEXT = (255, 255, 255)
# The widest line the band is laid out for: its height depends on the frame's width alone, so
# every frame of an episode gets the same band (a GIF's frames share one size).
_OVERLAY_TEMPLATE = "STEP 10000  REWARD -0.123"


def step_text(step: int, reward: float | None) -> tuple[str, str]:
    """The overlay's parts: ``("step 3", "reward -0.5")``; the reset state (``reward`` None) has no reward.

    Two parts either way, so that a reset frame's band is as high as a step's.
    """
    return f"step {step}", "" if reward is None else f"reward {float(reward):.3g}"


def with_overlay(frame: np.ndarray, parts: Sequence[str]) -> np.ndarray:
    """A new frame: ``frame`` under a dark band with ``parts`` in white (``step_text``'s, say).

    The parts share one line where the frame is wide enough, else take a line each; text
    wider than the frame is cut at its edge. The band's height depends only on the frame's
    width and the number of parts, so equal frames get equal bands. The cells stay whole:
    nothing is drawn over them.

    Args:
        frame: a uint8 (H, W, 3) frame.
        parts: the texts, of characters :func:`draw_text` has.

    Returns:
        A uint8 (band + H, W, 3) frame.
    """
    h, w = frame.shape[:2]
    scale = max(1, min(3, w // 150))  # the font's pixels: larger on large frames
    pad = scale * 2
    one_line = text_size(_OVERLAY_TEMPLATE, scale)[1] + 2 * pad <= w
    lines = ["  ".join(parts)] if one_line or len(parts) < 2 else list(parts)
    line_h = GLYPH_H * scale + pad
    band = np.empty((len(lines) * line_h + pad, w, 3), np.uint8)
    band[:] = OVERLAY_BACKGROUND
    for k, line in enumerate(lines):
        draw_text(band, line, pad + k * line_h, pad, scale, OVERLAY_TEXT)
    return np.concatenate([band, np.asarray(frame, np.uint8)], axis=0)
