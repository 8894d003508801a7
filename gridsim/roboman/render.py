"""Gridroboman drawn as a picture (the ``rgb_array`` render mode).

Each cell is seen from the side: the objects standing on it are slabs stacked from the
cell's floor up (the lowest slab is the object at the bottom of the stack), in their
colours (red, green, blue, with their initial from 40 pixels per cell up). The agent's
cell is black, as in the original's drawing, with the gripper at its top: a light claw
holding the lifted object's slab, or empty.
"""

from __future__ import annotations

import numpy as np

from gridsim.engine.draw import GLYPH_H, blend, cell_box, draw_grid, draw_text, fill_rect, outline_rect, text_size

__all__ = ["AGENT_CELL", "BACKGROUND", "GRIPPER", "OBJECT_COLORS", "render_rgb", "slab_box"]

BACKGROUND = (122, 122, 122)
AGENT_CELL = (0, 0, 0)
GRIPPER = (225, 225, 225)
OBJECT_COLORS = ((255, 0, 0), (0, 255, 0), (0, 0, 255))
_INITIALS = "RGB"
# Fractions of a cell: a slab's height and the margins around the stack and the held slab.
SLAB, FLOOR_MARGIN, SIDE_MARGIN, HELD_TOP = 0.28, 0.04, 0.14, 0.09


def slab_box(row: int, col: int, px: int, level: int | None) -> tuple[float, float, float, float]:
    """The pixel box ``(y0, x0, y1, x1)`` of a slab: ``level`` 0 on the floor, 1 on it, ...; None: held."""
    y0, x0, y1, x1 = cell_box(row, col, px)
    top = y0 + HELD_TOP * px if level is None else y1 - (FLOOR_MARGIN + (level + 1) * SLAB) * px
    return top, x0 + SIDE_MARGIN * px, top + SLAB * px, x1 - SIDE_MARGIN * px


def _stack_levels(objs: list[dict], held: int | None) -> dict[int, int]:
    """Object index -> its level in its stack (0 on the floor), for the objects not held."""
    levels = {}
    for j in range(len(objs)):
        if j == held:
            continue
        level, below, seen = 0, objs[j]["obj_below"], {j}
        while below is not None and below != held and below not in seen:  # a cycle guard for injected states
            seen.add(below)
            level += 1
            below = objs[below]["obj_below"]
        levels[j] = level
    return levels


def _draw_slab(frame: np.ndarray, box, j: int, px: int) -> None:
    y0, x0, y1, x1 = box
    fill_rect(frame, y0, x0, y1, x1, OBJECT_COLORS[j])
    fill_rect(frame, y0, x0, y0 + (y1 - y0) * 0.3, x1, blend(OBJECT_COLORS[j], (255, 255, 255), 0.45))  # its top
    outline_rect(frame, round(y0), round(x0), round(y1), round(x1), max(px // 32, 1),
                 blend(OBJECT_COLORS[j], (0, 0, 0), 0.45))
    h, w = text_size(_INITIALS[j], 1)
    if y1 - y0 >= GLYPH_H + 2:
        draw_text(frame, _INITIALS[j], round((y0 + y1 - h) / 2), round((x0 + x1 - w) / 2), 1, (255, 255, 255))


def render_rgb(state: dict, px: int) -> np.ndarray:
    """A state dict (``RobomanVectorEnv.get_state``) as a fresh uint8 (7 * px, 7 * px, 3) frame.

    Args:
        state: ``agent_pos``, ``objs`` (``x``, ``y``, ``obj_below``) and ``lifted_obj_idx``.
        px: pixels per cell.
    """
    frame = np.empty((7 * px, 7 * px, 3), np.uint8)
    frame[:] = BACKGROUND
    draw_grid(frame, px, blend(BACKGROUND, (0, 0, 0), 0.2))
    ax, ay = state["agent_pos"]
    fill_rect(frame, *cell_box(ay, ax, px), AGENT_CELL)
    objs, held = state["objs"], state["lifted_obj_idx"]
    for j, level in _stack_levels(objs, held).items():
        _draw_slab(frame, slab_box(objs[j]["y"], objs[j]["x"], px, level), j, px)
    # The gripper: a bar across the cell's top and a finger down each side of the held slab.
    y0, x0, y1, x1 = slab_box(ay, ax, px, None)
    bar = max(px * 0.045, 1.0)
    fill_rect(frame, y0 - 2 * bar, x0 - bar, y0 - bar, x1 + bar, GRIPPER)
    fill_rect(frame, y0 - 2 * bar, x0 - bar, y1, x0, GRIPPER)
    fill_rect(frame, y0 - 2 * bar, x1, y1, x1 + bar, GRIPPER)
    if held is not None:
        _draw_slab(frame, (y0, x0, y1, x1), held, px)
    return frame
