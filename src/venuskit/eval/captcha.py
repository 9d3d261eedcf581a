"""CAPTCHA Pass@1: the UI-Venus-2 CAPTCHA prompt, one model call per instance, the model's one-`<action>`
sequence executed through the real browser env, then the harness submits (the prompt tells the model
not to click Verify) and the server's checker decides. Per type, per family and macro averages over
fixed seed lists (from the eval seed space, never used for training data), written as JSON and HTML.

With `out` set, every instance is also one episode in `out/episodes/` (the one episode record: the viewer,
SGV and the exports read CAPTCHA runs like any other): one step holding the screenshot, the reply, the parsed
sequence and what ran, and the checker's verdict in `verdicts["checker"]`.

    cfg = CaptchaEvalConfig(types=["text", "slider_jigsaw"], seeds=[1000000, 1000001, 1000002])
    report = run_captcha_eval(OpenAIBackend(model_cfg), cfg)
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from venuskit.actions import ActionParseError, format_call, parse_response
from venuskit.actions.history import build_messages
from venuskit.actions.prompts import system_prompt
from venuskit.actions.types import Action, Sequence
from venuskit.agent.session import new_episode_id
from venuskit.envs.base import EnvError
from venuskit.envs.browser import BrowserConfig, BrowserEnv, png_size
from venuskit.eval.report import write_html_summary, write_json_report
from venuskit.models.openai_backend import ModelError
from venuskit.record import Episode, EpisodeWriter, Outcome, Step
from venuskit.synth.captcha.harness import open_instance, submit
from venuskit.synth.captcha.oracle import execute
from venuskit.synth.captcha.registry import FAMILIES, select_types
from venuskit.synth.captcha.server import CaptchaServer
from venuskit.synth.captcha.spec import EVAL_SEEDS, check_seeds

SYSTEM_PROMPT = system_prompt("captcha", "")
DEFAULT_SEEDS = (EVAL_SEEDS.start, EVAL_SEEDS.start + 1, EVAL_SEEDS.start + 2)  # never in training data


@dataclass
class CaptchaEvalConfig:
    """What to evaluate and how."""

    types: list[str] = field(default_factory=list, metadata={"help": "Type or family names; empty = all types."})
    seeds: list[int] = field(
        default_factory=lambda: list(DEFAULT_SEEDS), metadata={"help": "The fixed seed list run for every type."}
    )
    preset: str = field(default="desktop", metadata={"help": "Browser preset: desktop (1024x768) or mobile (touch)."})
    out: Path | None = field(default=None, metadata={"help": "Folder for report.json and report.html (None: none)."})
    long_press_s: float = field(
        default=1.0,
        metadata={
            "help": "Seconds a LongPress without duration holds (mobile default; the desktop browser default is 20 s)."
        },
    )
    executable_path: str | None = field(default=None, metadata={"help": "Chromium binary (None: the env's choice)."})

    def __post_init__(self) -> None:
        if self.preset not in ("desktop", "mobile"):
            raise ValueError(f"preset must be 'desktop' or 'mobile', got {self.preset!r}.")
        if not self.seeds or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in self.seeds):
            raise ValueError(f"seeds must be a non-empty list of non-negative integers, got {self.seeds!r}.")
        check_seeds(self.seeds, EVAL_SEEDS, "Evaluation")
        select_types(self.types)  # unknown names fail here, with the listing hint

    def browser_config(self) -> BrowserConfig:
        return BrowserConfig(
            preset=self.preset,
            long_press_default_s=self.long_press_s,  # type: ignore[arg-type]
            executable_path=self.executable_path,
        )


@dataclass
class Row:
    """One instance's attempt."""

    type: str
    family: str
    seed: int
    passed: bool
    partial: float
    reason: str
    response: str = ""
    actions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    model_s: float = 0.0
    episode: str = ""  # the recorded episode's folder, relative to the report's folder ("" when not recorded)


def _messages(png: bytes) -> list[dict[str, Any]]:
    """reference/ui-venus.md §2.5: the task lives in the system prompt; the user turn is just the image (the
    history protocol's CAPTCHA layout, which the chat export of these episodes replays)."""
    return build_messages(SYSTEM_PROMPT, [], png, surface="captcha")


