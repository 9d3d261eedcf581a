"""MiniWoB++ on venuskit's Playwright env: registry, loading every deterministic task, scripted solutions
(oracles that read the DOM through env.page and act only through venuskit actions), wrong answers, seeds,
the raised time limit. One Chromium serves the whole module."""

from __future__ import annotations

import io
import os
import re
import signal
import time

import pytest
from PIL import Image

from venuskit.actions import coords
from venuskit.actions.types import Click, Finished, Launch, Point, Type
from venuskit.envs.base import ActionRefused, BrowserCrashed, Env, EnvError
from venuskit.envs.miniwob import (
    DEFAULT_EPISODE_TIME_LIMIT_S,
    FLIGHT_TASK_SIZE,
    TASK_SIZE,
    MiniWobEnv,
    default_config,
    get_task,
    list_tasks,
)

browser = pytest.mark.browser


@pytest.fixture(scope="module")
def env():
    e = MiniWobEnv()
    yield e
    e.close()


def point_of(env: MiniWobEnv, locator) -> Point:
    """The centre of a DOM element as the normalised point a model would output."""
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not visible"
    vw, vh = env.page.viewport_size["width"], env.page.viewport_size["height"]
    return Point(
        *coords.point_from_pixels(int(box["x"] + box["width"] / 2), int(box["y"] + box["height"] / 2), vw, vh)
    )


def click(env: MiniWobEnv, locator):
    return env.step(Click(point=point_of(env, locator)))


