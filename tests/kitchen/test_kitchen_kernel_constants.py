"""The kitchen kernel's exported constants agree with the rules they mirror."""

from __future__ import annotations

from gridsim.kitchen import _kernel as kitchen_kernel
from gridsim.kitchen import rules


def test_kitchen_tile_kinds_follow_rules():
    assert kitchen_kernel.KITCHEN_TILE_KINDS == {t.name: k for k, t in enumerate(rules.TILES)}
    assert (kitchen_kernel.KITCHEN_TILE_KINDS["floor"], kitchen_kernel.KITCHEN_TILE_KINDS["counter"],
            kitchen_kernel.KITCHEN_TILE_KINDS["cutboard"], kitchen_kernel.KITCHEN_TILE_KINDS["delivery"]) == (
        rules.FLOOR, rules.COUNTER, rules.CUTBOARD, rules.DELIVERY)
