"""venus-nano's figures: held-out world tasks (browser short/medium, mobile short), MiniWoB++, held-out grounding,
held-out CAPTCHA types, step latency and RSS, and the stage ablation — all through venuskit's real eval paths.

    .venv/bin/python benchmarks/nano.py [--run runs/nano] [--seeds 3] [--out runs/nano-bench]
        [--ablation-seeds 1] [--miniwob-tasks 20 --miniwob-seeds 5] [--grounding-n 100] [--captcha-seeds 2]
        [--loop runs/loop] [--loop-unfiltered runs/loop-all] [--curves runs/curves] [--skins 3]

`--run` is a `venus nano train` folder: its sft/, grpo-web/ and mopd/ checkpoints give the ablation rows (each
evaluated on the held-out short browser templates), and the final checkpoint (default: the shipped one) gives the
headline figures. World episodes use evaluation seeds only (`venuskit.tasks.splits`), held-out templates only;
success is the task contract's verdict. Grounding pages come from held-out element families and an evaluation
seed; CAPTCHA from held-out types and evaluation seeds; MiniWoB++ is never training data.

Writes OUT/report.json and OUT/report.html (ablation table + the stages' learning curves, matplotlib). Human-readable
lines first; the last line is one JSON object with exactly: world_short_success, world_medium_success,
world_mobile_short_success, miniwob_success, grounding_acc, captcha_pass1, step_ms_p50, step_ms_p90, rss_mb,
ablation, validation_short_success, trained_short_success, premature_finish_rate, side_effect_rate, intervals,
scaling, skins, rounds, axes.

validation_short_success: the validation slice's short templates (training-split templates the recipe keeps out
of training) on unused training seeds. trained_short_success: the other short training-split templates on
evaluation seeds; it is the training fit only for a checkpoint trained under today's split (the shipped one was
trained when more templates were held out, so some of these it never saw). premature_finish_rate and
side_effect_rate: over every held-out world episode above, the share that ended in Finished/Answer without solving
the task, and the share with a forbidden side effect (the contract's `forbid` checks or an undeclared consequential
action). intervals: the 95% Wilson interval of each world success figure.

The flywheel's figures (null when their folder is not given):
- rounds (`--loop`, a `venus loop` folder): per round, held-out short and validation short success, rows added,
  SGV's precision and recall on that round's rollouts (against the contracts, which never pick data),
  teacher-forced validation step accuracy, and for a loop run with --judge the judge's training episodes and rows,
  its out-of-fold figures and SGV's (rules + that round's judge) precision and recall on the --judge-bench set.
- scaling and axes (`--curves`, a `flywheel.curves` folder): held-out and validation short success against the
  number of training tasks; each axis turned down alone against the full set at the same budget (environments:
  one skin; tasks: the hand-written templates only; verification: the `--loop-unfiltered` run, every rollout kept,
  against `--loop`, SGV-kept rows, at their last round).
- skins (`--skins K`): the headline checkpoint's held-out short success (browser, `--seeds` evaluation seeds) on
  the default skin and on the first K held-out skins.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

KEYS = ("world_short_success", "world_medium_success", "world_mobile_short_success", "miniwob_success",
        "grounding_acc", "captcha_pass1", "step_ms_p50", "step_ms_p90", "rss_mb", "ablation",
        "validation_short_success", "trained_short_success", "premature_finish_rate", "side_effect_rate",
        "intervals", "scaling", "skins", "rounds", "axes")  # fmt: skip
HELDOUT_WORLD = ("world_short_success", "world_medium_success", "world_mobile_short_success")
STAGE_DIRS = {"sft": "sft", "grpo": "grpo-world", "mopd": "mopd"}


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _world(model: Any, category: str, seeds: int, surface: str, out: Path, which: str = "heldout") -> dict[str, Any]:
    """Templates of `category` on `seeds` seeds — held-out (evaluation seeds), validation (unused training seeds) or
    trained (evaluation seeds); the result is kept in out/result.json, so a rerun (or the ablation row of the same
    checkpoint) reuses it."""
    from venuskit.eval.nano_eval import validation_success, world_success
    from venuskit.tasks import splits

    cached = out / "result.json"
    key = {"checkpoint": model.meta.get("path"), "category": category, "seeds": seeds, "surface": surface,
           "templates": which}  # fmt: skip
    if cached.is_file() and json.loads(cached.read_text()).get("key") == key:
        return json.loads(cached.read_text())
    ev = splits.eval_seeds(splits.load().world_eval_seeds, seeds)
    t0 = time.monotonic()
    if which == "validation":
        result = validation_success(model, out, seeds, surface, category)
    else:
        templates = (splits.world_templates("heldout", category) if which == "heldout"
                     else splits.training_templates([category]))  # fmt: skip
        result = world_success(model, templates, ev, surface, out)
    result = {**result, "key": key}
    out.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(result))
    _say(
        f"world {which} {category}/{surface}: {result['success']:.1%} of {result['n']} ({time.monotonic() - t0:.0f} s)"
    )
    return result


def _speed(out: Path, model: Any) -> dict[str, float]:
    """Per-step latency as the runner recorded it in the world episodes above (`timings.model_s`: screenshot
    decode, reading, features, network, reply text — everything the policy does), and this process's RSS (the
    browser is its own process and not counted)."""
    import statistics

    import psutil

    from venuskit.record.store import load_episode

    ms = sorted(1000 * s.timings["model_s"] for d in out.glob("world-*/*/") if (d / "manifest.json").is_file()
                for s in load_episode(d).steps if "model_s" in s.timings)  # fmt: skip
    p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))] if ms else 0.0
    from venuskit.eval.nano_eval import step_speed

    # RSS after the policy has read screens in this process (reader, OCR engine, caches loaded), as in a run.
    shots = sorted(out.glob("world-*/*/step_*.png"))[:20]
    step_speed(model, [p.read_bytes() for p in shots], "Open the first message in the list.")
    return {"step_ms_p50": statistics.median(ms) if ms else 0.0, "step_ms_p90": p90,
            "rss_mb": psutil.Process().memory_info().rss / 2**20}  # fmt: skip


def _curves_png(run: Path) -> str | None:
    """The recipe's stage curves (SFT loss, GRPO reward, MOPD's taught share, validation step accuracy)."""
    from venuskit.eval.report import png_data_url, pyplot

    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.4))
    for ax, (stage, key, label) in zip(axes, (("sft", "loss", "SFT loss"), ("grpo-world", "mean_reward",
                                          "GRPO (world) mean reward"), ("mopd", "supervised_share",
                                          "MOPD: share of samples still taught")), strict=True):  # fmt: skip
        path = run / stage / "metrics.json"
        if path.is_file():
            curve = json.loads(path.read_text())["metrics"].get("curve", [])
            ax.plot([p["epoch"] for p in curve], [p.get(key, 0) for p in curve], marker="o")
            vals = [(p["epoch"], p["val"]["step_acc"]) for p in curve if isinstance(p.get("val"), dict)]
            if vals:
                ax2 = ax.twinx()
                ax2.plot(*zip(*vals, strict=True), color="tab:green", marker="s")
                ax2.set_ylabel("val step accuracy", color="tab:green")
        ax.set_title(label)
        ax.set_xlabel("epoch")
    fig.tight_layout()
    return png_data_url(fig)


def _html(report: dict[str, Any], run: Path | None) -> str:
    head = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(json.dumps(report['figures'][k]))}</td></tr>"
                   for k in KEYS if k != "ablation")  # fmt: skip
    abl = report["figures"]["ablation"]
    cols = sorted({k for v in abl.values() for k in v})
    rows = "".join(f"<tr><td>{s}</td>" + "".join(f"<td>{abl[s].get(c, '')}</td>" for c in cols) + "</tr>"
                   for s in abl)  # fmt: skip
    from venuskit.eval.flywheel_report import figures_html

    curves = _curves_png(run) if run else None
    img = (f'<h2>Learning curves</h2><img src="{curves}">' if curves else "") + figures_html(report["figures"])
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>venus-nano</title><style>body{{font:14px "
            "sans-serif;margin:24px}}td,th{{padding:3px 10px;border-bottom:1px solid #ddd}}</style></head><body>"
            f"<h1>venus-nano</h1><p>load: {html.escape(str(report['load']))}</p><h2>Figures</h2><table>{head}</table>"
            f"<h2>Ablation (held-out short browser templates)</h2><table><tr><th>stage</th>"
            + "".join(f"<th>{c}</th>" for c in cols) + f"</tr>{rows}</table>{img}</body></html>")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", type=Path, default=None, help="A `venus nano train` run folder (for the ablation).")
    ap.add_argument("--checkpoint", type=Path, default=None, help="Headline checkpoint (default: the shipped one).")
    ap.add_argument("--out", type=Path, default=Path("runs/nano-bench"))
    ap.add_argument("--seeds", type=int, default=3, help="Evaluation seeds per held-out world template.")
    ap.add_argument("--ablation-seeds", type=int, default=3)
    ap.add_argument("--miniwob-tasks", type=int, default=20)
    ap.add_argument("--miniwob-seeds", type=int, default=5)
    ap.add_argument("--grounding-n", type=int, default=100)
    ap.add_argument("--captcha-seeds", type=int, default=2)
    ap.add_argument("--skip", default="", help="Comma list of figures to leave out (reported as null).")
    ap.add_argument("--stages", default="sft,grpo,mopd", help="Ablation rows to evaluate (with --run).")
    ap.add_argument("--loop", type=Path, default=None, help="A `venus loop` folder (rounds; SGV-kept rows).")
    ap.add_argument("--loop-unfiltered", type=Path, default=None, help="The same loop with --keep all (axes).")
    ap.add_argument("--curves", type=Path, default=None, help="A flywheel.curves folder (scaling, axes).")
    ap.add_argument("--skins", type=int, default=0, help="Held-out skins for the skins figure (0: not measured).")
    ap.add_argument("--workers", type=int, default=2, help="Workers of the suite-run figures (skins).")
    args = ap.parse_args()

    import torch

    torch.set_num_threads(1)
    from venuskit.eval import nano_eval as ev
    from venuskit.models.nano import load_default

    skip = {s for s in args.skip.split(",") if s}
    load_before = os.getloadavg()
    model = _load(args.checkpoint) if args.checkpoint else load_default()
    out = args.out
    figures: dict[str, Any] = dict.fromkeys(KEYS)
    details: dict[str, Any] = {}
    plan = [("world_short_success", lambda: _world(model, "short", args.seeds, "browser", out / "world-short")),
            ("world_medium_success", lambda: _world(model, "medium", args.seeds, "browser", out / "world-medium")),
            ("world_mobile_short_success", lambda: _world(model, "short", args.seeds, "mobile", out / "world-mobile")),
            ("validation_short_success", lambda: _world(model, "short", args.seeds, "browser",
                                                        out / "world-validation-short", "validation")),
            ("trained_short_success", lambda: _world(model, "short", args.seeds, "browser",
                                                     out / "world-trained-short", "trained")),
            ("grounding_acc", lambda: ev.grounding_acc(model, out / "grounding", args.grounding_n)),
            ("captcha_pass1", lambda: ev.captcha_pass1(model, out / "captcha", args.captcha_seeds)),
            ("miniwob_success", lambda: ev.miniwob_success(model, out / "miniwob", seeds=args.miniwob_seeds,
             tasks=None if args.miniwob_tasks >= 20 else _miniwob_tasks(args.miniwob_tasks)))]  # fmt: skip
    for key, fn in plan:
        if key in skip:
            continue
        cached = out / f"{key}.json"  # every figure is kept, so parallel runs (different --skip) can be merged
        if cached.is_file() and json.loads(cached.read_text()).get("_checkpoint") == str(args.checkpoint):
            result = json.loads(cached.read_text())
        else:
            result = {**fn(), "_checkpoint": str(args.checkpoint)}
            out.mkdir(parents=True, exist_ok=True)
            cached.write_text(json.dumps(result, default=str))
        details[key] = result
        figures[key] = round(result.get("success", result.get("acc", result.get("pass1", 0.0))), 4)
        _say(f"{key}: {figures[key]}")
    figures.update(_done_decision(details))
    if "speed" not in skip:
        speed = _speed(out, model)
        figures.update({k: round(v, 1) for k, v in speed.items()})
        _say(f"speed: {speed}")
    ablation: dict[str, Any] = {}
    if args.run is not None and "ablation" not in skip:
        for stage, folder in STAGE_DIRS.items():
            ckpt = args.run / folder / "venus-nano.pt"
            if ckpt.is_file() and stage in args.stages.split(","):
                r = _world(_load(ckpt), "short", args.ablation_seeds, "browser", out / f"ablation-{stage}")
                ablation[stage] = {"world_short_success": round(r["success"], 4), "n": r["n"],
                                   "ci95": [round(x, 4) for x in r["ci95"]]}  # fmt: skip
    figures["ablation"] = ablation
    if args.loop is not None:
        figures["rounds"] = _rounds(args.loop)
    curves = None
    if args.curves is not None:
        from venuskit.flywheel.curves import read_curves

        curves = read_curves(args.curves)
        figures["scaling"] = curves["scaling"]
    figures["axes"] = _axes(curves, args.loop, args.loop_unfiltered)
    if args.skins and "skins" not in skip:
        figures["skins"] = _skins(args.checkpoint, args.skins, args.seeds, out / "skins", args.workers)
        _say(f"skins: {figures['skins']}")
    from venuskit.models.nano.icons import default_namer

    namer = default_namer()  # its figures come from its training run (`venus nano icons`: metrics.json)
    report = {"figures": figures, "details": details, "load": {"before": load_before, "after": os.getloadavg()},
              "checkpoint": str(args.checkpoint or "shipped"), "done_check": model.done_check,
              "icon_namer": {"sha256": namer.sha256, **namer.meta} if namer else None}  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=1, default=str))
    (out / "report.html").write_text(_html(report, args.run))
    _say(f"report: {out / 'report.html'}")
    print(json.dumps({k: figures[k] for k in KEYS}))


def _rounds(loop: Path) -> list[dict[str, Any]]:
    """The round table of a `venus loop` folder, the figures the issue names per round."""
    path = loop / "rounds.jsonl"
    if not path.is_file():
        raise SystemExit(f"--loop {loop}: no rounds.jsonl (run `venus loop --out {loop}` first).")
    keys = ("round", "eval_success", "eval_episodes", "eval_ci95", "validation_success", "validation_episodes",
            "rows_added", "rows", "base_examples", "verified", "sgv_precision", "sgv_recall", "val_step_acc",
            "rollout_success", "judge_episodes", "judge_rows", "judge_oof_precision", "judge_oof_recall",
            "judge_bench_episodes", "judge_bench_precision", "judge_bench_recall", "judge_bench_ci95",
            "judge_miniwob_episodes", "judge_miniwob_precision", "judge_miniwob_recall", "judge_miniwob_ci95",
            "seconds")  # fmt: skip
    table = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [{**{k: r.get(k) for k in keys}, **_endings(loop / f"round_{r['round']}" / "eval")} for r in table]


def _endings(suite: Path) -> dict[str, int]:
    """Held-out short success (a round may evaluate every held-out category), premature Finished/Answer (the
    episode ended as done and was not solved) and side effects (a contract's forbidden check fired) among a suite
    run's held-out episodes."""
    from venuskit.eval.suites.summary import solved_row

    path = suite / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.is_file() else []
    short = [r for r in rows if r.get("category") == "short"]
    return {"heldout_short_success": round(sum(map(solved_row, short)) / len(short), 4) if short else None,
            "heldout_short_n": len(short),
            "premature_finish": sum(r.get("end") in ("finished", "answer") and not solved_row(r) for r in rows),
            "side_effects": sum(bool(r.get("forbidden")) for r in rows)}  # fmt: skip


def _skins(checkpoint: Path | None, k: int, seeds: int, out: Path, workers: int) -> dict[str, Any]:
    """Held-out short success (browser) on the default skin and on the first k held-out skins."""
    from venuskit.eval.suites.world import WorldSuiteConfig, run_world_suite
    from venuskit.models.nano import default_checkpoint
    from venuskit.runs.parallel import Parallel
    from venuskit.runs.policies import PolicySpec
    from venuskit.tasks import splits

    held = splits.heldout_skins(k)
    short = ",".join(splits.world_templates("heldout", "short"))  # the suite takes globs: list them
    cfg = WorldSuiteConfig(out=str(out), policy=PolicySpec("nano", checkpoint=str(checkpoint or default_checkpoint())),
                           split="heldout", templates=short, n_seeds=seeds, surfaces=("browser",), sgv="off",
                           skins=(0, *held))  # fmt: skip
    run_world_suite(cfg, Parallel(workers=workers), resume=(out / "suite.json").exists())
    from venuskit.eval.metrics import wilson
    from venuskit.eval.suites.summary import solved_row

    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]

    def tally(group: str) -> dict[str, Any]:
        mine = [r for r in rows if r.get("skins") == group]
        k, n = sum(map(solved_row, mine)), len(mine)
        return {"success": round(k / n, 4) if n else None, "n": n, "ci95": [round(x, 4) for x in wilson(k, n)]}

    return {"default": tally("default"), "heldout": tally("heldout"), "heldout_skins": held}


