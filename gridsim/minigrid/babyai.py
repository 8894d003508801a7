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

__all__ = ["MISSION_TOKENS", "VOCABULARY", "BabyAIMissionSpace", "decode", "decode_row", "decode_rows",
           "instructions"]

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


_DECODED: dict[bytes, str] = {}  # tokens -> string: a level has few missions, met again and again


def decode_row(tokens: np.ndarray) -> str:
    """:func:`decode` of one row of uint8 tokens, remembered (up to 2 ** 16 missions, then forgotten)."""
    key = tokens.tobytes()
    text = _DECODED.get(key)
    if text is None:
        if len(_DECODED) >= 1 << 16:
            _DECODED.clear()
        text = _DECODED[key] = decode(tokens)
    return text


def decode_rows(tokens: np.ndarray) -> tuple[str, ...]:
    """Each row's mission string of (N, MISSION_TOKENS) uint8 tokens."""
    return tuple(_decode_list(tokens))


def _decode_list(tokens: np.ndarray) -> list[str]:
    """:func:`decode_row` of each row of (N, L) uint8 tokens, as a list, without an array per row."""
    width = tokens.shape[1]
    blob = np.ascontiguousarray(tokens, dtype=np.uint8).tobytes()
    known = _DECODED.get
    out = []
    for start in range(0, len(blob), width):
        key = blob[start:start + width]
        text = known(key)
        out.append(decode_row(np.frombuffer(key, np.uint8)) if text is None else text)
    return out


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


# The kernel's instruction state (_babyai.pxi): its header, nodes, descriptors, each
# descriptor's tracked cells and its tracked object numbers, where the kernel lays them out.
LAYOUT = _kernel.MINIGRID_BABYAI_LAYOUT
_NODE, _DESC = LAYOUT["node"], LAYOUT["desc"]
_MAX_NODES, _MAX_DESCS, _MAX_SET = LAYOUT["max_nodes"], LAYOUT["max_descs"], LAYOUT["max_set"]
# Header slots.
NEXT_OID, NUM_NODES, NUM_DESCS, ROOT = LAYOUT["next_oid"], LAYOUT["num_nodes"], LAYOUT["num_descs"], LAYOUT["root"]
REJECTED, NAVS, CARRIED, SHOWN, MOVED = (LAYOUT[k] for k in ("rejected", "navs", "carried", "shown", "moved"))
_NODES_AT, _DESCS_AT, _POSS_AT, _SETS_AT = (LAYOUT[k] for k in ("nodes_at", "descs_at", "poss_at", "sets_at"))
SETS_SLICE = slice(_SETS_AT, _SETS_AT + _MAX_DESCS * _MAX_SET)  # the tracked object numbers of every descriptor
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
    if int(row[NUM_NODES]) == 0:
        return None
    return _node(row, int(row[ROOT]), width)


def rejected(row: np.ndarray) -> int:
    """How many generation attempts the env's last reset rejected (upstream's "Sampling rejected" lines)."""
    return int(row[REJECTED])


