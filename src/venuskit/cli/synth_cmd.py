"""`venus synth grounding`: programmatic grounding data with pixel-exact labels (venuskit.synth.grounding)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from venuskit.cli.common import console, fail

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


@app.callback()
def synth() -> None:
    """Make training and eval data with exact labels."""


def _split(value: str | None) -> tuple[str, ...] | None:
    return tuple(v.strip() for v in value.split(",") if v.strip()) if value else None


@app.command("grounding")
def grounding(
    n: int = typer.Option(..., "--n", help="Samples to write (labelled targets plus refusal samples)."),
    out: Path = typer.Option(..., "--out", help="Output folder."),
    fmt: str = typer.Option("screenspot-pro", "--format", help="screenspot-pro, screenspot-v2 or parquet."),
    seed: int = typer.Option(0, "--seed", help="Run seed; the same seed writes the same data."),
    families: str | None = typer.Option(None, "--families", help="Comma-separated element families (default all)."),
    platforms: str | None = typer.Option(
        None, "--platforms", help="Comma-separated: web,windows,macos,linux,android,ios."
    ),
    resolution: list[str] = typer.Option([], "--resolution", help="A fixed size like 1920x1080@2 (repeatable)."),
    max_per_page: int | None = typer.Option(None, "--max-per-page", help="Cap on samples per screenshot."),
    refusal_share: float = typer.Option(0.05, "--refusal-share", help="Share of refusal samples ([-1,-1])."),
    zh_share: float = typer.Option(0.3, "--zh-share", help="Share of pages with Chinese UI text."),
    icon_dir: str | None = typer.Option(None, "--icon-dir", help="SVG icon folder (default: Debian bootstrap-icons)."),
    json_out: bool = typer.Option(False, "--json", help="Print the run report as JSON."),
) -> None:
    """Compose screens from element families, render them in Chromium, and write labelled samples."""
    from venuskit.synth.grounding.spec import DEFAULT_ICON_DIR, PLATFORMS, GroundingConfig, SynthError

    try:
        config = GroundingConfig(
            n=n,
            seed=seed,
            families=_split(families),
            platforms=_split(platforms) or PLATFORMS,
            resolutions=tuple(resolution) or None,
            max_per_page=max_per_page,
            refusal_share=refusal_share,
            zh_share=zh_share,
            icon_dir=icon_dir or DEFAULT_ICON_DIR,
        )
        report = _generate_with_progress(config, out, fmt)
    except SynthError as e:
        fail(str(e))
    if json_out:
        typer.echo(json.dumps(report.to_dict()))
    else:
        console.print(
            f"[green]{report.samples} samples[/green] ({report.refusals} refusals) from {report.pages} pages "
            f"→ {out}  ·  {report.targets_per_s:.0f} labelled targets/s  ·  {len(report.skipped)} pages skipped"
        )


@app.command("grounding-convert")
def grounding_convert(
    folder: Path = typer.Argument(
        ..., help="A ScreenSpot-Pro or ScreenSpot-v2 folder written by `venus synth grounding`."
    ),
    json_out: bool = typer.Option(False, "--json", help="Print the counts as JSON."),
) -> None:
    """Mark refusal samples (bbox of -1s) gt_type "negative", as ScreenSpot-Pro does, in files written before;
    in place, atomically per file; a second run changes nothing."""
    from venuskit.synth.grounding.spec import SynthError
    from venuskit.synth.grounding.writers import convert_refusals

    try:
        counts = convert_refusals(folder)
    except SynthError as e:
        fail(str(e))
    if json_out:
        typer.echo(json.dumps(counts))
    else:
        console.print(
            f"[green]{counts['changed']} samples changed[/green] in {counts['files']} files "
            f"({counts['negative']} negative of {counts['samples']})"
        )


def _generate_with_progress(config, out: Path, fmt: str):  # noqa: ANN001, ANN202 -- typed in generator.generate
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from venuskit.synth.grounding.generator import generate

    columns = (TextColumn("synth grounding"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("samples", total=config.n)
        return generate(config, out, fmt, on_progress=lambda done, total: bar.update(task, completed=done))


if __name__ == "__main__":
    app()
