"""An external set no contract wrote: MiniWoB++ episodes labelled by the page's own reward.

Each episode is a MiniWoB++ task run on venuskit's browser env (`venuskit.envs.miniwob`) and recorded by the
ordinary runner. Its label is the task page's raw reward at the end (`outcome.reward` > 0: completed; else
failed); MiniWoB++ pages have no partial or infeasible outcome. Verifiers never see that reward (it is the
label's source): SGV reads records through `verify.sgv.evidence_view`.

Policies (episode kinds):

    oracle        a scripted solution that reads the page's DOM to find its targets (never shown to a verifier)
    cut_short     the solution without its last action, then Finished (nothing submitted)
    perturbed     the solution with its decisive choice wrong: another button, link, tab, box or option
    prefix_typed  typing tasks: a prefix of the asked text typed, then submitted (aimed at "typed X" rules)
    null          Finished at once
    agent         venus-nano (`venuskit.agent.nano.NanoPolicy`) when it is installed

    index = build_miniwob_set("runs/verify-miniwob", seeds=range(5000, 5005))
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from venuskit.eval.verify_bench.world_set import INDEX, load_index, reusable_rows, write_index

MINIWOB_KINDS = ("oracle", "cut_short", "perturbed", "prefix_typed", "null", "agent")
ADVERSARIAL = ("perturbed", "prefix_typed")
Solver = Callable[[Any, str, str], Iterator[Any]]  # (page, goal, mode) -> actions, computed from the live page


# ---- targets on the page -------------------------------------------------------------------------


def _point(page: Any, locator: Any) -> Any:
    from venuskit.actions import coords
    from venuskit.actions.types import Point

    box = locator.bounding_box()
    if box is None:
        raise LookupError(f"{locator} is not visible")
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    return Point(*coords.point_from_pixels(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, vw, vh))


def _click(page: Any, locator: Any) -> Any:
    from venuskit.actions.types import Click

    return Click(point=_point(page, locator))


def _quoted(goal: str) -> list[str]:
    return re.findall(r'"([^"]+)"', goal)


def _choose(page: Any, locator: Any, want: str, mode: str) -> Any:
    """The element of `locator` whose text is `want`, or (mode "wrong") the first whose text is not."""
    texts = [locator.nth(i).inner_text().strip() for i in range(locator.count())]
    hits = [i for i, t in enumerate(texts) if (t == want) == (mode != "wrong")]
    if not hits:
        raise LookupError(f"no element {'other than' if mode == 'wrong' else 'named'} {want!r} among {texts}")
    return locator.nth(hits[0])


def _typed(text: str, mode: str) -> str:
    """The text a solver types: the asked one, or a strict prefix of it (at least one character)."""
    return text[: max(1, len(text) - 2)] if mode == "prefix" and len(text) > 1 else text


# ---- solvers: each yields the actions of one episode; `mode` is right | wrong | prefix | short ---------------


def solve_click_button(page: Any, goal: str, mode: str) -> Iterator[Any]:
    target = _quoted(goal)[0]
    if mode != "short":
        yield _click(page, _choose(page, page.locator("#area button"), target, mode))


def solve_click_link(page: Any, goal: str, mode: str) -> Iterator[Any]:
    target = _quoted(goal)[0]
    if mode != "short":
        yield _click(page, _choose(page, page.locator("#area span.alink"), target, mode))


def solve_click_tab(page: Any, goal: str, mode: str) -> Iterator[Any]:
    tab = re.search(r"Tab #(\d)", goal).group(1)
    tabs = page.locator("#area ul a")
    if mode != "short":
        yield _click(page, _choose(page, tabs, f"Tab #{tab}", mode))


def solve_click_tab_2(page: Any, goal: str, mode: str) -> Iterator[Any]:
    word = _quoted(goal)[0]
    tabs = page.locator("#area ul a")
    for i in range(tabs.count()):
        panel = page.locator(f"#area div#tabs-{i + 1} span.alink")
        texts = [panel.nth(j).inner_text().strip() for j in range(panel.count())]
        if word in texts:
            if i > 0:  # the first tab is open at the start
                yield _click(page, tabs.nth(i))
            if mode != "short":
                yield _click(page, _choose(page, panel, word, mode))
            return
    raise LookupError(f"no tab holds the link {word!r}")


def _check(page: Any, goal: str, mode: str, labels: Any, wanted: set[str]) -> Iterator[Any]:
    texts = [labels.nth(i).inner_text().strip() for i in range(labels.count())]
    pick = [i for i, t in enumerate(texts) if t in wanted]
    if mode == "wrong":  # one box more than asked, or (nothing asked) any box
        extra = next((i for i in range(len(texts)) if i not in pick), None)
        pick = pick[:-1] if extra is None else [*pick, extra]
    for i in pick:
        yield _click(page, labels.nth(i).locator("input"))
    if mode != "short":
        yield _click(page, page.locator("#subbtn"))


def solve_click_checkboxes(page: Any, goal: str, mode: str) -> Iterator[Any]:
    wanted = re.match(r"Select (.*) and click Submit\.", goal).group(1)
    names = set() if wanted == "nothing" else {w.strip() for w in wanted.split(",")}
    yield from _check(page, goal, mode, page.locator("#boxes label"), names)


def solve_click_option(page: Any, goal: str, mode: str) -> Iterator[Any]:
    want = re.match(r"Select (.*) and click Submit\.", goal).group(1).strip()
    labels = page.locator("#boxes label")
    yield _click(page, _choose(page, labels, want, mode).locator("input"))
    if mode != "short":
        yield _click(page, page.locator("#subbtn"))


def _fields(page: Any, pairs: Sequence[tuple[str, str]], mode: str, submit: str = "#subbtn") -> Iterator[Any]:
    from venuskit.actions.types import Type

    for i, (selector, text) in enumerate(pairs):
        yield _click(page, page.locator(selector))
        last = i == len(pairs) - 1
        yield Type(content=_typed(text, mode) if last else text if mode != "wrong" else text[::-1])
    if mode != "short":
        yield _click(page, page.locator(submit))


def solve_enter_text(page: Any, goal: str, mode: str) -> Iterator[Any]:
    text = _quoted(goal)[0]
    yield from _fields(page, [("#tt", text if mode != "wrong" else text[::-1] + "x")], mode)


def solve_enter_password(page: Any, goal: str, mode: str) -> Iterator[Any]:
    pw = _quoted(goal)[0]
    yield from _fields(page, [("#password", pw), ("#verify", pw if mode != "wrong" else pw + "q")], mode)


def solve_login_user(page: Any, goal: str, mode: str) -> Iterator[Any]:
    user, pw = _quoted(goal)[:2]
    yield from _fields(page, [("#username", user), ("#password", pw if mode != "wrong" else pw[::-1] + "z")], mode)


def solve_click_collapsible(page: Any, goal: str, mode: str) -> Iterator[Any]:
    if mode != "wrong":  # the wrong run submits with the section still closed
        yield _click(page, page.locator("#area h3").first)
    if mode != "short":
        yield _click(page, page.locator("#subbtn"))


def solve_click_test_2(page: Any, goal: str, mode: str) -> Iterator[Any]:
    want = re.search(r"button (\w+)", goal).group(1)
    if mode != "short":
        yield _click(page, _choose(page, page.locator("#area button"), want, mode))


SOLVERS: dict[str, Solver] = {
    "click-button": solve_click_button,
    "click-link": solve_click_link,
    "click-tab": solve_click_tab,
    "click-tab-2-easy": solve_click_tab_2,
    "click-checkboxes": solve_click_checkboxes,
    "click-option": solve_click_option,
    "enter-text": solve_enter_text,
    "enter-text-dynamic": solve_enter_text,
    "enter-password": solve_enter_password,
    "login-user": solve_login_user,
    "click-collapsible-nodelay": solve_click_collapsible,
    "click-test-2": solve_click_test_2,
    "unicode-test": solve_click_button,
}
TYPING = ("enter-text", "enter-text-dynamic", "enter-password", "login-user")
_MODE = {"oracle": "right", "cut_short": "short", "perturbed": "wrong", "prefix_typed": "prefix"}


class ScriptOracle:
    """The oracle interface `eval.world.OraclePolicy` drives: `next(page) -> (thought, action)`. The solver
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
        except (LookupError, AttributeError, IndexError) as e:
            raise OracleError(f"the MiniWoB++ script could not go on: {e}") from e


