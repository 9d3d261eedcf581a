"""The `venus` command. Thin: each verb parses flags, builds one config and calls one function."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from venuskit.cli import (
    android_cmd,
    captcha_cmd,
    desktop_cmd,
    eval_cmd,
    loop_cmd,
    miniwob_cmd,
    nano_cmd,
    serve_cmd,
    synth_cmd,
    tasks_cmd,
    train_cmd,
    verify_cmd,
    world_cmd,
)
from venuskit.cli.common import (
    SKIN_HELP,
    ModelOpts,
    RunOpts,
    console,
    fail,
    nano_job_policy,
    run_with_progress,
    warm_nano,
)
from venuskit.cli.safety_cmd import GateOpts, SafetyOpts, guard, world_guard

app = typer.Typer(
    help="venuskit: run, record, verify and train UI-Venus-2 style GUI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(miniwob_cmd.app, name="miniwob", help="MiniWoB++ tasks on the venuskit browser env.")
app.add_typer(train_cmd.app, name="train", help="Train: mid-training SFT, step-level GRPO, MOPD (TRL).")
app.add_typer(world_cmd.app, name="world", help="The bundled multi-app world and its contract-bound tasks.")
app.add_typer(tasks_cmd.app, name="tasks", help="Capability catalogs, synthesised tasks, coverage.")
app.add_typer(captcha_cmd.app, name="captcha", help="The CAPTCHA world: generated puzzles, server-side answers.")
app.add_typer(synth_cmd.app, name="synth", help="Synthesise labelled data (grounding).")
eval_cmd.app.command("captcha")(captcha_cmd.eval_captcha)
app.add_typer(eval_cmd.app, name="eval", help="Benchmarks: grounding, CAPTCHA, world/MiniWoB++ suites, offline.")
app.add_typer(verify_cmd.app, name="verify", help="Verify episodes (SGV); score verifiers against contracts.")
app.command("loop")(loop_cmd.loop)
app.add_typer(desktop_cmd.app, name="desktop", help="The desktop surface: real apps under Xvfb, contract-bound tasks.")
app.add_typer(nano_cmd.app, name="nano", help="venus-nano, the embedded default policy: train, eval, info.")
app.add_typer(serve_cmd.app, name="serve", help="Serve an in-process model behind the OpenAI wire format.")
app.add_typer(android_cmd.app, name="android", help="Android devices through adb; the stand-in device.")


@app.command()
def run(
    ctx: typer.Context,
    task: str = typer.Option("", "--task", help="What the agent should do (not with --world)."),
    start_url: str = typer.Option("", "--start-url", help="Page to open first (http, https or file)."),
    world: str = typer.Option("", "--world", help="World task id (`venus world tasks`); scored by its contract."),
    desktop_task: str = typer.Option("", "--desktop-task", help="Desktop task id (`venus desktop tasks`), with "
                                     "--surface computer; scored by its contract."),
    tasks_file: Path | None = typer.Option(None, "--tasks", help="A task file whose ids --world (or "
                                           "--desktop-task) may name (e.g. written by `venus tasks synth`)."),
    seed: int = typer.Option(0, "--seed", help="World seed (with --world)."),
    skin: int = typer.Option(0, "--skin", help="With --world: " + SKIN_HELP),
    model: str = ModelOpts.model,
    model_name: str = ModelOpts.model_name,
    api_key: str = ModelOpts.api_key,
    temperature: float = ModelOpts.temperature,
    max_tokens: int = ModelOpts.max_tokens,
    timeout: float = ModelOpts.timeout,
    thinking: bool | None = ModelOpts.thinking,
    surface: str = typer.Option("browser", help="browser (desktop viewport), mobile (touch, mobile viewport), "
                                "android (a phone, emulator or the stand-in over adb; docs/android.md) or computer "
                                "(the desktop, with --desktop-task)."),
    serial: str = typer.Option("", "--serial", help="android: the device (default: $ANDROID_SERIAL, else the one "
                               "attached)."),
    adb_host: str = typer.Option("127.0.0.1", "--adb-host", help="android: host of the adb server."),
    adb_port: int | None = typer.Option(None, "--adb-port", help="android: port of the adb server (default: "
                                        "$ANDROID_ADB_SERVER_PORT or 5037)."),
    app_name: str = typer.Option("", "--app", help="android: open this app first (LaunchApp's names or a package)."),
    apps_file: Path | None = typer.Option(None, "--apps", help="android: a TOML table of the app names LaunchApp "
                                          "may say -> packages (notes = \"com.example.notes\"), checked first."),
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
    approve: str = GateOpts.approve,
    allow_list: Path | None = GateOpts.allow_list,
    gate: str = GateOpts.gate,
    consequential: Path | None = GateOpts.consequential,
    gate_judge: str = GateOpts.gate_judge,
    secrets: Path | None = GateOpts.secrets,
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Run the UI-Venus-2 agent on a web page in real Chromium, or on a phone over adb, and record the episode."""
    from venuskit.agent.session import AgentJob
    from venuskit.cli.common import browser_config, model_config, run_config, step_checker

    try:
        if model and not model_name:
            fail("Pass --model-name NAME with --model URL (the name the server serves).")
        mcfg = model_config(model, model_name, api_key, temperature, max_tokens, timeout, thinking) if model else None
        checker = step_checker(step_check, step_check_model or (mcfg.model if mcfg else ""), api_key, timeout)
        safety = SafetyOpts(approve, allow_list, gate, consequential, gate_judge, mcfg.model if mcfg else "",
                            mcfg.api_key if mcfg else "EMPTY", secrets)  # fmt: skip
        if world and tasks_file is not None:
            from venuskit.tasks.spec import register_file

            if not tasks_file.is_file():
                fail(f"--tasks {tasks_file} is not a file.")
            register_file(tasks_file)
        if desktop_task or surface == "computer":
            if not desktop_task or surface != "computer":
                fail("The desktop runs tasks: pass --surface computer --desktop-task ID (`venus desktop tasks`).")
            desktop_cmd.register_tasks(tasks_file)
            return desktop_cmd.run_desktop(desktop_task, seed, mcfg, out, max_steps, n_img, json_out, checker, safety,
                                           interactive)  # fmt: skip
        device = android_cmd.android_config(serial, adb_host, adb_port, apps_file) if surface == "android" else None
        if device is not None and gate == "on" and android_cmd.given(ctx, "gate"):
            fail("--gate on cannot run on a device: the gate reads the page's controls, which a phone does not "
                 "expose; on --surface android actions are recorded, not stopped (docs/android.md).")  # fmt: skip
        if world:
            return _run_world(world, seed, mcfg, surface, out, max_steps, n_img, json_out, checker, safety, device,
                              skin)  # fmt: skip
        if device is not None:
            return _run_device(task, start_url, app_name, resume, device, mcfg, out, max_steps, n_img, interactive,
                               json_out, checker)  # fmt: skip
        if resume is not None:  # the goal and surface are the episode's; --start-url, if given, is reopened
            from venuskit.cli.common import resumable

            resumed = resumable(resume)
            task, surface = resumed.goal or task, resumed.surface
        elif not start_url:
            fail("Pass --start-url URL (or --world TASK_ID for a world task).")
        job = AgentJob(goal=task, surface=surface, out=out, n_img=n_img, run=run_config(max_steps), model=mcfg)
        bcfg = browser_config(surface, allow_host, headed)
    except ValueError as exc:
        fail(str(exc))
    except KeyError as exc:  # an unknown world task id (a synthesised one needs --tasks FILE)
        fail(str(exc.args[0]))
    except RuntimeError as exc:  # a world run's episode folder that cannot be written, a browser that won't start
        from venuskit.envs.base import EnvError
        from venuskit.record.store import EpisodeStoreError

        if not isinstance(exc, (EpisodeStoreError, EnvError)):
            raise
        fail(str(exc))
    from venuskit.envs.browser import BrowserEnv

    if mcfg is None:
        warm_nano()
    try:  # the gate reads the page through the env; secrets wrap it
        env, safety_gate = guard(BrowserEnv(bcfg), safety, trusted=[start_url], interactive=interactive)
    except ValueError as exc:
        fail(str(exc))
    run_with_progress(lambda: env, job, {"start_url": start_url}, interactive, resume, json_out,
                      make_policy=None if mcfg else nano_job_policy, step_check=checker,
                      safety_gate=safety_gate)  # fmt: skip


