"""World tasks bound to executable contracts: specs (TOML catalog), checks, setup, verdicts, oracles.

from venuskit.tasks import bundled, WorldTask
wt = WorldTask.start(server, "mail.reply_lunch", seed=0)
...run an episode with wt.env_task() and on_step=wt.on_step...
wt.verdict(outcome.reason, outcome.answer).verdict   # completed / partial / infeasible / failed / error

One task stack for every surface: `loader.py` (the task-file skeleton every surface's specs build on),
`registry.py` (each surface's table of named checks), `contract.py` (the one verdict ladder); the desktop's
surface-specific parts live in `tasks/desktop/`.
"""

from venuskit.tasks.contract import VERDICTS, KeypointResult, Verdict, judge
from venuskit.tasks.oracle import Oracle, OracleError
from venuskit.tasks.run import WorldTask
from venuskit.tasks.spec import (
    CATEGORIES,
    Keypoint,
    TaskFileError,
    TaskInstance,
    TaskSpec,
    bundled,
    get_task,
    load_catalog,
    load_file,
)

__all__ = [
    "CATEGORIES", "VERDICTS", "Keypoint", "KeypointResult", "Oracle", "OracleError", "TaskFileError", "TaskInstance",
    "TaskSpec", "Verdict", "WorldTask", "bundled", "get_task", "judge", "load_catalog", "load_file",
]  # fmt: skip
