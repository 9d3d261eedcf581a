"""`venus world`: serve the bundled world, list its tasks, run a task's oracle.

This module also holds the harness that joins a world task, the real browser env, a policy and the
episode store (`run_world_task`); the CLI layer may import everything, the task package may not.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

from venuskit.cli.common import fail

app = typer.Typer(help="The bundled multi-app world and its tasks.", no_args_is_help=True, add_completion=False,
                  pretty_exceptions_enable=False)  # fmt: skip


# ---- the harness ---------------------------------------------------------------------------------


class OraclePolicy:
    """A Policy whose replies come from a task's oracle; replies go through the normal parser."""

    def __init__(self, env: Any, oracle: Any, surface: str, stop: Callable[[], bool] | None = None) -> None:
        self.env, self.oracle, self.surface, self.stop = env, oracle, surface, stop
        self.goal, self.system, self.error = "", None, None
        self.steps = 0

    def act(self, observation: Any, history: list, feedback: str | None = None) -> Any:
        from venuskit.actions import format_response
        from venuskit.actions.types import CallUser, Finished
        from venuskit.agent.policy import parse_output
        from venuskit.tasks.oracle import OracleError

        if self.stop is not None and self.steps > 0 and self.stop():
            raw = format_response("A first part is done; stopping here.", Finished(content="Stopping early."),
                                  self.surface)  # fmt: skip
        else:
            try:
                thought, action = self.oracle.next(self.env.page)
            except OracleError as e:  # recorded as the agent giving up, and reported by run_world_task
                self.error = str(e)
                thought, action = "The oracle could not go on.", CallUser(content=f"ORACLE ERROR: {e}")
            raw = format_response(thought, action, self.surface)
        self.steps += 1
        return parse_output(raw, self.surface)

    def set_goal(self, goal: str) -> None:
        self.goal = goal

    def describe(self) -> dict[str, Any]:
        return {"policy": "oracle"}


@dataclass
class WorldRun:
    verdict: Any  # venuskit.tasks.Verdict
    episode_dir: Path
    episode: Any  # venuskit.record.Episode
    interrupts: list[dict[str, Any]] = field(default_factory=list)
    oracle_error: str | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        v = self.verdict.to_dict()
        return {"task": self.episode.task.get("world_task"), "verdict": v["verdict"], "reason": v["reason"],
                "keypoints": v["keypoints"], "forbidden": v["forbidden"], "episode_dir": str(self.episode_dir),
                "steps": _count_steps(self.episode_dir), "end": self.episode.outcome.reason,
                "interrupts": self.interrupts,
                "oracle_error": self.oracle_error, "seconds": round(self.seconds, 2)}  # fmt: skip


def world_task_start(server: Any, task_id: str, seed: int = 0) -> tuple[dict[str, Any], Any, Callable[[Any], Any]]:
    """For `venus run --world`: (task dict for env.reset and the record, on_step hook, verdict(episode) -> dict).
    The verdict function also needs the episode's outcome: pass the Episode that run_episode returned."""
    from venuskit.tasks.run import WorldTask

    wt = WorldTask.start(server, task_id, seed)

    def verdict(episode: Any) -> dict[str, Any]:
        v = wt.verdict(episode.outcome.reason, episode.outcome.answer).to_dict()
        return {**v, "interrupts": wt.fired}

    return wt.env_task(), wt.on_step, verdict


def run_world_task(
    task_id: str,
    seed: int = 0,
    *,
    policy: Any = "oracle",
    out: Path = Path("runs/world"),
    surface: str = "browser",
    stop_at_progress: bool = False,
    server: Any = None,
    env: Any = None,
    max_steps: int | None = None,
    on_step: Callable[[Any], None] | None = None,
    call_user: Callable[[str], str | None] | None = None,
) -> WorldRun:
    """Run one world task in real Chromium and store the contract verdict in the recorded episode
    (manifest `verdicts.contract`).

    `policy`: "oracle" (the task's scripted solution), a venuskit Policy, or a factory
    `policy(goal, today) -> Policy` (today: the simulated date, for the browser prompt's "Today is ...").
    `on_step` runs after the task's own interrupt hook (e.g. a progress display); `call_user` answers CallUser."""
    from venuskit.agent.runner import RunConfig
    from venuskit.agent.session import AgentJob, run_episode
    from venuskit.record.store import EpisodeWriter
    from venuskit.tasks.oracle import Oracle
    from venuskit.tasks.run import WorldTask
    from venuskit.world.server import WorldServer

    t0 = time.perf_counter()
    own_server, own_env = server is None, env is None
    server = server or WorldServer().start()
    wt = None
    try:
        wt = WorldTask.start(server, task_id, seed)
        if surface not in wt.inst.spec.surfaces:
            raise ValueError(f"Task {task_id} supports the surfaces {list(wt.inst.spec.surfaces)}, not {surface!r}.")
        env = env or _browser_env(surface)
        if policy == "oracle":
            stop = wt.progress if stop_at_progress else None
            policy = OraclePolicy(env, Oracle(wt.inst.oracle, surface), surface, stop)
        elif callable(policy) and not hasattr(policy, "act"):
            policy = policy(wt.inst.goal, wt.state.today.isoformat())
        job = AgentJob(goal=wt.inst.goal, surface=surface, out=Path(out),
                       run=RunConfig(max_steps=max_steps or wt.inst.spec.max_steps))  # fmt: skip
        hooks = [h for h in (wt.on_step, on_step) if h is not None]
        extra = {"call_user": call_user} if call_user is not None else {}
        episode, folder = run_episode(env, policy, job, wt.env_task(), on_step=lambda s: [h(s) for h in hooks],
                                      **extra)  # fmt: skip
        verdict = wt.verdict(episode.outcome.reason, episode.outcome.answer)
        with EpisodeWriter.open(folder) as writer:
            contract = {**verdict.to_dict(), "interrupts": wt.fired}
            writer.update_manifest(verdicts={**episode.verdicts, "contract": contract})
        return WorldRun(verdict, folder, episode, list(wt.fired), getattr(policy, "error", None),
                        time.perf_counter() - t0)  # fmt: skip
    finally:
        if wt is not None:
            wt.close()
        if own_env and env is not None:
            env.close()
        if own_server:
            server.stop()