def assert_task_screenshot(png: bytes, size: tuple[int, int]) -> None:
    """The episode's page, not a blank frame and not miniwob's black START cover."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    assert img.size == size
    colors = img.getcolors(maxcolors=size[0] * size[1])
    assert len(colors) >= 3, "the screenshot is (nearly) one colour"
    cover = sum(n for n, c in colors if c == (17, 17, 17))
    assert cover < 0.5 * size[0] * size[1], "the screenshot still shows the START cover"


# ---- registry (no browser) -----------------------------------------------------------------------


def test_list_tasks_reads_the_packages_registry():
    tasks = list_tasks()
    det = list_tasks(deterministic_only=True)
    assert len(tasks) == 128 and len(det) == 103
    assert tasks == sorted(tasks) and set(det) < set(tasks)
    assert {"click-button", "click-checkboxes", "enter-text", "click-tab", "flight.AA"} <= set(tasks)
    # the registry marks these nondeterministic; the debug pages it never registered are not tasks at all
    assert "click-pie" not in det and "flight.AA" not in det and "terminal" not in det
    assert "simon-says" not in tasks and "button-delay" not in tasks


def test_task_entries_know_nodelay_twins_and_flight_pages():
    assert get_task("click-pie").nodelay == "click-pie-nodelay"
    assert get_task("click-collapsible-2").nodelay == "click-collapsible-2-nodelay"
    assert get_task("click-button").nodelay is None
    assert get_task("miniwob/click-button-v1").name == "click-button"
    flight = get_task("flight.AA")
    assert flight.flight and flight.size == FLIGHT_TASK_SIZE and flight.page_path == "flight/AA/wrapper.html"
    assert get_task("enter-text").size == TASK_SIZE and get_task("enter-text").page_path == "miniwob/enter-text.html"


def test_unknown_task_names_get_a_suggestion():
    with pytest.raises(ValueError, match="click-button"):
        get_task("click-buton")


def test_time_limit_is_validated_before_a_browser_starts():
    with pytest.raises(ValueError, match="episode_time_limit_s"):
        MiniWobEnv("click-button", episode_time_limit_s=0)
    with pytest.raises(ValueError, match="setTimeout"):
        MiniWobEnv("click-button", episode_time_limit_s=30 * 24 * 3600)


# ---- every deterministic task loads --------------------------------------------------------------


@browser
@pytest.mark.slow
def test_every_deterministic_task_loads_and_resets(env):
    problems = []
    for name in list_tasks(deterministic_only=True):
        try:
            obs = env.reset({"miniwob": name, "seed": 0})
            assert obs.info["utterance"].strip() and obs.info["goal"] == obs.info["utterance"]
            assert obs.info["miniwob"] == name and obs.info["seed"] == 0
            assert (obs.width, obs.height) == TASK_SIZE
            assert_task_screenshot(obs.png, TASK_SIZE)
        except (AssertionError, EnvError) as e:
            problems.append(f"{name}: {e}")
    assert not problems, "\n".join(problems)


# ---- scripted solutions --------------------------------------------------------------------------


def solve_click_button(env: MiniWobEnv, goal: str):
    target = re.search(r'Click on the "(.+)" button', goal).group(1)
    return click(env, env.page.locator("#area button", has_text=re.compile(f"^{re.escape(target)}$")).first)


def solve_click_checkboxes(env: MiniWobEnv, goal: str):
    wanted = re.match(r"Select (.*) and click Submit\.", goal).group(1)
    names = set() if wanted == "nothing" else {w.strip() for w in wanted.split(",")}
    labels = env.page.locator("#boxes label")
    for i in range(labels.count()):
        if labels.nth(i).inner_text().strip() in names:
            result = click(env, labels.nth(i).locator("input"))
            assert result.reward == 0.0 and not result.terminated
    return click(env, env.page.locator("#subbtn"))


def solve_enter_text(env: MiniWobEnv, goal: str):
    text = re.search(r'Enter "(.+)" into the text field', goal).group(1)
    click(env, env.page.locator("#tt"))
    env.step(Type(content=text))
    return click(env, env.page.locator("#subbtn"))


def solve_click_tab(env: MiniWobEnv, goal: str):
    tab = re.search(r"Tab #(\d)", goal).group(1)
    return click(env, env.page.locator(f'#area ul a[href="#tabs-{tab}"]'))


def solve_click_link(env: MiniWobEnv, goal: str):
    word = re.search(r'Click on the link "(.+)"', goal).group(1)
    return click(env, env.page.locator("#area span.alink", has_text=re.compile(f"^{re.escape(word)}$")).first)


ORACLES = {
    "click-button": solve_click_button,
    "click-checkboxes": solve_click_checkboxes,
    "enter-text": solve_enter_text,
    "click-tab": solve_click_tab,
    "click-link": solve_click_link,
}


@browser
@pytest.mark.parametrize("name", sorted(ORACLES))
@pytest.mark.parametrize("seed", [1, 7])
def test_oracle_solves_the_task_through_venuskit_actions(env, name, seed):
    obs = env.reset({"miniwob": name, "seed": seed})
    result = ORACLES[name](env, obs.info["utterance"])
    assert result.error is None
    assert result.terminated and result.reward == 1.0
    assert result.info["raw_reward"] == 1.0 and result.info["miniwob"] == name


@browser
def test_a_wrong_tab_ends_the_episode_with_a_negative_reward(env):
    obs = env.reset({"miniwob": "click-tab", "seed": 5})
    wanted = re.search(r"Tab #(\d)", obs.info["utterance"]).group(1)
    wrong = "1" if wanted != "1" else "2"
    result = click(env, env.page.locator(f'#area ul a[href="#tabs-{wrong}"]'))
    assert result.terminated and result.reward is not None and result.reward <= 0
    # the episode is over: further actions are refused instead of clicking miniwob's START cover
    again = env.step(Click(point=Point(0.5, 0.5)))
    assert isinstance(again.error, ActionRefused) and again.terminated
    assert env.page.evaluate("WOB_DONE_GLOBAL") is True


@browser
def test_clicking_empty_space_gives_no_reward_and_keeps_the_episode(env):
    env.reset({"miniwob": "click-button", "seed": 2})
    result = env.step(Click(point=Point(0.5, 0.99)))
    assert result.error is None and result.reward == 0.0 and not result.terminated
    assert result.executed["op"] == "click"


@browser
def test_leaving_the_task_page_is_refused(env):
    obs = env.reset({"miniwob": "click-button", "seed": 2})
    result = env.step(Launch(url="http://127.0.0.1:9/"))
    assert isinstance(result.error, ActionRefused) and not result.terminated
    assert env.page.url == obs.url
    assert env.step(Finished(content="done")).error is None  # terminal actions are the runner's business


# ---- seeds and time ------------------------------------------------------------------------------


@browser
def test_seeds_reproduce_the_episode(env):
    first = env.reset({"miniwob": "click-checkboxes", "seed": 11})
    other = env.reset({"miniwob": "click-checkboxes", "seed": 12})
    again = env.reset({"miniwob": "click-checkboxes", "seed": 11})
    assert again.info["utterance"] == first.info["utterance"]
    assert again.png == first.png
    assert other.info["utterance"] != first.info["utterance"]


@browser
def test_an_unseeded_reset_reports_the_seed_it_drew(env):
    obs = env.reset({"miniwob": "click-button"})
    assert isinstance(obs.info["seed"], int)
    assert env.reset({"miniwob": "click-button", "seed": obs.info["seed"]}).info["utterance"] == obs.info["utterance"]


@browser
def test_the_episode_time_limit_is_raised(env):
    env.reset({"miniwob": "click-button", "seed": 1})  # the page's own limit is 10 s
    assert env.page.evaluate("core.EPISODE_MAX_TIME") == DEFAULT_EPISODE_TIME_LIMIT_S * 1000


@browser
@pytest.mark.slow
def test_a_short_time_limit_times_the_episode_out(env):
    env.episode_time_limit_s = 0.3
    try:
        env.reset({"miniwob": "click-button", "seed": 1})
        time.sleep(0.6)
        result = env.step(Click(point=Point(0.5, 0.99)))
    finally:
        env.episode_time_limit_s = DEFAULT_EPISODE_TIME_LIMIT_S
    assert result.terminated and result.reward == -1.0 and result.info["reason"] == "timed out"


@browser
@pytest.mark.slow
def test_a_browser_crash_ends_the_episode_with_the_error(env):
    env.reset({"miniwob": "click-button", "seed": 3})
    os.kill(env._browser.browser_pid, signal.SIGKILL)  # the env's own Chromium, nothing else
    result = env.step(Click(point=Point(0.5, 0.99)))
    assert isinstance(result.error, BrowserCrashed)
    assert result.terminated and result.reward == 0.0 and "lost" in result.info["reason"]
    assert isinstance(env.step(Click(point=Point(0.5, 0.5))).error, ActionRefused)
    assert env.reset({"miniwob": "click-button", "seed": 3}).info["utterance"]  # the relaunched browser works


@browser
def test_step_before_reset_is_an_error():
    e = MiniWobEnv("click-button")
    try:
        assert isinstance(e, Env) and e.surface == "browser"
        with pytest.raises(EnvError, match="reset"):
            e.step(Click(point=Point(0.5, 0.5)))
    finally:
        e.close()


@browser
def test_gymnasium_style_helpers(env):
    obs, info = env.gym_reset(seed=4, options={"miniwob": "click-tab"})
    assert info["utterance"] == obs.info["utterance"] and info["seed"] == 4
    wanted = re.search(r"Tab #(\d)", info["utterance"]).group(1)
    point = point_of(env, env.page.locator(f'#area ul a[href="#tabs-{wanted}"]'))
    obs, reward, terminated, truncated, info = env.gym_step(Click(point=point))
    assert (reward, terminated, truncated) == (1.0, True, False)


@browser
@pytest.mark.slow
def test_a_flightwob_task_loads_over_loopback_http():
    with MiniWobEnv("flight.AA") as e:
        obs = e.reset({"seed": 0})
        assert obs.url.startswith("http://127.0.0.1:")
        assert (obs.width, obs.height) == FLIGHT_TASK_SIZE
        assert obs.info["utterance"] and obs.info["fields"]
        assert_task_screenshot(obs.png, FLIGHT_TASK_SIZE)


@browser
def test_a_hidpi_config_doubles_the_screenshot_and_points_still_land():
    with MiniWobEnv("click-tab", config=default_config("click-tab", device_scale_factor=2)) as e:
        obs = e.reset({"seed": 1})
        assert (obs.width, obs.height) == (2 * TASK_SIZE[0], 2 * TASK_SIZE[1])
        result = solve_click_tab(e, obs.info["utterance"])
        assert result.terminated and result.reward == 1.0


def test_the_registry_read_from_source_is_the_packages_own() -> None:
    """The task list is parsed from miniwob's registration source, so running an env never imports gymnasium or
    numpy; it must equal what registering the envs with gymnasium gives."""
    import subprocess
    import sys

    from venuskit.envs.miniwob import _registry

    code = "import sys; from venuskit.envs.miniwob import MiniWobEnv; MiniWobEnv('click-button'); " \
           "print('gymnasium' in sys.modules, 'numpy' in sys.modules)"  # fmt: skip
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.split() == ["False"] * 2
    import gymnasium
    import miniwob  # noqa: F401 - registers the miniwob/* envs

    specs = {s.name: s for s in gymnasium.registry.values() if s.namespace == "miniwob"}
    theirs = {n: (not s.nondeterministic, f"{n}-nodelay" if f"{n}-nodelay" in specs else None) for n, s in specs.items()}
    assert {n: (t.deterministic, t.nodelay) for n, t in _registry().items()} == theirs
