"""MiniWoB++ tasks on venuskit's own Playwright browser env (no selenium).

The `miniwob` package ships the task pages (`html/miniwob/*.html`, `html/flight/*/wrapper.html`) and a
gymnasium registry of them; it drives them through selenium. We reuse its pages and its registry but
drive them with `BrowserEnv`, so a MiniWoB++ step is exactly the click / type / screenshot a model gets on
any web page, and the reward comes straight from the page.

Episode protocol (as miniwob's `SeleniumInstance` and `html/core/core.js` define it):
  load the page -> wait for the START cover (`core.cover_div`, made by `core.startEpisode` on load)
  -> `Math.seedrandom(seed)` -> `core.setDataMode(mode)` -> raise `core.EPISODE_MAX_TIME`
  -> `core.startEpisodeReal()` (generates the problem) -> wait for `WOB_TASK_READY` -> `core.getUtterance()`.
After every step we read the page globals: `WOB_DONE_GLOBAL` (episode over), `WOB_RAW_REWARD_GLOBAL`
(the task's own reward in [-1, 1]), `WOB_REWARD_GLOBAL` (the raw reward scaled down by elapsed time over
`EPISODE_MAX_TIME`; meaningless once the limit is raised, kept only in `info`) and `WOB_REWARD_REASON`.

Screen: every task draws in `#wrap`, 160x210 CSS px at the top-left of the page (the reward HUD sits at
x >= 165 px; FlightWoB frames are 375x667). Without a `config` the viewport is exactly the task area, as in
the MiniWoB++ papers and miniwob's own cropped screenshots. Pass a `BrowserConfig` for anything else, e.g.
a `device_scale_factor` of 2 for sharper 320x420 screenshots.
"""

from __future__ import annotations

import ast
import difflib
import functools
import importlib.util
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from playwright.sync_api import Error as PlaywrightError

from venuskit.actions.types import Action, Launch, PressBack
from venuskit.envs.base import ActionRefused, EnvError, Observation, StepResult
from venuskit.envs.browser import BrowserConfig, BrowserEnv

TASK_SIZE = (160, 210)  # CSS px of #wrap in every html/miniwob task
FLIGHT_TASK_SIZE = (375, 667)  # the FlightWoB iframe
DEFAULT_EPISODE_TIME_LIMIT_S = 24 * 3600.0  # MiniWoB's own 10 s would time out any model slower than a human
MAX_EPISODE_TIME_LIMIT_S = (2**31 - 1) / 1000  # a larger setTimeout delay overflows and fires at once
DEFAULT_MODE = "train"  # what miniwob's gym env passes to core.setDataMode
READY_TIMEOUT_S = 10.0  # page load + problem generation; FlightWoB's iframe is the slow one
# Headless Chromium paces frames at 60 Hz, and a screenshot waits for the next frame: 17-33 ms per capture.
# Unpaced, a capture of a 160x210 page takes ~4 ms. The cost: a page that animates forever (a rAF loop)
# renders >1000 fps and burns a core; MiniWoB++ pages only animate briefly (d3/jQuery transitions), and an
# idle task page stays at ~1% CPU (measured). That is why this is MiniWoB's default, not BrowserEnv's.
FAST_FRAME_ARGS = ("--disable-frame-rate-limit",)
_NAVIGATING = (Launch, PressBack)  # would leave the task page and lose the episode (PressHome is the Home key)

_START_EPISODE_JS = """([seed, mode, limitMs]) => {
  // The START cover would begin a new, unseeded episode when clicked; only reset() starts episodes.
  core.cover_div.onclick = null;
  Math.seedrandom(seed);
  core.setDataMode(mode);
  core.EPISODE_MAX_TIME = limitMs;
  core.startEpisodeReal();
  return WOB_TASK_READY === true;
}"""
_STATE_JS = "() => [WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL, WOB_REWARD_GLOBAL, WOB_REWARD_REASON]"


# ---- the task registry -----------------------------------------------------------------------------


@dataclass(frozen=True)
class MiniWobTask:
    """One task of the `miniwob` package's gymnasium registry (`miniwob/<name>-v1`)."""

    name: str  # e.g. "click-button", "flight.AA"
    deterministic: bool  # False where the registry marks it nondeterministic (same seed, different page)
    nodelay: str | None = None  # name of its animation-free twin, e.g. "click-pie" -> "click-pie-nodelay"

    @property
    def flight(self) -> bool:
        """FlightWoB tasks: an airline site in an iframe, served over http (not file://), 375x667."""
        return self.name.startswith("flight.")

    @property
    def size(self) -> tuple[int, int]:
        return FLIGHT_TASK_SIZE if self.flight else TASK_SIZE

    @property
    def page_path(self) -> str:
        """The task page relative to the package's html/ folder."""
        if self.flight:
            return f"flight/{self.name.removeprefix('flight.')}/wrapper.html"
        return f"miniwob/{self.name}.html"


