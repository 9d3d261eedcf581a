"""OpenAIBackend against a REAL vLLM server (CPU) serving the tiny random-weight Qwen2.5-VL.

Needs the optional environment from `bash scripts/setup-vllm.sh` (.venv-vllm, ~3.5 GB). Without it these tests
fail with that instruction (they never skip); whether the `vllm` marker is selected is CI's decision.
The server starts once per session (~35 s on 2 cores) and is killed by process group at the end.
"""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from venuskit.actions.coords import smart_resize
from venuskit.models import Completion, ModelConfig, OpenAIBackend, png_to_data_url
from venuskit.train.tiny import MAX_PIXELS, MIN_PIXELS

pytestmark = [pytest.mark.vllm, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("VENUSKIT_VLLM_VENV", ROOT / ".venv-vllm"))
MODEL_DIR = Path(os.environ.get("VENUSKIT_TINY_MODEL_DIR", ROOT / ".cache" / "tiny-qwen25vl-v2"))
SERVED_NAME = "tiny-qwen25vl"
START_TIMEOUT_S = 180.0


@dataclass
class VllmServer:
    base_url: str
    process: subprocess.Popen
    log_path: Path
    start_s: float

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def group_rss_mib(pgid: int) -> tuple[float, float]:
    """(current, peak) resident memory summed over the server's process group, from /proc."""
    now = peak = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            if os.getpgid(int(status.parent.name)) != pgid:
                continue
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except (OSError, ValueError):  # the process ended while we looked
            continue
        now += int(fields.get("VmRSS", "0 kB").split()[0])
        peak += int(fields.get("VmHWM", "0 kB").split()[0])
    return now / 1024, peak / 1024


def require_vllm_env() -> Path:
    python = VENV / "bin" / "python"
    if not python.exists():
        pytest.fail(
            f"The vLLM CPU environment {VENV} does not exist. Run `bash scripts/setup-vllm.sh` once "
            "(about 2 minutes, 3.5 GB) to create it, or deselect these tests with `-m 'not vllm'`.",
            pytrace=False,
        )
    if not (MODEL_DIR / "config.json").exists():  # the setup script builds it; rebuild if the cache was cleared
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT / "src")}
        subprocess.run([str(python), "-m", "venuskit.train.tiny", str(MODEL_DIR)], check=True, env=env)
    return python


def wait_healthy(server: VllmServer, port: int) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"vLLM exited with code {server.process.returncode} while starting:\n{server.log_tail()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    pytest.fail(f"vLLM did not answer /health within {START_TIMEOUT_S:.0f} s:\n{server.log_tail()}")


def stop(process: subprocess.Popen) -> None:
    """Terminate the whole process group (API server, engine core, worker), escalating to SIGKILL."""
    for sig, grace in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture(scope="session")
def vllm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VllmServer]:
    python = require_vllm_env()
    port = free_port()
    log_path = tmp_path_factory.mktemp("vllm") / "server.log"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_NO_USAGE_STATS": "1"}
    command = [
        str(python), "-m", "vllm.entrypoints.launchers.api_server.entry", "--model", str(MODEL_DIR),
        "--served-model-name", SERVED_NAME, "--host", "127.0.0.1", "--port", str(port), "--enforce-eager",
        "--dtype", "float32", "--max-model-len", "16384", "--max-num-seqs", "4",
    ]  # fmt: skip
    started = time.monotonic()
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    server = VllmServer(f"http://127.0.0.1:{port}/v1", process, log_path, 0.0)
    try:
        wait_healthy(server, port)
        server.start_s = time.monotonic() - started
        yield server
        now, peak = group_rss_mib(process.pid)
        print(f"\n[vllm] start {server.start_s:.1f} s; RSS now {now:.0f} MiB, sum of per-process peaks {peak:.0f} MiB")
    finally:
        stop(process)


def screenshot_png(seed: int, size: tuple[int, int] = (1280, 800)) -> bytes:
    """A screenshot-sized PNG with a toolbar, a few 'buttons' and text; `seed` changes colours and layout."""
    image = Image.new("RGB", size, (245, 245, 245) if seed % 2 == 0 else (30, 30, 40))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, size[0], 60), fill=(40 + 50 * seed % 200, 90, 200))
    for i in range(4):
        x = 100 + i * 260 + 37 * seed % 120
        draw.rectangle((x, 200, x + 200, 260), fill=((80 * i + 60 * seed) % 256, 160, 90), outline=(0, 0, 0))
        draw.text((x + 20, 220), f"Button {i + seed}", fill=(0, 0, 0))
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def screenshot_messages(png: bytes | None, task: str = "Open the settings page.") -> list[dict]:
    parts: list[dict] = [{"type": "text", "text": "Current Screenshot:\n"}]
    if png is not None:
        parts.append({"type": "image_url", "image_url": {"url": png_to_data_url(png)}})
    return [
        {"role": "system", "content": f"**You are a GUI Agent.**\n### User Task\n{task}"},
        {"role": "user", "content": parts},
    ]


