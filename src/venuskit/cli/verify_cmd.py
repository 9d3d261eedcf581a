"""`venus verify EPISODE_DIR` (SGV on one recorded episode), `venus verify bench` (score verifier
configurations on a labelled set: world episodes labelled by contracts, or MiniWoB++ episodes labelled by the
page's reward; next to the final-screenshot and WebJudge-shaped baselines), `venus verify steps` (the step
verifier) and `venus verify train-judge` (the nano judge).

`venus verify DIR` is short for `venus verify episode DIR`: the group routes any first argument that is not
a subcommand to `episode`, so an episode folder named like a subcommand needs a path (`./bench`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from typer.core import TyperGroup

from venuskit.cli.common import console, fail

DEFAULT_SET = Path("runs/verify-bench")
DEFAULT_MINIWOB = Path("runs/verify-miniwob")


class _EpisodeByDefault(TyperGroup):
    """A group whose first argument, when it names no subcommand, is an episode folder for `episode`."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["episode", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(cls=_EpisodeByDefault, no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


@app.callback()
def verify() -> None:
    """Verify recorded episodes with SGV (keypoints, windows, judge votes), or score verifiers on the bench.

    venus verify EPISODE_DIR [--judges ocr,log,nano] [--model URL]        one episode
    venus verify bench [--judges ocr,log,nano] [--set-kind miniwob] [--json]   the bench (honest protocol)
    venus verify steps [--set DIR] [--nano | --model URL] [--json]        the step verifier on the same set
    venus verify train-judge --seed S                                     train the nano judge
    """


class JudgeOpts:
    judges = typer.Option("ocr,log", "--judges", help="Judges, e.g. ocr,log | ocr,log,nano | ocr,log,vlm | vlm*3.")
    nano_url = typer.Option(None, "--nano-url", help="A running `venus serve judge` (default: served in-process).")
    evidence = typer.Option("generic", "--evidence", help="generic (pixels, log, URL and title) | world (also "
                            "the world's success flashes; never a headline).")  # fmt: skip
    model = typer.Option(None, "--model", help="OpenAI-compatible judge endpoint; adds the VLM judge.")
    model_name = typer.Option(None, "--model-name", help="Served judge model (default: the server's first).")
    api_key = typer.Option("", "--api-key", help="API key (default: $VENUS_API_KEY, else 'EMPTY').")
    timeout = typer.Option(120.0, "--timeout", help="Seconds per judge call.")
    json_out = typer.Option(False, "--json", help="Print JSON instead of a table.")


def _judges(spec: str, model: str | None, model_name: str | None, api_key: str, timeout: float,
            nano_url: str | None = None) -> list[Any]:  # fmt: skip
    """The judge list; with --model the VLM judge joins if the spec does not name it already."""
    from venuskit.models.judge import JudgeError
    from venuskit.verify.judges import make_judges

    if model is None:
        if "vlm" in spec:
            fail(f"--judges {spec} names the VLM judge; pass --model URL of an OpenAI-compatible server.")
        try:
            return make_judges(spec, nano_url=nano_url, timeout_s=timeout)
        except JudgeError as e:
            fail(str(e))
    key = api_key or os.environ.get("VENUS_API_KEY", "") or "EMPTY"
    if "vlm" not in spec:
        spec = f"{spec},vlm" if spec.strip() else "vlm"
    if model_name is None:
        from venuskit.cli.eval_cmd import served_model

        model_name = served_model(model, key)
    return make_judges(spec, model_url=model, model_name=model_name, api_key=key, timeout_s=timeout, nano_url=nano_url)


def contract_keypoints(episode: Any) -> list[str] | None:
    """The keypoint descriptions of the world task an episode ran (from the task catalog, never from the
    episode's recorded verdict); None when the episode is no world task or its task has no keypoints."""
    from venuskit.tasks.spec import get_task

    task_id = episode.task.get("world_task")
    if not task_id:
        return None
    try:
        inst = get_task(task_id).instance(int(episode.task.get("seed", 0)))
    except KeyError:
        return None
    return [k.desc for k in inst.keypoints] or None


