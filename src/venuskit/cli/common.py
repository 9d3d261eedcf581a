"""Shared flags and the progress display for CLI verbs that run episodes."""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console

console = Console(stderr=True, soft_wrap=True)  # error lines stay whole for grep and logs
SKIN_HELP = (
    "The look of the world's apps (venuskit.world.skins): 0 is the default; any other whole number is a "
    "seeded palette, font, density, icon set, control layout and wording. Recorded in the episode."
)


def _temperature(value: float) -> float:
    if not math.isfinite(value) or value < 0:
        fail(f"--temperature must be a finite number >= 0 (0: greedy), got {value}.")
    return value


def _port(value: int) -> int:
    if not 0 <= value <= 65535:
        fail(f"--port must be in 0..65535 (0: any free port), got {value}.")
    return value


def port_option(default: int, what: str = "") -> Any:
    """The --port of a verb that serves on 127.0.0.1: checked before anything starts."""
    return typer.Option(default, "--port", callback=_port,
                        help=f"Port on 127.0.0.1{' for ' + what if what else ''} (0: any free port).")  # fmt: skip


class ModelOpts:
    model = typer.Option("", "--model", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (vLLM, "
                         "SGLang); none: venus-nano, the embedded default policy, in process.")  # fmt: skip
    model_name = typer.Option("", "--model-name", help="Served model name (with --model), e.g. the "
                              "--served-model-name given to vLLM.")  # fmt: skip
    required_model = typer.Option(..., "--model", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1.")
    api_key = typer.Option("", "--api-key", help="API key (default: $VENUS_API_KEY, else 'EMPTY').")
    temperature = typer.Option(0.0, callback=_temperature, help="Sampling temperature (0: greedy).")
    max_tokens = typer.Option(4096, help="Max tokens per reply.")
    timeout = typer.Option(120.0, help="Seconds per model call before it counts as timed out.")
    thinking = typer.Option(None, "--thinking/--no-thinking", help="Send chat_template_kwargs.enable_thinking.")


class RunOpts:
    out = typer.Option(Path("runs"), help="Folder that receives episode folders.")
    max_steps = typer.Option(30, help="Step limit per episode.")
    n_img = typer.Option(2, help="Past screenshots replayed to the model (N_IMG).")
    interactive = typer.Option(
        True, "--interactive/--non-interactive", help="Answer CallUser on stdin (else the episode ends needs_user)."
    )


def fail(message: str, code: int = 2) -> NoReturn:
    from rich.markup import escape  # a message quoting "[[op]]" or a path with brackets is printed as written

    console.print(f"[red]error:[/red] {escape(message)}")
    raise typer.Exit(code)


def warm_nano() -> None:
    """Before a one-episode verb starts its env: venus-nano's OCR engine is built on a background thread while the
    browser starts, with both cores for reading (the browser idles while the policy reads). Errors surface later,
    where the policy is made."""
    from venuskit.models.nano.reader import default_reader

    default_reader().warm(threads=min(2, os.cpu_count() or 1))


def nano_job_policy(job: Any) -> Any:
    """venus-nano in process: the policy of every verb that runs one when no --model is given."""
    from venuskit.agent.nano import NanoPolicy
    from venuskit.models.nano import NanoError

    try:
        return NanoPolicy(job.surface, job.goal)
    except NanoError as exc:  # a missing or damaged checkpoint: one line naming the file and the rebuild command
        raise ValueError(str(exc)) from exc


def model_config(
    url: str, name: str, api_key: str, temperature: float, max_tokens: int, timeout: float, thinking: bool | None
) -> Any:
    from venuskit.models.openai_backend import ModelConfig

    _temperature(temperature)
    if not math.isfinite(timeout):
        raise ValueError(f"--timeout must be a finite number, got {timeout}.")
    key = api_key or os.environ.get("VENUS_API_KEY", "") or "EMPTY"
    kwargs = {"enable_thinking": thinking} if thinking is not None else None
    return ModelConfig(
        base_url=url,
        model=name,
        api_key=key,
        temperature=temperature,
        max_tokens=max_tokens,
        timeout_s=timeout,
        chat_template_kwargs=kwargs,
    )


def run_config(max_steps: int) -> Any:
    from venuskit.agent.runner import RunConfig

    return RunConfig(max_steps=max_steps)


def browser_config(surface: str, allow_host: list[str], headed: bool) -> Any:
    from venuskit.envs.browser import BrowserConfig

    chromium = os.environ.get("VENUS_CHROMIUM") or None  # None: the env picks Debian's headless shell or chromium
    preset = "mobile" if surface == "mobile" else "desktop"
    hosts = BrowserConfig.__dataclass_fields__["allow_hosts"].default + tuple(allow_host)
    # Built with the hosts, so BrowserConfig validates them (an entry like 'x;*' is refused).
    return BrowserConfig(preset=preset, executable_path=chromium, headless=not headed, allow_hosts=hosts)


def step_checker(spec: str, model_name: str, api_key: str | None, timeout_s: float) -> Callable | None:
    """The step check for `--step-check off|rules|URL` (None: off). Raises ValueError for anything else."""
    if spec in ("", "off"):
        return None
    from venuskit.verify.judges import VLMJudge
    from venuskit.verify.step import StepVerifier

    if spec == "rules":
        return StepVerifier()
    if not spec.startswith(("http://", "https://")):
        raise ValueError(f"--step-check takes off, rules or a judge URL like http://127.0.0.1:8000/v1; got {spec!r}.")
    return StepVerifier(judge=VLMJudge.from_url(spec, model_name, api_key=api_key, name="step", timeout_s=timeout_s))


def resumable(folder: Path) -> Any:
    """The episode in `folder` if it can be resumed; else a one-line error (exit 2)."""
    from venuskit.record.store import EpisodeStoreError, load_episode

    if not folder.is_dir():
        fail(f"--resume {folder}: there is no such folder.")
    try:
        episode = load_episode(folder)
    except EpisodeStoreError as exc:
        fail(f"--resume {folder}: {exc}")
    if episode.finished:
        fail(f"--resume {folder}: the episode is finished ({episode.outcome.reason}); there is nothing to resume.")
    return episode


def run_with_progress(
    make_env: Callable[[], Any],
    job: Any,
    task: dict,
    interactive: bool,
    resume: Path | None,
    json_out: bool,
    make_policy: Callable | None = None,
    step_check: Callable | None = None,
    safety_gate: Callable | None = None,
) -> None:
    """Run one episode with a live status line; SIGINT leaves a resumable folder and says how to resume."""
    from venuskit.agent.hooks import no_user, stdin_user
    from venuskit.agent.session import make_policy as default_policy
    from venuskit.agent.session import run_episode
    from venuskit.envs.base import EnvError
    from venuskit.record.store import EpisodeStoreError

    call_user = stdin_user if interactive and sys.stdin.isatty() else no_user
    try:
        policy = (make_policy or default_policy)(job)
        env = make_env()
    except (ValueError, EnvError) as exc:
        fail(str(exc))
    stop = threading.Event()
    error: str | None = None
    previous = signal.signal(signal.SIGINT, _graceful_sigint(stop))
    try:
        with console.status("starting…") as status:
            on_step = lambda s: status.update(_step_line(s, job.run.max_steps))  # noqa: E731
            episode, folder = run_episode(
                env,
                policy,
                job,
                task,
                call_user=call_user,
                on_step=on_step,
                resume_dir=resume,
                stop=stop,
                **({"step_check": step_check} if step_check is not None else {}),
                **({"safety_gate": safety_gate} if safety_gate is not None else {}),
            )
    except KeyboardInterrupt:
        episode = None
    except (EnvError, EpisodeStoreError, ValueError, FileExistsError) as exc:
        # A start page the env refuses, a folder that cannot be resumed, a full disk: one line, data kept.
        error = str(exc)
    finally:
        signal.signal(signal.SIGINT, previous)
        env.close()
    if error is not None:
        fail(error)
    if episode is None or episode.outcome.reason == "interrupted":
        where = folder if episode is not None else "EPISODE_DIR"
        console.print(f"[yellow]interrupted[/yellow]: the episode is saved; resume with --resume {where}")
        raise typer.Exit(130)
    _report(episode, folder, json_out)


def _graceful_sigint(stop: threading.Event) -> Callable[[int, Any], None]:
    """First Ctrl-C: finish the current step, save, stop. Second Ctrl-C: stop now (still saved)."""

    def handler(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        console.print("[yellow]stopping after this step[/yellow] (Ctrl-C again to stop at once)")

    return handler


def _step_line(step: Any, max_steps: int) -> str:
    what = step.action.name if step.action else (step.error or {}).get("type", "?")
    return f"step {step.index + 1}/{max_steps}: {what}"


def _report(episode: Any, folder: Path, json_out: bool) -> None:
    o = episode.outcome
    summary = {
        "episode_dir": str(folder),
        "reason": o.reason,
        "terminated": o.terminated,
        "truncated": o.truncated,
        "needs_user": o.needs_user,
        "answer": o.answer,
        "reward": o.reward,
        "error": o.error,
    }
    if json_out:
        typer.echo(json.dumps(summary))
    else:
        colour = "green" if o.terminated and not o.needs_user else "yellow"
        console.print(f"[{colour}]{o.reason}[/{colour}] → {folder}" + (f"  answer: {o.answer}" if o.answer else ""))
        if o.error:
            console.print(f"[red]{o.error.get('type')}[/red]: {o.error.get('message')}")
    raise typer.Exit(0 if o.reason in ("finished", "answer", "call_user", "env_done") else (2 if o.truncated else 1))


def echo_task_table(specs: list[Any], json_out: bool, extra: Callable[[Any], dict[str, Any]],
                    summary: dict[str, Any], apps_width: int = 28) -> None:  # fmt: skip
    """`venus world|desktop tasks`: one template a line (JSON: the common fields plus the kind's `extra`), then
    the counts (templates, by category, zh templates, instances, plus the kind's `summary`)."""
    counts = Counter(s.category for s in specs)
    totals = {"templates": len(specs), "by_category": dict(sorted(counts.items())),
              "zh_templates": sum("zh" in s.locales for s in specs), "instances": sum(len(s.params) for s in specs),
              **summary}  # fmt: skip
    if json_out:
        for s in specs:
            row = {"id": s.id, "apps": list(s.apps), "category": s.category, "steps": s.steps, "feasible": s.feasible,
                   "locales": list(s.locales), "variants": len(s.params), **extra(s)}  # fmt: skip
            typer.echo(json.dumps(row, ensure_ascii=False))
        typer.echo(json.dumps({"summary": totals}))
        return
    for s in specs:
        apps, locales = ",".join(s.apps), ",".join(s.locales)
        typer.echo(f"{s.id:<34} {s.category:<10} {apps:<{apps_width}} ~{s.steps:>2} steps  {locales}")
    typer.echo(json.dumps(totals))


def serve_until_ctrl_c(announce: Callable[[], None], stop: Callable[[], None]) -> None:
    """Run a loopback server's foreground: Ctrl-C (or SIGTERM) stops it cleanly. The handler is in place before
    `announce` prints the URL, so a signal sent as soon as someone reads the URL still stops the server (and
    Ctrl-C works even if the process was started with SIGINT ignored)."""
    done = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: done.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        announce()
        done.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        stop()


@contextlib.contextmanager
def ctrl_c_interrupts() -> Iterator[threading.Event]:
    """Ctrl-C for the batch verbs (suites, task synthesis). The first Ctrl-C sets the yielded event: the caller
    finishes the episode under way and raises KeyboardInterrupt at the next job boundary (`stop_point`), so no
    browser is torn down mid-call. A second Ctrl-C, or SIGTERM, raises at once. The handlers are installed
    explicitly, so a process started with SIGINT ignored (a background job of a shell) still hears Ctrl-C."""
    stop = threading.Event()

    def on_int(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        console.print("[yellow]stopping after the episode under way[/yellow] (Ctrl-C again to stop at once)")

    previous = {signal.SIGINT: signal.signal(signal.SIGINT, on_int),
                signal.SIGTERM: signal.signal(signal.SIGTERM, signal.default_int_handler)}  # fmt: skip
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def interrupts_raise() -> Iterator[None]:
    """Ctrl-C and SIGTERM raise KeyboardInterrupt at once, for a long run that keeps its work as it goes (it saves
    on the way out). Installed explicitly: a background job of a shell starts with SIGINT ignored, and a scheduler
    stops jobs with SIGTERM, whose default would kill the run without its last save."""
    previous = {sig: signal.signal(sig, signal.default_int_handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def stop_point(stop: threading.Event) -> None:
    """A job boundary: raise KeyboardInterrupt if a Ctrl-C asked to stop."""
    if stop.is_set():
        raise KeyboardInterrupt


def echo_oracle_run(run: Any, feasible: bool, json_out: bool) -> None:
    """`venus world|desktop oracle`: the contract's keypoints and verdict; exit 1 unless the oracle solved the task
    (`venuskit.tasks.contract.solved`: completed, or infeasible on an infeasible task)."""
    from venuskit.tasks.contract import solved

    result = run.to_dict()
    if json_out:
        typer.echo(json.dumps(result, ensure_ascii=False))
    else:
        for kp in result["keypoints"]:
            typer.echo(f"  [{'x' if kp['ok'] else ' '}] {kp['desc']}")
        typer.echo(f"{result['verdict']}: {result['reason']}  ({result['steps']} steps, {result['episode_dir']})")
    if not solved(run.verdict.verdict, feasible):
        raise typer.Exit(1)
