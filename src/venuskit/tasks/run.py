"""Starting a world task for a runner: episode state, setup, bind URL, interrupts and the verdict.

This module does not import the agent or the envs (design table); the caller joins them:

    wt = WorldTask.start(server, "mail.reply_lunch", seed=0)
    episode, folder = run_episode(env, policy, job, wt.env_task(), on_step=wt.on_step)
    verdict = wt.verdict(episode.outcome.reason, episode.outcome.answer)
"""

from __future__ import annotations

from typing import Any

from venuskit.tasks import setup
from venuskit.tasks.checks import CHECKS, CheckContext, run_check
from venuskit.tasks.contract import Verdict, judge, progress_holds
from venuskit.tasks.spec import TaskInstance, get_task
from venuskit.world.server import WorldServer
from venuskit.world.state import EpisodeState


class WorldTask:
    """One task instance bound to one world episode on a running `WorldServer`."""

    def __init__(self, server: WorldServer, inst: TaskInstance, episode_id: str) -> None:
        self.server, self.inst, self.episode_id = server, inst, episode_id
        self.fired: list[dict[str, Any]] = []  # interrupts applied so far: {"desc", "after_step"}
        self._pending = list(inst.interrupts)

    @classmethod
    def start(cls, server: WorldServer, task_id: str, seed: int = 0, episode_id: str | None = None,
              skin: int = 0) -> WorldTask:  # fmt: skip
        """Reset (or create) a world episode for the task: background world, then the task's setup rows, shown in
        `skin` (venuskit.world.skins; 0 is the default look). Raises KeyError for an unknown task and ValueError
        for a bad skin; a setup that fails leaves no half-set-up episode behind."""
        inst = get_task(task_id).instance(seed)
        if episode_id is None:
            episode_id = setup.seeded_episode(server, seed, inst.locale, inst.spec.today, inst.setup, skin)
            return cls(server, inst, episode_id)
        server.reset(episode_id, seed, inst.locale, inst.spec.today, skin)
        state = server.state(episode_id)
        for op in inst.setup:
            setup.apply(state, op)
        return cls(server, inst, episode_id)

    @property
    def state(self) -> EpisodeState:
        return self.server.state(self.episode_id)

    @property
    def skin(self) -> int:
        return self.server.info(self.episode_id).skin

    def env_task(self) -> dict[str, Any]:
        """The task dict for env.reset / the episode record (the manifest's `task`: the skin is recorded there, the
        policy sees only the goal and the screen). Holds nothing the contract expects."""
        return {
            "goal": self.inst.goal, "start_url": self.server.bind_url(self.episode_id, self.inst.start),
            "world_task": self.inst.spec.id, "seed": self.inst.seed, "locale": self.inst.locale, "skin": self.skin,
            "category": self.inst.spec.category, "apps": list(self.inst.spec.apps),
            "today": self.state.today.isoformat(), "max_steps": self.inst.spec.max_steps,
        }  # fmt: skip

    def on_step(self, step: Any) -> None:
        """Runner hook (after each recorded step): fire interrupts due at this step or whose condition holds."""
        index = getattr(step, "index", step)
        for intr in list(self._pending):
            due = intr.at_step is not None and index >= intr.at_step
            if intr.when is not None:
                due = run_check(intr.when.check, CheckContext(self.state), intr.when.args)
            if due:
                for op in intr.ops:
                    setup.apply(self.state, op, live=True)
                self._pending.remove(intr)
                self.fired.append({"desc": intr.desc, "after_step": index})

    def progress(self) -> bool:
        return progress_holds(self.inst, CHECKS, CheckContext(self.state))

    def verdict(self, end_reason: str | None, answer: str | None) -> Verdict:
        return judge(self.inst, self.state, end_reason, answer)

    def close(self) -> None:
        self.server.close_episode(self.episode_id)
