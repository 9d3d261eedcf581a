"""`venus desktop`: the desktop tasks (list, run an oracle) and a desktop a person can watch; plus the
`venus run --surface computer --desktop-task` path (`run_desktop`). JSON shapes follow `venus world`."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from venuskit.cli.common import echo_oracle_run, echo_task_table, fail, port_option, serve_until_ctrl_c

app = typer.Typer(help="The desktop surface: real apps under Xvfb and their contract-bound tasks.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)  # fmt: skip


def _specs() -> list:
    from venuskit.tasks.desktop.spec import bundled
    from venuskit.tasks.spec import TaskFileError

    try:
        return list(bundled().values())
    except TaskFileError as e:
        fail(str(e))


@app.command()
def tasks(json_out: bool = typer.Option(False, "--json", help="One JSON object per task, then the counts.")) -> None:
    """List the desktop task templates with counts by category."""
    specs = _specs()
    echo_task_table(specs, json_out, lambda s: {"surfaces": ["computer"], "cross_app": s.cross_app},
                    {"cross_app": sum(s.cross_app for s in specs),
                     "infeasible": sum(s.category == "infeasible" for s in specs)}, apps_width=22)  # fmt: skip


@app.command()
def oracle(
    task_id: str = typer.Argument(..., help="A task id from `venus desktop tasks`."),
    seed: int = typer.Option(0, help="Instance seed (picks the parameter variant)."),
    out: Path = typer.Option(Path("runs/desktop"), help="Folder that receives the episode folder."),
    tasks_file: Path | None = typer.Option(None, "--tasks", help="A desktop task file whose ids TASK_ID may name "
                                           "(e.g. written by `venus tasks synth --surface computer`)."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Run a task's scripted solution on the real desktop (Xvfb + apps) and print the contract verdict."""
    register_tasks(tasks_file)
    run = _run(task_id, seed, out, policy="oracle")
    from venuskit.tasks.desktop.spec import get_task

    echo_oracle_run(run, get_task(task_id).feasible, json_out)


@app.command()
def serve(
    task: str | None = typer.Option(None, help="Open this task's snapshot (files and windows); default: a terminal."),
    seed: int = typer.Option(0, help="Instance seed of --task."),
    port: int = port_option(8770, "the live view"),
    interval_ms: int = typer.Option(500, help="How often the page refreshes the screen."),
) -> None:
    """Start a desktop and show it live on a loopback web page (Ctrl-C stops it). The X display is printed too,
    so tools like xdotool or x11vnc can attach to it."""
    from venuskit.envs.base import EnvError
    from venuskit.envs.desktop import DesktopEnv
    from venuskit.envs.desktop.viewer import ScreenServer

    env_task = {"goal": "", "windows": [{"app": "xterm"}]}
    if task:
        env_task = _desktop_task(task, seed).env_task()
    env = DesktopEnv()
    try:
        env.reset(env_task)
        viewer = ScreenServer(env.session.framebuffer, env.display, port, interval_ms).start()  # type: ignore[union-attr]
    except (EnvError, ValueError, OSError) as e:
        env.close()
        fail(str(e))

    def stop() -> None:
        viewer.stop()
        env.close()

    banner = f"venuskit desktop on DISPLAY={env.display}: watch it at {viewer.url}  (Ctrl-C to stop)"
    serve_until_ctrl_c(lambda: typer.echo(banner), stop)


def register_tasks(path: Path | None) -> None:
    """Make a desktop task file's ids resolvable next to the bundled catalog (`--tasks FILE`)."""
    from venuskit.tasks.desktop.spec import register_file
    from venuskit.tasks.spec import TaskFileError

    if path is None:
        return
    if not path.is_file():
        fail(f"--tasks {path} is not a file.")
    try:
        register_file(path)
    except TaskFileError as e:
        fail(str(e))


def _desktop_task(task_id: str, seed: int):
    from venuskit.tasks.desktop.run import DesktopTask
    from venuskit.tasks.desktop.snapshot import SnapshotError

    try:
        return DesktopTask.start(task_id, seed)
    except KeyError as e:
        fail(str(e.args[0]))
    except SnapshotError as e:
        fail(str(e))


def _run(task_id: str, seed: int, out: Path, policy, max_steps: int | None = None, n_img: int = 2, checker=None,
         safety_gate=None):  # fmt: skip
    from venuskit.envs.base import EnvError
    from venuskit.runs.desktop import run_desktop_task
    from venuskit.tasks.desktop.snapshot import SnapshotError

    try:
        return run_desktop_task(task_id, seed, policy=policy, out=out, max_steps=max_steps, n_img=n_img,
                                step_check=checker, safety_gate=safety_gate)  # fmt: skip
    except KeyError as e:
        fail(str(e.args[0]))
    except (SnapshotError, EnvError, ValueError) as e:
        fail(str(e))


def run_desktop(task_id: str, seed: int, mcfg, out: Path, max_steps: int, n_img: int, json_out: bool,
                checker=None, safety=None, interactive: bool = False) -> None:  # fmt: skip
    """`venus run --surface computer --desktop-task ID`: the agent (a served model, or venus-nano without --model)
    on a desktop task, behind the screen gate (the same --approve, --allow-list and --gate as the browser's); the
    episode gets the contract verdict."""
    from venuskit.cli.safety_cmd import SafetyOpts, screen_guard
    from venuskit.tasks.desktop.spec import get_task

    try:
        kinds = get_task(task_id).gate_kinds
        gate = screen_guard(safety or SafetyOpts(), interactive=interactive, task_kinds=kinds)
    except KeyError as e:
        fail(str(e.args[0]))
    except ValueError as e:
        fail(str(e))
    from venuskit.agent.policy import VenusPolicy
    from venuskit.models.openai_backend import OpenAIBackend

    def policy(goal: str):
        if mcfg is not None:
            return VenusPolicy(OpenAIBackend(mcfg), "computer", goal, n_img=n_img)
        from venuskit.agent.nano import NanoPolicy
        from venuskit.models.nano import NanoError

        try:
            return NanoPolicy("computer", goal)
        except NanoError as e:
            fail(str(e))

    run = _run(task_id, seed, out, policy, max_steps=max_steps, n_img=n_img, checker=checker, safety_gate=gate)
    result = run.to_dict()
    typer.echo(json.dumps(result, ensure_ascii=False) if json_out
               else f"{result['verdict']} ({result['end']}) -> {result['episode_dir']}")  # fmt: skip
    if not json_out:
        from venuskit.record.viewer import render_html

        typer.echo(f"view: {render_html(Path(result['episode_dir']))}")
