"""`venus captcha list|serve|answer|synth|audit` and the `venus eval captcha` verb (`eval_captcha`)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from venuskit.cli.common import ModelOpts, console, fail, port_option, serve_until_ctrl_c

app = typer.Typer(no_args_is_help=True, help="The CAPTCHA world: generated puzzles with server-side answers.")


def _split(values: list[str]) -> list[str]:
    """--types a,b --types c -> [a, b, c]."""
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


def parse_seeds(text: str) -> list[int]:
    """'0,1,2' or '0-9' or '0-4,10' -> a list of seeds."""
    seeds: list[int] = []
    try:
        for part in (p.strip() for p in text.split(",") if p.strip()):
            lo, _, hi = part.partition("-")
            seeds += list(range(int(lo), int(hi) + 1)) if hi else [int(lo)]
    except ValueError:
        fail(f"--seeds takes integers like '0,1,2' or ranges like '0-9', got {text!r}.")
    if not seeds or min(seeds) < 0:
        fail(f"--seeds needs at least one non-negative seed, got {text!r}.")
    return seeds


@app.command("list")
def list_cmd(json_out: bool = typer.Option(False, "--json", help="Print JSON (families, types, counts).")) -> None:
    """List the CAPTCHA types by family."""
    from venuskit.synth.captcha.registry import FAMILIES, all_types, by_family

    types = {t.name: t for t in all_types()}
    fams = by_family()
    if json_out:
        data = {
            "n_types": len(types),
            "n_families": len(fams),
            "families": {
                f: {
                    "description": FAMILIES[f],
                    "types": [{"name": n, "widget": types[n].widget, "summary": types[n].summary} for n in names],
                }
                for f, names in fams.items()
            },
        }
        typer.echo(json.dumps(data, indent=2))
        return
    for f, names in fams.items():
        typer.echo(f"{f} ({len(names)}): {FAMILIES[f]}")
        for n in names:
            typer.echo(f"  {n:24s} {types[n].widget:7s} {types[n].summary}")
    typer.echo(f"{len(types)} types in {len(fams)} families")


@app.command("answer")
def answer_cmd(
    type_name: str = typer.Option(..., "--type", help="CAPTCHA type name (see `venus captcha list`)."),
    seed: int | None = typer.Option(
        None, "--seed", min=0, help="Seed of the first instance of --type (default: one the server draws)."
    ),
) -> None:
    """Print the hidden answer of (type, seed), for audits. The same pair always gives the same instance."""
    from venuskit.synth.captcha.registry import make_instance

    try:
        inst = make_instance(type_name, seed)
    except ValueError as e:
        fail(str(e))
    typer.echo(
        json.dumps(
            {
                "type": inst.type,
                "family": inst.family,
                "seed": seed,
                "prompt": inst.prompt,
                "widget": inst.widget.kind,
                "answer": inst.answer,
            },
            ensure_ascii=False,
        )
    )


@app.command("serve")
def serve_cmd(
    type_name: str | None = typer.Option(None, "--type", help="Type to serve (default: an index of all types)."),
    seed: int | None = typer.Option(
        None, "--seed", min=0, help="Seed of the first instance of --type (default: one the server draws)."
    ),
    port: int = port_option(0),
) -> None:
    """Serve CAPTCHAs on loopback so a person can try them; prints the URL. Each /new is a fresh instance whose
    seed the server draws."""
    from venuskit.synth.captcha.registry import get_type
    from venuskit.synth.captcha.server import CaptchaServer

    if type_name is not None:
        try:
            get_type(type_name)
        except ValueError as e:
            fail(str(e))
    try:
        server = CaptchaServer(port=port).start()
    except OSError as e:
        fail(f"Could not listen on 127.0.0.1:{port}: {e}")
    if type_name is None:
        url = f"{server.base_url}/"
    elif seed is None:
        url = f"{server.base_url}/new?type={type_name}"
    else:  # the harness side may pick a seed; a page's /new never can
        url = server.create(type_name, seed).url

    def announce() -> None:
        typer.echo(url)
        console.print("serving on loopback; Ctrl-C stops")

    serve_until_ctrl_c(announce, server.stop)


@app.command("synth")
def synth_cmd(
    n: int = typer.Option(..., "--n", min=1, help="How many instances to write."),
    out: Path = typer.Option(..., "--out", help="Output folder (images/ and rows.jsonl)."),
    types: list[str] = typer.Option(
        [], "--types", help="Types or families, comma-separated or repeated (default: all)."
    ),
    seed_start: int = typer.Option(
        0, "--seed-start", min=0, help="First seed (types go round-robin, seeds count up; training seeds: 0-999999)."
    ),
    browser: bool = typer.Option(
        True,
        "--browser/--no-browser",
        help="Page screenshots with screenshot-pixel labels (Chromium), or puzzle assets only.",
    ),
    preset: str = typer.Option("desktop", help="desktop or mobile page layout (with --browser)."),
) -> None:
    """Write CAPTCHA images, grounding labels and RL rows (with the hidden answer spec for reward)."""
    from venuskit.synth.captcha.dataset import SynthConfig, synthesise

    try:
        cfg = SynthConfig(
            n=n, out=out, types=_split(types) or None, seed_start=seed_start, browser=browser, preset=preset
        )
        summary = synthesise(cfg)
    except ValueError as e:
        fail(str(e))
    typer.echo(json.dumps(summary))


@app.command("audit")
def audit_cmd(
    seeds: str = typer.Option("0-4", "--seeds", help="Seeds per type, e.g. '0-19' or '0,1,2'."),
    types: list[str] = typer.Option([], "--types", help="Types or families (default: all)."),
    preset: str = typer.Option("desktop", help="desktop or mobile."),
    leaks: bool = typer.Option(True, "--leaks/--no-leaks", help="Also scan each page for the answer."),
    json_out: bool = typer.Option(False, "--json", help="Print the per-type results as JSON."),
) -> None:
    """Run every type's oracle through real Chromium (and the leak scan); exit 1 if a type is under 99% or leaks."""
    from venuskit.synth.captcha.audit_run import run_audit

    try:
        result = run_audit(_split(types), parse_seeds(seeds), preset, leaks, progress=lambda line: console.print(line))
    except ValueError as e:
        fail(str(e))
    typer.echo(json.dumps(result, indent=2) if json_out else result["summary"])
    raise typer.Exit(0 if result["ok"] else 1)


