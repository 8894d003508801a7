"""BabyAI's missions and instructions as the kernel keeps them (``_babyai.pxi``), read from Python.

A BabyAI env's mission is made of its instructions (Minigrid's ``minigrid.envs.babyai.core.verifier``):
the kernel writes it as tokens, :data:`MISSION_TOKENS` uint8 per env, 0 padding the end.
Token ``k`` is the word ``VOCABULARY[k]``; :func:`decode` joins them into upstream's string
(words by spaces, a comma on the word before it). ``mission_format="tokens"`` returns them as
they are, for a policy's text encoder.

:func:`instructions` reads an env's instruction tree, what upstream's ``env.instrs`` holds: each
node's kind, its parts or descriptors, and the verifier's progress.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

import gridsim.minigrid._kernel as _kernel

__all__ = ["MISSION_TOKENS", "VOCABULARY", "BabyAIMissionSpace", "decode", "decode_rows", "instructions"]

MISSION_TOKENS = _kernel.MINIGRID_MISSION_TOKENS

# Token ids, as the kernel writes them (its TOK_* enum): 0 pads; colours in COLOR_TO_IDX order;
# object types in OBJECT_TO_IDX order from the door.
VOCABULARY = ("", "go", "to", "pick", "up", "open", "put", "next", "the", "a",
              "red", "green", "blue", "purple", "yellow", "grey",
              "door", "key", "ball", "box", "object",
              "in", "front", "of", "you", "behind", "on", "your", "left", "right",
              "and", ",", "then", "after")

def decode(tokens: Sequence[int] | np.ndarray) -> str:
    """A mission's string from its tokens (upstream's ``Instr.surface``): words joined by spaces, commas attached."""
    words = [VOCABULARY[t] for t in np.asarray(tokens).tolist() if t]
    return " ".join(words).replace(" ,", ",")


def decode_rows(tokens: np.ndarray) -> tuple[str, ...]:
    """Each row's mission string of (N, MISSION_TOKENS) tokens."""
    return tuple(decode(row) for row in tokens)


