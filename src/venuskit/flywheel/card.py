"""venus-nano's model card, written from the flywheel's own records: the recipe run (`summary.json`), the loop's
round table (`rounds.jsonl`), the curves (`curves.json`) and the benchmark report (`report.json`). Nothing in it is
typed by hand, so a rebuilt checkpoint gets a card that describes that very file.

    write_nano_card(card_path, checkpoint, run=Path("runs/nano"), loop=Path("runs/loop"),
                    curves=Path("runs/curves"), report=Path("runs/nano-bench/report.json"), notes=[...])
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from venuskit.infra.atomic import write_text


def _pct(x: Any) -> str:
    return "—" if x is None else f"{100 * float(x):.1f}%"


def _ci(ci: Any) -> str:
    return "" if not ci else f" [{100 * ci[0]:.0f}, {100 * ci[1]:.0f}]"


def _rate(block: dict[str, Any] | None) -> str:
    if not block:
        return "—"
    return f"{_pct(block.get('success'))} of {block.get('n')}{_ci(block.get('ci95'))}"


def _data(run: Path) -> list[str]:
    summary = json.loads((run / "summary.json").read_text("utf-8"))
    cfg, data = summary["config"], summary.get("data", {})
    files = ", ".join(Path(t).name for t in cfg["tasks"]) or "none"
    lines = [f"- Recipe run: `venus nano train` with seed {cfg['seed']}, stages {', '.join(cfg['stages'])}, "
             f"{cfg['sft_epochs']} SFT epochs, {cfg['seeds_per_variant']} training seed per variant and surface, "
             f"categories {', '.join(cfg['categories'])}, surfaces {', '.join(cfg['surfaces'])}, skins "
             f"{', '.join(map(str, cfg['skins']))}, task files {files}."]
    for name, d in data.items():
        if isinstance(d, dict) and "rows" in d:
            lines.append(f"- {name}: {d['rows']} rows, {d['examples']} examples.")
    if data.get("world_collected"):
        lines.append(f"- The world rows are a sample of the {data['world_collected']} collected, spread evenly over "
                     f"the tasks (`--world-rows {cfg.get('world_rows')}`).")  # fmt: skip
    return lines


def _rounds(loop: Path) -> list[str]:
    path = loop / "rounds.jsonl"
    if not path.is_file():
        return ["- No loop rounds."]
    config = json.loads((loop / "loop.json").read_text("utf-8")) if (loop / "loop.json").is_file() else {}
    from venuskit.eval.suites.summary import solved_row

    def short(k: int) -> str:  # a round may have evaluated every held-out category: its short templates
        res = loop / f"round_{k}" / "eval" / "results.jsonl"
        rows = [json.loads(x) for x in res.read_text("utf-8").splitlines() if x.strip()] if res.is_file() else []
        rows = [x for x in rows if x.get("category") == "short"]
        return f"{sum(map(solved_row, rows))} / {len(rows)}" if rows else "—"

    out = [f"- `venus loop`: {config.get('rollouts')} rollouts a round (browser), skins {config.get('skins')}, "
           f"{config.get('sft_epochs')} SFT epoch(s) on the base rows and every round's rows, then GRPO on the "
           f"round's; kept rows: {config.get('keep', 'sgv')}; seed {config.get('seed')}.", "",
           "| round | held-out short | held-out (as evaluated) | validation short | rows added | SGV precision / "
           "recall on rollouts | val step acc |", "|---|---|---|---|---|---|---|"]
    for line in path.read_text("utf-8").splitlines():
        r = json.loads(line)
        out.append(f"| {r['round']} | {short(r['round'])} | {_pct(r['eval_success'])} of {r['eval_episodes']}"
                   f"{_ci(r.get('eval_ci95'))} | "
                   f"{_pct(r.get('validation_success'))} of {r.get('validation_episodes')} | {r.get('rows_added')} | "
                   f"{r.get('sgv_precision')} / {r.get('sgv_recall')} | {r.get('val_step_acc')} |")
    return out


def _curves(curves: Path) -> list[str]:
    path = curves / "curves.json"
    if not path.is_file():
        return ["- Not measured."]
    c = json.loads(path.read_text("utf-8"))
    out = ["| training tasks | examples | held-out short | validation short |", "|---|---|---|---|"]
    out += [f"| {p['tasks']} | {p['examples']} | {_rate(p['heldout_short'])} | {_rate(p['validation_short'])} |"
            for p in c["scaling"]]
    out += ["", "| axis turned down | held-out short | validation short |", "|---|---|---|"]
    out += [f"| {name} ({a['name']}) | {_rate(a['heldout_short'])} | {_rate(a['validation_short'])} |"
            for name, a in c["axes"].items()]
    return out


def _figures(report: Path) -> list[str]:
    if not report.is_file():
        return ["- Not measured."]
    r = json.loads(report.read_text("utf-8"))
    figs = {k: v for k, v in r["figures"].items() if v is not None and not isinstance(v, (dict, list))}
    out = [f"- Load while measured: {r.get('load')}.", "", "| figure | value |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in figs.items()]
    if isinstance(r["figures"].get("skins"), dict):
        s = r["figures"]["skins"]
        out.append(f"| skins: default / held-out {s.get('heldout_skins')} | {_rate(s['default'])} / "
                   f"{_rate(s['heldout'])} |")
    return out


def _members(meta: dict[str, Any]) -> list[str]:
    """An ensemble's members, each by run folder and file, SHA-256, stage and seed (nothing for one network)."""
    return [f"- Member {i}: `{m.get('name')}`, SHA-256 `{m.get('sha256')}`, stage `{m.get('stage')}`, seed "
            f"`{m.get('seed')}`." for i, m in enumerate(meta.get("members") or [])]  # fmt: skip


def write_nano_card(card: Path, checkpoint: Path, *, run: Path, loop: Path, curves: Path, report: Path,
                    notes: list[str]) -> Path:  # fmt: skip
    """Write the model card of `checkpoint` (the file it describes is named by SHA-256, its weights too)."""
    from venuskit.models.nano import NanoModel

    model = NanoModel.load(checkpoint)
    digest = hashlib.sha256(Path(checkpoint).read_bytes()).hexdigest()
    parts = ["# venus-nano — model card", "",
             "The embedded default policy of venuskit, built by the flywheel: a recipe run (oracle episodes of the "
             "training templates and of synthesised train-split tasks over training skins, grounding and CAPTCHA "
             "rows), from which `venus loop` rounds continue (the policy's own rollouts, every state relabelled by "
             "the oracle, SGV-kept successes; SFT on every round's rows and the recipe's, then GRPO). Which of them "
             "this file is: its stage below and the notes. How it works: `docs/nano.md`.", "", "## Provenance", "",
             f"- The file: `{Path(checkpoint).name}`, SHA-256 `{digest}`; its weights' SHA-256 (checked at every "
             f"load) `{model.checkpoint['weights_sha256']}`; stage `{model.meta.get('stage')}`, seed "
             f"`{model.meta.get('seed')}`.", *_members(model.meta), "",
             "## Data (training splits only, `venuskit/tasks/splits.toml`)", "",
             *_data(run), "", "## Rounds", "", *_rounds(loop), "", "## Curves (SFT stage, same budget and seed)", "",
             *_curves(curves), "", "## Figures (`benchmarks/nano.py`; held-out templates, evaluation seeds, "
             "contract verdicts)", "", *_figures(report), "", "## Notes", "", *[f"- {n}" for n in notes], ""]
    return write_text(card, "\n".join(parts), durable=True)
