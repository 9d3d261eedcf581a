"""Desktop tasks bound to executable contracts over real state: specs (TOML catalog), snapshots, checks, verdicts,
oracles.

    spec.py      DesktopTaskSpec and the catalog loader
    snapshot.py  the home folder each instance starts from (files, spreadsheets via ssconvert, images)
    checks.py    checks over files, spreadsheet cells (ssconvert), config files, windows, the final answer
    contract.py  the verdict: completed / partial / infeasible / failed / error
    oracle.py    scripted solutions in computer-grammar actions
    run.py       DesktopTask: one instance for a runner (venuskit.runs.desktop joins it with the env)
"""

from venuskit.tasks.desktop.checks import CHECKS, DesktopContext
from venuskit.tasks.desktop.contract import judge
from venuskit.tasks.desktop.oracle import DesktopOracle, OracleError
from venuskit.tasks.desktop.run import DesktopTask
from venuskit.tasks.desktop.spec import (
    DesktopTaskInstance,
    DesktopTaskSpec,
    bundled,
    get_task,
    load_catalog,
    load_file,
)

__all__ = [
    "CHECKS", "DesktopContext", "DesktopOracle", "DesktopTask", "DesktopTaskInstance", "DesktopTaskSpec",
    "OracleError", "bundled", "get_task", "judge", "load_catalog", "load_file",
]  # fmt: skip