@app.command("episode")
def episode_cmd(
    episode_dir: Path = typer.Argument(..., help="An episode folder (manifest.json, steps.jsonl, screenshots)."),
    judges: str = JudgeOpts.judges,
    model: str | None = JudgeOpts.model,
    model_name: str | None = JudgeOpts.model_name,
    api_key: str = JudgeOpts.api_key,
    timeout: float = JudgeOpts.timeout,
    nano_url: str | None = JudgeOpts.nano_url,
    evidence: str = JudgeOpts.evidence,
    from_contract: bool = typer.Option(
        False,
        "--keypoints-from-contract/--no-keypoints-from-contract",
        help="World episodes: use the task contract's keypoint texts (they can hold the answer: not honest) "
        "instead of keypoints from the goal.",
    ),  # fmt: skip
    json_out: bool = JudgeOpts.json_out,
    write: bool = typer.Option(True, "--write/--no-write", help="Store the report in the manifest (verdicts.sgv)."),
) -> None:
    """Verify one recorded episode with SGV and print the keypoints, their evidence and the verdict."""
    if not (episode_dir / "manifest.json").exists():
        fail(f"{episode_dir} is not an episode folder (no manifest.json).")
    from venuskit.record.store import EpisodeStoreError, load_episode
    from venuskit.verify.sgv import SGVConfig, verify_episode, write_report

    try:
        episode = load_episode(episode_dir)
        keypoints = contract_keypoints(episode) if from_contract else None
        judge_list = _judges(judges, model, model_name, api_key, timeout, nano_url)
        report = verify_episode(episode_dir, judge_list, config=SGVConfig(evidence=evidence), keypoints=keypoints)
        if write:
            write_report(episode_dir, report, slot="sgv")
    except (ValueError, EpisodeStoreError) as e:
        fail(str(e))
    if json_out:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False))
        return
    _print_report(report, episode)


def _print_report(report: Any, episode: Any) -> None:
    table = Table(title=f"SGV: {episode.goal[:90]}", show_lines=False)
    for col in ("#", "keypoint", "status", "step", "decided by"):
        table.add_column(col)
    colour = {"satisfied": "green", "contradicted": "red"}
    for i, kp in enumerate(report.keypoints):
        c = colour.get(kp.status, "yellow")
        step = "-" if kp.evidence_step is None else str(kp.evidence_step)
        table.add_row(str(i + 1), kp.text, f"[{c}]{kp.status}[/{c}]", step, kp.decided_by)
    console.print(table)
    contract = (episode.verdicts.get("contract") or {}).get("verdict")
    cost = report.cost
    against = f"  (contract: {contract})" if contract else ""
    console.print(f"[bold]{report.verdict}[/bold]: {report.reason}{against}")
    if not report.decided:  # what to route to a stronger judge or a person, and the verdict if forced
        console.print(f"forced to choose: {report.forced}")
        for u in report.undecided:
            console.print(f"[yellow]undecided:[/yellow] {u['keypoint']} ({u['why']})")
    console.print(f"cost: {cost.calls} model calls, {cost.tokens} tokens, {cost.seconds:.2f} s")
    for m in report.missing:
        console.print(f"[yellow]missing:[/yellow] {m}")


