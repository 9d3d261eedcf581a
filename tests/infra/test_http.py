"""The loopback server base: a real server on 127.0.0.1, driven by real sockets and http.client."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest

from venuskit.infra.http import (
    HTTPError,
    Limits,
    LoopbackServer,
    Request,
    Response,
    json_response,
    parse_json,
)
from venuskit.infra.untrusted import json_depth


def _app(req: Request) -> Response:
    if req.path == "/echo":
        return json_response({"method": req.method, "json": req.json() if req.body else None, "q": req.query()})
    if req.path == "/boom":
        raise RuntimeError("secret internals")
    if req.path == "/teapot":
        raise HTTPError(418, "Short and stout.")
    if req.path == "/stream":
        return Response(stream=(f"data: {i}\n\n".encode() for i in range(3)), content_type="text/event-stream")
    return Response(b"<h1>hi</h1>")


@pytest.fixture
def server():
    limits = Limits(max_body=1000, read_timeout_s=0.5, idle_timeout_s=1.0, max_connections=4)
    with LoopbackServer(_app, limits=limits, error_log_size=3) as srv:
        yield srv


def _raw(port: int, data: bytes, *, wait_s: float = 3.0) -> bytes:
    """Send `data` on a fresh connection and read until the server closes it or `wait_s` passes."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait_s) as sock:
        sock.sendall(data)
        out = b""
        try:
            while chunk := sock.recv(65536):
                out += chunk
        except TimeoutError:
            pass
    return out


def _status(reply: bytes) -> int:
    return int(reply.split(b" ", 2)[1])


def _post(port: int, body: bytes, headers: dict[str, str]) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("POST", "/echo", body=body, headers=headers)
    resp = conn.getresponse()
    return resp.status, json.loads(resp.read() or b"null")


def test_serves_on_a_free_loopback_port_and_stop_frees_it() -> None:
    srv = LoopbackServer(_app).start()
    port = srv.port
    assert port > 0 and srv.base_url == f"http://127.0.0.1:{port}"
    status, body = _post(port, b'{"a": [1, 2]}', {"Content-Type": "application/json"})
    assert (status, body["json"], body["method"]) == (200, {"a": [1, 2]}, "POST")
    thread = srv._thread
    srv.stop()
    assert thread is not None and not thread.is_alive()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1)
    srv.stop()  # idempotent


def test_refuses_to_bind_anything_but_loopback() -> None:
    with pytest.raises(ValueError, match="loopback"):
        LoopbackServer(_app, host="0.0.0.0")


def test_dns_rebinding_host_is_refused(server: LoopbackServer) -> None:
    reply = _raw(server.port, b"GET / HTTP/1.1\r\nHost: attacker.example\r\n\r\n")
    assert _status(reply) == 421
    assert _status(_raw(server.port, f"GET / HTTP/1.1\r\nHost: localhost:{server.port}\r\n\r\n".encode())) == 200
    assert _status(_raw(server.port, b"GET / HTTP/1.0\r\n\r\n")) == 400  # no Host at all


def test_cross_origin_writes_are_refused_and_own_origin_passes(server: LoopbackServer) -> None:
    own = f"http://127.0.0.1:{server.port}"
    assert _post(server.port, b"{}", {"Origin": "http://attacker.example"})[0] == 403
    assert _post(server.port, b"{}", {"Origin": "null"})[0] == 403
    assert _post(server.port, b"{}", {"Origin": f"http://127.0.0.1:{server.port + 1}"})[0] == 403  # another port
    assert _post(server.port, b"{}", {"Sec-Fetch-Site": "cross-site"})[0] == 403
    assert _post(server.port, b"{}", {"Origin": own, "Sec-Fetch-Site": "same-origin"})[0] == 200
    assert _post(server.port, b"{}", {})[0] == 200  # non-browser clients send no Origin


