"""An external set no contract wrote: MiniWoB++ episodes labelled by the page's own reward.

Each episode is a MiniWoB++ task run on venuskit's browser env (`venuskit.envs.miniwob`) and recorded by the
ordinary runner. Its label is the task page's raw reward at the end (`outcome.reward` > 0: completed; else
failed); MiniWoB++ pages have no partial or infeasible outcome. Verifiers never see that reward (it is the
label's source): SGV reads records through `verify.sgv.evidence_view`.

Tasks come in families (`FAMILIES`), and each family's tasks are split, by a fixed rule written down before any
result was seen (`share_of`), into a design share (rules may be designed on it) and a kept-apart share (figures
are reported on it).

Policies (episode kinds):

    oracle        a reference solver that reads the page's DOM to find its targets (`miniwob_solvers`; set
                  building only, never called by a verifier)
    cut_short     the solution without its last action, then Finished (nothing submitted)
    perturbed     the solution with one decisive choice moved: another button, link, item, field value or position
    prefix_typed  typing tasks: a prefix of the asked text typed, then submitted (aimed at "typed X" rules)
    null          Finished at once
    agent         venus-nano (`venuskit.agent.nano.NanoPolicy`) when it is installed

    index = build_miniwob_set("runs/verify-miniwob", seeds=range(5000, 5005))
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from venuskit.eval.verify_bench.miniwob_solvers import SOLVERS, TYPING, Solver
from venuskit.eval.verify_bench.world_set import INDEX, Progress, load_index, reusable_rows, write_index

MINIWOB_KINDS = ("oracle", "cut_short", "perturbed", "prefix_typed", "null", "agent")
ADVERSARIAL = ("perturbed", "prefix_typed")
SHARES = ("design", "kept_apart")  # tasks.splits.MiniwobShare
FULL_REWARD = 1.0 - 1e-9
AGENT_STEPS, SCRIPT_STEPS = 12, 24
_MODE = {"oracle": "right", "cut_short": "short", "perturbed": "wrong", "prefix_typed": "prefix"}

# The set's tasks by family: what a page asks of an agent, not how MiniWoB++ names it.
FAMILIES: dict[str, tuple[str, ...]] = {
    "buttons and choices": ("click-button", "click-link", "click-test-2", "unicode-test", "click-checkboxes",
                            "click-checkboxes-transfer", "click-option", "click-dialog-2"),
    "navigation": ("click-tab", "click-tab-2", "click-tab-2-easy", "click-tab-2-hard",
                   "click-collapsible-nodelay", "click-collapsible-2-nodelay", "navigate-tree", "click-menu",
                   "click-menu-2"),
    "forms and logins": ("enter-text", "enter-text-2", "enter-text-dynamic", "enter-password", "login-user",
                         "login-user-popup", "form-sequence-2", "form-sequence-3", "enter-date", "enter-time"),
    "e-mail inboxes": ("email-inbox", "email-inbox-forward", "email-inbox-reply", "email-inbox-delete",
                       "email-inbox-important", "email-inbox-forward-nl", "email-inbox-star-reply",
                       "email-inbox-noscroll"),
    "tables and reading": ("read-table", "read-table-2", "find-word", "phone-book", "copy-paste", "copy-paste-2"),
    "autocompletes and pickers": ("use-autocomplete-nodelay", "choose-list", "choose-date-easy", "choose-date",
                                  "use-spinner", "use-slider"),
    "ordering and dragging": ("drag-items", "drag-sort-numbers", "click-button-sequence"),
    "social media": ("social-media", "social-media-all", "social-media-some"),
    "search": ("search-engine", "multi-layouts", "multi-orderings"),
}  # fmt: skip
_FAMILY_OF = {t: f for f, ts in FAMILIES.items() for t in ts}


def family_of(task: str) -> str:
    return _FAMILY_OF.get(task, "other")


def share_of(task: str) -> str:
    """The task's share (design or kept apart), by the rule in `tasks.splits.miniwob_share`."""
    from venuskit.tasks.splits import miniwob_share

    return miniwob_share(task, FAMILIES.get(family_of(task), (task,)))


