"""A self-contained HTML page for one episode: every step's screenshot with its action drawn on it,
the thought, the call, errors, rejected attempts, the screen the episode ended on, and the outcome. Images
are inlined (base64), so the page can be mailed or attached to a bug report. An episode folder may come
from anywhere: every value written into the page is escaped (numbers included), the page's Content
Security Policy allows no script at all, and images are read only from inside the folder.
"""

from __future__ import annotations

import base64
import json
from html import escape
from pathlib import Path
from typing import Any

from venuskit.actions.types import Point
from venuskit.infra.atomic import write_bytes
from venuskit.record.episode import Episode, Step
from venuskit.record.export import action_text
from venuskit.record.overlay import draw_action, focus_after
from venuskit.record.store import final_png, load_episode, step_png

PAGE_NAME = "episode.html"
# No script, no outside resource, no form: only the inline style and the inlined images.
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'"

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;background:#fafafa}
h1{font-size:1.3em;margin:0 0 .3em} .meta{color:#555;margin-bottom:1em}
.outcome,.problems{padding:.6em 1em;border-radius:6px;margin:.6em 0}
.ok{background:#e3f6e5}.bad{background:#fde8e8}.neutral{background:#eef}
.problems{background:#fff4d6}
.step{display:flex;gap:1.2em;background:#fff;border:1px solid #ddd;border-radius:8px;padding:1em;margin:1em 0}
.step img{max-width:560px;max-height:80vh;border:1px solid #ccc}
.side{flex:1;min-width:0} .side h2{font-size:1.05em;margin:0 0 .5em}
pre{white-space:pre-wrap;word-break:break-word;background:#f4f4f4;padding:.5em;border-radius:4px;margin:.3em 0}
.call{font-weight:600;color:#0a4} .error pre{background:#fde8e8} .label{color:#777;font-size:.85em}
"""


def _pre(text: Any, cls: str = "") -> str:
    if not isinstance(text, str):
        text = json.dumps(text, ensure_ascii=False, indent=1, default=str)
    return f'<pre class="{cls}">{escape(text)}</pre>'


def _field(label: str, body: str) -> str:
    return f'<div><span class="label">{escape(label)}</span>{body}</div>'


def _outcome_html(ep: Episode) -> str:
    o = ep.outcome
    cls = "ok" if o.reason in ("finished", "answer") else "bad" if (o.truncated or o.error) else "neutral"
    state = "terminated" if o.terminated else "truncated" if o.truncated else "open"
    parts = [f"<b>Outcome:</b> {escape(str(o.reason or 'none yet'))} ({state}"]
    parts.append(", needs user)" if o.needs_user else ")")
    if not ep.finished:
        parts.append(" &mdash; the episode was not closed (resumable)")
    body = "".join(parts)
    if o.answer:
        body += _field("answer", _pre(o.answer))
    if o.error:
        body += _field("error", _pre(o.error, "error"))
    if o.reward is not None:
        body += f"<div>reward: {escape(str(o.reward))}</div>"
    if ep.verdicts:
        body += _field("verdicts", _pre(ep.verdicts))
    return f'<div class="outcome {cls}">{body}</div>'


def _e(value: Any) -> str:
    """Any value as escaped HTML text (a tampered manifest may put a string where a number belongs)."""
    return escape(str(value))


def _img(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{data}">'


def _image_html(path: Path, step: Step, cursor: Point | None) -> str:
    png = step_png(path, step)
    if png is None:
        return "<div><i>no screenshot</i></div>"
    try:
        drawn = draw_action(png, step.action, cursor=cursor, label=f"step {step.index}")
    except Exception:  # noqa: BLE001 - a PNG header that lies; the page shows the problem, not a crash
        return "<div><i>unreadable screenshot</i></div>"
    return _img(drawn, f"step {step.index}")


def _final_html(path: Path, ep: Episode) -> str:
    """The screen the episode ended on, where no step's screenshot shows it."""
    final = ep.final
    if final is None:
        return ""
    png = final_png(path, ep)
    image = _img(png, "final screen") if png is not None else "<div><i>no screenshot</i></div>"
    page = _field("page", _pre(f"{final.title or ''}\n{final.url or ''}".strip())) if final.url or final.title else ""
    side = f"<h2>Final screen</h2><div>after the action of step {_e(final.after_step)}</div>{page}"
    return f'<div class="step final">{image}<div class="side">{side}</div></div>'


def _attempts_html(attempts: list[dict[str, Any]]) -> str:
    if not attempts:
        return ""
    items = "".join(f"<li>{_pre(a)}</li>" for a in attempts)
    return f"<details><summary>{len(attempts)} rejected attempt(s)</summary><ol>{items}</ol></details>"


def _step_html(path: Path, ep: Episode, step: Step, cursor: Point | None) -> str:
    side = [f"<h2>Step {_e(step.index)}</h2>"]
    if step.url or step.title:
        side.append(_field("page", _pre(f"{step.title or ''}\n{step.url or ''}".strip())))
    if step.feedback:
        side.append(_field("shown to the model", _pre(step.feedback)))
    if step.thought:
        side.append(_field("thought", _pre(step.thought)))
    call = action_text(step.action, ep.surface)
    side.append(_field("action", _pre(call, "call") if call else "<pre><i>no action</i></pre>"))
    if step.error:
        side.append(f'<div class="error">{_field("error", _pre(step.error))}</div>')
    side.append(_attempts_html(step.attempts))
    if step.raw_output:
        side.append(f"<details><summary>raw model output</summary>{_pre(step.raw_output)}</details>")
    extra = {k: v for k, v in (("executed", step.executed), ("info", step.info), ("timings", step.timings)) if v}
    if extra:
        side.append(f"<details><summary>executed / info / timings</summary>{_pre(extra)}</details>")
    return f'<div class="step">{_image_html(path, step, cursor)}<div class="side">{"".join(side)}</div></div>'


def page_html(episode_dir: Path | str, episode: Episode | None = None) -> str:
    """The HTML text of the episode page."""
    path = Path(episode_dir)
    ep = episode or load_episode(path)
    model = ep.model.get("name") or ep.model.get("model") or ""
    head = [
        f"<h1>{escape(ep.goal or '(no goal)')}</h1>",
        (
            f'<div class="meta">{_e(ep.episode_id)} &middot; {_e(ep.surface)} &middot; '
            f"{_e(ep.screen[0])}&times;{_e(ep.screen[1])} &middot; {_e(model)} &middot; {len(ep.steps)} steps"
            f" &middot; {_e(ep.created)}</div>"
        ),
        _outcome_html(ep),
    ]
    if ep.problems:
        items = "".join(f"<li>{escape(p)}</li>" for p in ep.problems)
        head.append(f'<div class="problems"><b>Problems reading this episode</b><ul>{items}</ul></div>')
    if ep.reset:
        head.append(_field("At reset (before the first step)", _pre(ep.reset)))
    steps, cursor = [], None
    for step in ep.steps:
        steps.append(_step_html(path, ep, step, cursor))
        cursor = focus_after(step.action, cursor)
    task = _pre({k: v for k, v in ep.task.items() if k != "goal"}) if len(ep.task) > 1 else ""
    title = escape(f"{ep.episode_id}: {ep.goal}")
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}"><title>{title}</title>'
        f"<style>{_CSS}</style></head><body>{''.join(head)}{task}{''.join(steps)}{_final_html(path, ep)}"
        "</body></html>"
    )


def render_html(episode_dir: Path | str, out_path: Path | str | None = None) -> Path:
    """Write the episode page (default `<episode_dir>/episode.html`) and return its path."""
    path = Path(episode_dir)
    out = Path(out_path) if out_path is not None else path / PAGE_NAME
    if out.is_dir():
        raise IsADirectoryError(f"{out} is a folder; give a file name such as {out / PAGE_NAME}.")
    write_bytes(out, page_html(path).encode("utf-8"), durable=False)  # a page that can be made again
    return out
