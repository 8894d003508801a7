"""The manipulation family's field table: its own arrays of a batch state (``gridsim.roboman.state.RobomanState``).

Abbreviations: N envs, S the bytes of one env's record (the kernel's ``ROBOMAN_RECORD["SIZE"]``).
"""

import numpy as np

from gridsim.engine.fields import SUCCESS_FIELD, Field

FIELDS = (
    # One 16-byte record per env, so the kernel moves an env with one copy; the named
    # fields (agent, obj_pos, ...) are views into it (layout: R_* in roboman/_kernel.pyx).
    Field("record", np.int8, ("N", "S"), "agent, objects, links, held, task", fill=-1),
    Field("timer", np.int64, ("N",), "steps in this episode"),
    Field("task_slot", np.int16, ("N",), "the env's task: its index in task_set"),
    Field("action_mask", np.int8, ("N", 7), "1 = the action changes nothing (masked out)"),
    # A part of the final observation (as final_obs in gridsim.engine.fields: a step's output, not state).
    Field("final_action_mask", np.int8, ("N", 7), "SAME_STEP: the mask of the final state", saved=False),
    SUCCESS_FIELD,
)
