"""The safety flags of `venus run` (the gate, approvals, secrets) and `venus eval safety`."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from venuskit.cli.common import console, ctrl_c_interrupts, fail, stop_point


class GateOpts:
    """`venus run` options for the consequential-action gate and secrets."""

    approve = typer.Option(
        "", "--approve",
        help="Who approves a consequential action (send, pay, transfer, order, delete, password, post, personal "
        "data): ask (at this terminal), deny, or allow-list (what --allow-list FILE lists). Default: ask when "
        "interactive at a terminal, else deny; with --world, the operations the task itself asks for.",
    )  # fmt: skip
    allow_list = typer.Option(
        None, "--allow-list", help="TOML file of 'allow' tables: operations approved in advance."
    )
    gate = typer.Option("on", "--gate", help="on: stop consequential actions until approved; off: only record them.")
    consequential = typer.Option(
        None, "--consequential", help="TOML file declaring your site's consequential operations ('op' tables)."
    )
    gate_judge = typer.Option(
        "", "--gate-judge", help="URL of an OpenAI-compatible VLM the gate asks about actions the rules let through."
    )
    secrets = typer.Option(
        None, "--secrets",
        help="TOML file of secrets: --task names them as {{secret:name}}; each is typed only on its origins.",
    )  # fmt: skip


@dataclass(frozen=True)
class SafetyOpts:
    approve: str = ""
    allow_list: Path | None = None
    gate: str = "on"
    consequential: Path | None = None
    gate_judge: str = ""
    judge_model: str = ""
    api_key: str = "EMPTY"
    secrets: Path | None = None

    def __post_init__(self) -> None:
        if self.gate not in ("on", "off"):
            raise ValueError(f"--gate takes on or off; got {self.gate!r}.")
        if self.gate_judge and not self.gate_judge.startswith(("http://", "https://")):
            raise ValueError(f"--gate-judge takes a URL like http://127.0.0.1:8000/v1; got {self.gate_judge!r}.")


def guard(env: Any, opts: SafetyOpts, *, trusted: list[str], interactive: bool, ops: Any = None,
          task_kinds: tuple[str, ...] | None = None) -> tuple[Any, Any]:  # fmt: skip
    """(the env to run, the gate hook) for these options: the env wrapped by SecretsEnv when there are secrets.
    `ops`: declared operations to start from (the world's); `task_kinds`: for a world task, the kinds it asks
    for (the default approvals). Raises ValueError (bad files, bad flags) with the fix."""
    from venuskit.agent.safety import (
        AllowListApprover,
        AllowRule,
        GateJudge,
        Operations,
        SafetyGate,
        SecretsEnv,
        load_operations,
        load_secrets,
        make_approver,
    )

    mode = opts.approve or ("ask" if interactive and sys.stdin.isatty() else "deny")
    if not opts.approve and task_kinds is not None:
        approver: Any = AllowListApprover([AllowRule(kind=k) for k in task_kinds])
    else:
        approver = make_approver(mode, opts.allow_list)
    declared = ops or Operations()
    if opts.consequential is not None:
        declared = declared + load_operations(opts.consequential)
    judge = None
    if opts.gate_judge:
        judge = GateJudge.from_url(opts.gate_judge, opts.judge_model, api_key=opts.api_key)
    vault = load_secrets(opts.secrets) if opts.secrets is not None else None
    gate = SafetyGate(env, approver=approver, ops=declared, trusted=[t for t in trusted if "://" in t], judge=judge,
                      enforce=opts.gate == "on", scrub=vault.scrub if vault else None)  # fmt: skip
    return (SecretsEnv(env, vault) if vault else env), gate


def screen_guard(opts: SafetyOpts, *, interactive: bool, task_kinds: tuple[str, ...]) -> Any:
    """The gate of the computer surface for these options (`ScreenGate`: the desktop apps' declared operations,
    read from the screen); without --approve, a desktop task's own kinds are approved. Raises ValueError for the
    flags that are the browser's alone."""
    from venuskit.agent.safety import AllowListApprover, AllowRule, make_approver
    from venuskit.agent.safety.screen import ScreenGate

    for flag, given in (("--secrets", opts.secrets), ("--consequential", opts.consequential),
                        ("--gate-judge", opts.gate_judge)):  # fmt: skip
        if given:
            raise ValueError(f"{flag} is for the browser surfaces; the desktop's operations are declared in "
                             "venuskit/envs/desktop/operations.toml.")  # fmt: skip
    if opts.approve:
        approver: Any = make_approver(opts.approve, opts.allow_list)
    elif interactive and sys.stdin.isatty():
        approver = make_approver("ask", None)
    else:
        approver = AllowListApprover([AllowRule(kind=k) for k in task_kinds])
    return ScreenGate(approver=approver, enforce=opts.gate == "on")


def world_task_kinds(task_id: str) -> tuple[str, ...]:
    """What a world task's user asks for: its declared consequential kinds, and posting when a keypoint is a post
    or a comment (the forum's are public, so the gate asks; the world's action log does not list them)."""
    from venuskit.tasks.spec import get_task

    spec = get_task(task_id)
    implied = {"forum.post": "forum.post", "forum.comment": "forum.comment"}
    posts = [implied[k.check] for k in spec.keypoints if k.check in implied]
    return tuple(dict.fromkeys([*spec.consequential, *posts]))


# ---- venus eval safety ----------------------------------------------------------------------------------------


def eval_safety(
    model: str = typer.Option(
        "attacker",
        "--model",
        help="attacker (scripted: follows every injected instruction, attempts every harm; measures the gate "
        "alone), oracle (each task's safe path), nano (venus-nano), or an OpenAI-compatible URL.",
    ),  # fmt: skip
    model_name: str = typer.Option("", "--model-name", help="Served model name (URL models)."),
    api_key: str = typer.Option("", "--api-key", help="API key (default: $VENUS_API_KEY, else 'EMPTY')."),
    gate: str = typer.Option("both", "--gate", help="on, off or both (the two arms side by side)."),
    seeds: str = typer.Option("0,1", "--seeds", help="Comma-separated seeds; even seeds run the en variant, odd zh."),
    categories: str = typer.Option("", "--categories", help="Comma-separated categories (default: all)."),
    tasks: str = typer.Option("*", "--tasks", help="Task id globs, comma-separated."),
    per_category: int | None = typer.Option(None, "--per-category", help="A stratified subset: N per category."),
    workers: int = typer.Option(1, "--workers", help="Episodes at once (each worker has its own browser)."),
    out: Path | None = typer.Option(None, "--out", help="Run folder (default: runs/eval-safety-<model>)."),
    resume: bool = typer.Option(False, "--resume", help="Finish an interrupted run in --out."),
    max_steps: int | None = typer.Option(None, "--max-steps", help="Step limit (default: each task's own)."),
    judge: str = typer.Option("", "--judge", help="Gate judge URL (an OpenAI-compatible VLM; default: rules only)."),
    judge_name: str = typer.Option("", "--judge-name", help="Served model name of the gate judge."),
    ocr: bool = typer.Option(True, "--ocr/--no-ocr", help="OCR screenshots of secrets tasks for secret values."),
    json_out: bool = typer.Option(False, "--json", help="Print the headline figures as JSON."),
) -> None:
    """The offline safety suite: attack success, attempts, utility under attack, confirmation recall, over-refusal,
    canary leaks and the gate's block rate, with the gate off and on; JSON + HTML report."""
    from venuskit.eval.safety import SafetyEvalConfig, headline, run_safety_eval
    from venuskit.runs.parallel import Parallel

    key = api_key or os.environ.get("VENUS_API_KEY", "") or "EMPTY"
    try:
        seed_list = tuple(int(s) for s in seeds.split(",") if s.strip())
        folder = out or Path("runs") / f"eval-safety-{_slug(model)}"
        config = SafetyEvalConfig(
            out=str(folder), model=model, model_name=model_name, api_key=key, gate=gate, seeds=seed_list,
            categories=tuple(c.strip() for c in categories.split(",") if c.strip()), tasks=tasks,
            per_category=per_category, max_steps=max_steps, judge=judge, judge_name=judge_name, ocr=ocr,
        )  # fmt: skip
        parallel = Parallel(workers=workers)
        with ctrl_c_interrupts() as stop, console.status("eval safety…") as status:
            done = [0]

            def progress(row: dict[str, Any]) -> None:
                done[0] += 1
                status.update(f"eval safety: {done[0]} episodes ({row['key']})")
                stop_point(stop)

            summary = run_safety_eval(config, parallel, resume=resume, on_result=progress)
    except ValueError as e:
        fail(str(e))
    except KeyboardInterrupt:  # the workers closed their browsers on the way out; the ledger holds what finished
        console.print(f"[yellow]interrupted[/yellow]: finished episodes are in {folder}/results.jsonl; rerun with "
                      "--resume")  # fmt: skip
        raise typer.Exit(130) from None
    figures = headline(summary)
    if json_out:
        typer.echo(json.dumps({**figures, "out": str(folder)}, ensure_ascii=False))
        return
    for arm, s in summary["arms"].items():
        console.print(f"gate {arm}: ASR {_fmt(s['asr'])}, attempted {_fmt(s['attempted'])}, utility under attack "
                      f"{_fmt(s['utility_under_attack'])}, confirmation recall {_fmt(s['confirmation_recall'])}, "
                      f"over-refusal {_fmt(s['over_refusal'])}, canary leaks {s['canary_leaks']}, gate block rate "
                      f"{_fmt(s['gate_block_rate'])}")  # fmt: skip
    console.print(f"→ {folder}/report.json, report.html")


def _fmt(r: dict[str, Any]) -> str:
    return f"{100 * r['rate']:.1f}% ({r['k']}/{r['n']})" if r["n"] else "n/a"


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:60] or "model"


class world_guard:  # noqa: N801 - a context manager used like a function
    """For `venus run --world`: a world server, its browser env and the gate over them (closed on exit)."""

    def __init__(self, task_id: str, surface: str, browser: Any, opts: SafetyOpts) -> None:
        self.task_id, self.surface, self.browser, self.opts = task_id, surface, browser, opts
        self.server: Any = None
        self.env: Any = None

    def __enter__(self) -> tuple[Any, Any, Any]:
        from venuskit.runs.world import world_browser, world_operations
        from venuskit.world.server import WorldServer

        kinds = world_task_kinds(self.task_id)  # an unknown task id raises KeyError before anything starts
        self.server = WorldServer().start()
        try:
            self.env = world_browser(self.surface, self.browser)
            env, gate = guard(self.env, self.opts, trusted=[self.server.base_url], interactive=True,
                              ops=world_operations(), task_kinds=kinds)  # fmt: skip
        except BaseException:
            self.__exit__()
            raise
        return self.server, env, gate

    def __exit__(self, *exc: object) -> None:
        if self.env is not None:
            self.env.close()
        if self.server is not None:
            self.server.stop()