@app.command("bench")
def bench_cmd(
    judges: str = JudgeOpts.judges,
    model: str | None = JudgeOpts.model,
    model_name: str | None = JudgeOpts.model_name,
    api_key: str = JudgeOpts.api_key,
    timeout: float = JudgeOpts.timeout,
    nano_url: str | None = JudgeOpts.nano_url,
    evidence: str = JudgeOpts.evidence,
    keypoints: str = typer.Option("goal", "--keypoints", help="goal (SGV extracts them) | contract (the "
                                  "contract's texts: they can hold the answer; never a headline)."),  # fmt: skip
    set_kind: str = typer.Option("world", "--set-kind", help="world (labels from contracts) | miniwob (labels "
                                 "from the page's own reward: a set no contract wrote)."),  # fmt: skip
    set_dir: Path | None = typer.Option(None, "--set", help="The labelled set (built there first if missing); "
                                        "default runs/verify-bench (world) or runs/verify-miniwob."),  # fmt: skip
    split: str = typer.Option("heldout", "--split", help="World templates of a new set: heldout | train | all."),
    n_tasks: int = typer.Option(48, "--n-tasks", help="Feasible tasks of a new world set (1/3 questions; "
                                "plus ~1/4 infeasible)."),  # fmt: skip
    others: int = typer.Option(4, "--others", help="Kinds drawn per task besides the oracle and noisy runs "
                               "(0: every kind)."),  # fmt: skip
    seed: int = typer.Option(0, "--seed", help="Picks the tasks and their variants of a new world set."),
    seeds: int = typer.Option(5, "--seeds", help="Episode seeds per task of a new MiniWoB++ set (from 5000)."),
    locales: str = typer.Option("en,zh", "--locales", help="Task variants of a new set: en, zh or en,zh."),
    surfaces: str = typer.Option("browser,mobile", "--surfaces", help="Surfaces of a new set: browser, mobile."),
    questions: bool = typer.Option(True, "--questions/--no-questions", help="Include question tasks in a new set."),
    rebuild: bool = typer.Option(False, "--rebuild", help="Run the episodes again even if the set exists."),
    extend: bool = typer.Option(False, "--extend", help="Add to an existing set the episodes these options add "
                                "(new kinds such as agent, more --seeds); the others are kept, not rerun."),
    methods: str = typer.Option("sgv,final_screenshot", "--methods", help="Verifiers side by side: sgv, "
                                "final_screenshot, webjudge (needs a model judge)."),  # fmt: skip
    kinds: str = typer.Option("", "--kinds", help="Only these episode kinds, e.g. oracle,claimed_done (default all)."),
    limit: int = typer.Option(0, "--limit", help="Only the first N items (0: all)."),
    workers: int = typer.Option(1, "--workers", help="Processes that run a new world set's episodes (each its own "
                                "world server and Chromium); the same set as one."),
    json_out: bool = JudgeOpts.json_out,
) -> None:
    """Score SGV (and the baselines) with these judges on a labelled set, under the honest protocol by default:
    keypoints from the goal, generic evidence."""
    from venuskit.eval.report import write_json_report
    from venuskit.eval.verify_bench import INDEX, build_miniwob_set, build_set, run_bench
    from venuskit.runs.parallel import Parallel

    if set_kind not in ("world", "miniwob"):
        fail(f"--set-kind must be world or miniwob, not {set_kind!r}.")
    folder = set_dir or (DEFAULT_SET if set_kind == "world" else DEFAULT_MINIWOB)
    try:
        if rebuild or extend or not (folder / INDEX).exists():
            with console.status(f"building the labelled {set_kind} set in Chromium…") as status:
                progress = lambda r: status.update(f"set: {r['id']} -> {r.get('label')}")  # noqa: E731
                if set_kind == "world":
                    build_set(folder, n_tasks, seed, split=split, others=others, rebuild=rebuild,
                              locales=_names(locales), surfaces=_names(surfaces), questions=questions,
                              on_item=progress, parallel=Parallel(workers=workers))  # fmt: skip
                else:
                    build_miniwob_set(folder, seeds=range(5000, 5000 + seeds), rebuild=rebuild, on_item=progress)
        judge_list = _judges(judges, model, model_name, api_key, timeout, nano_url)
        with console.status("verifying…") as status:
            only = _names(kinds) or None
            result = run_bench(folder, judge_list, keypoint_source=keypoints, evidence=evidence,
                               methods=_names(methods), kinds=only, limit=limit,
                               on_item=lambda m, i, r: status.update(f"{m}: {i['id']} -> {r.verdict}"))  # fmt: skip
    except (ValueError, FileNotFoundError) as e:
        fail(str(e))
    result["judges"] = judges if model is None else f"{judges}+vlm({model})"
    write_json_report(folder / f"bench-{_slug(judges)}-{keypoints}-{evidence}.json", result)
    if json_out:
        typer.echo(json.dumps(result, ensure_ascii=False))
        return
    _print_bench(result)


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text).strip("-") or "judges"