class ScriptOracle:
    """The oracle interface `runs.policies.OraclePolicy` drives: `next(page) -> (thought, action)`. The solver
    runs lazily, one action per observation, so each target is found on the page as it is then; when it is
    done the episode ends with Finished (a task the page ended itself never asks again)."""

    def __init__(self, solver: Solver, goal: str, mode: str) -> None:
        self.solver, self.goal, self.mode = solver, goal, mode
        self._actions: Iterator[Any] | None = None

    def next(self, page: Any) -> tuple[str, Any]:
        from venuskit.actions.types import Finished
        from venuskit.tasks.oracle import OracleError

        if self._actions is None:
            self._actions = self.solver(page, self.goal, self.mode)
        try:
            return "Next step of the script.", next(self._actions)
        except StopIteration:
            return "The script is done.", Finished(content="Done.")
        except Exception as e:  # noqa: BLE001 - a solver that cannot go on (any page error) is a rejected row
            raise OracleError(f"the MiniWoB++ script could not go on: {type(e).__name__}: {e}") from e


# ---- building ------------------------------------------------------------------------------------


def label_of(episode: Any) -> str:
    """The page's verdict: completed when the task page ended the episode with its full raw reward (1.0). Some
    pages give partial credit for a wrong end (click-checkboxes: 0.33 with one box too many; phone-book: 0.4 for
    the right contact's wrong field): that is not the task done."""
    reward = episode.outcome.reward
    return "completed" if reward is not None and reward >= FULL_REWARD else "failed"