# ---- building ------------------------------------------------------------------------------------


def label_of(episode: Any) -> str:
    """The page's verdict: completed when the task page ended the episode with a positive raw reward."""
    reward = episode.outcome.reward
    return "completed" if reward is not None and reward > 0 else "failed"


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
    items, rejected, skipped = _run_all(out_dir, tasks, list(seeds), list(kinds), scale, on_item, reuse)
    return write_index(out_dir, request, items, rejected, skipped, time.perf_counter() - t0)


def _nano_policy() -> Any | None:
    try:
        from venuskit.agent.nano import NanoPolicy  # venus-nano, where it is installed
    except ImportError:
        return None
    return NanoPolicy


def _run_all(out_dir: Path, tasks: list[str], seeds: list[int], kinds: list[str], scale: int,
             on_item: Callable[[dict[str, Any]], None] | None,
             reuse: dict[str, dict[str, Any]] | None = None) -> tuple[list, list, list]:  # fmt: skip
    from venuskit.envs.miniwob import MiniWobEnv, default_config

    items, rejected, skipped = [], [], []
    nano = _nano_policy() if "agent" in kinds else None
    for task in tasks:
        with MiniWobEnv(task, config=default_config(task, device_scale_factor=scale)) as env:
            for seed in seeds:
                for kind in kinds:
                    why_skip = _skip(task, kind, nano)
                    if why_skip:
                        skipped.append({"task": task, "seed": seed, "kind": kind, "why": why_skip})
                        continue
                    kept = (reuse or {}).get(f"{task}@{seed}#{kind}")
                    row = dict(kept) if kept else _run_one(env, out_dir / "episodes", task, seed, kind, nano)
                    why = row.pop("why", None)
                    (rejected if why else items).append({**row, "why": why} if why else row)
                    if on_item is not None:
                        on_item({**row, "rejected": why})
    return items, rejected, skipped


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
                           "keypoints": []}  # fmt: skip
    job = AgentJob(goal=f"MiniWoB++ {task}", surface="browser", out=episodes, run=RunConfig(max_steps=12))
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
            self.inner = ScriptOracle(SOLVERS[self.task], str(goal), self.mode)
        return self.inner.next(page)


class _Null:
    def next(self, page: Any) -> tuple[str, Any]:
        from venuskit.actions.types import Finished

        return "Done.", Finished(content="Done.")
