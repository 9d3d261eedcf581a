"""Files that cross between a computer and the world: Mail attachments and Drive uploads sent as a browser's file
chooser sends them (multipart/form-data), downloads with the file's own name, exact bytes both ways, and the
bounded size of what one request may carry (a clear message, nothing half-sent)."""

from __future__ import annotations

import hashlib
import http.cookiejar
import socket
import urllib.error
import urllib.request
import uuid

import pytest

from venuskit.world import WorldServer
from venuskit.world import files as world_files


@pytest.fixture
def session():
    with WorldServer() as server:
        episode = server.new_episode(seed=0, locale="en")
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        opener.open(server.bind_url(episode, "/drive/")).read()
        yield server, server.state(episode), opener


def post(server, opener, path: str, fields: dict[str, str], uploads: dict[str, tuple[str, bytes]]) -> tuple[int, str]:
    """A form as Chromium sends one with a file input: UTF-8 file names in the part headers."""
    boundary = f"----venuskit{uuid.uuid4().hex}"
    body = b""
    for k, v in fields.items():
        body += f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
    for k, (name, data) in uploads.items():
        body += (f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"; filename="{name}"\r\n'
                 "Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n"  # fmt: skip
    body += f"--{boundary}--\r\n".encode()
    req = urllib.request.Request(server.base_url + path, data=body,
                                 headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})  # fmt: skip
    try:
        with opener.open(req) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_a_file_attached_from_the_computer_arrives_byte_for_byte(session):
    server, state, opener = session
    data = bytes(range(256)) * 40 + "报告\r\n".encode()  # binary, with CR LF and UTF-8 inside
    status, page = post(server, opener, "/mail/send", {"to": "omar.haddad@northwind.example", "subject": "Scan",
                                                        "body": "attached", "do": "send"},
                        {"upload": ("季度报告.bin", data)})  # fmt: skip
    assert status == 200 and "Message sent." in page
    mail = state.one("SELECT * FROM mails WHERE subject = 'Scan' AND folder = 'sent'")
    att = state.one("SELECT * FROM attachments WHERE mail_id = ?", (mail["id"],))
    assert att["name"] == "季度报告.bin" and att["size"] == len(data)
    assert world_files.doc_bytes(state, att["doc_id"]) == data
    with opener.open(f"{server.base_url}/mail/att/{att['id']}/download") as r:
        assert r.read() == data and "filename*=UTF-8''%E5%AD%A3" in r.headers["Content-Disposition"]


def test_drive_uploads_keep_their_bytes_and_download_as_they_came(session):
    server, state, opener = session
    text = b"name,score\namy,71\nben,93\n"
    status, page = post(server, opener, "/drive/upload", {}, {"upload": ("scores.csv", text)})
    assert status == 200 and "File uploaded." in page and "scores.csv" in page
    f = state.one("SELECT * FROM files WHERE name = 'scores.csv' AND source = 'upload'")
    with opener.open(f"{server.base_url}/drive/f/{f['id']}/download") as r:
        assert r.read() == text
    with opener.open(f"{server.base_url}/drive/f/{f['id']}") as r:
        assert "amy,71" in r.read().decode()  # the viewer previews text
    # a document the world made downloads as text, a sheet as CSV
    doc = state.one("SELECT f.id, d.kind FROM files f JOIN docs d ON d.id = f.doc_id WHERE d.kind = 'sheet'")
    with opener.open(f"{server.base_url}/drive/f/{doc['id']}/download") as r:
        assert b"," in r.read()
    assert "Choose a file first." in post(server, opener, "/drive/upload", {}, {"upload": ("", b"")})[1]


def test_an_upload_over_the_cap_is_refused_with_the_limit_and_nothing_is_sent(session):
    server, state, opener = session
    big = b"x" * (world_files.MAX_UPLOAD_BYTES + 1)
    status, page = post(server, opener, "/mail/send", {"to": "a@northwind.example", "subject": "Too big",
                                                        "body": "kept text", "do": "send"}, {"upload": ("big.bin", big)})  # fmt: skip
    assert status == 200 and "the largest file you can attach or upload is 1 MB" in page
    assert "kept text" in page and 'value="Too big"' in page  # the draft as typed, to try again
    assert state.one("SELECT * FROM mails WHERE subject = 'Too big'") is None
    status, page = post(server, opener, "/drive/upload", {}, {"upload": ("big.bin", big)})
    assert "big.bin is 1.0 MB" in page and state.one("SELECT * FROM files WHERE name = 'big.bin'") is None
    # a body over the whole request's cap is not read at all: 413 at once, with the limit
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(f"POST /drive/upload HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: multipart/"
                     f"form-data; boundary=x\r\nContent-Length: {world_files.MAX_BODY_BYTES + 1}\r\n\r\n".encode())
        reply = b""
        while chunk := sock.recv(65536):  # the server answers and closes without reading the body
            reply += chunk
        reply = reply.decode(errors="replace")
    assert reply.startswith("HTTP/1.1 413") and f"larger than {world_files.MAX_BODY_BYTES} bytes" in reply
    kept = {hashlib.sha256(bytes(r["data"])).hexdigest() for r in state.rows("SELECT data FROM blobs")}
    assert hashlib.sha256(big).hexdigest() not in kept
