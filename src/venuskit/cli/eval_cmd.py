"""`venus eval …`: benchmarks against an OpenAI-compatible model server.

Commands: `grounding` (ScreenSpot-Pro / ScreenSpot-v2 layouts). Another eval adds its command to this same app,
in the section at the end of this module or from its own module with `eval_cmd.app.command("captcha")(fn)`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import typer

from venuskit.cli.common import console, fail

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


@app.callback()
def evaluate() -> None:
    """Run benchmarks against an OpenAI-compatible model server (vLLM, SGLang, any API)."""


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
    model: str = typer.Option(..., "--model", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1."),
    model_name: str | None = typer.Option(
        None, "--model-name", help="Served model name (default: the server's first)."
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
    try:
        name = model_name or served_model(model, key)
        mcfg = grounding_model_config(model, name, key, timeout, max_tokens, retries)
        folder = out or Path("runs") / f"eval-grounding-{_slug(name)}-{_slug(data.name)}"
        config = GroundingEvalConfig(
            data=str(data),
            out=str(folder),
            model=mcfg,
            images=str(images) if images else None,
            language=language,
            workers=workers,
            limit=limit,
            resume=not fresh,
        )
        report = _run_with_progress(config)
    except (ValueError, EvalError) as e:
        fail(str(e))
    overall = report["metrics"]["overall"]
    if json_out:
        typer.echo(
            json.dumps({"out": str(folder), "overall": overall, "by_category": report["metrics"]["by_category"]})
        )
    else:
        console.print(
            f"[green]accuracy {100 * overall['action_acc']:.1f}%[/green] on {overall['num_total']} samples "
            f"(text {100 * overall['text_acc']:.1f}%, icon {100 * overall['icon_acc']:.1f}%, "
            f"{overall['wrong_format_num']} unreadable) → {folder}/report.json, summary.html"
        )


def _run_with_progress(config):  # noqa: ANN001, ANN202 -- typed in eval.grounding
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from venuskit.eval.grounding import run_grounding_eval

    columns = (TextColumn("eval grounding"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("samples", total=None)
        return run_grounding_eval(
            config, on_progress=lambda done, total: bar.update(task, completed=done, total=total)
        )


# ---- more evals ----------------------------------------------------------------------------------
# The CAPTCHA eval (issue 7) registers `venus eval captcha` here: a function decorated with
# @app.command("captcha"), or `app.command("captcha")(captcha_fn)` from its own CLI module.


if __name__ == "__main__":
    app()
