"""Secrets in real Chromium: a {{secret:name}} placeholder is typed as its value only on its own origin, and the
value appears nowhere the run leaves behind: the recorded JSON, the screenshots (read back with OCR), the viewer,
the chat and Parquet exports, and the requests sent to the model."""

from __future__ import annotations

import pytest
from agent_helpers import FINISH, PAGES, H, W

from venuskit.actions import Click, Point, Type, format_call
from venuskit.actions.coords import point_from_pixels
from venuskit.agent.policy import ScriptedPolicy, VenusPolicy
from venuskit.agent.runner import RunConfig
from venuskit.agent.safety import Secret, SecretsEnv, Vault
from venuskit.agent.session import AgentJob, run_episode
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.models.openai_backend import ModelConfig, OpenAIBackend
from venuskit.models.standin_server import StandinServer
from venuskit.record.export import export_chat_jsonl, export_parquet
from venuskit.record.store import load_episode
from venuskit.record.viewer import render_html
from venuskit.verify.ocr import looks_like, screen_words

pytestmark = pytest.mark.browser
VALUE = "KANGAROO-4471-SECRET"  # letters and digits OCR reads reliably, so a miss is a real miss
FIELD = point_from_pixels(230, 458, W, H)  # the fixture page's text field (#t-field)


def reply(action) -> str:
    return f"<think>Go.</think>\n<action>{format_call(action, 'browser')}</action>"


TYPE_IT = [reply(Click(point=Point(*FIELD))), reply(Type(content="{{secret:token}}")), FINISH]


@pytest.fixture(scope="module")
def origins(serve_dir):
    return serve_dir(PAGES), serve_dir(PAGES)


@pytest.fixture(scope="module")
def browser():
    with BrowserEnv(BrowserConfig(viewport=(W, H))) as env:
        yield env


@pytest.fixture(scope="module")
def ocr():
    return screen_words  # the full PP-OCR pipeline (what the safety eval scans screenshots with)


def vault_for(origin: str) -> Vault:
    return Vault([Secret("token", VALUE, (origin,))])


def seen(ocr, png: bytes) -> bool:
    return any(looks_like(word, VALUE) for word in ocr(png))


def test_the_secret_is_typed_on_its_origin_and_left_out_of_every_record(browser, origins, ocr, tmp_path):
    own, _ = origins
    env = SecretsEnv(browser, vault_for(own))
    job = AgentJob(goal="Type {{secret:token}} into the note field.", out=tmp_path / "runs", run=RunConfig(max_steps=4))
    episode, folder = run_episode(env, ScriptedPolicy(TYPE_IT, "browser"), job, {"start_url": f"{own}/safety.html"})
    assert browser.page.input_value("#t-field") == VALUE  # the page got the real value
    assert seen(ocr, browser.page.screenshot())  # control: unmasked, OCR does read it off the screen
    stored = load_episode(folder)
    assert stored.steps[1].action.content == "{{secret:token}}" and stored.steps[1].executed["text"] == "{{secret:token}}"
    assert stored.steps[1].info.get("masked_boxes")  # the screenshot after typing was painted over
    pngs = sorted(folder.glob("*.png"))
    assert len(pngs) == 3 and not any(seen(ocr, p.read_bytes()) for p in pngs)
    chat, parquet = tmp_path / "chat.jsonl", tmp_path / "rows.parquet"
    export_chat_jsonl([folder], chat)
    export_parquet([folder], parquet)
    html = render_html(folder)
    for f in [*folder.rglob("*.json*"), html, chat]:
        assert VALUE not in f.read_text(encoding="utf-8", errors="replace"), f
    assert VALUE.encode() not in parquet.read_bytes()


def test_another_origin_gets_nothing(browser, origins, tmp_path):
    own, other = origins
    env = SecretsEnv(browser, vault_for(own))
    job = AgentJob(goal="Type it.", out=tmp_path, run=RunConfig(max_steps=4))
    episode, folder = run_episode(env, ScriptedPolicy(TYPE_IT, "browser"), job, {"start_url": f"{other}/safety.html"})
    assert browser.page.input_value("#t-field") == ""
    step = load_episode(folder).steps[1]
    assert step.error["type"] == "SecretRefused" and own in step.error["message"]
    assert episode.outcome.reason == "finished"  # refused, fed back, the run went on


def test_the_model_never_sees_the_value(browser, origins, ocr, tmp_path):
    own, _ = origins
    env = SecretsEnv(browser, vault_for(own))
    goal = "Type {{secret:token}} into the note field."
    with StandinServer(TYPE_IT) as srv:
        policy = VenusPolicy(OpenAIBackend(ModelConfig(base_url=srv.base_url, model=srv.model_name)), "browser", goal)
        job = AgentJob(goal=goal, out=tmp_path, run=RunConfig(max_steps=4))
        episode, _ = run_episode(env, policy, job, {"start_url": f"{own}/safety.html"})
        requests = srv.chat_requests()
    assert episode.outcome.reason == "finished" and browser.page.input_value("#t-field") == VALUE
    assert len(requests) == 3 and "{{secret:token}}" in str(requests[0].json)  # the placeholder, as written
    assert all(VALUE not in str(r.json) for r in requests)
    last_screens = requests[-1].images()
    assert last_screens and not any(seen(ocr, png) for png in last_screens)