def run_instance(
    env: Any,
    server: CaptchaServer,
    backend: Any,
    type_name: str,
    seed: int,
    episodes: Path | None = None,
    model_info: dict[str, Any] | None = None,
) -> Row:
    """Pass@1 on one instance: one model call, its action sequence, the harness's submit. With `episodes`, the
    attempt is also recorded there as one episode."""
    issued, obs = open_instance(env, server, type_name, seed)
    family = issued.instance.family
    step = Step(index=0, screenshot=None, url=obs.url, title=obs.title)
    started = time.monotonic()
    try:
        text = backend.complete(_messages(obs.png)).text
    except ModelError as e:
        step.error = {"type": "ModelError", "message": str(e)}
        row = Row(type_name, family, seed, False, 0.0, f"model error: {e}")
        return _recorded(row, episodes, issued, obs.png, step, model_info)
    model_s = time.monotonic() - started
    step.raw_output, step.timings = text, {"model_s": round(model_s, 4)}
    try:
        parsed = parse_response(text, "captcha")
        actions = parsed.actions
    except (ActionParseError, ValueError) as e:
        submit(env, server, issued)  # spends the instance, as a page left untouched would
        step.error = {"type": type(e).__name__, "message": str(e)}
        row = Row(type_name, family, seed, False, 0.0, f"unparsable response: {e}", text, model_s=model_s)
        return _recorded(row, episodes, issued, obs.png, step, model_info)
    executed, errors = execute(env, actions)
    result = submit(env, server, issued)
    step.thought, step.action = parsed.thought, _one_action(actions)
    step.executed = executed[0] if len(executed) == 1 else {"op": "sequence", "children": executed}
    if errors:
        step.info["env_errors"] = errors
    calls = [format_call(a, "captcha") for a in actions]
    row = Row(type_name, family, seed, result.passed, result.partial, result.reason, text, calls, errors, model_s)
    return _recorded(row, episodes, issued, obs.png, step, model_info)


def _one_action(actions: list[Action]) -> Action | None:
    # The runner's convention: one action as itself, several as one Sequence step.
    if not actions:
        return None
    return actions[0] if len(actions) == 1 else Sequence(actions=tuple(actions))


def _recorded(
    row: Row, episodes: Path | None, issued: Any, png: bytes, step: Step, model_info: dict[str, Any] | None
) -> Row:
    """Write `row`'s attempt as a finished episode under `episodes` (when given); the row learns its folder."""
    if episodes is None:
        return row
    inst = issued.instance
    episode = Episode(
        episode_id=new_episode_id("captcha"),
        task={"goal": inst.prompt, "id": f"captcha.{inst.type}", "captcha": {"type": inst.type, "family": inst.family,
              "seed": inst.seed}},  # fmt: skip
        surface="captcha",
        screen=png_size(png),
        model=dict(model_info or {}),
        config={"benchmark": "venuskit-captcha", "system_prompt": SYSTEM_PROMPT,
                "protocol": "one <action> sequence, then the harness submits"},  # fmt: skip
    )
    with EpisodeWriter.create(episodes, episode) as writer:
        writer.add_step(step, png)
        verdict = {"verdict": "pass" if row.passed else "fail", "passed": row.passed, "partial": row.partial,
                   "reason": row.reason}  # fmt: skip
        writer.update_manifest(verdicts={"checker": verdict})
        # The harness submitted the widget: the env ended the episode, with the checker's verdict as reward.
        writer.finish(Outcome(terminated=True, reason="env_done", reward=float(row.passed)))
    row.episode = f"{episodes.name}/{episode.episode_id}"
    return row


def summarise(rows: list[Row]) -> dict[str, Any]:
    """Pass@1 per type and per family, the overall rate and the macro average over families."""

    def rate(rs: list[Row]) -> dict[str, Any]:
        n = len(rs)
        return {
            "n": n,
            "passed": sum(r.passed for r in rs),
            "pass_at_1": round(sum(r.passed for r in rs) / n, 4) if n else 0.0,
            "mean_partial": round(sum(r.partial for r in rs) / n, 4) if n else 0.0,
        }

    types = sorted({r.type for r in rows}, key=[r.type for r in rows].index)
    fams = [f for f in FAMILIES if any(r.family == f for r in rows)]
    per_type = {
        t: {"family": next(r.family for r in rows if r.type == t), **rate([r for r in rows if r.type == t])}
        for t in types
    }
    per_family = {f: rate([r for r in rows if r.family == f]) for f in fams}
    macro = round(sum(v["pass_at_1"] for v in per_family.values()) / len(per_family), 4) if per_family else 0.0
    return {"overall": rate(rows), "macro_family_pass_at_1": macro, "per_family": per_family, "per_type": per_type}