def check_state(v: Any, width: int, height: int) -> None:
    """The BabyAI fields of a state to inject (``StateView`` ``v``): what the kernel reads unchecked.

    Node and descriptor indices inside their counts, a sequence's parts made before it (the
    tree has no cycle), kinds, progress, types, colours, locations, set sizes and cells in range,
    mission tokens in the vocabulary.
    """
    bab = v["babyai"].astype(np.int64)
    nodes, descs, root = bab[:, NUM_NODES], bab[:, NUM_DESCS], bab[:, ROOT]
    v.in_range("babyai", 0, _MAX_NODES, "(the node count)", values=nodes, part="nodes")
    v.in_range("babyai", 0, _MAX_DESCS, "(the descriptor count)", values=descs, part="descriptors")
    v.require("babyai", (nodes == 0) | ((root >= 0) & (root < nodes)), "a root node under the node count",
              shown=root, part="root")
    numbers = bab[:, [NEXT_OID, CARRIED]]
    v.require("babyai", (numbers >= 0).all(axis=1) & (numbers <= 255).all(axis=1), "object numbers 0..255",
              shown=numbers, part="objects")
    v.in_range("babyai", 0, 1, "(whether an object moved)", values=bab[:, MOVED], part="moved")
    v.in_range("babyai", 0, width * height, "(0, or 1 + the cell where the carried object still shows)",
               values=bab[:, SHOWN], part="shown")
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
    desc = bab[:, _DESCS_AT:_DESCS_AT + _MAX_DESCS * _DESC].reshape(len(bab), _MAX_DESCS, _DESC)
    dlive = np.arange(_MAX_DESCS)[None, :] < descs[:, None]
    dtype_, color, loc, nset, nposs = (desc[..., k] for k in range(5))
    ok = (dtype_ == -1) | ((dtype_ >= _kernel.MINIGRID_OBJECTS["door"]) & (dtype_ <= _kernel.MINIGRID_OBJECTS["box"]))
    ok &= (color >= -1) & (color <= 5) & (loc >= -1) & (loc <= 3) & (nset >= 0) & (nset <= _MAX_SET)
    ok &= (nposs >= 0) & (nposs <= _MAX_SET) & (desc[..., 5] >= 0)
    v.require("babyai", ~dlive | ok, "descriptors of a type (door, key, ball, box or any), colour and location in "
              "range, at most "
              f"{_MAX_SET} objects", shown=dtype_, part="descriptors")
    sets = bab[:, SETS_SLICE].reshape(len(bab), _MAX_DESCS, _MAX_SET)
    poss = bab[:, _POSS_AT:_POSS_AT + _MAX_DESCS * _MAX_SET].reshape(len(bab), _MAX_DESCS, _MAX_SET)
    listed = np.arange(_MAX_SET)[None, None, :] < np.where(dlive, nposs, 0)[..., None]
    v.require("babyai", (~listed | ((poss >= 0) & (poss < width * height))).all(-1),
              f"object cells 0..{width * height - 1}", shown=poss[..., 0], part="cells")
    listed = np.arange(_MAX_SET)[None, None, :] < np.where(dlive, nset, 0)[..., None]
    v.require("babyai", (~listed | ((sets >= 0) & (sets <= 255))).all(-1), "object numbers 0..255",
              shown=sets[..., 0], part="objects")
    for name in ("mission_tokens", "obs_tokens"):
        v.in_range(name, 0, len(VOCABULARY) - 1, "(a token of gridsim.minigrid.babyai.VOCABULARY)")


# ---------------------------------------------------------------- a tree into the kernel's slots

_OBJECT_INDEX = {name: k for k, name in _OBJECT_NAMES.items()}
_TOKEN = {word: k for k, word in enumerate(VOCABULARY)}
_LOC_PHRASE = {"front": ("in", "front", "of", "you"), "behind": ("behind", "you"), "left": ("on", "your", "left"),
               "right": ("on", "your", "right")}
_CONNECTIVE = {"and": ("and",), "before": (",", "then"), "after": ("after", "you")}
ACTION_KINDS = ("goto", "pickup", "open", "putnext")
DESC_TYPES = ("door", "key", "ball", "box")  # what a descriptor may name (or None: any object)


class InstructionsError(ValueError):
    """An instruction tree (``instructions()``'s format) the kernel cannot hold; the message says why."""


def _desc_words(desc: dict[str, Any]) -> list[str]:
    words = ["a" if desc["matches"] > 1 else "the"]
    if desc["color"] is not None:
        words.append(desc["color"])
    words.append(desc["type"] if desc["type"] is not None else "object")
    if desc["loc"] is not None:
        words.extend(_LOC_PHRASE[desc["loc"]])
    return words


def _words(node: dict[str, Any]) -> list[str]:
    kind = node["kind"]
    if kind == "goto":
        return ["go", "to", *_desc_words(node["desc"])]
    if kind == "pickup":
        return ["pick", "up", *_desc_words(node["desc"])]
    if kind == "open":
        return ["open", *_desc_words(node["desc"])]
    if kind == "putnext":
        return ["put", *_desc_words(node["desc_move"]), "next", "to", *_desc_words(node["desc_fixed"])]
    return [*_words(node["instr_a"]), *_CONNECTIVE[kind], *_words(node["instr_b"])]


