"""gridroboman as a level: ``roboman:<Task>`` plays one of the 36 tasks (``roboman:StackRedOnGreen``).

Without an argument the level plays ``LiftRed``. Task names are those of
``gridsim.roboman.TASKS`` (``docs/roboman.md``).
"""

import gridsim
from gridsim.roboman.tasks import parse_task


def make(argument: str) -> gridsim.Level:
    """The level of task ``argument`` (``""``: LiftRed)."""
    task = parse_task(argument or "LiftRed")
    return gridsim.Level("roboman", defaults={"task": task.name}, name=f"roboman:{task.name}",
                         description="lift, put and stack three objects on a 7x7 grid")