def _axes(curves: dict[str, Any] | None, loop: Path | None, unfiltered: Path | None) -> dict[str, Any] | None:
    if curves is None and unfiltered is None:
        return None
    axes = dict(curves["axes"]) if curves else {}
    if loop is not None and unfiltered is not None:
        kept, every = _rounds(loop)[-1], _rounds(unfiltered)[-1]
        axes["verification"] = {"sgv_kept": {"heldout_short": kept["eval_success"], "n": kept["eval_episodes"],
                                             "validation_short": kept["validation_success"]},
                                "unfiltered": {"heldout_short": every["eval_success"], "n": every["eval_episodes"],
                                               "validation_short": every["validation_success"]}}  # fmt: skip
    return axes


def _done_decision(details: dict[str, Any]) -> dict[str, Any]:
    """Premature Finished and side-effect rates over the held-out world episodes, and each world figure's interval."""
    rows = [r for k in HELDOUT_WORLD if k in details for r in details[k].get("rows", [])]
    n = len(rows)

    def rate(key: str) -> float | None:
        return round(sum(bool(r.get(key)) for r in rows) / n, 4) if n else None

    intervals = {k: [round(x, 4) for x in v["ci95"]] for k, v in details.items() if "ci95" in v}
    return {
        "premature_finish_rate": rate("premature_finish"),
        "side_effect_rate": rate("side_effect"),
        "intervals": intervals,
    }


def _load(path: Path) -> Any:
    from venuskit.models.nano import NanoModel

    model = NanoModel.load(path)
    model.meta["path"] = str(Path(path).resolve())
    return model


def _miniwob_tasks(n: int) -> list[str]:
    from venuskit.envs.miniwob import list_tasks

    return list_tasks(deterministic_only=True)[:n]


if __name__ == "__main__":
    main()