def _run_world(task_id: str, seed: int, mcfg, surface: str, out: Path, max_steps: int, n_img: int, json_out: bool,
               checker=None, safety: SafetyOpts | None = None, device=None, skin: int = 0):  # fmt: skip
    """`venus run --world`: the agent on a world task; the episode gets the contract verdict."""
    from venuskit.agent.policy import VenusPolicy
    from venuskit.cli.common import browser_config
    from venuskit.models.openai_backend import OpenAIBackend
    from venuskit.runs.world import grammar_of, run_world_task

    grammar = grammar_of(surface)

    def policy(goal: str, today: str) -> VenusPolicy:  # the prompt's date is the world's simulated date
        kwargs = {"current_date": today} if surface == "browser" else {}
        return VenusPolicy(OpenAIBackend(mcfg), grammar, goal, n_img=n_img, prompt_kwargs=kwargs)

    if mcfg is None:  # no --model: venus-nano in process
        from venuskit.agent.nano import nano_policy_factory
        from venuskit.models.nano import NanoError, load_default

        try:
            policy = nano_policy_factory(grammar, load_default())  # noqa: F811
        except NanoError as exc:
            fail(str(exc))
        warm_nano()

    if device is not None:
        guarded = android_cmd.world_device(device)
    else:
        guarded = world_guard(task_id, surface, browser_config(surface, [], headed=False), safety or SafetyOpts())
    with guarded as (server, env, safety_gate):
        run = run_world_task(task_id, seed, policy=policy, out=out, surface=surface, max_steps=max_steps, skin=skin,
                             server=server, env=env, step_check=checker, safety_gate=safety_gate)  # fmt: skip
    result = run.to_dict()
    typer.echo(json.dumps(result) if json_out else f"{result['verdict']} ({result['end']}) -> {result['episode_dir']}")
    if not json_out:
        from venuskit.record.viewer import render_html

        typer.echo(f"view: {render_html(Path(result['episode_dir']))}")


