"""Starting a desktop task for a runner: the instance, its snapshot, its world episode (when the task uses the
world's web apps in the desktop's browser), the env's task dict and the verdict.

This module does not import the envs or the agent (design table); the caller joins them:

    dt = DesktopTask.start("editor.append_line", seed=0)            # a world task also takes server=WorldServer
    episode, folder = run_episode(env, policy, job, dt.env_task())
    verdict = dt.verdict(env.home, env.facts(), episode.outcome.reason, episode.outcome.answer, env.start_home)
    dt.close()                                                        # ends the world episode, if any
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from venuskit.tasks import setup
from venuskit.tasks.contract import Verdict
from venuskit.tasks.desktop.checks import DesktopContext
from venuskit.tasks.desktop.contract import judge, progress_holds
from venuskit.tasks.desktop.snapshot import snapshot_for
from venuskit.tasks.desktop.spec import DesktopTaskInstance, get_task


class DesktopTask:
    """One desktop task instance: its home snapshot (built once per process), its world episode and its contract."""

    def __init__(self, inst: DesktopTaskInstance, snapshot: Path, server: Any = None,
                 episode_id: str | None = None) -> None:  # fmt: skip
        self.inst, self.snapshot, self.server, self.episode_id = inst, snapshot, server, episode_id

    @classmethod
    def start(cls, task_id: str, seed: int = 0, server: Any = None) -> DesktopTask:
        """Raises KeyError for an unknown task, SnapshotError when its files cannot be written, ValueError when the
        task uses the world's web apps and no `server` (a running venuskit.world.server.WorldServer) is given."""
        inst = get_task(task_id).instance(seed)
        snapshot = snapshot_for(inst.files)
        if inst.spec.world is None:
            return cls(inst, snapshot)
        if server is None:
            raise ValueError(f"Desktop task {task_id} uses the world's web apps: pass a running WorldServer.")
        episode_id = setup.seeded_episode(server, seed, inst.locale, inst.spec.world.get("today"), inst.world_setup)
        return cls(inst, snapshot, server, episode_id)

    def world_state(self) -> Any:
        return self.server.state(self.episode_id) if self.episode_id is not None else None

    def env_task(self) -> dict[str, Any]:
        """The task dict for DesktopEnv.reset and the episode record. Holds nothing the contract expects; the web
        browser's window opens signed in to the task's world episode."""
        windows = [dict(w) for w in self.inst.windows]
        for w in windows:
            if w["app"] == "chromium":
                w["args"] = [self.server.bind_url(self.episode_id, (w.get("args") or ["/"])[0])]
        return {
            "goal": self.inst.goal, "desktop_task": self.inst.spec.id, "seed": self.inst.seed,
            "locale": self.inst.locale, "category": self.inst.spec.category, "apps": list(self.inst.spec.apps),
            "max_steps": self.inst.spec.max_steps, "home": str(self.snapshot),
            "config": [dict(c) for c in self.inst.config], "windows": windows, "focus": self.inst.spec.focus,
        }  # fmt: skip

    def context(self, home: Path, facts: dict[str, Any], end_reason: str | None = None, answer: str | None = None,
                start: Path | None = None) -> DesktopContext:  # fmt: skip
        """`start`: the home folder as the episode started (the env's copy: the task's files over the account's
        skeleton); without it, the task's snapshot alone."""
        return DesktopContext(home=Path(home), snapshot=Path(start) if start else self.snapshot, facts=facts,
                              answer=answer, end_reason=end_reason, world=self.world_state())  # fmt: skip

    def verdict(self, home: Path, facts: dict[str, Any], end_reason: str | None, answer: str | None,
                start: Path | None = None) -> Verdict:  # fmt: skip
        return judge(self.inst, self.context(home, facts, end_reason, answer, start))

    def progress(self, home: Path, facts: dict[str, Any], start: Path | None = None) -> bool:
        return progress_holds(self.inst, self.context(home, facts, start=start))

    def close(self) -> None:
        """End the task's world episode (a no-op for a task without one)."""
        if self.episode_id is not None:
            self.server.close_episode(self.episode_id)
            self.episode_id = None
