"""What every suite shares: the policy a worker builds, the metered policy wrapper, the ledger that makes a
run resumable, the run folder's layout, and how an episode's infrastructure failure is told from the agent's.

A suite's run folder:

    <out>/suite.json        the suite config (policy, filters, parallelism) and the job list
    <out>/results.jsonl     the ledger: one line per finished episode (appended and fsynced as it finishes)
    <out>/episodes/<key>/<episode_id>/   each episode's folder (manifest, steps, screenshots, episode.html)
    <out>/attempts/         episode folders of attempts that an infrastructure failure or an interrupt cut short
    <out>/report.json, report.html

`--resume` reads the ledger and runs only the jobs without a line there (and those whose line is an
infrastructure failure); episodes an interrupt left half-done are moved to `attempts/` first, never deleted.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venuskit.infra.atomic import append_line, write_json

LEDGER = "results.jsonl"
CONFIG = "suite.json"
EPISODES = "episodes"
ATTEMPTS = "attempts"
# Errors that say the infrastructure failed, not the agent: the model server could not be reached or timed out,
# the browser died, the page could not be loaded at all.
INFRA_ERROR_TYPES = frozenset({"ModelUnavailable", "ModelTimeout", "BrowserCrashed"})
_RETRYABLE_HTTP = re.compile(r"answered HTTP (\d{3})")


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@dataclass(frozen=True)
class PolicySpec:
    """The policy each worker builds for each episode: 'oracle' (world tasks' scripted solutions), 'nano' (the
    embedded venus-nano) or the base URL of an OpenAI-compatible server. Picklable; the API key is read from
    the config and never written to disk."""

    model: str = field(metadata=_help("oracle, nano, or an OpenAI-compatible base URL (http://HOST:PORT/v1)."))
    model_name: str = field(default="", metadata=_help("Served model name (URL models)."))
    api_key: str = field(default="EMPTY", repr=False, metadata=_help("API key (URL models); never saved."))
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout_s: float = 120.0
    n_img: int = 2
    thinking: bool | None = None
    retries: int = field(default=3, metadata=_help("The client's own retries of one model call (then: infra error)."))
    backoff_s: float = field(default=1.0, metadata=_help("First wait between the client's retries (doubles)."))
    checkpoint: str = field(default="", metadata=_help("nano: a checkpoint file instead of the shipped one."))

    def __post_init__(self) -> None:
        if self.kind == "url" and not self.model_name:
            raise ValueError(f"--model {self.model} is a server URL: pass --model-name too.")
        if self.model not in ("oracle", "nano") and not self.model.startswith(("http://", "https://")):
            raise ValueError(f"--model takes oracle, nano or a base URL like http://127.0.0.1:8000/v1; got "
                             f"{self.model!r}.")  # fmt: skip
        if self.kind == "nano":  # fail here, not in every worker: a missing checkpoint is no infrastructure hiccup
            from venuskit.models.nano import default_checkpoint

            path = Path(self.checkpoint) if self.checkpoint else default_checkpoint()
            if not path.is_file():
                raise ValueError(f"venus-nano's checkpoint {path} does not exist; rebuild it with `venus nano train`.")

    @property
    def kind(self) -> str:
        return self.model if self.model in ("oracle", "nano") else "url"

    def public(self) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items() if k != "api_key"}

    def build(self, surface: str, goal: str, today: str | None = None) -> Any:
        """A Policy for one episode (not for 'oracle', which the world harness builds from the task)."""
        if self.kind == "nano":
            return nano_policy(surface, goal, today, self.checkpoint)
        from venuskit.agent.policy import VenusPolicy
        from venuskit.models.openai_backend import ModelConfig, OpenAIBackend

        kwargs = {"enable_thinking": self.thinking} if self.thinking is not None else None
        config = ModelConfig(base_url=self.model, model=self.model_name, api_key=self.api_key,
                             temperature=self.temperature, max_tokens=self.max_tokens, timeout_s=self.timeout_s,
                             max_retries=self.retries, backoff_base_s=self.backoff_s,
                             chat_template_kwargs=kwargs)  # fmt: skip
        prompt = {"current_date": today} if surface == "browser" and today else {}
        return VenusPolicy(OpenAIBackend(config), surface, goal, n_img=self.n_img, prompt_kwargs=prompt)


_NANO_MODELS: dict[str, Any] = {}  # checkpoint path -> NanoModel, loaded once per worker process


def nano_policy(surface: str, goal: str, today: str | None = None, checkpoint: str = "") -> Any:
    """venus-nano (venuskit.agent.nano): the shipped checkpoint, or `checkpoint` (e.g. a closed-loop round's)."""
    from venuskit.agent.nano import NanoPolicy
    from venuskit.models.nano import NanoModel

    model = None
    if checkpoint:
        if checkpoint not in _NANO_MODELS:
            _NANO_MODELS[checkpoint] = NanoModel.load(checkpoint)
        model = _NANO_MODELS[checkpoint]
    prompt = {"current_date": today} if surface == "browser" and today else {}
    return NanoPolicy(surface, goal, model, prompt)


class Metered:
    """Wraps a policy and counts its model calls and tokens (from the replies' usage)."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.calls = self.prompt_tokens = self.completion_tokens = 0

    def act(self, observation: Any, history: list, feedback: str | None = None) -> Any:
        out = self.policy.act(observation, history, feedback)
        self.calls += 1
        usage = getattr(out, "usage", None) or {}
        self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.completion_tokens += int(usage.get("completion_tokens") or 0)
        return out

    def counts(self) -> dict[str, int]:
        return {"model_calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens}  # fmt: skip

    def __getattr__(self, name: str) -> Any:  # surface, system, set_goal, describe, error ...
        return getattr(self.policy, name)


def infra_error(episode: Any) -> str | None:
    """Why an episode's infrastructure failed (None: whatever happened is the agent's doing). A model server
    that cannot be reached, times out or answers 5xx/429, a browser that crashed, an env that could not even
    load the start page: none of these says anything about the agent."""
    o = episode.outcome
    err = o.error or {}
    if o.reason == "error":
        kind, message = str(err.get("type", "")), str(err.get("message", ""))
        if kind in INFRA_ERROR_TYPES:
            return f"{kind}: {message}"
        status = _RETRYABLE_HTTP.search(message)
        if kind == "ModelResponseError" and status and (int(status.group(1)) >= 500 or status.group(1) == "429"):
            return f"{kind}: {message}"
        if not episode.steps:  # env.reset failed: the start page never loaded
            return f"{kind or 'EnvError'} at reset: {message}"
    crashed = next((s for s in episode.steps if (s.error or {}).get("type") == "BrowserCrashed"), None)
    if crashed is not None:
        return f"BrowserCrashed at step {crashed.index}: {crashed.error.get('message')}"
    return None


def slug(key: str) -> str:
    """A job key as a folder name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", key).strip("_")[:150] or "job"