def run_captcha_eval(
    backend: Any,
    config: CaptchaEvalConfig,
    *,
    model_info: dict[str, Any] | None = None,
    on_row: Callable[[Row], None] | None = None,
) -> dict[str, Any]:
    """Evaluate `backend` (anything with .complete(messages) -> .text) on every (type, seed); returns the report."""
    rows: list[Row] = []
    types = select_types(config.types)
    cfg = getattr(backend, "config", None)  # an OpenAIBackend says which server and model it talks to
    model_info = model_info or ({"base_url": cfg.base_url, "model": cfg.model} if cfg is not None else {})
    episodes = config.out / "episodes" if config.out is not None else None
    with CaptchaServer() as server, BrowserEnv(config.browser_config()) as env:
        for t in types:
            for seed in config.seeds:
                try:
                    row = run_instance(env, server, backend, t.name, seed, episodes, model_info)
                except EnvError as e:  # the page never loaded: a failed attempt, recorded, and the run goes on
                    row = Row(t.name, t.family, seed, False, 0.0, f"browser error: {e}")
                rows.append(row)
                if on_row is not None:
                    on_row(row)
    report = {
        "benchmark": "venuskit-captcha",
        "model": model_info,
        "config": _config_json(config),
        **summarise(rows),
        "rows": [asdict(r) for r in rows],
    }
    if config.out is not None:
        write_report(report, config.out)
    return report


def _config_json(config: CaptchaEvalConfig) -> dict[str, Any]:
    data = asdict(config)
    data["out"] = str(config.out) if config.out else None
    return data


def write_report(report: dict[str, Any], out: Path) -> dict[str, Path]:
    """report.json (atomic), report.html (the shared one-page summary: a bar per family and per type) and
    attempts.html (every attempt with its reason and actions), all in `out`."""
    o = report["overall"]
    title = f"CAPTCHA Pass@1: {100 * o['pass_at_1']:.1f}% ({o['passed']}/{o['n']})"
    model = report.get("model", {}).get("model")
    headline = {
        "Pass@1": o["pass_at_1"],
        "family macro Pass@1": report["macro_family_pass_at_1"],
        "instances": o["n"],
        "mean partial score": o["mean_partial"],
    }
    per = {"family": report["per_family"], "type": report["per_type"]}
    paths = {
        "json": write_json_report(out / "report.json", report),
        "html": write_html_summary(
            title + (f" - {model}" if model else ""),
            {k: {n: v["pass_at_1"] for n, v in d.items()} for k, d in per.items()},
            out / "report.html",
            headline=headline,
            counts_by_category={k: {n: v["n"] for n, v in d.items()} for k, d in per.items()},
            config=report.get("config"),
        ),
        "attempts": out / "attempts.html",
    }
    paths["attempts"].write_text(render_attempts(report, title), encoding="utf-8")
    return paths


def render_attempts(report: dict[str, Any], title: str) -> str:
    """A self-contained table of every attempt: type, seed, verdict, partial score, reason, actions."""
    rows = "".join(
        f'<tr class="{"ok" if r["passed"] else "bad"}"><td>{html.escape(r["type"])}</td><td>{r["seed"]}</td>'
        f"<td>{'pass' if r['passed'] else 'fail'}</td><td>{r['partial']:.2f}</td><td>{html.escape(r['reason'])}</td>"
        f"<td><code>{html.escape(', '.join(r['actions']))}</code></td></tr>"
        for r in report["rows"]
    )
    return (
        f'<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>'
        "body{font:14px sans-serif;margin:24px;color:#222}table{border-collapse:collapse}"
        "td,th{padding:3px 8px;border-bottom:1px solid #eee;text-align:left}tr.bad td{color:#a11}code{font-size:12px}"
        f"</style></head><body><h1>{html.escape(title)}</h1><table><tr><th>type</th><th>seed</th><th>result</th>"
        f"<th>partial</th><th>reason</th><th>actions</th></tr>{rows}</table></body></html>"
    )
