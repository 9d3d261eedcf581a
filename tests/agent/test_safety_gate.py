"""The consequential-action gate on real pages in real Chromium: the page inspector, the rules in en and zh, the
runner's recorded decisions, approval by allow-list, by the terminal (`venus run --approve ask`) and by nobody,
the optional model judge (over the stand-in server), and failing closed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import ADD, FINISH, PAGES, H, W

from venuskit.actions import Click, Point, format_call
from venuskit.actions.coords import point_from_pixels
from venuskit.agent.hooks import StepContext
from venuskit.agent.policy import ScriptedPolicy
from venuskit.agent.runner import RunConfig
from venuskit.agent.safety import AllowListApprover, AllowRule, DenyApprover, GateJudge, SafetyGate
from venuskit.agent.session import AgentJob, run_episode
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.models.standin_server import Reply, StandinServer
from venuskit.record.store import load_episode
from venuskit.runs.world import world_operations
from venuskit.world.server import WorldServer

pytestmark = pytest.mark.browser
OPS = world_operations()


@pytest.fixture(scope="module")
def env():
    with BrowserEnv(BrowserConfig(viewport=(W, H), reuse_context=True)) as e:
        yield e


@pytest.fixture(scope="module")
def world():
    with WorldServer() as w:
        yield w


@pytest.fixture(scope="module")
def site(serve_dir):
    return serve_dir(PAGES), serve_dir(PAGES)  # two origins: the page's own and another site


def centre(env, selector: str) -> tuple[float, float]:
    box = env.page.locator(selector).first.bounding_box()
    return point_from_pixels(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, W, H)


def click_reply(env, selector: str) -> str:
    return f"<think>Click.</think>\n<action>{format_call(Click(point=Point(*centre(env, selector))), 'browser')}</action>"


def context(env, selector: str, obs=None) -> StepContext:
    obs = obs or env.observe()
    action = Click(point=Point(*centre(env, selector)))
    return StepContext(goal="g", surface="browser", step_index=0, observation=obs, action=action, thought=None,
                       raw_output="")  # fmt: skip


def test_the_inspector_reads_the_page_in_an_isolated_world(env, site):
    own, other = site
    env.reset({"start_url": f"{own}/safety.html?other={other}"})
    pay = env.describe_point(centre(env, "#pay"))
    assert pay.tag == "button" and pay.text == "Pay now" and pay.submits
    assert pay.form.method == "post" and pay.form.action == f"{own}/pay"  # the page's patched closest() did not lie
    cross = env.describe_point(centre(env, "#cross"))
    assert cross.form.action == f"{other}/collect" and cross.form.fields[0]["value"] == "me@example.com"
    assert env.describe_point(centre(env, "#frame")).frame
    env.page.fill("#t-field", "a-value-only-the-mask-knows")
    assert env.value_boxes(["a-value-only-the-mask-knows"], (W, H))
    assert "a-value-only-the-mask-knows" not in env.page.evaluate("window.stolen.join('|')")  # never in the page


def test_rules_over_a_page_without_declarations(env, site):
    own, other = site
    env.reset({"start_url": f"{own}/safety.html?other={other}"})
    gate = SafetyGate(env, approver=DenyApprover(), trusted=[own])
    obs = env.observe()
    expect = {"#pay": "pay", "#buy-zh": "pay", "#script-delete": "delete", "#cross": "data.submit",
              "#frame": "unknown"}  # fmt: skip
    for selector, kind in expect.items():
        decision = gate(context(env, selector, obs))
        assert decision.decision == "block" and decision.details["kind"] == kind, selector
    for selector in ("#save", "#search", "#note-save"):
        assert gate(context(env, selector, obs)).decision == "allow", selector


def test_world_operations_in_english_and_chinese(env, world):
    for locale, send, draft in (("en", "Send", "Save draft"), ("zh", "发送", "存草稿")):
        eid = world.new_episode(0, locale)
        env.reset({"start_url": world.bind_url(eid, "/mail/compose?to=bob@x.example")})
        gate = SafetyGate(env, approver=DenyApprover(), ops=OPS, trusted=[world.base_url])
        sent = gate(context(env, "button[value=send]"))
        assert sent.decision == "block" and sent.details["kind"] == "mail.send"
        assert sent.details["target"]["text"] == send and sent.details["fields"]["to"] == "bob@x.example"
        assert gate(context(env, "button[value=draft]")).decision == "allow"
        assert env.describe_point(centre(env, "button[value=draft]")).text == draft
        world.close_episode(eid)


def run_world(env, world, replies_for, approver, tmp_path, path="/mail/compose?to=bob@northwind.example"):
    eid = world.new_episode(0, "en")
    env.reset({"start_url": world.bind_url(eid, path)})
    policy = ScriptedPolicy(replies_for(env), "browser")
    gate = SafetyGate(env, approver=approver, ops=OPS, trusted=[world.base_url])
    job = AgentJob(goal="Send the mail.", out=tmp_path, run=RunConfig(max_steps=4))
    episode, folder = run_episode(env, policy, job, {"start_url": world.bind_url(eid, path)}, safety_gate=gate)
    return world.state(eid), load_episode(folder)


def test_a_denied_send_is_blocked_recorded_and_fed_back(env, world, tmp_path):
    state, episode = run_world(env, world, lambda e: [click_reply(e, "button[value=send]"), FINISH],
                               DenyApprover(), tmp_path)  # fmt: skip
    assert not state.actions("mail.send")  # nothing was sent
    first = episode.steps[0]
    assert first.error["type"] == "SafetyBlocked" and "mail.send" in first.error["message"]
    gate = first.info["safety_gate"]
    assert gate["decision"] == "block" and gate["approval"] == {"approved": False, "by": "deny", "reply": None}
    assert episode.steps[1].feedback and "safety gate blocked" in episode.steps[1].feedback
    assert episode.steps[1].info["safety_gate"]["consequential"] is False  # Finished: recorded, not consequential


def test_an_allow_listed_send_runs_after_approval(env, world, tmp_path):
    approver = AllowListApprover([AllowRule("mail.send", (("to", "*@northwind.example"),))])
    state, episode = run_world(env, world, lambda e: [click_reply(e, "button[value=send]"), FINISH], approver, tmp_path)
    assert len(state.actions("mail.send")) == 1
    gate = episode.steps[0].info["safety_gate"]
    assert gate["decision"] == "allow" and gate["approval"]["approved"] and gate["approval"]["by"] == "allow-list"


def test_a_gate_that_raises_fails_closed(env, site, tmp_path):
    def broken_gate(ctx):
        raise RuntimeError("classifier crashed")

    own, _ = site
    policy = ScriptedPolicy([ADD, FINISH], "browser")
    job = AgentJob(goal="Add one.", out=tmp_path, run=RunConfig(max_steps=3))
    episode, folder = run_episode(env, policy, job, {"start_url": f"{own}/counter.html"}, safety_gate=broken_gate)
    assert env.page.inner_text("#count") == "0"  # the action never ran
    assert episode.outcome.reason == "call_user" and episode.outcome.needs_user
    step = load_episode(folder).steps[0]
    assert step.info["safety_gate"]["decision"] == "ask_user" and "classifier crashed" in step.info["safety_gate"]["reason"]


def test_a_browser_that_dies_under_the_inspection_is_an_infrastructure_error_not_a_verdict(env, site, monkeypatch):
    """Fail-closed is for an action the gate cannot judge; a dead browser is no property of the action, and a
    "blocked" verdict would count as the agent's result. It propagates, so the suite retries the episode."""
    from venuskit.envs import BrowserCrashed

    own, _ = site
    env.reset({"start_url": f"{own}/safety.html"})
    ctx = context(env, "#pay")
    gate = SafetyGate(env, approver=DenyApprover(), trusted=[own])

    def died(point):
        raise BrowserCrashed("Chromium died")

    monkeypatch.setattr(env, "describe_point", died)
    with pytest.raises(BrowserCrashed):
        gate(ctx)