BENCH_ROWS = (
    ("precision", "precision (completed)"), ("recall", "recall (completed)"), ("f1", "F1 (completed)"),
    ("fpr", "false-positive rate"), ("kappa", "Cohen's kappa (4-way)"), ("macro_f1_4way", "macro-F1 (4-way)"),
    ("accuracy", "accuracy (4-way)"), ("adversarial_catch", "adversarial caught"),
    ("adversarial_false_completed", "adversaries called completed"),
)  # fmt: skip
DECIDED_ROWS = (("coverage", "coverage (share decided)"), ("precision", "precision on decided (completed)"),
                ("recall", "recall on decided (completed)"))  # fmt: skip


def _print_bench(result: dict[str, Any]) -> None:
    methods = [("SGV", result)] + ([("final screenshot", result["baseline"])] if "baseline" in result else [])
    methods += [("WebJudge-shaped", result["webjudge"])] if "webjudge" in result else []
    table = Table(title=f"verify bench ({result['set_kind']}, {result['split']}; keypoints from "
                        f"{result['keypoint_source']}, {result['evidence']} evidence): {result['n_episodes']} "
                        f"episodes ({result['n_adversarial']} adversarial), judges {result['judges']}")  # fmt: skip
    table.add_column("metric")
    for name, _ in methods:
        table.add_column(name, justify="right")
    for key, label in DECIDED_ROWS:
        table.add_row(label, *(f"{(m if key == 'coverage' else m['decided'])[key]:.3f}" for _, m in methods))
    for key, label in BENCH_ROWS:  # uncertain episodes at the verdict SGV gives when forced
        table.add_row(f"{label}, forced", *(f"{m[key]:.3f}" for _, m in methods))
    for f in ("calls", "images", "prompt_tokens", "seconds"):
        table.add_row(f"{f} / episode (median, mean)",
                      *(f"{m['cost'][f]['median']:.2f}, {m['cost'][f]['mean']:.2f}" for _, m in methods))  # fmt: skip
    console.print(table)
    wj = result["webjudge_cost"]
    console.print(f"vs WebJudge (N+2 calls, {wj['images']['mean']:.1f} images and {wj['prompt_tokens']['mean']:.0f} "
                  f"prompt tokens per episode): images {result['images_vs_webjudge']:.3f}x, prompt tokens "
                  f"{result['tokens_vs_webjudge']:.3f}x")  # fmt: skip
    if "by_family" in result:
        _print_groups("SGV by family", result["by_family"])
    if "by_share" in result:
        _print_groups("SGV by share", result["by_share"])
    for name, m in methods:
        _print_confusion(name, m)
        if m["errors"]:
            console.print(f"[red]{len(m['errors'])} episodes could not be verified[/red]: {m['errors'][0]['error']}")


def _print_groups(title: str, groups: dict[str, dict[str, Any]]) -> None:
    table = Table(title=title)
    for col in ("group", "episodes", "completed", "coverage", "precision (decided)", "recall (decided)",
                "adversaries called completed"):
        table.add_column(col, justify="left" if col == "group" else "right")
    for name, g in groups.items():
        # No `completed` called: precision is undefined, not 0 (a 0.00 there would read as all calls wrong).
        precision = f"{g['precision_decided']:.2f}" if g["called_completed"] else "— (none called)"
        table.add_row(name, str(g["n"]), str(g["n_completed"]), f"{g['coverage']:.2f}", precision,
                      f"{g['recall_decided']:.2f}", f"{g['adversarial_false_completed']} / {g['n_adversarial']}")
    console.print(table)