def ask(server: VllmServer, messages: list[dict], **config) -> Completion:
    settings = {"temperature": 0.0, "max_tokens": 16, "timeout_s": 60.0, "max_retries": 1, "backoff_base_s": 0.5}
    backend = OpenAIBackend(ModelConfig(base_url=server.base_url, model=SERVED_NAME, **{**settings, **config}))
    return backend.complete(messages)


HF_GREEDY = """
import io, json, sys
import torch
from PIL import Image
from transformers import AutoModelForImageTextToText, AutoProcessor
model_dir, png_path, messages_json, max_new = sys.argv[1:5]
processor = AutoProcessor.from_pretrained(model_dir)
model = AutoModelForImageTextToText.from_pretrained(model_dir, dtype=torch.float32).eval()
text = processor.apply_chat_template(json.loads(messages_json), tokenize=False, add_generation_prompt=True)
inputs = processor(text=[text], images=[Image.open(png_path).convert("RGB")], return_tensors="pt")
with torch.no_grad():
    out = model.generate(**inputs, max_new_tokens=int(max_new), do_sample=False)
prompt = inputs["input_ids"][0].tolist()
print(json.dumps({"prompt": prompt, "completion": out[0, len(prompt):].tolist()}))
"""


def hf_greedy(png: bytes, messages: list[dict], max_new_tokens: int, tmp_path: Path) -> dict:
    """Greedy token ids from transformers' generate in .venv-vllm, for the same model, prompt and image."""
    png_path = tmp_path / "screen.png"
    png_path.write_bytes(png)
    argv = [str(VENV / "bin" / "python"), "-c", HF_GREEDY, str(MODEL_DIR), str(png_path), json.dumps(messages)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [*argv, str(max_new_tokens)], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert done.returncode == 0, f"the HF reference run failed:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_server_lists_the_tiny_model(vllm_server: VllmServer) -> None:
    with urllib.request.urlopen(vllm_server.base_url + "/models", timeout=10) as response:
        ids = [card["id"] for card in json.loads(response.read())["data"]]
    assert ids == [SERVED_NAME]


def test_screenshot_and_text_give_a_completion_with_usage(vllm_server: VllmServer) -> None:
    with_image = ask(vllm_server, screenshot_messages(screenshot_png(0)))
    text_only = ask(vllm_server, screenshot_messages(None))
    assert with_image.text.strip(), "vLLM returned an empty completion for a screenshot + text prompt"
    assert with_image.finish_reason in {"length", "stop"}
    assert 1 <= with_image.usage.completion_tokens <= 16
    # The image part costs <|vision_start|> + one token per 28x28 block of the resized image + <|vision_end|>.
    height, width = smart_resize(800, 1280, factor=28, min_pixels=MIN_PIXELS, max_pixels=MAX_PIXELS)
    image_tokens = (height // 28) * (width // 28)
    assert with_image.usage.prompt_tokens - text_only.usage.prompt_tokens == image_tokens + 2
    assert with_image.latency_s < 30


def test_different_images_give_different_greedy_outputs(vllm_server: VllmServer) -> None:
    first = ask(vllm_server, screenshot_messages(screenshot_png(0)), max_tokens=24)
    again = ask(vllm_server, screenshot_messages(screenshot_png(0)), max_tokens=24)
    other = ask(vllm_server, screenshot_messages(screenshot_png(1)), max_tokens=24)
    assert first.text == again.text, "greedy decoding of the same request should be deterministic"
    assert first.text != other.text, "two different screenshots gave the same output: was the image used at all?"


def test_chat_template_kwargs_reach_the_real_chat_template(vllm_server: VllmServer) -> None:
    # The tiny template pre-closes an empty think block when enable_thinking is False: 19 more prompt bytes/tokens.
    messages = screenshot_messages(screenshot_png(2))
    thinking = ask(vllm_server, messages, chat_template_kwargs={"enable_thinking": True})
    closed = ask(vllm_server, messages, chat_template_kwargs={"enable_thinking": False})
    assert closed.usage.prompt_tokens - thinking.usage.prompt_tokens == len("<think>\n\n</think>\n\n")


def test_vllm_and_transformers_agree_token_for_token(vllm_server: VllmServer, tmp_path: Path) -> None:
    # Same weights, template, processor and image: prompt ids and greedy ids must match exactly. Compare ids, not
    # text: the byte-level tokenizer can stop inside a UTF-8 character, which vLLM and HF detokenize differently.
    png = screenshot_png(3)
    messages = screenshot_messages(png)
    served = ask(vllm_server, messages, max_tokens=16, extra_sampling={"return_token_ids": True})
    reference = hf_greedy(png, messages, 16, tmp_path)
    assert served.raw["prompt_token_ids"] == reference["prompt"]
    served_ids = served.raw["choices"][0]["token_ids"]
    assert served_ids == reference["completion"]
    assert len(served_ids) == served.usage.completion_tokens >= 1


@pytest.mark.browser
def test_venus_run_against_the_real_server_records_every_reply(vllm_server: VllmServer, serve_dir, tmp_path) -> None:
    """The whole loop on real parts: `venus run` -> real vLLM -> real Chromium. The tiny model's random
    replies are not valid actions, so every step must be a recorded parse error and the run must go on to
    its step limit: nothing crashes and nothing is lost."""
    import sys

    from venuskit.record.store import load_episode

    site = serve_dir(Path(__file__).parents[1] / "agent" / "pages")
    cmd = [sys.executable, "-m", "venuskit.cli.main", "run", "--task", "Add one.", "--start-url",
           f"{site}/counter.html", "--model", vllm_server.base_url, "--model-name", SERVED_NAME,
           "--max-tokens", "24", "--max-steps", "3", "--out", str(tmp_path), "--json", "--non-interactive"]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert "Traceback" not in out.stderr
    episode = load_episode(result["episode_dir"])
    assert len(episode.steps) == 3 and not episode.problems
    for step in episode.steps:
        assert step.raw_output is not None  # the model's reply, verbatim (a random model may reply nothing)
        assert step.attempts and step.attempts[0]["rejected_by"] == "parser"  # one re-ask per unparsable reply
        assert step.action is not None or step.error["type"] == "ActionParseError"
    if all(s.action is None for s in episode.steps):
        assert result["reason"] == "step_limit" and result["truncated"] and out.returncode == 2


def test_sgv_and_the_step_verifier_use_the_real_server_as_judge(vllm_server: VllmServer, tmp_path: Path) -> None:
    """The VLM judge path on real parts. The random model's replies are not votes, so every model vote is a
    recorded abstention: the verification finishes, counts the server's real calls and tokens, and cannot
    call the episode completed; the step verifier lets the action run and says the judge gave no verdict."""
    from types import SimpleNamespace

    from venuskit.actions.types import Click, Finished, Point
    from venuskit.record.episode import Episode, Outcome, Step
    from venuskit.record.store import EpisodeWriter
    from venuskit.verify import SGVConfig, VLMJudge, verify_episode
    from venuskit.verify.report import STATUSES
    from venuskit.verify.step import StepVerifier

    actions = [Click(point=Point(0.1 + 0.2 * i, 0.3)) for i in range(4)] + [Finished(content="done")]
    episode = Episode(episode_id="judged", task={"goal": "Open the settings page."}, surface="browser",
                      screen=(1280, 800))  # fmt: skip
    with EpisodeWriter.create(tmp_path, episode) as writer:
        for i, action in enumerate(actions):
            writer.add_step(
                Step(index=i, screenshot=None, url="http://127.0.0.1/app", action=action), screenshot_png(i)
            )
        writer.finish(Outcome(terminated=True, reason="finished", answer="done"))
        folder = writer.dir
    judge = VLMJudge.from_url(vllm_server.base_url, SERVED_NAME, timeout_s=120)
    # model_windows: the model judge checks every window too (the default asks it once, over the selected evidence).
    config = SGVConfig(workers=2, timeout_s=120, model_windows=True)
    report = verify_episode(folder, [judge], config, keypoints=["Settings is open"])
    assert report.cost.calls >= 2 and report.cost.tokens > 0  # two windows (and a final judgment)
    assert report.verdict != "completed"
    votes = [v for k in report.keypoints for v in k.votes]
    assert votes and all(v.status in STATUSES for v in votes)

    ctx = SimpleNamespace(goal="Open the settings page.", surface="browser", step_index=0, action=actions[0],
                          observation=SimpleNamespace(png=screenshot_png(0), url="http://127.0.0.1/app"),
                          thought="", raw_output="", history=())  # fmt: skip
    verdict = StepVerifier(judge=judge)(ctx)
    assert verdict.label in ("correct", "explore", "invalid", "wrong")
    assert verdict.ok or verdict.reason  # a rejection always says why