def test_the_model_judge_and_its_failures(env, site):
    own, _ = site
    env.reset({"start_url": f"{own}/safety.html"})
    obs = env.observe()
    with StandinServer(["CONSEQUENTIAL: pay\nThe button completes a payment.", Reply(status=500), "SAFE\nfine"]) as srv:
        judge = GateJudge.from_url(srv.base_url, srv.model_name)
        gate = SafetyGate(env, approver=DenyApprover(), trusted=[own], judge=judge)
        said_pay = gate(context(env, "#proceed", obs))  # no word flags "Proceed": the judge decides
        assert said_pay.decision == "block" and said_pay.details["source"] == "judge"
        broken = gate(context(env, "#proceed", obs))  # the judge's server fails: approval needed
        assert broken.decision == "block" and broken.details["source"] == "fail-closed"
        assert gate(context(env, "#proceed", obs)).decision == "allow"
        assert gate(context(env, "#search", obs)).decision == "allow"  # a GET form never reaches the judge
        requests = srv.chat_requests()
        assert len(requests) == 3 and requests[0].images()  # the judge saw the screenshot


@pytest.mark.parametrize("answer", ["no", "yes"])
def test_venus_run_asks_at_the_terminal(site, tmp_path, answer):
    """`venus run --approve ask`: the person answers on stdin. 'Pay now' is consequential; the click runs only
    after a yes (the fixture server refuses the POST, so 'ran' shows as the step's recorded approval)."""
    own, _ = site
    pay_point = point_from_pixels(60, 38, W, H)
    reply = f"<think>Pay.</think>\n<action>{format_call(Click(point=Point(*pay_point)), 'browser')}</action>"
    with StandinServer([reply, FINISH]) as srv:
        cmd = [sys.executable, "-m", "venuskit.cli.main", "run", "--task", "Pay.", "--start-url",
               f"{own}/safety.html", "--model", srv.base_url, "--model-name", srv.model_name, "--out", str(tmp_path),
               "--approve", "ask", "--max-steps", "3", "--json"]  # fmt: skip
        done = subprocess.run(cmd, input=f"{answer}\n", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    folder = next(Path(tmp_path).glob("ep-*"))
    gate = load_episode(folder).steps[0].info["safety_gate"]
    assert gate["kind"] == "pay" and gate["approval"]["by"] == "user" and gate["approval"]["reply"] == answer
    assert gate["decision"] == ("allow" if answer == "yes" else "block")
    assert "Allow it? (yes/no)" in done.stdout