# ---- the run folder and its ledger ------------------------------------------------------------------


class Ledger:
    """`results.jsonl`: one JSON line per finished job, appended and fsynced as each finishes."""

    def __init__(self, out: Path, name: str = LEDGER) -> None:
        self.path = Path(out) / name

    def rows(self) -> dict[str, dict[str, Any]]:
        """The latest line per key (a re-run after an infrastructure failure supersedes the failure). A line cut
        by a crash (the last one, without a newline) is ignored; its job runs again."""
        if not self.path.exists():
            return {}
        rows: dict[str, dict[str, Any]] = {}
        for line in self.path.read_text(encoding="utf-8").splitlines(keepends=True):
            if not line.endswith("\n"):
                break
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict) and isinstance(row.get("key"), str):
                rows[row["key"]] = row
        return rows

    def write(self, row: dict[str, Any]) -> None:
        append_line(self.path, json.dumps(row, ensure_ascii=False).encode("utf-8"), durable=True)


def open_run(out: Path, config: dict[str, Any], jobs: list[dict[str, Any]], resume: bool) -> dict[str, dict]:
    """Prepare the run folder; returns the ledger rows already final (done, not an infrastructure failure).
    Without `resume` a folder that already holds a run is refused (nothing is overwritten); with it, the stored
    config must name the same policy, or the report would mix two policies."""
    out = Path(out)
    ledger = Ledger(out)
    stored = out / CONFIG
    if not resume and (ledger.path.exists() or stored.exists()):
        raise ValueError(f"{out} already holds a suite run; pass --resume to finish it, or choose another --out.")
    if resume and stored.exists():
        before = json.loads(stored.read_text(encoding="utf-8"))
        if before.get("policy") != config.get("policy"):
            raise ValueError(f"{out} was run with the policy {before.get('policy')}, not {config.get('policy')}; "
                             "resume it with the same --model, or choose another --out.")  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    created = json.loads(stored.read_text(encoding="utf-8")).get("created") if stored.exists() else None
    stamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    write_json(stored, {**config, "created": created or stamp, "resumed": stamp if resume else None,
                        "jobs": jobs}, durable=True)  # fmt: skip
    done = {k: r for k, r in ledger.rows().items() if not r.get("infra_error")}
    set_aside(out, (j["key"] for j in jobs if j["key"] not in done))
    return done


def set_aside(out: Path, keys: Iterable[str]) -> None:
    """Move the episode folders of jobs about to run (again) to `attempts/`: kept, out of the suite's way."""
    for key in keys:
        slot = Path(out) / EPISODES / slug(key)
        if not slot.is_dir():
            continue
        for folder in sorted(p for p in slot.iterdir() if p.is_dir()):
            move_attempt(out, folder)


def move_attempt(out: Path, folder: Path) -> Path:
    target = Path(out) / ATTEMPTS / f"{folder.parent.name}--{folder.name}"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(folder), str(target))
    return target


def final_rows(out: Path, jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ledger rows of `jobs`, in job order (jobs without a row are left out)."""
    rows = Ledger(out).rows()
    return [rows[j["key"]] for j in jobs if j["key"] in rows]
