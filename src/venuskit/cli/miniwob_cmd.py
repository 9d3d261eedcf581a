"""`venus miniwob list|run`: MiniWoB++ tasks from the `miniwob` package on the venuskit browser env."""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer

from venuskit.cli.common import ModelOpts, RunOpts, fail, model_config, nano_job_policy, run_config, run_with_progress

app = typer.Typer(no_args_is_help=True)


@app.command("list")
def list_cmd(
    deterministic: bool = typer.Option(False, "--deterministic", help="Only the deterministic tasks."),
    json_out: bool = typer.Option(False, "--json", help="Print a JSON list."),
) -> None:
    """List MiniWoB++ task names."""
    from venuskit.envs.miniwob import list_tasks

    names = list_tasks(deterministic_only=deterministic)
    typer.echo(json.dumps(names) if json_out else "\n".join(names))


@app.command("run")
def run_cmd(
    task: str = typer.Argument(..., help="MiniWoB++ task name, e.g. click-button."),
    seed: int = typer.Option(0, help="Episode seed (the same seed gives the same instance)."),
    model: str = ModelOpts.model,
    model_name: str = ModelOpts.model_name,
    api_key: str = ModelOpts.api_key,
    temperature: float = ModelOpts.temperature,
    max_tokens: int = ModelOpts.max_tokens,
    timeout: float = ModelOpts.timeout,
    thinking: bool | None = ModelOpts.thinking,
    out: Path = RunOpts.out,
    max_steps: int = typer.Option(10, help="Step limit per episode."),
    n_img: int = RunOpts.n_img,
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Run the agent (a served model, or venus-nano without --model) on one MiniWoB++ episode; the raw reward is
    recorded in the outcome."""
    from venuskit.agent.session import AgentJob
    from venuskit.envs.miniwob import MiniWobEnv, default_config, list_tasks

    if task not in list_tasks():
        fail(f"Unknown MiniWoB++ task {task!r}; see `venus miniwob list`.")

    def make_env() -> MiniWobEnv:
        chromium = os.environ.get("VENUS_CHROMIUM")
        overrides = {"executable_path": chromium} if chromium else {}
        return MiniWobEnv(task, config=default_config(task, **overrides))  # the 160x210 task area

    try:
        if model and not model_name:
            raise ValueError("Pass --model-name NAME with --model URL (the name the server serves).")
        mcfg = model_config(model, model_name, api_key, temperature, max_tokens, timeout, thinking) if model else None
        # The goal is MiniWoB++'s utterance, known only after reset: the policy reads it from the env.
        job = AgentJob(
            goal=f"MiniWoB++ {task}", surface="browser", out=out, n_img=n_img, run=run_config(max_steps), model=mcfg
        )
    except ValueError as exc:
        fail(str(exc))
    run_with_progress(make_env, job, {"miniwob": task, "seed": seed}, False, None, json_out,
                      make_policy=None if mcfg else nano_job_policy)