@functools.cache
def _package_dir() -> Path:
    """The installed `miniwob` package's folder, found without importing it: importing it registers its
    gymnasium envs, which pulls in gymnasium and numpy (~16 MB more in every process that runs an env)."""
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        raise ValueError("The miniwob package is not installed; pip install 'venuskit[browser]'.")
    return Path(list(spec.submodule_search_locations)[0])


def html_dir() -> Path:
    """The `miniwob` package's html/ folder (task pages, core.js)."""
    return _package_dir() / "html"


@functools.cache
def _registry() -> dict[str, MiniWobTask]:
    """The package's gymnasium registry, read from the source of its `register(...)` calls (parsed, never run)."""
    tree = ast.parse((_package_dir() / "registration.py").read_text(encoding="utf-8"))
    specs: dict[str, bool] = {}  # name -> nondeterministic
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "register":
            kw = {k.arg: k.value for k in node.keywords}
            env_id = kw.get("id")
            if isinstance(env_id, ast.Constant) and str(env_id.value).startswith("miniwob/"):
                flag = kw.get("nondeterministic")
                name = str(env_id.value).removeprefix("miniwob/").removesuffix("-v1")
                specs[name] = isinstance(flag, ast.Constant) and flag.value is True
    return {
        name: MiniWobTask(
            name=name, deterministic=not nondeterministic,
            nodelay=f"{name}-nodelay" if f"{name}-nodelay" in specs else None,
        )
        for name, nondeterministic in sorted(specs.items())
    }  # fmt: skip


def list_tasks(deterministic_only: bool = False) -> list[str]:
    """Task names of the installed `miniwob` package, sorted; FlightWoB ones are named "flight.<site>".

    The package registers 128 gymnasium envs (the html folder also holds 5 unregistered debug pages, which
    are left out). `deterministic_only` drops the ones its registry marks `nondeterministic=True` (pages
    whose state leaks across episodes or that animate by timers: 103 remain). The "-nodelay" tasks are
    separate entries: the same task with its animations removed (see `MiniWobTask.nodelay`)."""
    return [t.name for t in _registry().values() if t.deterministic or not deterministic_only]