class BabyAIMissionSpace(gym.spaces.Space[str]):
    """BabyAI's mission space: any string is a member, as upstream's ``BabyAIMissionSpace`` says.

    ``sample()`` gives ``"go"``, upstream's placeholder mission.
    """

    def __init__(self, seed: int | np.random.Generator | None = None):
        super().__init__(dtype=str, seed=seed)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """Upstream's placeholder mission, ``"go"``."""
        return "go"

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a string."""
        return isinstance(x, str)

    @property
    def is_np_flattenable(self) -> bool:
        """A mission is a string: it does not flatten into an array."""
        return False

    def __repr__(self) -> str:
        return "BabyAIMissionSpace()"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, BabyAIMissionSpace)


# The kernel's instruction state (_babyai.pxi): its header, then nodes and descriptors.
_HEADER, _NODE, _DESC, _MAX_NODES, _MAX_DESCS, _MAX_SET = 8, 8, 6, 7, 8, 40
_NODES_AT = _HEADER
_DESCS_AT = _NODES_AT + _MAX_NODES * _NODE
_SETS_AT = _DESCS_AT + _MAX_DESCS * _DESC
_POSS_AT = _SETS_AT + _MAX_DESCS * _MAX_SET
KINDS = ("", "goto", "pickup", "open", "putnext", "and", "before", "after")
STATUS = ("continue", "success", "failure")
LOC_NAMES = ("left", "right", "front", "behind")
_OBJECT_NAMES = {v: k for k, v in _kernel.MINIGRID_OBJECTS.items()}
_COLOR_NAMES = ("red", "green", "blue", "purple", "yellow", "grey")


def _descriptor(row: np.ndarray, d: int, width: int) -> dict[str, Any]:
    at = _DESCS_AT + d * _DESC
    type_, color, loc, nset, nposs, matches = (int(v) for v in row[at:at + _DESC])
    objs = row[_SETS_AT + d * _MAX_SET:_SETS_AT + d * _MAX_SET + nset]
    poss = row[_POSS_AT + d * _MAX_SET:_POSS_AT + d * _MAX_SET + nposs]
    return {"type": _OBJECT_NAMES[type_] if type_ >= 0 else None,
            "color": _COLOR_NAMES[color] if color >= 0 else None,
            "loc": LOC_NAMES[loc] if loc >= 0 else None,
            "obj_set": tuple(int(o) for o in objs),
            "obj_poss": tuple((int(p) % width, int(p) // width) for p in poss),
            "matches": matches}


def _node(row: np.ndarray, n: int, width: int) -> dict[str, Any]:
    at = _NODES_AT + n * _NODE
    kind, strict, a, b, a_done, b_done, pre = (int(v) for v in row[at:at + 7])
    name = KINDS[kind]
    if name in ("goto", "pickup", "open"):
        out: dict[str, Any] = {"kind": name, "desc": _descriptor(row, a, width)}
    elif name == "putnext":
        out = {"kind": name, "desc_move": _descriptor(row, a, width), "desc_fixed": _descriptor(row, b, width)}
    else:
        return {"kind": name, "strict": bool(strict), "instr_a": _node(row, a, width), "instr_b": _node(row, b, width),
                "a_done": STATUS[a_done], "b_done": STATUS[b_done]}
    out["strict"] = bool(strict)
    if name in ("pickup", "putnext"):
        out["pre_carrying"] = pre  # the object number carried before the last step (0: nothing)
    return out


def instructions(row: np.ndarray, width: int) -> dict[str, Any] | None:
    """One env's instruction tree from its ``babyai`` row: upstream's ``env.instrs`` as nested dicts.

    An action is ``{"kind": "goto" | "pickup" | "open", "desc": ...}`` or ``{"kind": "putnext",
    "desc_move": ..., "desc_fixed": ...}``; ``and``, ``before`` and ``after`` hold ``instr_a``,
    ``instr_b`` and their progress (``a_done``, ``b_done``: ``"continue"``, ``"success"`` or
    ``"failure"``). A descriptor holds ``type``, ``color``, ``loc`` (None: any), the object
    numbers it tracks (``obj_set``, the kernel's identities; walls are left out), their cells
    (``obj_poss``) and how many cells matched it at reset (``matches``: walls too, which decide
    upstream's "the" or "a"). None before the first reset.
    """
    if int(row[1]) == 0:
        return None
    return _node(row, int(row[3]), width)


def rejected(row: np.ndarray) -> int:
    """How many generation attempts the env's last reset rejected (upstream's "Sampling rejected" lines)."""
    return int(row[4])


def check_state(v: Any, width: int, height: int) -> None:
    """The BabyAI fields of a state to inject (``StateView`` ``v``): what the kernel reads unchecked.

    Node and descriptor indices inside their counts, a sequence's parts made before it (the
    tree has no cycle), kinds, progress, types, colours, locations, set sizes and cells in range,
    mission tokens in the vocabulary.
    """
    bab = v["babyai"].astype(np.int64)
    nodes, descs, root = bab[:, 1], bab[:, 2], bab[:, 3]
    v.in_range("babyai", 0, _MAX_NODES, "(the node count)", values=nodes, part="nodes")
    v.in_range("babyai", 0, _MAX_DESCS, "(the descriptor count)", values=descs, part="descriptors")
    v.require("babyai", (nodes == 0) | ((root >= 0) & (root < nodes)), "a root node under the node count",
              shown=root, part="root")
    v.require("babyai", (bab[:, [0, 6]] >= 0).all(axis=1) & (bab[:, [0, 6]] <= 255).all(axis=1),
              "object numbers 0..255", shown=bab[:, [0, 6]], part="objects")
    v.in_range("babyai", 0, width * height, "(0, or 1 + the cell where the carried object still shows)",
               values=bab[:, 7], part="shown")
    index = np.arange(_MAX_NODES)[None, :]
    node = bab[:, _NODES_AT:_DESCS_AT].reshape(len(bab), _MAX_NODES, _NODE)
    live = index < nodes[:, None]
    kind, strict, a, b = node[..., 0], node[..., 1], node[..., 2], node[..., 3]
    action = (kind >= 1) & (kind <= 4)
    seq = (kind >= 5) & (kind <= 7)
    ok = (action | seq) & (strict >= 0) & (strict <= 1) & (node[..., 4:6] >= 0).all(-1) & (node[..., 4:6] <= 2).all(-1)
    ok &= (node[..., 6] >= 0) & (node[..., 6] <= 255)
    in_descs = (a >= 0) & (a < descs[:, None])
    ok &= ~action | (in_descs & ((kind != 4) | ((b >= 0) & (b < descs[:, None]))))
    ok &= ~seq | ((a >= 0) & (a < index) & (b >= 0) & (b < index))
    v.require("babyai", ~live | ok, "nodes of a kind 1..7 whose descriptors exist and whose parts come before them",
              shown=kind, part="nodes")
    desc = bab[:, _DESCS_AT:_SETS_AT].reshape(len(bab), _MAX_DESCS, _DESC)
    dlive = np.arange(_MAX_DESCS)[None, :] < descs[:, None]
    dtype_, color, loc, nset, nposs = (desc[..., k] for k in range(5))
    ok = ((dtype_ == -1) | ((dtype_ >= _kernel.MINIGRID_OBJECTS["wall"]) & (dtype_ <= _kernel.MINIGRID_OBJECTS["box"])))
    ok &= (color >= -1) & (color <= 5) & (loc >= -1) & (loc <= 3) & (nset >= 0) & (nset <= nposs)
    ok &= (nposs >= 0) & (nposs <= _MAX_SET) & (desc[..., 5] >= 0)
    v.require("babyai", ~dlive | ok, "descriptors of a type, colour and location in range, at most "
              f"{_MAX_SET} objects", shown=dtype_, part="descriptors")
    sets = bab[:, _SETS_AT:_POSS_AT].reshape(len(bab), _MAX_DESCS, _MAX_SET)
    poss = bab[:, _POSS_AT:].reshape(len(bab), _MAX_DESCS, _MAX_SET)
    listed = np.arange(_MAX_SET)[None, None, :] < np.where(dlive, nposs, 0)[..., None]
    v.require("babyai", (~listed | ((poss >= 0) & (poss < width * height))).all(-1),
              f"object cells 0..{width * height - 1}", shown=poss[..., 0], part="cells")
    v.require("babyai", (~listed | ((sets >= 0) & (sets <= 255))).all(-1), "object numbers 0..255",
              shown=sets[..., 0], part="objects")
    for name in ("mission_tokens", "obs_tokens"):
        v.in_range(name, 0, len(VOCABULARY) - 1, "(a token of gridsim.minigrid.babyai.VOCABULARY)")