def _print_confusion(name: str, m: dict[str, Any]) -> None:
    classes = m["confusion"]["classes"]
    table = Table(title=f"{name}: rows = label, columns = verdict (uncertain ones as forced)")
    table.add_column("")
    for c in classes:
        table.add_column(c, justify="right")
    for c, row in zip(classes, m["confusion"]["rows_true_cols_pred"], strict=True):
        table.add_row(c, *map(str, row))
    console.print(table)


# ---- venus verify steps: the step verifier on the bench set (eval/step_bench.py) ------------------------


@app.command("steps")
def steps_cmd(
    set_dir: Path = typer.Option(DEFAULT_SET, "--set", help="A set built by `venus verify bench` (index.json)."),
    model: str | None = JudgeOpts.model,
    model_name: str | None = JudgeOpts.model_name,
    api_key: str = JudgeOpts.api_key,
    timeout: float = JudgeOpts.timeout,
    rules: bool = typer.Option(True, "--rules/--no-rules", help="Run the rule checks before the model judge."),
    nano: bool = typer.Option(False, "--nano", help="The trained nano judge in the model slot (over the wire)."),
    nano_url: str | None = JudgeOpts.nano_url,
    out: Path | None = typer.Option(None, "--out", help="Also write the full result (every verdict) as JSON here."),
    json_out: bool = JudgeOpts.json_out,
) -> None:
    """Score the step verifier: right oracle steps (false rejections) and faulty proposals made at the same
    moments (catch rate per fault kind), with the rules and, with --model, the VLM step judge."""
    from venuskit.eval.report import write_json_report
    from venuskit.eval.step_bench import run_step_bench

    judge = None
    if nano or nano_url:
        from venuskit.models.judge import JudgeError
        from venuskit.verify.judges import nano_judge

        try:
            judge = nano_judge(nano_url, timeout_s=timeout)
        except JudgeError as e:
            fail(str(e))
    elif model is not None:
        from venuskit.verify.judges import VLMJudge

        key = api_key or os.environ.get("VENUS_API_KEY", "") or "EMPTY"
        if model_name is None:
            from venuskit.cli.eval_cmd import served_model

            model_name = served_model(model, key)
        judge = VLMJudge.from_url(model, model_name, api_key=key, timeout_s=timeout)
    try:
        with console.status("replaying steps…") as status:
            progress = lambda r: status.update(f"{r['id']} step {r['step']}: {r['kind']}")  # noqa: E731
            result = run_step_bench(set_dir, judge, rules=rules, on_row=progress)
    except (ValueError, FileNotFoundError) as e:
        fail(str(e))
    used = "nano" if judge is not None and model is None else f"vlm({model})" if model else ""
    result["verifier"] = "+".join(x for x in ("rules" if rules else "", used) if x)
    if out is not None:
        write_json_report(out, result)
    summary = {k: v for k, v in result.items() if k != "rows"}
    if json_out:
        typer.echo(json.dumps(summary, ensure_ascii=False))
        return
    _print_steps(summary)