def get_task(name: str) -> MiniWobTask:
    """The registry entry for `name` ("click-button"; "miniwob/click-button-v1" is accepted too)."""
    short = name.removeprefix("miniwob/").removesuffix("-v1")
    task = _registry().get(short)
    if task is None:
        close = difflib.get_close_matches(short, list(_registry()), n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else " See venuskit.envs.miniwob.list_tasks()."
        raise ValueError(f"{name!r} is not a MiniWoB++ task of the installed miniwob package.{hint}")
    return task


# ---- loopback server for FlightWoB ---------------------------------------------------------------


class _HtmlServer:
    """Serves the html/ folder on 127.0.0.1 (FlightWoB loads its site into an iframe, which file:// forbids)."""

    def __init__(self, root: Path) -> None:
        from venuskit.infra.http import LoopbackServer, static_app  # only FlightWoB needs a server (~3 MB)

        self._server = LoopbackServer(static_app(root), name="miniwob-html").start()

    @property
    def base_url(self) -> str:
        return self._server.base_url + "/"

    def close(self) -> None:
        self._server.stop()


# ---- the env -------------------------------------------------------------------------------------


@dataclass
class _PageState:
    done: bool
    raw_reward: float
    env_reward: float
    reason: Any


class MiniWobEnv:
    """A MiniWoB++ task in venuskit's `BrowserEnv`: `reset(task)` starts a seeded episode, `step(action)` runs a
    venuskit action and reports the page's raw reward; `terminated` is set once the task itself ends it.

    task dicts: {"miniwob": "click-button", "seed": 3, "mode": "train"}; every key optional when the env
    was built with `task_name`. Without a seed one is drawn and reported in `info["seed"]`."""

    surface = "browser"

    def __init__(
        self,
        task_name: str | None = None,
        config: BrowserConfig | None = None,
        episode_time_limit_s: float = DEFAULT_EPISODE_TIME_LIMIT_S,
    ) -> None:
        if not 0 < episode_time_limit_s <= MAX_EPISODE_TIME_LIMIT_S:
            raise ValueError(
                f"episode_time_limit_s must be in (0, {MAX_EPISODE_TIME_LIMIT_S:.0f}] seconds (the browser's "
                f"setTimeout limit), got {episode_time_limit_s!r}."
            )
        self.task_name = get_task(task_name).name if task_name else None
        self.episode_time_limit_s = float(episode_time_limit_s)
        self.config = config if config is not None else default_config(task_name)
        # The reward globals are read in the same page call as the observation's title (no extra round trip).
        self._browser = BrowserEnv(self.config, page_probe=_STATE_JS)
        self.surface = self._browser.surface  # "browser", or "mobile" with a mobile preset config
        self._server: _HtmlServer | None = None
        self._task: MiniWobTask | None = None
        self._episode: dict[str, Any] = {}  # info of the running episode (task, seed, utterance, ...)
        self._state: _PageState | None = None  # the last state read; None before the first reset

    # -- Env protocol --------------------------------------------------------------------------------

    def reset(self, task: dict[str, Any] | None = None) -> Observation:
        """Load the task page fresh (no state leaks between episodes), seed it and start an episode.
        Raises ValueError for a bad task dict and EnvError subclasses when the page does not start."""
        spec, seed, mode = self._parse_task(task or {})
        self._state = None  # until the new episode runs, step() refuses
        self._browser.reset({"start_url": self._url(spec)})
        try:
            utterance, fields = self._start_episode(seed, mode)
        except PlaywrightError as e:
            raise EnvError(f"MiniWoB++ task {spec.name!r} did not start: {str(e).strip().splitlines()[0]}") from e
        if not utterance:
            raise EnvError(f"MiniWoB++ task {spec.name!r} started but shows no instruction; its page did not load.")
        self._task = spec
        self._state = _PageState(False, 0.0, 0.0, None)
        self._episode = {"miniwob": spec.name, "seed": seed, "mode": mode, "utterance": utterance, "goal": utterance}
        if fields:
            self._episode["fields"] = fields
        return self.observe()

    def step(self, action: Action) -> StepResult:
        """Run `action`, then read the page's reward globals. After the episode ended, actions are refused:
        the finished page shows miniwob's START cover, and only `reset` starts the next episode. If the
        browser crashed or hung (BrowserEnv relaunched it), the episode is lost: the step carries the error
        and ends the episode with reward 0."""
        if self._state is None or self._task is None:
            raise EnvError("MiniWobEnv.step was called before reset; call reset(task) first.")
        if self._state.done:
            return self._refuse(action, "The MiniWoB++ episode is over; call reset() to start the next one.")
        if isinstance(action, _NAVIGATING):
            return self._refuse(
                action, f"{action.name} would leave the MiniWoB++ task page; it is not available here."
            )
        result = self._browser.step(action)
        if result.info.get("relaunched"):  # the browser crashed or hung: the reloaded page has no episode
            self._state = _PageState(True, 0.0, 0.0, "the browser restarted and the episode was lost")
            return self._finish(result)
        try:
            self._state = self._read_state()
        except (PlaywrightError, EnvError) as e:  # e.g. the page navigated away by itself
            result.error = result.error or EnvError(f"Could not read the MiniWoB++ reward from the page: {e}")
            return result
        return self._finish(result)

    def observe(self) -> Observation:
        """The current screenshot, with the episode's utterance and seed in `info`."""
        obs = self._browser.observe()
        obs.info.update(self._episode)
        return obs

    def close(self) -> None:
        self._browser.close()
        if self._server is not None:
            self._server.close()
            self._server = None

    @property
    def page(self) -> Any:
        """The Playwright page, for tests and oracles that read the DOM. Never give it to a policy."""
        return self._browser.page

    def memory_pids(self) -> list[int]:
        """This process, the Playwright driver and the env's Chromium processes (see BrowserEnv.memory_pids)."""
        return self._browser.memory_pids()

    @property
    def task(self) -> MiniWobTask | None:
        """The task of the current episode (None before the first reset)."""
        return self._task

    # -- Gymnasium-style helpers ---------------------------------------------------------------------

    def gym_reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Observation, dict]:
        """`reset` with Gymnasium's signature: options may name the task ("miniwob") and the "mode"."""
        obs = self.reset({**(options or {}), "seed": seed})
        return obs, dict(obs.info)

    def gym_step(self, action: Action) -> tuple[Observation, float, bool, bool, dict]:
        """`step` as Gymnasium's (observation, reward, terminated, truncated, info); `truncated` is always
        False because venuskit's runner, not the env, owns step limits."""
        r = self.step(action)
        return r.observation, float(r.reward or 0.0), r.terminated, False, dict(r.info)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -----------------------------------------------------------------------------------

    @property
    def _ready_ms(self) -> float:
        return READY_TIMEOUT_S * 1000

    def _start_episode(self, seed: int | str, mode: str) -> tuple[str, dict[str, Any]]:
        page = self.page
        page.wait_for_function("() => window.core !== undefined && core.cover_div !== null", timeout=self._ready_ms)
        if not page.evaluate(_START_EPISODE_JS, [seed, mode, round(self.episode_time_limit_s * 1000)]):
            page.wait_for_function("() => WOB_TASK_READY === true", timeout=self._ready_ms)
        return _split_utterance(page.evaluate("() => core.getUtterance()"))

    def _parse_task(self, task: dict[str, Any]) -> tuple[MiniWobTask, int | str, str]:
        name = task.get("miniwob") or self.task_name
        if not name:
            raise ValueError(
                'MiniWobEnv.reset needs a task: pass {"miniwob": "<task name>"} or MiniWobEnv(task_name).'
            )
        seed = task.get("seed")
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)  # drawn here so the episode can be replayed
        elif isinstance(seed, bool) or not isinstance(seed, (int, str)):
            raise ValueError(f"A MiniWoB++ seed must be an int or a string, got {seed!r}.")
        return get_task(str(name)), seed, str(task.get("mode") or DEFAULT_MODE)

    def _url(self, spec: MiniWobTask) -> str:
        if not spec.flight:
            return (html_dir() / spec.page_path).as_uri()
        if self._server is None:
            self._server = _HtmlServer(html_dir())
        return self._server.base_url + spec.page_path

    def _read_state(self) -> _PageState:
        """The reward globals as the step's observation read them; asked again only if that read failed
        (a navigation mid-call, a page without MiniWoB's globals: then the error is the page's own)."""
        probe = self._browser.last_probe
        done, raw, scaled, reason = probe.value if probe is not None and probe.ok else self.page.evaluate(_STATE_JS)
        return _PageState(bool(done), float(raw or 0.0), float(scaled or 0.0), reason)

    def _finish(self, result: StepResult) -> StepResult:
        state = self._state
        assert state is not None and self._task is not None
        result.reward = state.raw_reward if state.done else 0.0
        result.terminated = state.done
        result.info.update({"miniwob": self._task.name, "seed": self._episode["seed"]})
        if state.done:
            result.info.update(
                {"raw_reward": state.raw_reward, "env_reward": state.env_reward, "reason": state.reason}
            )
        result.observation.info.update(self._episode)
        return result

    def _refuse(self, action: Action, message: str) -> StepResult:
        state = self._state
        assert state is not None
        result = StepResult(
            observation=self.observe(), error=ActionRefused(message), reward=0.0, terminated=state.done
        )
        result.info.update({"refused": action.name})
        return result


