"""Evaluation on a Ray cluster at its documented path, ``from gridsim import distributed``.

The code is :mod:`gridsim.tools.distributed`; importing this module imports Ray.
"""

from gridsim.tools.distributed import EvalPool, SweepResult, evaluate, sweep

__all__ = ["EvalPool", "SweepResult", "evaluate", "sweep"]