def build_miniwob_set(out_dir: Path | str, *, tasks: Sequence[str] | None = None, seeds: Sequence[int] = (5000, 5001),
                      kinds: Sequence[str] = ("oracle", "cut_short", "perturbed", "prefix_typed", "null", "agent"),
                      scale: int = 2, rebuild: bool = False,
                      on_item: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """Run every kind on every task and seed, record the episodes and write `out_dir/index.json` (the same
    format as the world set, `set_kind` "miniwob"). `scale`: the screenshots' device scale (2: 320x420, sharp
    enough for OCR). The agent kind runs only where venus-nano is installed; otherwise it is skipped, said so."""
    out_dir = Path(out_dir)
    tasks = list(tasks or SOLVERS)
    for bad in [t for t in tasks if t not in SOLVERS] + [k for k in kinds if k not in MINIWOB_KINDS]:
        raise ValueError(f"{bad!r} is not a MiniWoB++ set task or kind; tasks: {', '.join(SOLVERS)}; kinds: "
                         f"{', '.join(MINIWOB_KINDS)}.")  # fmt: skip
    request = {"set_kind": "miniwob", "split": "external", "tasks": tasks, "seeds": [int(s) for s in seeds],
               "kinds": list(kinds), "scale": scale}  # fmt: skip
    cached = load_index(out_dir) if (out_dir / INDEX).exists() and not rebuild else None
    if cached is not None and cached.get("request") == request:
        return cached
    reuse = reusable_rows(out_dir, cached, request, grows=("tasks", "seeds", "kinds"))  # more seeds: only those run
    t0 = time.perf_counter()
    with Progress(out_dir, request, rebuild, reuse) as progress:  # a stopped build resumes where it was
        items, rejected, skipped = _run_all(out_dir, tasks, list(seeds), list(kinds), scale, on_item, progress)
        return write_index(out_dir, request, items, rejected, skipped, time.perf_counter() - t0)


def _nano_policy() -> Any | None:
    try:
        from venuskit.agent.nano import NanoPolicy  # venus-nano, where it is installed
    except ImportError:
        return None
    return NanoPolicy


def _run_all(out_dir: Path, tasks: list[str], seeds: list[int], kinds: list[str], scale: int,
             on_item: Callable[[dict[str, Any]], None] | None,
             progress: Progress | None = None) -> tuple[list, list, list]:  # fmt: skip
    items, rejected, skipped = [], [], []
    nano = _nano_policy() if "agent" in kinds else None
    for task in tasks:
        with _LazyEnv(task, scale) as env:  # a browser only for a task with episodes left to run
            for seed in seeds:
                for kind in kinds:
                    why_skip = _skip(task, kind, nano)
                    if why_skip:
                        skipped.append({"task": task, "seed": seed, "kind": kind, "why": why_skip})
                        continue
                    kept = progress.get(f"{task}@{seed}#{kind}") if progress else None
                    row = dict(kept) if kept else _run_one(env.get(), out_dir / "episodes", task, seed, kind, nano)
                    if progress is not None and not kept:
                        progress.add(row)
                    why = row.pop("why", None)
                    (rejected if why else items).append({**row, "why": why} if why else row)
                    if on_item is not None:
                        on_item({**row, "rejected": why})
    return items, rejected, skipped


class _LazyEnv:
    def __init__(self, task: str, scale: int) -> None:
        self.task, self.scale, self.env = task, scale, None

    def get(self) -> Any:
        from venuskit.envs.miniwob import MiniWobEnv, default_config

        if self.env is None:
            self.env = MiniWobEnv(self.task, config=default_config(self.task, device_scale_factor=self.scale))
        return self.env

    def __enter__(self) -> _LazyEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.env is not None:
            self.env.close()


def _skip(task: str, kind: str, nano: Any) -> str | None:
    if kind == "prefix_typed" and task not in TYPING:
        return "the task types nothing"
    if kind == "agent" and nano is None:
        return "venus-nano (venuskit.agent.nano.NanoPolicy) is not installed"
    return None


def _run_one(env: Any, episodes: Path, task: str, seed: int, kind: str, nano: Any) -> dict[str, Any]:
    from venuskit.actions.types import Finished
    from venuskit.agent.runner import RunConfig
    from venuskit.agent.session import AgentJob, run_episode
    from venuskit.record.store import load_episode
    from venuskit.runs.policies import OraclePolicy

    row: dict[str, Any] = {"id": f"{task}@{seed}#{kind}", "task": task, "seed": seed, "kind": kind,
                           "surface": "browser", "locale": "en", "type": "miniwob",
                           "policy": "agent" if kind == "agent" else "script", "adversarial": kind in ADVERSARIAL,
                           "family": family_of(task), "share": share_of(task), "keypoints": []}  # fmt: skip
    # scripts may need many steps (a date 11 months back; a spinner 10 clicks away); an agent gets 12 as before
    steps = AGENT_STEPS if kind == "agent" else SCRIPT_STEPS
    job = AgentJob(goal=f"MiniWoB++ {task}", surface="browser", out=episodes, run=RunConfig(max_steps=steps))
    if kind == "agent":
        policy = nano.from_default() if hasattr(nano, "from_default") else nano()
    elif kind == "null":
        policy = OraclePolicy(env, _Null(), "browser")
    else:
        policy = OraclePolicy(env, _Lazy(task, _MODE[kind]), "browser")
    try:
        _, folder = run_episode(env, policy, job, {"miniwob": task, "seed": seed})
        episode = load_episode(folder)
    except Exception as e:  # noqa: BLE001 - one broken run is reported, the set goes on
        return {**row, "label": None, "why": f"the run raised {type(e).__name__}: {e}"}
    row.update({"goal": episode.goal, "label": label_of(episode), "reason": f"page reward {episode.outcome.reward}",
                "episode_dir": str(folder.relative_to(episodes.parent)), "end": episode.outcome.reason,
                "steps": len(episode.steps)})  # fmt: skip
    if row["adversarial"] and row["label"] == "completed":  # the page took it: a success, not an adversary
        row["adversarial"] = False
    error = getattr(policy, "error", None)
    if error:
        row["why"] = f"the script broke: {error}"
    elif kind == "oracle" and row["label"] != "completed":
        row["why"] = f"the solution did not earn the page's reward ({episode.outcome.reward})"
    elif kind in ("cut_short", "null") and not (episode.steps and isinstance(episode.steps[-1].action, Finished)):
        row["why"] = "the page ended the episode before the script stopped"
    return row


class _Lazy:
    """A ScriptOracle made on the first call, when the env knows the episode's goal."""

    def __init__(self, task: str, mode: str) -> None:
        self.task, self.mode, self.inner = task, mode, None

    def next(self, page: Any) -> tuple[str, Any]:
        if self.inner is None:
            goal = page.evaluate("() => core.getUtterance()")
            goal = goal.get("utterance", "") if isinstance(goal, dict) else goal  # NL tasks add their fields
            self.inner = ScriptOracle(SOLVERS[self.task], str(goal), self.mode)
        return self.inner.next(page)


class _Null:
    def next(self, page: Any) -> tuple[str, Any]:
        from venuskit.actions.types import Finished

        return "Done.", Finished(content="Done.")
