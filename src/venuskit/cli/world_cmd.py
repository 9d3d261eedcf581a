"""`venus world`: serve the bundled world, list its tasks, run a task's oracle (through
`venuskit.runs.world.run_world_task`, the harness every world run uses)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import typer

from venuskit.cli.common import (
    SKIN_HELP,
    browser_config,
    echo_oracle_run,
    echo_task_table,
    fail,
    port_option,
    serve_until_ctrl_c,
)

app = typer.Typer(help="The bundled multi-app world and its tasks.", no_args_is_help=True, add_completion=False,
                  pretty_exceptions_enable=False)  # fmt: skip


# ---- commands ------------------------------------------------------------------------------------


@app.command()
def serve(
    seed: int = typer.Option(0, help="Seed of the generated world (people, mail, files, transactions)."),
    locale: str = typer.Option("en", help="en or zh."),
    port: int = port_option(8765),
    task: str | None = typer.Option(None, help="Also put this task's setup rows in the world."),
    today: str | None = typer.Option(None, help="Simulated date YYYY-MM-DD (default 2024-03-14)."),
    skin: int = typer.Option(0, help=SKIN_HELP),
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
            wt = WorldTask.start(server, task, seed, skin=skin)
        except (KeyError, ValueError) as e:
            server.stop()
            fail(str(e.args[0]))
        server.default_episode = wt.episode_id
        typer.echo(f"task {task}: {wt.inst.goal}")
    else:
        try:
            server.default_episode = server.new_episode(seed, locale, day, skin)
        except ValueError as e:
            server.stop()
            fail(str(e))
    banner = f"venuskit world on {server.base_url}/  (seed {seed}, {locale}, skin {skin}); Ctrl-C to stop"
    serve_until_ctrl_c(lambda: typer.echo(banner), server.stop)


@app.command()
def tasks(json_out: bool = typer.Option(False, "--json", help="One JSON object per task, then the counts.")) -> None:
    """List the task templates with counts by category."""
    from venuskit.tasks.spec import TaskFileError, bundled

    try:
        specs = list(bundled().values())
    except TaskFileError as e:
        fail(str(e))
    echo_task_table(specs, json_out, lambda s: {"surfaces": list(s.surfaces), "interrupts": len(s.interrupts)}, {})


@app.command()
def oracle(
    task_id: str = typer.Argument(..., help="A task id from `venus world tasks`."),
    seed: int = typer.Option(0, help="Instance seed (picks the parameter variant and the world)."),
    out: Path = typer.Option(Path("runs/world"), help="Folder that receives the episode folder."),
    surface: str = typer.Option("browser", help="browser (desktop), mobile (mobile-web preset) or android (over "
                                "adb, on a stand-in device started in this process: not Android; docs/android.md)."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    skin: int = typer.Option(0, help=SKIN_HELP),
) -> None:
    """Run a task's scripted solution in real Chromium and print the contract verdict."""
    from venuskit.envs.base import EnvError
    from venuskit.runs.world import run_world_task

    try:
        if surface == "android":
            run = _oracle_over_adb(task_id, seed, out, skin)
        else:
            run = run_world_task(task_id, seed, out=out, surface=surface, browser=browser_config(surface, [], False),
                                 skin=skin)  # fmt: skip
    except (KeyError, ValueError, EnvError) as e:
        fail(str(e.args[0]) if e.args else str(e))
    from venuskit.tasks.spec import get_task

    echo_oracle_run(run, get_task(task_id).feasible, json_out)


def _oracle_over_adb(task_id: str, seed: int, out: Path, skin: int = 0):
    """The oracle over adb: a stand-in device in this process (the oracle reads its page) behind a private adb
    server, so the user's adb server and devices are never touched."""
    from venuskit.runs.android import local_standin
    from venuskit.runs.world import run_world_task
    from venuskit.world.server import WorldServer

    with WorldServer() as server, local_standin(server.base_url) as local, local.env() as env:
        return run_world_task(task_id, seed, out=out, surface="android", server=server, env=env, skin=skin)
