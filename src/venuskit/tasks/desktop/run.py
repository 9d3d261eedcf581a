"""Starting a desktop task for a runner: the instance, its snapshot, the env's task dict and the verdict.

This module does not import the envs or the agent (design table); the caller joins them:

    dt = DesktopTask.start("editor.append_line", seed=0)
    episode, folder = run_episode(env, policy, job, dt.env_task())
    verdict = dt.verdict(env.home, env.facts(), episode.outcome.reason, episode.outcome.answer, env.start_home)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from venuskit.tasks.contract import Verdict
from venuskit.tasks.desktop.checks import DesktopContext
from venuskit.tasks.desktop.contract import judge, progress_holds
from venuskit.tasks.desktop.snapshot import snapshot_for
from venuskit.tasks.desktop.spec import DesktopTaskInstance, get_task


class DesktopTask:
    """One desktop task instance: its home snapshot (built once per process) and its contract."""

    def __init__(self, inst: DesktopTaskInstance, snapshot: Path) -> None:
        self.inst, self.snapshot = inst, snapshot

    @classmethod
    def start(cls, task_id: str, seed: int = 0) -> DesktopTask:
        """Raises KeyError for an unknown task, SnapshotError when its files cannot be written."""
        inst = get_task(task_id).instance(seed)
        return cls(inst, snapshot_for(inst.files))

    def env_task(self) -> dict[str, Any]:
        """The task dict for DesktopEnv.reset and the episode record. Holds nothing the contract expects."""
        return {
            "goal": self.inst.goal, "desktop_task": self.inst.spec.id, "seed": self.inst.seed,
            "locale": self.inst.locale, "category": self.inst.spec.category, "apps": list(self.inst.spec.apps),
            "max_steps": self.inst.spec.max_steps, "home": str(self.snapshot),
            "config": [dict(c) for c in self.inst.config], "windows": [dict(w) for w in self.inst.windows],
            "focus": self.inst.spec.focus,
        }  # fmt: skip

    def context(self, home: Path, facts: dict[str, Any], end_reason: str | None = None, answer: str | None = None,
                start: Path | None = None) -> DesktopContext:  # fmt: skip
        """`start`: the home folder as the episode started (the env's copy: the task's files over the account's
        skeleton); without it, the task's snapshot alone."""
        return DesktopContext(home=Path(home), snapshot=Path(start) if start else self.snapshot, facts=facts,
                              answer=answer, end_reason=end_reason)  # fmt: skip

    def verdict(self, home: Path, facts: dict[str, Any], end_reason: str | None, answer: str | None,
                start: Path | None = None) -> Verdict:  # fmt: skip
        return judge(self.inst, self.context(home, facts, end_reason, answer, start))

    def progress(self, home: Path, facts: dict[str, Any], start: Path | None = None) -> bool:
        return progress_holds(self.inst, self.context(home, facts, start=start))