def _browser_env(surface: str) -> Any:
    from venuskit.cli.common import browser_config
    from venuskit.envs.browser import BrowserEnv

    # World episodes are bound by cookie, so a cleaned context is as isolated as a new one and resets faster.
    return BrowserEnv(dataclasses.replace(browser_config(surface, [], headed=False), reuse_context=True))


# ---- commands ------------------------------------------------------------------------------------


@app.command()
def serve(
    seed: int = typer.Option(0, help="Seed of the generated world (people, mail, files, transactions)."),
    locale: str = typer.Option("en", help="en or zh."),
    port: int = typer.Option(8765, help="Port on 127.0.0.1 (0: any free port)."),
    task: str | None = typer.Option(None, help="Also put this task's setup rows in the world."),
    today: str | None = typer.Option(None, help="Simulated date YYYY-MM-DD (default 2024-03-14)."),
) -> None:
    """Serve the world on 127.0.0.1 so a person can open it in a browser (Ctrl-C stops it)."""
    from venuskit.world.server import WorldServer

    if locale not in ("en", "zh"):
        fail(f"Unknown locale {locale!r}; use en or zh.")
    try:
        day = dt.date.fromisoformat(today) if today else None
        server = WorldServer(port=port, serve_mode=True).start()
    except (ValueError, OSError) as e:
        fail(str(e))
    if task:
        from venuskit.tasks.run import WorldTask

        try:
            wt = WorldTask.start(server, task, seed)
        except KeyError as e:
            fail(str(e.args[0]))
        server.default_episode = wt.episode_id
        typer.echo(f"task {task}: {wt.inst.goal}")
    else:
        server.default_episode = server.new_episode(seed, locale, day)
    typer.echo(f"venuskit world on {server.base_url}/  (seed {seed}, {locale}); Ctrl-C to stop")
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C stops us even if started with SIGINT ignored
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


@app.command()
def tasks(json_out: bool = typer.Option(False, "--json", help="One JSON object per task, then the counts.")) -> None:
    """List the task templates with counts by category."""
    from venuskit.tasks.spec import TaskFileError, bundled

    try:
        specs = list(bundled().values())
    except TaskFileError as e:
        fail(str(e))
    counts = Counter(s.category for s in specs)
    zh = sum("zh" in s.locales for s in specs)
    summary = {"templates": len(specs), "by_category": dict(sorted(counts.items())), "zh_templates": zh,
               "instances": sum(len(s.params) for s in specs)}  # fmt: skip
    if json_out:
        for s in specs:
            typer.echo(json.dumps({"id": s.id, "apps": list(s.apps), "category": s.category, "steps": s.steps,
                                   "feasible": s.feasible, "locales": list(s.locales), "surfaces": list(s.surfaces),
                                   "variants": len(s.params), "interrupts": len(s.interrupts)},
                                  ensure_ascii=False))  # fmt: skip
        typer.echo(json.dumps({"summary": summary}))
        return
    for s in specs:
        typer.echo(f"{s.id:<34} {s.category:<10} {','.join(s.apps):<28} ~{s.steps:>2} steps  {','.join(s.locales)}")
    typer.echo(json.dumps(summary))


@app.command()
def oracle(
    task_id: str = typer.Argument(..., help="A task id from `venus world tasks`."),
    seed: int = typer.Option(0, help="Instance seed (picks the parameter variant and the world)."),
    out: Path = typer.Option(Path("runs/world"), help="Folder that receives the episode folder."),
    surface: str = typer.Option("browser", help="browser (desktop) or mobile (mobile-web preset)."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Run a task's scripted solution in real Chromium and print the contract verdict."""
    try:
        run = run_world_task(task_id, seed, out=out, surface=surface)
    except (KeyError, ValueError) as e:
        fail(str(e.args[0]) if e.args else str(e))
    result = run.to_dict()
    if json_out:
        typer.echo(json.dumps(result, ensure_ascii=False))
    else:
        for kp in result["keypoints"]:
            typer.echo(f"  [{'x' if kp['ok'] else ' '}] {kp['desc']}")
        typer.echo(f"{result['verdict']}: {result['reason']}  ({result['steps']} steps, {result['episode_dir']})")
    if run.verdict.verdict not in ("completed", "infeasible"):
        raise typer.Exit(1)


def _count_steps(folder: Path) -> int:
    from venuskit.record.store import load_episode

    return len(load_episode(folder).steps)