def _split_utterance(response: Any) -> tuple[str, dict[str, Any]]:
    # Most tasks return the instruction text. FlightWoB writes its instruction as a JSON object (the
    # package's field extractor parses it the same way); a {"utterance", "fields"} dict is handled too.
    if isinstance(response, dict):
        return str(response.get("utterance") or ""), dict(response.get("fields") or {})
    text = str(response or "")
    if text.startswith("{"):
        try:
            fields = json.loads(text)
        except ValueError:
            return text, {}
        return text, fields if isinstance(fields, dict) else {}
    return text, {}


def default_config(task_name: str | None = None, **overrides: Any) -> BrowserConfig:
    """The BrowserConfig MiniWobEnv uses when given none: the viewport is the task area (160x210 CSS px, or
    375x667 for FlightWoB), no settle pause after actions (MiniWoB++ pages load nothing after an action;
    miniwob's own env does not wait either, and the "-nodelay" tasks exist for animations) and no 60 Hz
    frame pacing (`FAST_FRAME_ARGS`). `overrides` are BrowserConfig fields, e.g. device_scale_factor=2
    for 320x420 screenshots, or extra_args=() to keep Chromium's frame pacing."""
    size = get_task(task_name).size if task_name else TASK_SIZE
    return BrowserConfig(**{"viewport": size, "settle_s": 0.0, "extra_args": FAST_FRAME_ARGS, **overrides})