def encode(tree: dict[str, Any], width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's instruction slots and mission tokens of a tree in :func:`instructions`' format.

    Nodes are numbered as the kernel makes them (a sequence's parts first), descriptors in the
    order their actions name them. Header slots other than the counts, the root and the
    navigations (object numbers, rejections) are left 0 for the caller.

    Raises:
        InstructionsError: a tree of the wrong shape, kind, descriptor or size.
    """
    slots = np.zeros(_kernel.MINIGRID_BABYAI_SLOTS, np.int16)
    counts = {"nodes": 0, "descs": 0}

    def desc(d: Any) -> int:
        if not isinstance(d, dict) or not {"type", "color", "loc", "obj_set", "obj_poss", "matches"} <= set(d):
            raise InstructionsError(f"a descriptor is a dict of type, color, loc, obj_set, obj_poss and matches, "
                                    f"got {d!r}"[:300])
        k = counts["descs"]
        if k >= _MAX_DESCS:
            raise InstructionsError(f"more than {_MAX_DESCS} descriptors")
        objs, poss = list(d["obj_set"]), list(d["obj_poss"])
        if len(poss) > _MAX_SET or len(objs) > _MAX_SET:
            raise InstructionsError(f"a descriptor tracks at most {_MAX_SET} objects and cells")
        if d["type"] not in (None, *DESC_TYPES) or d["color"] not in (None, *_COLOR_NAMES) \
                or d["loc"] not in (None, *LOC_NAMES):
            raise InstructionsError(f"a descriptor's type, color or loc is not BabyAI's: {d!r}"[:300])
        for x, y in poss:
            if not (0 <= x < width and 0 <= y < height):
                raise InstructionsError(f"a tracked cell {(x, y)} is outside the {width}x{height} grid")
        if any(not 1 <= int(o) <= 255 for o in objs) or int(d["matches"]) < len(objs):
            raise InstructionsError("tracked objects are numbered 1..255, and matches counts them all")
        at = _DESCS_AT + k * _DESC
        slots[at:at + _DESC] = (-1 if d["type"] is None else _OBJECT_INDEX[d["type"]],
                                -1 if d["color"] is None else _COLOR_NAMES.index(d["color"]),
                                -1 if d["loc"] is None else LOC_NAMES.index(d["loc"]), len(objs), len(poss),
                                int(d["matches"]))
        slots[_SETS_AT + k * _MAX_SET:_SETS_AT + k * _MAX_SET + len(objs)] = objs
        slots[_POSS_AT + k * _MAX_SET:_POSS_AT + k * _MAX_SET + len(poss)] = [y * width + x for x, y in poss]
        counts["descs"] = k + 1
        return k

    def node(n: Any) -> tuple[int, int]:
        # (the node's number, the navigations it needs)
        if not isinstance(n, dict) or n.get("kind") not in KINDS[1:]:
            raise InstructionsError(f"a node is a dict with a kind of {list(KINDS[1:])}, got {n!r}"[:300])
        kind = n["kind"]
        status = {"continue": 0, "success": 1, "failure": 2}
        if kind in ACTION_KINDS:
            a = desc(n["desc_move"] if kind == "putnext" else n["desc"])
            b = desc(n["desc_fixed"]) if kind == "putnext" else -1
            done, navs = (0, 0), 2 if kind == "putnext" else 1
            pre = int(n.get("pre_carrying", 0))
            if not 0 <= pre <= 255:
                raise InstructionsError("pre_carrying is an object number 0..255")
        else:
            a, na = node(n["instr_a"])
            b, nb = node(n["instr_b"])
            if n.get("a_done", "continue") not in status or n.get("b_done", "continue") not in status:
                raise InstructionsError("a_done and b_done are 'continue', 'success' or 'failure'")
            done, navs, pre = (status[n.get("a_done", "continue")], status[n.get("b_done", "continue")]), na + nb, 0
        k = counts["nodes"]
        if k >= _MAX_NODES:
            raise InstructionsError(f"more than {_MAX_NODES} nodes")
        at = _NODES_AT + k * _NODE
        slots[at:at + 7] = (KINDS.index(kind), int(bool(n.get("strict", False))), a, b, *done, pre)
        counts["nodes"] = k + 1
        return k, navs

    root, navs = node(tree)
    slots[NUM_NODES], slots[NUM_DESCS], slots[ROOT], slots[NAVS] = counts["nodes"], counts["descs"], root, navs
    slots[MOVED] = 1  # the tracked cells are found again at the next drop
    words = _words(tree)
    tokens = np.zeros(MISSION_TOKENS, np.uint8)
    tokens[:len(words)] = [_TOKEN[w] for w in words]
    return slots, tokens
