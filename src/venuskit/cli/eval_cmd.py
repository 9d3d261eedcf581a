"""`venus eval …`: benchmarks.

Commands: `grounding` (ScreenSpot-Pro / ScreenSpot-v2 layouts), `captcha` (registered from captcha_cmd), the
suites `world` and `miniwob` (many episodes, serially, on worker processes or Ray actors, resumable, one HTML
report) and `offline` (AndroidControl, GUI-Odyssey and Multimodal-Mind2Web in their own layouts and matching).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from venuskit.cli.common import console, ctrl_c_interrupts, fail, stop_point

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


@app.callback()
def evaluate() -> None:
    """Run benchmarks against an OpenAI-compatible model server (vLLM, SGLang, any API) or venus-nano."""


def served_model(base_url: str, api_key: str) -> str:
    """The model a server serves, for when --model-name is left out (the first one it lists)."""
    import openai

    try:
        models = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=30, max_retries=1).models.list().data
    except openai.APIError as e:
        fail(f"Could not list the models at {base_url} ({e}); pass --model-name.")
    if not models:
        fail(f"The server at {base_url} lists no models; pass --model-name.")
    return models[0].id


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:60] or "model"


@app.command("grounding")
def grounding(
    data: Path = typer.Option(
        ..., "--data", help="ScreenSpot-Pro or ScreenSpot-v2 folder (or `venus synth grounding` output)."
    ),
    model: str = typer.Option(
        ..., "--model", help="OpenAI-compatible base URL (e.g. http://127.0.0.1:8000/v1), or nano (in process)."
    ),
    model_name: str | None = typer.Option(
        None, "--model-name", help="Served model name (default: the server's first)."
    ),
    zoom: float = typer.Option(
        1.0, "--zoom", help="Zoom-in factor K: ask again on the 1/K crop around the first answer (1 = ask once)."
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Results folder (default: runs/eval-grounding-<model>-<data>)."
    ),
    images: Path | None = typer.Option(None, "--images", help="Image folder, if not the layout's default."),
    language: str = typer.Option("en", "--language", help="en (instruction) or cn (instruction_cn)."),
    workers: int = typer.Option(4, "--workers", help="Requests in flight at once."),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N samples."),
    fresh: bool = typer.Option(False, "--fresh", help="Start over instead of resuming from details.jsonl."),
    api_key: str = typer.Option("", "--api-key", help="API key (default: $VENUS_API_KEY, else 'EMPTY')."),
    timeout: float = typer.Option(120.0, "--timeout", help="Seconds per request."),
    max_tokens: int = typer.Option(1024, "--max-tokens", help="Max tokens per reply."),
    retries: int = typer.Option(3, "--retries", help="Retries of a failed request (rate limits, 5xx, timeouts)."),
    json_out: bool = typer.Option(False, "--json", help="Print the metrics as JSON."),
) -> None:
    """Ground every instruction with the UI-Venus-2 prompt and score it by the ScreenSpot-Pro rule."""
    import os

    from venuskit.eval.grounding import EvalError, GroundingEvalConfig, grounding_model_config

    key = api_key or os.environ.get("VENUS_API_KEY", "") or "EMPTY"
    backend = None
    try:
        if model == "nano":  # in process; the config's URL is never called
            backend, name = _nano_backend(), "venus-nano"
            mcfg = grounding_model_config("http://127.0.0.1:1/v1", name, key, timeout, max_tokens, retries)
        else:
            name = model_name or served_model(model, key)
            mcfg = grounding_model_config(model, name, key, timeout, max_tokens, retries)
        zoomed = f"-zoom{zoom:g}" if zoom > 1 else ""
        folder = out or Path("runs") / f"eval-grounding-{_slug(name)}-{_slug(data.name)}{zoomed}"
        config = GroundingEvalConfig(
            data=str(data),
            out=str(folder),
            model=mcfg,
            images=str(images) if images else None,
            language=language,
            workers=workers,
            limit=limit,
            resume=not fresh,
            zoom=zoom,
        )
        report = _run_with_progress(config, backend)
    except (ValueError, EvalError) as e:
        fail(str(e))
    metrics = report["metrics"]
    overall, ci = metrics["overall"], metrics["action_acc_ci95"]
    if json_out:
        result = {"out": str(folder), "overall": overall, "ci95": ci, "by_category": metrics["by_category"]}
        typer.echo(json.dumps({**result, "zoom": metrics.get("zoom")}))
        return
    console.print(
        f"[green]accuracy {100 * overall['action_acc']:.1f}%[/green] ({overall['num_correct_action']}/"
        f"{overall['num_total']}, 95% CI {100 * ci[0]:.1f}-{100 * ci[1]:.1f}%; text {100 * overall['text_acc']:.1f}%, "
        f"icon {100 * overall['icon_acc']:.1f}%, {overall['wrong_format_num']} unreadable) → {folder}/report.json"
    )
    if "zoom" in metrics:
        z = metrics["zoom"]
        console.print(
            f"without zoom {z['without_zoom']['correct']}/{z['samples']} on the same samples; the {z['factor']:g}x "
            f"second look fixed {z['fixed']} and broke {z['broken']}"
        )


def _nano_backend():  # noqa: ANN202 -- venuskit.eval.nano_eval.NanoBackend
    from venuskit.eval.nano_eval import NanoBackend
    from venuskit.models.nano import CheckpointError, load_default

    try:
        return NanoBackend(load_default())
    except CheckpointError as e:
        fail(str(e))


def _run_with_progress(config, backend=None):  # noqa: ANN001, ANN202 -- typed in eval.grounding
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from venuskit.eval.grounding import run_grounding_eval

    columns = (TextColumn("eval grounding"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("samples", total=None)
        return run_grounding_eval(
            config, on_progress=lambda done, total: bar.update(task, completed=done, total=total), backend=backend
        )


# ---- suites: world, MiniWoB++, offline ------------------------------------------------------------


class SuiteOpts:
    model = typer.Option(
        ..., "--model", help="oracle (world only: the tasks' scripted solutions), nano, or an OpenAI-compatible URL."
    )
    model_name = typer.Option("", "--model-name", help="Served model name (default: the server's first).")
    api_key = typer.Option("", "--api-key", help="API key (default: $VENUS_API_KEY, else 'EMPTY').")
    workers = typer.Option(1, "--workers", help="Worker processes; each owns its browser env (and world server).")
    ray = typer.Option(
        None, "--ray", help="Run the workers as Ray actors: ADDRESS (host:port), auto, or local (a private Ray)."
    )
    resume = typer.Option(False, "--resume", help="Finish an interrupted run in --out: only unfinished episodes run.")
    retries = typer.Option(2, "--infra-retries", help="Re-runs of an episode whose infrastructure failed.")
    max_steps = typer.Option(None, "--max-steps", help="Step limit per episode (default: the task's own).")
    max_tokens = typer.Option(1024, "--max-tokens", help="Max tokens per model reply.")
    timeout = typer.Option(120.0, "--timeout", help="Seconds per model call.")
    json_out = typer.Option(False, "--json", help="Print the summary as JSON (the last line is one object).")


def _policy_spec(model: str, model_name: str, api_key: str, max_tokens: int, timeout: float):  # noqa: ANN202
    import os

    from venuskit.runs.policies import PolicySpec

    key = api_key or os.environ.get("VENUS_API_KEY", "") or "EMPTY"
    if model.startswith(("http://", "https://")) and not model_name:
        model_name = served_model(model, key)
    return PolicySpec(model, model_name, key, max_tokens=max_tokens, timeout_s=timeout)


def _seed_list(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(s) for s in text.split(",") if s.strip())
    except ValueError:
        fail(f"--seeds takes whole numbers separated by commas, e.g. 5000,5001; got {text!r}.")


def _run_suite(run, total: int, json_out: bool):  # noqa: ANN001, ANN202 -- run(on_result) -> summary
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True, disable=json_out) as bar:
        task = bar.add_task("episodes", total=total)
        def advance(row: dict) -> None:
            bar.advance(task)
            stop_point(stop)

        try:
            with ctrl_c_interrupts() as stop:
                return run(advance)
        except KeyboardInterrupt:
            bar.stop()
            console.print("[yellow]interrupted[/yellow]: finished episodes are in the ledger; rerun with --resume")
            raise typer.Exit(130) from None


def _policy_args(model: str, model_name: str, api_key: str, max_tokens: int, timeout: float) -> Callable[[], Any]:
    return lambda: _policy_spec(model, model_name, api_key, max_tokens, timeout)


@dataclass(frozen=True)
class _Suite:
    """One suite verb: its job list, its runner and the summary keys it prints."""

    jobs: Callable[[Any], list]
    runner: Callable[..., dict]
    keys: tuple[str, ...]

    def run(self, config: Callable[[Any], Any], policy: Callable[[], Any], folder: Path,
            parallel: Callable[[], Any], resume: bool, json_out: bool) -> None:  # fmt: skip
        """Build the config (a bad flag is one line), run with a progress bar (Ctrl-C: what finished is kept), print
        the summary."""
        try:
            cfg, where = config(policy()), parallel()
            run = lambda on: self.runner(cfg, where, resume=resume, on_result=on)  # noqa: E731
            summary = _run_suite(run, len(self.jobs(cfg)), json_out)
        except ValueError as e:
            fail(str(e))
        _print_summary(summary, folder, self.keys, json_out)


def _print_summary(summary: dict, out: Path, keys: tuple[str, ...], json_out: bool) -> None:
    head = {k: summary.get(k) for k in keys}
    head.update(out=str(out), report=str(out / "report.html"))
    if json_out:
        typer.echo(json.dumps(head, ensure_ascii=False))
        return
    bits = ", ".join(f"{k} {v:.1%}" if isinstance(v, float) else f"{k} {v}" for k, v in head.items()
                     if k not in ("by_app", "by_skins", "out", "report"))  # fmt: skip
    console.print(f"[green]{bits}[/green] -> {out}/report.html")


@app.command("world")
def world(
    model: str = SuiteOpts.model,
    model_name: str = SuiteOpts.model_name,
    api_key: str = SuiteOpts.api_key,
    templates: str = typer.Option("*", "--templates", help="Template id globs, comma-separated, e.g. 'mail.*'."),
    split: str = typer.Option("heldout", "--split", help="heldout, train or all (the fixed splits)."),
    seeds: str = typer.Option("", "--seeds", help="Seeds, comma-separated (default: the split's eval seeds)."),
    n_seeds: int = typer.Option(1, "--n-seeds", help="Seeds per template when --seeds is not given."),
    surface: str = typer.Option("browser", "--surface", help="browser, mobile, android (the mobile grammar over "
                                "adb), or several, comma-separated."),
    serial: list[str] = typer.Option([], "--serial", help="android: a device for the workers, once per worker "
                                     "(default: $ANDROID_SERIAL; none: each worker starts a stand-in device)."),
    adb_port: int | None = typer.Option(None, "--adb-port", help="android: the adb server's port (default: "
                                        "$ANDROID_ADB_SERVER_PORT or 5037)."),
    locale: str = typer.Option("all", "--locale", help="en, zh or all: the language of the task variant."),
    skins: str = typer.Option(
        "0", "--skins", help="The world's looks, e.g. '0,900-904': every episode once per skin (0: the default; "
        "held-out skins 900-999). The report gives rates for the default, training and held-out skins."
    ),  # fmt: skip
    workers: int = SuiteOpts.workers,
    ray: str | None = SuiteOpts.ray,
    out: Path | None = typer.Option(None, "--out", help="Run folder (default: runs/eval-world-<model>)."),
    resume: bool = SuiteOpts.resume,
    sgv: str = typer.Option("ocr,log", "--sgv", help="SGV judges per episode ('ocr,log', 'ocr,log,vlm'), or off."),
    sgv_model: str = typer.Option("", "--sgv-model", help="Judge server URL for a 'vlm' SGV judge."),
    sgv_model_name: str = typer.Option("", "--sgv-model-name", help="Judge model name for a 'vlm' SGV judge."),
    sgv_keypoints: str = typer.Option(
        "goal", "--sgv-keypoints", help="goal (SGV splits the goal: an honest check) or contract (the contract's)."
    ),
    max_steps: int | None = SuiteOpts.max_steps,
    max_tokens: int = SuiteOpts.max_tokens,
    timeout: float = SuiteOpts.timeout,
    retries: int = SuiteOpts.retries,
    json_out: bool = SuiteOpts.json_out,
) -> None:
    """World tasks: each episode's contract verdict and SGV's side by side, rates with 95% CIs, one HTML report."""
    from venuskit.cli.android_cmd import adb_port as default_adb_port
    from venuskit.cli.android_cmd import device_serials
    from venuskit.eval.suites.world import WorldSuiteConfig, run_world_suite, world_jobs
    from venuskit.runs.parallel import Parallel
    from venuskit.world.skins import parse as parse_skins

    folder = out or Path("runs") / f"eval-world-{_slug(model_name or model)}"
    surfaces = tuple(s.strip() for s in surface.split(",") if s.strip())

    def config(policy: Any) -> WorldSuiteConfig:
        return WorldSuiteConfig(
            out=str(folder), policy=policy, templates=templates, split=split, seeds=_seed_list(seeds),
            n_seeds=n_seeds, surfaces=surfaces, locale=locale, max_steps=max_steps, sgv=sgv, sgv_model=sgv_model,
            sgv_model_name=sgv_model_name, sgv_keypoints=sgv_keypoints, skins=tuple(parse_skins(skins)),
            serials=device_serials(serial, workers) if "android" in surfaces else (),
            adb_port=default_adb_port(adb_port),
        )  # fmt: skip

    suite = _Suite(world_jobs, run_world_suite, ("episodes", "success", "partial", "infeasible", "sgv_agreement",
                                                  "by_app", "by_skins", "infra_errors"))  # fmt: skip
    suite.run(config, _policy_args(model, model_name, api_key, max_tokens, timeout), folder,
              lambda: Parallel(workers=workers, ray=ray, max_infra_retries=retries), resume, json_out)


@app.command("miniwob")
def miniwob(
    model: str = typer.Option("nano", "--model", help="nano (default), or an OpenAI-compatible base URL."),
    model_name: str = SuiteOpts.model_name,
    api_key: str = SuiteOpts.api_key,
    tasks: str = typer.Option("*", "--tasks", help="Task name globs, comma-separated (default: every one)."),
    all_tasks: bool = typer.Option(
        False, "--all", help="Include the nondeterministic tasks (default: the 103 deterministic ones)."
    ),  # fmt: skip
    seeds: str = typer.Option("0", "--seeds", help="Episode seeds per task, comma-separated."),
    workers: int = SuiteOpts.workers,
    ray: str | None = SuiteOpts.ray,
    out: Path | None = typer.Option(None, "--out", help="Run folder (default: runs/eval-miniwob-<model>)."),
    resume: bool = SuiteOpts.resume,
    max_steps: int = typer.Option(10, "--max-steps", help="Step limit per episode."),
    max_tokens: int = SuiteOpts.max_tokens,
    timeout: float = SuiteOpts.timeout,
    retries: int = SuiteOpts.retries,
    json_out: bool = SuiteOpts.json_out,
) -> None:
    """MiniWoB++ tasks, reward from the page: success rate with its 95% CI, per task, one HTML report."""
    from venuskit.eval.suites.miniwob import MiniWobSuiteConfig, miniwob_jobs, run_miniwob_suite
    from venuskit.runs.parallel import Parallel

    folder = out or Path("runs") / f"eval-miniwob-{_slug(model_name or model)}"

    def config(policy: Any) -> MiniWobSuiteConfig:
        return MiniWobSuiteConfig(out=str(folder), policy=policy, tasks=tasks, all_tasks=all_tasks,
                                  seeds=_seed_list(seeds), max_steps=max_steps)  # fmt: skip

    suite = _Suite(miniwob_jobs, run_miniwob_suite, ("episodes", "success", "success_ci95", "reward", "tasks",
                                                     "infra_errors"))  # fmt: skip
    suite.run(config, _policy_args(model, model_name, api_key, max_tokens, timeout), folder,
              lambda: Parallel(workers=workers, ray=ray, max_infra_retries=retries), resume, json_out)


@app.command("offline")
def offline(
    fmt: str = typer.Option(..., "--format", help="androidcontrol, guiodyssey or mind2web."),
    data: Path = typer.Option(..., "--data", help="TFRecord file/folder, GUI-Odyssey root, or parquet file/folder."),
    model: str = typer.Option(..., "--model", help="nano, or an OpenAI-compatible base URL."),
    model_name: str = SuiteOpts.model_name,
    api_key: str = SuiteOpts.api_key,
    settings: str = typer.Option("", "--settings", help="high and/or low, comma-separated (default: all it has)."),
    split: str | None = typer.Option(None, "--split", help="A split of the data (e.g. test, or random_split)."),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N episodes."),
    workers: int = typer.Option(4, "--workers", help="Model calls in flight at once."),
    out: Path | None = typer.Option(None, "--out", help="Results folder (default: runs/eval-<format>-<model>)."),
    max_tokens: int = SuiteOpts.max_tokens,
    timeout: float = SuiteOpts.timeout,
    json_out: bool = SuiteOpts.json_out,
) -> None:
    """Offline step benchmarks in their own layouts and matching: type accuracy, grounding, step success rate."""
    from venuskit.eval.offline.run import OfflineConfig, run_offline_eval
    from venuskit.record.formats.tfrecord import TFRecordError

    try:
        policy = _policy_spec(model, model_name, api_key, max_tokens, timeout)
        folder = out or Path("runs") / f"eval-{fmt}-{_slug(model_name or model)}"
        config = OfflineConfig(format=fmt, data=str(data), out=str(folder), policy=policy, split=split, limit=limit,
                               settings=tuple(s.strip() for s in settings.split(",") if s.strip()),
                               workers=workers)  # fmt: skip
        with contextlib.nullcontext() if json_out else console.status(f"eval {fmt}…"):
            summary = run_offline_eval(config)
    except (ValueError, FileNotFoundError, TFRecordError) as e:
        fail(str(e))
    head = {k: summary[k] for k in ("type_acc", "grounding_acc", "step_sr", "steps")}
    head["settings"] = {s: {k: v[k] for k in ("type_acc", "grounding_acc", "step_sr", "steps")}
                        for s, v in summary["settings"].items()}  # fmt: skip
    if "op_f1" in summary:
        head["op_f1"] = summary["op_f1"]
    head.update(out=str(folder), report=str(folder / "report.json"))
    if json_out:
        typer.echo(json.dumps(head, ensure_ascii=False))
    else:
        console.print(f"[green]type {head['type_acc']:.1%}, grounding {head['grounding_acc']:.1%}, step SR "
                      f"{head['step_sr']:.1%}[/green], {head['steps']} steps -> {folder}/summary.html")  # fmt: skip


# The safety suite, with the consequential-action gate off and on: `venus eval safety`.
from venuskit.cli.safety_cmd import eval_safety  # noqa: E402 - registered once the app exists

app.command("safety")(eval_safety)


if __name__ == "__main__":
    app()