def _print_steps(m: dict[str, Any]) -> None:
    cost = m["cost"]
    table = Table(title=f"step verifier ({m['verifier']}): {m['n_right_steps']} right steps, {m['n_faults']} faults, "
                        f"{m['n_episodes']} episodes")  # fmt: skip
    for col in ("fault kind", "n", "caught", "rate", "labels"):
        table.add_column(col, justify="left" if col in ("fault kind", "labels") else "right")
    for kind, k in m["catch_by_kind"].items():
        labels = ", ".join(f"{lab} {n}" for lab, n in sorted(k["labels"].items()))
        table.add_row(kind, str(k["n"]), str(k["caught"]), f"{k['rate']:.3f}", labels)
    table.add_row("[bold]all faults[/bold]", str(m["n_faults"]), str(m["caught"]), f"{m['catch_rate']:.3f}",
                  f"macro {m['catch_rate_macro']:.3f}")  # fmt: skip
    console.print(table)
    console.print(f"false rejections: {m['false_rejections']} of {m['n_right_steps']} right steps "
                  f"({m['false_rejection_rate']:.3f}); labels {m['labels_right']}")  # fmt: skip
    console.print(f"reject: precision {m['precision']:.3f}, recall {m['recall']:.3f}, F1 {m['f1']:.3f}")
    per = cost["seconds_per_step"]["mean"]
    console.print(f"cost: {cost['calls']} model calls ({cost['calls_per_step']:.2f}/proposal), "
                  f"{per:.3f} s/proposal mean, {cost['seconds_total']:.1f} s in all")  # fmt: skip
    if m["unjudged"]:
        console.print(f"[yellow]{m['unjudged']} proposals passed unjudged (model error or garbage)[/yellow]")
    for e in m["errors"]:
        console.print(f"[red]could not read[/red] {e['id']}: {e['error']}")


# ---- venus verify train-judge: the nano judge from the training templates -------------------------------------


@app.command("train-judge")
def train_judge_cmd(
    seed: int = typer.Option(0, "--seed", help="Seeds the training set's picks, the folds and the weights."),
    set_dir: Path = typer.Option(Path("runs/judge-train"), "--set", help="Where the training set is built (reused)."),
    out: Path | None = typer.Option(None, "--out", help="Write the weights here (default: the packaged ones)."),
    tasks: list[Path] = typer.Option([], "--tasks", help="Synthesised task files whose train-split tasks join the "
                                     "set's pool. Repeatable."),  # fmt: skip
    n_tasks: int = typer.Option(32, "--n-tasks", help="Feasible tasks of the set (plus ~1/4 infeasible)."),
    others: int = typer.Option(4, "--others", help="Kinds per task besides the oracle and noisy runs (0: all)."),
    workers: int = typer.Option(1, "--workers", help="Processes that run the set's episodes (each its own world "
                                "server and Chromium) and then make its rows; the same set and rows as one."),
    max_tasks: int | None = typer.Option(None, "--max-tasks", help="Only the first N picks the build runs (a "
                                         "fixed shuffle of all of them): the set a full build holds at N."),
    locales: str = typer.Option("en,zh", "--locales", help="Task variants of the set: en, zh or en,zh."),
    also: list[Path] = typer.Option([], "--also", help="A training set built before by this command (its own "
                                    "--set, seed, locales) whose rows join the fit. Repeatable."),  # fmt: skip
    fit_seed: int | None = typer.Option(None, "--fit-seed", help="Seeds the folds, the initialisation and the "
                                        "batch order (default: --seed)."),  # fmt: skip
    json_out: bool = JudgeOpts.json_out,
) -> None:
    """Build the training set (training templates, train seeds; cached), make rows from SGV's and the step
    verifier's own requests (kept in the set), fit the nano judge on them and on those of the --also sets, and
    write its weights and model card."""
    from venuskit.flywheel.judge import train_judge

    try:
        with console.status("training the nano judge…") as status:
            metrics = train_judge(set_dir, seed, out=out, on_item=lambda i: status.update(f"rows: {i}"),
                                  tasks=[str(p) for p in tasks], n_tasks=n_tasks, others=others,
                                  workers=workers, limit=max_tasks, also=also, fit_seed=fit_seed,
                                  locales=[x.strip() for x in locales.split(",") if x.strip()])  # fmt: skip
    except (ValueError, FileNotFoundError) as e:
        fail(str(e))
    if json_out:
        typer.echo(json.dumps(metrics, ensure_ascii=False))
        return
    console.print(f"judge written to {metrics['weights']} ({metrics['bytes'] / 1e6:.2f} MB): rows {metrics['rows']}, "
                  f"out-of-fold {metrics['out_of_fold']}, {metrics['cpu_seconds_total']:.0f} CPU-s")  # fmt: skip
