"""The `venus` command. Thin: each verb parses flags, builds one config and calls one function."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from venuskit.cli import captcha_cmd, eval_cmd, miniwob_cmd, synth_cmd, train_cmd, verify_cmd, world_cmd
from venuskit.cli.common import ModelOpts, RunOpts, fail, run_with_progress

app = typer.Typer(
    help="venuskit: run, record, verify and train UI-Venus-2 style GUI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(miniwob_cmd.app, name="miniwob", help="MiniWoB++ tasks on the venuskit browser env.")
app.add_typer(train_cmd.app, name="train", help="Train: mid-training SFT, step-level GRPO, MOPD (TRL).")
app.add_typer(world_cmd.app, name="world", help="The bundled multi-app world and its contract-bound tasks.")
app.add_typer(captcha_cmd.app, name="captcha", help="The CAPTCHA world: generated puzzles, server-side answers.")
app.add_typer(synth_cmd.app, name="synth", help="Synthesise labelled data (grounding).")
eval_cmd.app.command("captcha")(captcha_cmd.eval_captcha)
app.add_typer(eval_cmd.app, name="eval", help="Benchmarks: grounding (ScreenSpot protocol), CAPTCHA Pass@1.")
app.add_typer(verify_cmd.app, name="verify", help="Verify episodes (SGV); score verifiers against contracts.")


@app.command()
def run(
    task: str = typer.Option("", "--task", help="What the agent should do (not with --world)."),
    start_url: str = typer.Option("", "--start-url", help="Page to open first (http, https or file)."),
    world: str = typer.Option("", "--world", help="World task id (`venus world tasks`); scored by its contract."),
    seed: int = typer.Option(0, "--seed", help="World seed (with --world)."),
    model: str = ModelOpts.model,
    model_name: str = ModelOpts.model_name,
    api_key: str = ModelOpts.api_key,
    temperature: float = ModelOpts.temperature,
    max_tokens: int = ModelOpts.max_tokens,
    timeout: float = ModelOpts.timeout,
    thinking: bool | None = ModelOpts.thinking,
    surface: str = typer.Option("browser", help="browser (desktop viewport) or mobile (touch, mobile viewport)."),
    out: Path = RunOpts.out,
    max_steps: int = RunOpts.max_steps,
    n_img: int = RunOpts.n_img,
    interactive: bool = RunOpts.interactive,
    allow_host: list[str] = typer.Option([], "--allow-host", help="Extra host the page may reach (repeatable)."),
    headed: bool = typer.Option(False, help="Show the browser window (needs a display)."),
    resume: Path | None = typer.Option(None, help="Resume an interrupted episode folder."),
    step_check: str = typer.Option(
        "off",
        "--step-check",
        help="Check each proposed action before it runs: off; rules (no model: a click that changes nothing, a "
        "repeated failing action, Type with no focused field, an action outside the surface); or the URL of an "
        "OpenAI-compatible judge (rules, then that VLM). A rejection is fed back and re-sampled (--max-steps "
        "budget unchanged); every attempt is recorded.",
    ),
    step_check_model: str = typer.Option(
        "", help="Served model name of the --step-check judge (default: the same name as --model-name)."
    ),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Run the UI-Venus-2 agent on a web page in real Chromium and record the episode."""
    from venuskit.agent.session import AgentJob
    from venuskit.cli.common import browser_config, model_config, run_config, step_checker

    try:
        mcfg = model_config(model, model_name, api_key, temperature, max_tokens, timeout, thinking)
        checker = step_checker(step_check, step_check_model or mcfg.model, api_key, timeout)
        if world:
            return _run_world(world, seed, mcfg, surface, out, max_steps, n_img, json_out, checker)
        if not start_url:
            fail("Pass --start-url URL (or --world TASK_ID for a world task).")
        job = AgentJob(goal=task, surface=surface, out=out, n_img=n_img, run=run_config(max_steps), model=mcfg)
        bcfg = browser_config(surface, allow_host, headed)
    except ValueError as exc:
        fail(str(exc))
    from venuskit.envs.browser import BrowserEnv

    run_with_progress(lambda: BrowserEnv(bcfg), job, {"start_url": start_url}, interactive, resume, json_out,
                      step_check=checker)  # fmt: skip


def _run_world(task_id: str, seed: int, mcfg, surface: str, out: Path, max_steps: int, n_img: int, json_out: bool,
               checker=None):  # fmt: skip
    """`venus run --world`: the agent on a world task; the episode gets the contract verdict."""
    from venuskit.agent.policy import VenusPolicy
    from venuskit.cli.common import browser_config
    from venuskit.eval.world import run_world_task
    from venuskit.models.openai_backend import OpenAIBackend

    def policy(goal: str, today: str) -> VenusPolicy:  # the prompt's date is the world's simulated date
        kwargs = {"current_date": today} if surface == "browser" else {}
        return VenusPolicy(OpenAIBackend(mcfg), surface, goal, n_img=n_img, prompt_kwargs=kwargs)

    browser = browser_config(surface, [], headed=False)
    run = run_world_task(task_id, seed, policy=policy, out=out, surface=surface, max_steps=max_steps, browser=browser,
                         step_check=checker)  # fmt: skip
    result = run.to_dict()
    typer.echo(json.dumps(result) if json_out else f"{result['verdict']} ({result['end']}) -> {result['episode_dir']}")


@app.command()
def view(
    episode_dir: Path = typer.Argument(..., help="An episode folder written by `venus run`."),
    out: Path | None = typer.Option(None, help="Where to write the HTML (default: EPISODE_DIR/episode.html)."),
) -> None:
    """Write one self-contained HTML page showing every step of an episode."""
    from venuskit.record.viewer import render_html

    if not (episode_dir / "manifest.json").exists():
        fail(f"{episode_dir} is not an episode folder (no manifest.json).")
    path = render_html(episode_dir, out)
    typer.echo(str(path))


@app.command()
def export(
    fmt: str = typer.Argument(..., help="chat (SFT JSONL in the UI-Venus-2 history protocol) or parquet (RL rows)."),
    runs: Path = typer.Argument(..., help="A folder of episode folders (e.g. runs/)."),
    out: Path = typer.Option(..., "--out", help="Output file (.jsonl or .parquet)."),
    n_img: int = RunOpts.n_img,
) -> None:
    """Export recorded episodes as training data."""
    from venuskit.record.export import export_chat_jsonl, export_parquet
    from venuskit.record.store import iter_episode_dirs

    dirs = list(iter_episode_dirs(runs))
    if not dirs:
        fail(f"No episode folders under {runs}.")
    if fmt == "chat":
        n = export_chat_jsonl(dirs, out, n_img=n_img)
    elif fmt == "parquet":
        n = export_parquet(dirs, out)
    else:
        fail(f"Unknown export format {fmt!r}; use chat or parquet.")
    typer.echo(json.dumps({"rows": n, "out": str(out), "episodes": len(dirs)}))


def main() -> None:
    app()


if __name__ == "__main__":
    main()