@pytest.mark.parametrize(
    ("length_headers", "status"),
    [
        ("", 411),
        ("Content-Length: -5\r\n", 400),
        ("Content-Length: abc\r\n", 400),
        ("Content-Length: 1e3\r\n", 400),
        ("Content-Length: 2\r\nContent-Length: 3\r\n", 400),
        ("Transfer-Encoding: chunked\r\n", 411),
    ],
)
def test_bad_content_length_is_a_clean_error(server: LoopbackServer, length_headers: str, status: int) -> None:
    head = f"POST /echo HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n{length_headers}\r\n{{}}"
    reply = _raw(server.port, head.encode())
    assert _status(reply) == status
    assert b"Traceback" not in reply and b'"message"' in reply
    assert not server.errors


def test_too_large_body_is_refused_before_it_is_sent(server: LoopbackServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=3) as sock:
        sock.sendall(f"POST /echo HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                     "Content-Length: 300000000\r\n\r\n".encode())  # fmt: skip
        reply = sock.recv(65536)  # the 413 comes back without a byte of the 300 MB body sent
    assert _status(reply) == 413


def test_expect_continue_gets_413_instead_of_100(server: LoopbackServer) -> None:
    reply = _raw(server.port, f"POST /echo HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nExpect: 100-continue\r\n"
                              "Content-Length: 5000\r\n\r\n".encode())  # fmt: skip
    assert _status(reply) == 413 and b"100 Continue" not in reply
    reply = _raw(server.port, f"POST /echo HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nExpect: 100-continue\r\n"
                              "Content-Length: 2\r\n\r\n{}".encode())  # fmt: skip
    assert reply.startswith(b"HTTP/1.1 100") and b"HTTP/1.1 200" in reply


def test_a_lying_content_length_does_not_hold_a_thread(server: LoopbackServer) -> None:
    before = threading.active_count()
    started = time.monotonic()
    reply = _raw(server.port, f"POST /echo HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                              "Content-Length: 100\r\n\r\n{}".encode(), wait_s=5)  # fmt: skip
    assert _status(reply) == 408 and time.monotonic() - started < 3
    time.sleep(0.2)
    assert threading.active_count() <= before
    assert _post(server.port, b"{}", {})[0] == 200  # and the server still answers


def test_a_silent_connection_is_closed_after_the_idle_timeout(server: LoopbackServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        started = time.monotonic()
        assert sock.recv(100) == b""  # closed by the server, not by our 5 s timeout
        assert time.monotonic() - started < 3


def test_connections_past_the_limit_are_closed_when_none_is_idle(server: LoopbackServer) -> None:
    busy = f"POST /echo HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Length: 100\r\n\r\n{{}}".encode()
    held = [socket.create_connection(("127.0.0.1", server.port), timeout=2) for _ in range(4)]
    try:
        for sock in held:
            sock.sendall(busy)  # each is inside a request (its body never comes): none may be cut short
        time.sleep(0.1)
        with socket.create_connection(("127.0.0.1", server.port), timeout=2) as extra:
            started = time.monotonic()
            assert extra.recv(100) == b"" and time.monotonic() - started < 0.3
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.6)
    assert _post(server.port, b"{}", {})[0] == 200


def test_idle_connections_past_the_limit_do_not_lock_out_a_real_request(server: LoopbackServer) -> None:
    """The probe's 300 idle connections over the 256 cap: the longest idle one gives way to a new connection."""
    held = [socket.create_connection(("127.0.0.1", server.port), timeout=2) for _ in range(6)]
    try:
        time.sleep(0.2)
        started = time.monotonic()
        assert _post(server.port, b"{}", {})[0] == 200
        assert time.monotonic() - started < 0.9  # well before the 1 s idle timeout would have freed a slot
        assert held[0].recv(100) == b""  # the longest idle one was closed
    finally:
        for sock in held:
            sock.close()


def test_a_handler_exception_is_a_500_without_internals_and_the_log_is_bounded(server: LoopbackServer) -> None:
    for _ in range(5):
        reply = _raw(server.port, f"GET /boom HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nConnection: close\r\n\r\n"
                     .encode())  # fmt: skip
        assert _status(reply) == 500
        assert b"secret internals" not in reply and b"Traceback" not in reply
    assert len(server.errors) == 3 and server.error_count == 5
    assert "secret internals" in server.errors[-1]


def test_http_error_and_head_and_stream(server: LoopbackServer) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/teapot")
    resp = conn.getresponse()
    assert resp.status == 418 and json.loads(resp.read())["error"]["message"] == "Short and stout."
    conn.request("HEAD", "/")
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("Content-Length") == str(len(b"<h1>hi</h1>")) and resp.read() == b""
    conn.request("GET", "/stream")
    resp = conn.getresponse()
    assert resp.read() == b"data: 0\n\ndata: 1\n\ndata: 2\n\n"
    conn.request("GET", "/echo?a=1&a=2&b=")
    assert json.loads(conn.getresponse().read())["q"] == {"a": ["1", "2"], "b": [""]}


def test_raw_non_ascii_and_absolute_targets_are_400(server: LoopbackServer) -> None:
    for target in (b"/mail/\xb2", b"http://attacker.example/", b"/a\x01b"):
        reply = _raw(server.port, b"GET " + target + f" HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
        assert _status(reply) == 400, target


def test_too_many_query_fields_is_400(server: LoopbackServer) -> None:
    query = "&".join(f"f{i}=1" for i in range(500))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", f"/echo?{query}")
    assert conn.getresponse().status == 400


def test_deep_json_is_refused_without_recursion_error(server: LoopbackServer) -> None:
    deep = b"[" * 30000 + b"]" * 30000
    assert json_depth(deep) == 30000
    assert json_depth(b'{"a": "[[[[", "b": [{"c": "\\"]]"}]}') == 3  # brackets inside strings do not count
    with pytest.raises(HTTPError) as e:
        parse_json(deep, max_bytes=100_000)
    assert e.value.status == 400 and "deeper" in e.value.message
    status, _ = _post(server.port, b"[" * 400 + b"]" * 400, {})
    assert status == 400
    assert not server.errors


@pytest.mark.parametrize("body", [b"{", b"\xff\xfe", b'{"a": 1} x', b"[1, 2"])
def test_parse_json_rejects_malformed_input(body: bytes) -> None:
    with pytest.raises(HTTPError) as e:
        parse_json(body)
    assert e.value.status == 400


def test_no_nagle_stall_on_keep_alive_replies(server: LoopbackServer) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    times = []
    for _ in range(20):
        started = time.perf_counter()
        conn.request("POST", "/echo", body=b'{"x": 1}')
        conn.getresponse().read()
        times.append(time.perf_counter() - started)
    # With Nagle on, the body write waits for the client's 40 ms delayed ACK on every reply: a floor under every
    # round trip, which the fastest one shows even on a loaded machine.
    assert min(times) < 0.02, times


def test_static_app_serves_files_and_nothing_outside_its_folder(tmp_path) -> None:
    from venuskit.infra.http import static_app

    site = tmp_path / "site"
    (site / "sub").mkdir(parents=True)
    (site / "index.html").write_text("<h1>home</h1>")
    (site / "sub" / "page one.js").write_text("let a = 1;")
    (tmp_path / "secret.txt").write_text("key")
    (site / "link").symlink_to(tmp_path / "secret.txt")
    with LoopbackServer(static_app(site)) as srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
        for target, status in [("/", 200), ("/sub/page%20one.js", 200), ("/../secret.txt", 404),
                                ("/%2e%2e/secret.txt", 404), ("/link", 404), ("/nope", 404)]:  # fmt: skip
            conn.request("GET", target)
            resp = conn.getresponse()
            body = resp.read()
            assert resp.status == status, target
            assert b"key" not in body
        conn.request("GET", "/sub/page%20one.js")
        resp = conn.getresponse()
        assert resp.read() == b"let a = 1;" and "javascript" in resp.getheader("Content-Type")
        conn.request("POST", "/", body=b"")
        assert conn.getresponse().status == 405
