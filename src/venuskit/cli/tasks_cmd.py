"""`venus tasks`: capability catalogs, task synthesis (venuskit.flywheel.synth) and coverage, for the world's web
apps (`--surface browser`, the default) and the desktop's apps (`--surface computer`)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from venuskit.cli.common import console, ctrl_c_interrupts, fail, stop_point

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


@app.callback()
def tasks() -> None:
    """Capability catalogs per app, synthesised contract-bound tasks, coverage and failures."""


def _csv(value: str | None) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip()) if value else ()


SURFACE_HELP = "browser (the world's web apps) or computer (the desktop's apps)."


def _catalog(surface: str = "browser"):  # noqa: ANN202 - a Catalog; imported lazily so `venus --help` stays fast
    from venuskit.tasks.synth.catalog import CatalogError, bundled_catalog

    try:
        return bundled_catalog(surface)
    except (CatalogError, ValueError) as e:
        fail(str(e))


@app.command("catalog")
def catalog(
    app_name: str | None = typer.Option(None, "--app", help="Only this app's capabilities."),
    surface: str = typer.Option("browser", "--surface", help=SURFACE_HELP),
    json_out: bool = typer.Option(False, "--json", help="One JSON object per capability, then the counts."),
) -> None:
    """List what each app can do: capabilities with their parameters, checks and provenance."""
    from venuskit.tasks.synth.build import cap_split

    cat = _catalog(surface)
    APPS = sorted({c.app for c in cat.caps.values()})  # noqa: N806 - the surface's apps
    if app_name is not None and app_name not in APPS:
        fail(f"Unknown app {app_name!r}; apps: {', '.join(APPS)}.")
    caps = cat.by_app(app_name)
    for c in caps:
        row = {"id": c.id, "app": c.app, "kind": c.kind if c.supported else "unsupported", "help": c.help,
               "params": {p.name: p.derive and f"= {p.derive}" or p.domain for p in c.params},
               "accepts": {p.name: list(p.accepts) for p in c.params if p.accepts},
               "produces": [pr.type for pr in c.produces], "checks": [e.check for e in c.effect],
               "surfaces": list(c.surfaces), "templates": list(c.templates),
               "split": cap_split(c) if c.composable else None, "reason": c.reason or None,
               "goal": c.goal["en"]}  # fmt: skip
        if json_out:
            typer.echo(json.dumps(row, ensure_ascii=False))
        else:
            extra = f"  → {', '.join(row['produces'])}" if row["produces"] else ""
            typer.echo(f"{c.id:<34} {row['kind']:<11} {c.help:<24} {c.goal['en'][:70]}{extra}")
    counts = {"capabilities": sum(c.composable for c in caps), "view_only": sum(c.kind == "view" for c in caps),
              "unsupported": sum(not c.supported for c in caps),
              "by_app": {a: sum(c.composable and c.app == a for c in caps)
                         for a in APPS if app_name in (None, a)}}  # fmt: skip
    typer.echo(json.dumps({"summary": counts}) if json_out else json.dumps(counts))


@app.command("synth")
def synth(
    n: int = typer.Option(..., "--n", help="Tasks to accept, each proved by its oracle on the real surface."),
    surface: str = typer.Option("browser", "--surface", help="browser (the world's web apps, proved in Chromium) "
                                "or computer (the desktop's apps, proved under Xvfb)."),
    out: Path | None = typer.Option(None, "--out", help="Task file to write (TOML, read by the task loader)."),
    apps: str | None = typer.Option(None, "--apps", help="Comma-separated apps to draw capabilities from."),
    horizon: str | None = typer.Option(None, "--horizon", help="short, medium or long (default: a mix)."),
    locale: str = typer.Option("en", "--locale", help="en or zh."),
    seed: int = typer.Option(0, "--seed", help="Sampler seed: the same seed gives the same tasks."),
    split: str = typer.Option("any", "--split", help="any, train (no held-out capability) or heldout."),
    writer: str | None = typer.Option(None, "--writer", help="OpenAI-compatible URL that paraphrases goals."),
    writer_model: str = typer.Option("writer", "--writer-model", help="Served model name of the --writer."),
    workers: int = typer.Option(2, "--workers", help="Browsers (or desktops) proving tasks in parallel."),
    runs: Path | None = typer.Option(None, "--runs", help="Recorded runs whose failures weight the sampling."),
    task_files: list[Path] = typer.Option([], "--tasks", help="Task files the --runs episodes come from."),
    keep_proofs: Path | None = typer.Option(None, "--keep-proofs", help="Keep the proving episodes here."),
    resume: bool = typer.Option(False, "--resume", help="Continue an interrupted run into the same --out."),
    json_out: bool = typer.Option(False, "--json", help="Print the summary as one JSON line."),
) -> None:
    """Compose capabilities into contract-bound tasks, reject what cannot be proved, write a task file."""
    from venuskit.flywheel.synth import SynthConfig, synthesize
    from venuskit.tasks.spec import TaskFileError

    try:
        config = SynthConfig(n=n, out=out, surface=surface, apps=_csv(apps), horizon=horizon, locale=locale, seed=seed,
                             split=split,
                             writer=writer, writer_model=writer_model, workers=workers, runs=runs,
                             tasks=tuple(task_files), keep_proofs=keep_proofs, resume=resume)  # fmt: skip
        if runs is not None and not runs.is_dir():
            raise ValueError(f"--runs {runs} is not a folder of episode folders.")
        with ctrl_c_interrupts() as stop:
            show = None if json_out else _progress(n)

            def progress(p: dict) -> None:
                if show is not None:
                    show(p)
                stop_point(stop)

            result = synthesize(config, progress=progress)
    except (ValueError, TaskFileError, FileNotFoundError) as e:
        fail(str(e))
    except KeyboardInterrupt:
        where = f"; the tasks accepted so far are in {out}: --resume continues" if out is not None else ""
        fail(f"interrupted{where}.", code=130)
    s = result.summary
    if json_out:
        typer.echo(json.dumps(s, ensure_ascii=False))
        return
    console.print(f"[green]{s['accepted']} tasks[/green] accepted of {s['drawn']} drawn"
                  f"{f' -> {out}' if out else ''}  ·  {s['tasks_per_s']} tasks/s", highlight=False)  # fmt: skip
    typer.echo(json.dumps(s, ensure_ascii=False))


def _progress(total: int):  # noqa: ANN202 - a progress callback
    def show(p: dict) -> None:
        console.print(f"\r  accepted {p['accepted']}/{total} · drawn {p['drawn']} · rejected {p['rejected']}",
                      end="", highlight=False)  # fmt: skip

    return show


@app.command("prove")
def prove_file(
    task_file: Path = typer.Argument(..., help="A task file (e.g. written by `venus tasks synth`)."),
    surface: str = typer.Option("browser", "--surface", help=SURFACE_HELP),
    workers: int = typer.Option(2, "--workers", help="Browsers (or desktops) proving tasks in parallel."),
    seed: int = typer.Option(0, "--seed", help="World seed of the proving runs."),
    json_out: bool = typer.Option(False, "--json", help="One JSON object per task, then the counts."),
) -> None:
    """Run every task's oracle on the real surface again (after a change to the world or the desktop); on the
    desktop a do-nothing run must also fail. Exit 1 unless every task passes."""
    from venuskit.flywheel.synth import Proof, prove
    from venuskit.tasks.spec import TaskFileError
    from venuskit.tasks.synth.surface import get_surface

    try:
        sf = get_surface(surface)
        specs = sf.load_file(task_file)
    except (TaskFileError, FileNotFoundError, OSError, ValueError) as e:
        fail(str(e))
    try:
        outcomes = prove([Proof(s) for s in specs], workers=workers, seed=seed, surface=surface)
    finally:
        sf.unregister([s.id for s in specs])
    for o in outcomes:
        row = {"task": o.candidate.spec.id, "verdict": o.verdict, "reason": o.reason, "env_error": o.infra,
               "seconds": round(o.seconds, 2), **({"idle": o.idle} if o.idle else {})}  # fmt: skip
        typer.echo(json.dumps(row, ensure_ascii=False) if json_out else f"{o.verdict:<10} {row['task']}  {o.reason}")
    ok = sum(o.verdict == "completed" and o.idle in ("", "failed") for o in outcomes)
    typer.echo(json.dumps({"tasks": len(outcomes), "completed": ok}))
    if ok < len(outcomes):
        raise typer.Exit(1)


@app.command("coverage")
def coverage(
    task_files: list[Path] = typer.Argument(None, help="Task files (default: the hand-written catalog)."),
    surface: str = typer.Option("browser", "--surface", help=SURFACE_HELP),
    runs: Path | None = typer.Option(None, "--runs", help="Episode folders: where policies fail, by capability."),
    json_out: bool = typer.Option(False, "--json", help="Print everything as one JSON object."),
) -> None:
    """Which capabilities, parameter values and app pairs a task set exercises, and where policies fail."""
    from venuskit.flywheel.synth import outcomes_from_runs
    from venuskit.tasks.spec import TaskFileError
    from venuskit.tasks.synth.coverage import coverage_of, failures_of, sampling_weights
    from venuskit.tasks.synth.surface import get_surface

    cat = _catalog(surface)
    sf = get_surface(surface)
    try:
        specs = [s for p in task_files or [] for s in sf.load_file(p)]
        sf.register(specs)
        specs = specs or list(sf.hand().values())
        outcomes = outcomes_from_runs(runs, surface) if runs is not None else []
    except (TaskFileError, FileNotFoundError, OSError) as e:
        fail(str(e))
    cov = coverage_of(specs, cat)
    fails = failures_of(outcomes, cat) if runs is not None else None
    report = {**cov.summary(cat), "by_capability": dict(sorted(cov.caps.items())),
              "app_pairs": {f"{a}+{b}": n for (a, b), n in sorted(cov.app_pairs.items())},
              "flow_counts": dict(sorted(cov.flows.items())),
              "weights": sampling_weights(cov, fails, cat)}  # fmt: skip
    if fails is not None:
        report["episodes"], report["unattributed"] = fails.episodes, fails.unattributed
        report["failures"] = fails.table()
    if json_out:
        typer.echo(json.dumps(report, ensure_ascii=False))
        return
    console.print(f"{report['tasks']} tasks · {report['capabilities_covered']}/{report['capabilities_total']} "
                  f"capabilities · {report['app_pairs_covered']}/{report['app_pairs_total']} app pairs · "
                  f"cross-app {report['cross_app_share']:.0%} · {report['flows']} data flows",
                  highlight=False)  # fmt: skip
    if report["holes"]:
        console.print("holes: " + ", ".join(report["holes"]), highlight=False)
    for row in (report.get("failures") or [])[:15]:
        console.print(f"  {row['capability']:<34} failed {row['failed']}/{row['runs']}", highlight=False)
    top = sorted(report["weights"].items(), key=lambda kv: -kv[1])[:8]
    console.print("heaviest sampling weights: " + ", ".join(f"{c} {w:.2f}" for c, w in top), highlight=False)