def eval_captcha(
    model: str = ModelOpts.required_model,
    model_name: str = typer.Option("", "--model-name", help="Served model name (default: the server's first model)."),
    api_key: str = ModelOpts.api_key,
    temperature: float = ModelOpts.temperature,
    max_tokens: int = ModelOpts.max_tokens,
    timeout: float = ModelOpts.timeout,
    thinking: bool | None = typer.Option(
        True, "--thinking/--no-thinking", help="chat_template_kwargs.enable_thinking (upstream CAPTCHA default: on)."
    ),
    types: list[str] = typer.Option(
        [], "--types", help="Types or families, comma-separated or repeated (default: all)."
    ),
    seeds: str = typer.Option(
        "1000000-1000002", "--seeds", help="The fixed seed list per type, from the eval seeds 1000000-1999999."
    ),
    preset: str = typer.Option("desktop", help="desktop (1024x768) or mobile (touch, 412x915 at 2x)."),
    out: Path = typer.Option(Path("runs/captcha-eval"), "--out", help="Folder for report.json and report.html."),
    json_out: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """CAPTCHA Pass@1 per type and family: the UI-Venus-2 CAPTCHA prompt, one <action> sequence per instance."""
    from venuskit.cli.common import model_config
    from venuskit.eval.captcha import CaptchaEvalConfig, run_captcha_eval
    from venuskit.models.openai_backend import OpenAIBackend

    try:
        mcfg = model_config(
            model, model_name or _first_model(model, api_key), api_key, temperature, max_tokens, timeout, thinking
        )
        cfg = CaptchaEvalConfig(types=_split(types), seeds=parse_seeds(seeds), preset=preset, out=out)
    except ValueError as e:
        fail(str(e))
    show = lambda r: console.print(
        f"{'[green]pass[/green]' if r.passed else '[red]fail[/red]'} {r.type} seed={r.seed}"  # noqa: E731
        + ("" if r.passed else f"  ({r.reason})")
    )
    report = run_captcha_eval(
        OpenAIBackend(mcfg), cfg, model_info={"base_url": model, "model": mcfg.model}, on_row=show
    )
    summary = {k: report[k] for k in ("overall", "macro_family_pass_at_1", "per_family", "per_type")}
    summary["report"] = {
        k: str(out / f) for k, f in (("json", "report.json"), ("html", "report.html"), ("attempts", "attempts.html"))
    }
    if json_out:
        typer.echo(json.dumps(summary))
        return
    o = report["overall"]
    typer.echo(
        f"Pass@1 {100 * o['pass_at_1']:.1f}% ({o['passed']}/{o['n']}), "
        f"family macro {100 * report['macro_family_pass_at_1']:.1f}%"
    )
    for f, v in report["per_family"].items():
        typer.echo(f"  {f:12s} {100 * v['pass_at_1']:5.1f}%  ({v['passed']}/{v['n']})")
    typer.echo(f"report: {summary['report']['html']}")


def _first_model(base_url: str, api_key: str) -> str:
    """The first model the server lists (vLLM serves one), else ModelConfig's default name."""
    import os

    import openai

    try:
        key = api_key or os.environ.get("VENUS_API_KEY", "") or "EMPTY"
        models = openai.OpenAI(base_url=base_url, api_key=key, timeout=10, max_retries=0).models.list()
        return models.data[0].id
    except (openai.OpenAIError, IndexError):
        return "ui-venus-2"
