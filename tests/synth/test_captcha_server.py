"""The CAPTCHA server over real HTTP on loopback: what a page gets, and how answer posts are judged."""

from __future__ import annotations

import http.client
import itertools
import json
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from venuskit.synth.captcha.dataset import SynthConfig
from venuskit.synth.captcha.server import CaptchaServer
from venuskit.synth.captcha.spec import EVAL_SEEDS, PUBLIC_SEEDS, TRAIN_SEEDS
from venuskit.tasks.splits import load as load_splits


@pytest.fixture(scope="module")
def srv() -> Iterator[CaptchaServer]:
    with CaptchaServer() as server:
        yield server


def get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def post(url: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def answer_url(srv: CaptchaServer, iid: str) -> str:
    return f"{srv.base_url}/api/answer/{iid}"


def test_page_and_assets_are_served_without_cookies_or_caching(srv: CaptchaServer) -> None:
    issued = srv.create("slider_jigsaw", 2)
    status, headers, page = get(issued.url)
    assert status == 200 and b'data-part="handle"' in page and b"/static/captcha.js" in page
    assert "Set-Cookie" not in headers and headers["Cache-Control"] == "no-store"
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    for name in ("image", "piece"):
        status, headers, png = get(f"{srv.base_url}/a/{issued.id}/{name}.png")
        assert status == 200 and headers["Content-Type"] == "image/png" and png == issued.instance.puzzle.assets[name]
    assert get(f"{srv.base_url}/a/{issued.id}/answer.png")[0] == 404
    assert get(f"{srv.base_url}/static/captcha.js")[0] == 200


def test_new_draws_the_seed_on_the_server_and_refuses_a_client_seed(srv: CaptchaServer) -> None:
    a, b = (get(f"{srv.base_url}/new?type=text_warped") for _ in range(2))
    assert a[0] == b[0] == 200
    ids = [line[12:] for line in (a[2] + b[2]).decode().split('"') if line.startswith("/api/answer/")]
    assert len(set(ids)) == 2, "each load is its own instance"
    seeds = [srv.get(i).instance.seed for i in ids]
    assert seeds[0] != seeds[1] and all(s in PUBLIC_SEEDS for s in seeds)
    # The probe re-created one puzzle with ?seed= and brute-forced it across copies: a seed is refused now.
    status, _, body = get(f"{srv.base_url}/new?type=text_warped&seed=5")
    assert status == 400 and b"server chooses the seed" in body
    assert get(f"{srv.base_url}/new?type=nope")[0] == 400
    index = get(f"{srv.base_url}/")[2].decode()
    assert "text_warped" in index and "cube_count" in index and "seed=" not in index


def test_one_answer_per_instance_and_replays_are_refused(srv: CaptchaServer) -> None:
    issued = srv.create("text_warped", 1)
    body = json.dumps({"state": {"text": issued.instance.answer["text"]}, "log": []}).encode()
    assert post(answer_url(srv, issued.id), body) == (200, {"ok": True, "passed": True, "reason": ""})
    status, reply = post(answer_url(srv, issued.id), body)
    assert status == 409 and not reply["passed"] and "already answered" in reply["reason"]
    assert srv.result(issued.id).passed  # the first verdict stands
    status, reply = post(answer_url(srv, "f" * 32), body)
    assert status == 404 and "Unknown or expired" in reply["reason"]


def test_a_wrong_answer_fails_with_a_partial_score(srv: CaptchaServer) -> None:
    issued = srv.create("text_warped", 2)
    wrong = issued.instance.answer["text"][:-1]
    status, reply = post(answer_url(srv, issued.id), json.dumps({"state": {"text": wrong}, "log": []}).encode())
    assert status == 200 and reply == {"ok": True, "passed": False, "reason": ""}
    result = srv.result(issued.id)
    assert not result.passed and 0.5 < result.partial < 1, "the page learns pass/fail; the partial stays here"


@pytest.mark.parametrize(
    "body,why",
    [
        (b"{not json", "not valid JSON"),
        (b'"just a string"', "JSON object"),
        (json.dumps({"state": {"text": 5}, "log": []}).encode(), "state.text must be str"),
        (json.dumps({"state": {"text": "a", "extra": 1}}).encode(), "unknown ['extra']"),
        (json.dumps({"state": {}, "log": []}).encode(), "missing ['text']"),
        (json.dumps({"state": {"text": "a"}, "log": [{"t": 1, "type": "rm -rf"}]}).encode(), "log[0]"),
        (json.dumps({"state": {"text": "a"}, "log": "x", "elapsed_ms": 1}).encode(), "'log' must be a list"),
        (json.dumps({"state": {"text": "a"}, "cheat": True}).encode(), "Unknown top-level keys"),
        (json.dumps({"state": {"text": "a" * 500}}).encode(), "at most 200"),
    ],
)
def test_malformed_posts_are_rejected_with_a_reason_and_count_as_a_fail(
    srv: CaptchaServer, body: bytes, why: str
) -> None:
    issued = srv.create("text_warped", 3)
    status, reply = post(answer_url(srv, issued.id), body)
    assert status == 400 and not reply["passed"] and why in reply["reason"]
    assert not srv.result(issued.id).passed and why in srv.result(issued.id).reason
    status, _ = post(
        answer_url(srv, issued.id), json.dumps({"state": {"text": issued.instance.answer["text"]}}).encode()
    )
    assert status == 409, "a rejected post spends the instance"


def test_typed_validation_of_other_widgets(srv: CaptchaServer) -> None:
    cases = [
        ("slider_jigsaw", {"value": True}),
        ("slider_jigsaw", {"value": float("nan")}),
        ("grid_select_icon", {"selected": [1, "2"]}),
        ("click_vowels", {"points": [[1, 2, 3]], "dbl": []}),
        ("robot_grid", {"selected": [1]}),
        ("path_finder", {"value": 0, "pos": [1]}),
    ]
    for name, state in cases:
        issued = srv.create(name, 0)
        status, reply = post(answer_url(srv, issued.id), json.dumps({"state": state}, allow_nan=True).encode())
        assert status == 400 and not reply["passed"], name


def test_huge_payloads_are_refused_unread(srv: CaptchaServer) -> None:
    issued = srv.create("click_shape", 0)
    big = json.dumps({"state": {"points": [[1, 1]] * 3, "dbl": []}, "log": [{"t": 1, "type": "tap"}] * 9000}).encode()
    assert len(big) > srv.max_body
    status, reply = post(answer_url(srv, issued.id), big)
    assert status == 413 and "larger than" in reply["reason"] and not reply["passed"]
    assert srv.result(issued.id) is None, "a post refused unread reaches no judge"


def test_a_30000_deep_answer_is_a_reasoned_fail_not_left_judging(srv: CaptchaServer) -> None:
    issued = srv.create("text_warped", 4)
    deep = b'{"state": {"text": ' + b"[" * 30000 + b"]" * 30000 + b"}}"
    status, reply = post(answer_url(srv, issued.id), deep[: srv.max_body])
    assert status == 400 and not reply["passed"] and "deeper" in reply["reason"]
    assert srv.result(issued.id).reason.startswith("Rejected") and not srv.errors


def test_a_lying_content_length_frees_its_thread_and_spends_nothing() -> None:
    with CaptchaServer(read_timeout_s=0.5) as short:
        issued = short.create("text_warped", 5)
        port = int(short.base_url.rsplit(":", 1)[1])
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(f"POST /api/answer/{issued.id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                         "Content-Length: 1000\r\n\r\n{}".encode())  # fmt: skip
            reply = sock.recv(4096)
        assert b" 408 " in reply and time.monotonic() - started < 3
        assert short.result(issued.id) is None
        body = json.dumps({"state": {"text": issued.instance.answer["text"]}}).encode()
        assert post(answer_url(short, issued.id), body)[1]["passed"]


def _flood(server: CaptchaServer, n: int) -> tuple[list[int], float]:
    conn = http.client.HTTPConnection("127.0.0.1", int(server.base_url.rsplit(":", 1)[1]), timeout=10)
    statuses, started = [], time.monotonic()
    for _ in range(n):
        conn.request("GET", "/new?type=dice_sum")
        resp = conn.getresponse()
        resp.read()
        statuses.append(resp.status)
    return statuses, time.monotonic() - started


def test_a_new_flood_never_evicts_the_instance_under_evaluation() -> None:
    # The probe's 5,000 /new calls in 2.3 s pushed the instance under evaluation out of the server.
    with CaptchaServer(max_public=50, new_per_s=1000.0, new_burst=1000) as server:
        under_eval = server.create("text_warped", 6)
        statuses, _ = _flood(server, 600)
        assert statuses.count(303) == 50 and statuses.count(429) == 550  # the cap answers 429 and evicts nothing
        assert server.get(under_eval.id) is not None
        body = json.dumps({"state": {"text": under_eval.instance.answer["text"]}}).encode()
        assert post(answer_url(server, under_eval.id), body)[1]["passed"]
    with CaptchaServer(max_public=1000, new_per_s=5.0, new_burst=10) as server:
        statuses, elapsed = _flood(server, 60)
        assert 10 <= statuses.count(303) <= 10 + 5 * elapsed + 1 and 429 in statuses  # the rate limit


def test_seed_spaces_match_the_splits_and_are_disjoint() -> None:
    splits = load_splits()
    assert (TRAIN_SEEDS.start, TRAIN_SEEDS.stop - 1) == tuple(splits.captcha_train_seeds)
    assert (EVAL_SEEDS.start, EVAL_SEEDS.stop - 1) == tuple(splits.captcha_eval_seeds)
    spaces = sorted([TRAIN_SEEDS, EVAL_SEEDS, PUBLIC_SEEDS], key=lambda r: r.start)
    assert all(a.stop <= b.start for a, b in itertools.pairwise(spaces))


def test_synthesis_refuses_any_seed_outside_the_training_space(tmp_path) -> None:
    SynthConfig(n=2, out=tmp_path, types=["dice_sum"], seed_start=TRAIN_SEEDS.stop - 2)  # the last two: fine
    with pytest.raises(ValueError, match="must lie in 0-999999"):
        SynthConfig(n=2, out=tmp_path, types=["dice_sum"], seed_start=TRAIN_SEEDS.stop - 1)  # would reach an eval seed
    with pytest.raises(ValueError, match="must lie in 0-999999"):
        SynthConfig(n=1, out=tmp_path, types=["dice_sum"], seed_start=EVAL_SEEDS.start)


def test_instances_expire() -> None:
    with CaptchaServer(ttl_s=0.2) as short:
        issued = short.create("dice_sum", 0)
        assert get(issued.url)[0] == 200
        time.sleep(0.3)
        assert get(issued.url)[0] == 404
        assert post(answer_url(short, issued.id), b'{"state": {"text": "1"}}')[0] == 404


def test_only_loopback() -> None:
    with pytest.raises(ValueError, match="loopback"):
        CaptchaServer(host="0.0.0.0")
