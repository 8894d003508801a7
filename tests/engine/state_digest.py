"""A digest of nested outputs (state dicts, step results), to compare and count them."""

from __future__ import annotations

import hashlib

import numpy as np


def digest(value) -> str:
    """A digest of nested outputs: arrays by dtype, shape and bytes; other values by repr."""
    h = hashlib.sha256()

    def feed(v):
        if isinstance(v, dict):
            for k in sorted(v):
                h.update(repr(k).encode())
                feed(v[k])
        elif isinstance(v, (list, tuple)):
            h.update(f"{type(v).__name__}{len(v)}".encode())
            for x in v:
                feed(x)
        elif isinstance(v, np.ndarray) and v.dtype != object:
            h.update(f"{v.dtype}{v.shape}".encode())
            h.update(np.ascontiguousarray(v).tobytes())
        elif isinstance(v, np.ndarray):
            feed(v.tolist())
        else:
            h.update(repr(v).encode())

    feed(value)
    return h.hexdigest()
