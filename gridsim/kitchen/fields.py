"""The kitchen family's field table: its own arrays of a batch state (``gridsim.kitchen.state.KitchenState``).

A world is a kitchen. Abbreviations: K kitchens, A agents, C cells, D the most deliveries a
kitchen's items allow, R output rows (one per kitchen, or per agent).
"""

import numpy as np

from gridsim.engine.fields import SUCCESS_FIELD, Field

FIELDS = (
    Field("agent_cell", np.int16, ("K", "A"), "each agent's cell"),
    Field("held", np.int16, ("K", "A"), "each agent's held item, 0 = nothing"),
    Field("tile_item", np.int16, ("K", "C"), "the item lying on each cell, 0 = nothing"),
    Field("delivered_bits", np.uint16, ("K", "C"), "components delivered to each delivery cell"),
    Field("solved", np.uint32, ("K",), "bit r: recipe r's dish was delivered"),
    Field("n_delivered", np.int16, ("K",), "items delivered in this episode"),
    Field("delivered_item", np.int16, ("K", "D"), "the delivered items, in order"),
    Field("delivered_cell", np.int16, ("K", "D"), "and where"),
    Field("t", np.int32, ("K",), "steps in this episode"),
    SUCCESS_FIELD,
    Field("stat_dishes", np.int32, ("R",), "items delivered in the episode that ended"),
    Field("moves", np.int8, ("K", "A"), "scratch: the validated actions", saved=False),
)