def _run_device(task: str, start_url: str, app_name: str, resume: Path | None, device, mcfg, out: Path,
                max_steps: int, n_img: int, interactive: bool, json_out: bool, checker=None):  # fmt: skip
    """`venus run --surface android --task ...`: the agent on a device, from a URL, an app or its home screen."""
    from venuskit.agent.session import AgentJob
    from venuskit.cli.common import resumable, run_config, run_with_progress
    from venuskit.envs.android import AndroidEnv

    if resume is not None:
        task = resumable(resume).goal or task
    job = AgentJob(goal=task, surface="mobile", out=out, n_img=n_img, run=run_config(max_steps), model=mcfg)
    start = {"start_url": start_url} if start_url else ({"app": app_name} if app_name else {})
    if mcfg is None:
        warm_nano()
    run_with_progress(lambda: AndroidEnv(device), job, start, interactive, resume, json_out,
                      make_policy=None if mcfg else nano_job_policy, step_check=checker)  # fmt: skip


@app.command()
def view(
    episode_dir: Path = typer.Argument(..., help="An episode folder written by `venus run`."),
    out: Path | None = typer.Option(None, help="Where to write the HTML (default: EPISODE_DIR/episode.html)."),
) -> None:
    """Write one self-contained HTML page showing every step of an episode."""
    from venuskit.record.store import EpisodeStoreError
    from venuskit.record.viewer import render_html

    if not (episode_dir / "manifest.json").exists():
        fail(f"{episode_dir} is not an episode folder (no manifest.json).")
    try:
        path = render_html(episode_dir, out)
    except EpisodeStoreError as exc:
        fail(str(exc))
    except OSError as exc:  # an --out that cannot be written
        fail(f"Cannot write {out or episode_dir}: {exc.strerror or exc}.")
    typer.echo(str(path))


@app.command()
def export(
    fmt: str = typer.Argument(
        ..., help="chat (SFT JSONL, UI-Venus-2 history protocol), parquet (RL rows), androidcontrol or guiodyssey."
    ),
    runs: Path = typer.Argument(..., help="A folder of episode folders, at any depth (e.g. runs/)."),
    out: Path = typer.Option(..., "--out", help="Output file (.jsonl or .parquet)."),
    n_img: int = RunOpts.n_img,
) -> None:
    """Export recorded episodes as training data."""
    from rich.markup import escape

    from venuskit.record.export import export_chat_jsonl, export_parquet
    from venuskit.record.store import find_episode_dirs

    if fmt in ("androidcontrol", "guiodyssey"):  # offline benchmark layouts: --out is a folder
        from venuskit.record.formats import export_offline

        try:
            result = export_offline(fmt, runs, out)
        except (ValueError, OSError) as e:
            fail(str(e))
        for reason, count in result["skipped"].items():
            console.print(f"[yellow]skipped[/yellow] ({count}): {escape(reason)}")
        typer.echo(json.dumps(result, ensure_ascii=False))
        return
    if fmt not in ("chat", "parquet"):
        fail(f"Unknown export format {fmt!r}; use chat, parquet, androidcontrol or guiodyssey.")
    if not runs.is_dir():
        fail(f"{runs} is not a folder of episode folders.")
    dirs = find_episode_dirs(runs)
    if not dirs:
        fail(f"No episode folders under {runs}.")
    skipped: list[str] = []  # episodes that cannot be read: named, and the others exported
    try:
        if fmt == "chat":
            n = export_chat_jsonl(dirs, out, n_img=n_img, skipped=skipped)
        else:
            n = export_parquet(dirs, out, skipped=skipped)
    except OSError as exc:  # an --out that is a folder or cannot be written, a full disk
        fail(f"Cannot write {out}: {exc.strerror or exc}.")
    for message in skipped:
        console.print(f"[yellow]skipped[/yellow]: {escape(message)}")
    result = {"rows": n, "out": str(out), "episodes": len(dirs) - len(skipped), "skipped": skipped}
    typer.echo(json.dumps(result, ensure_ascii=False))


def main() -> None:
    app()


if __name__ == "__main__":
    main()
