"""Files that cross between the world and the computer it runs on: uploads (a browser's file chooser posting
multipart/form-data) and downloads (a document's bytes with Content-Disposition: attachment).

An uploaded file keeps its exact bytes (table `blobs`) beside a document of kind `upload`; a downloaded document
gives the bytes a person would get: an upload its bytes, a text document its UTF-8 text, a spreadsheet CSV. The
same function (`doc_bytes`) serves the download routes and the contracts that compare what arrived with what was
sent, so a check reads exactly what the browser got.

Every request is bounded: at most MAX_UPLOAD_BYTES per file and MAX_UPLOADS files per request, beside the HTTP
layer's cap on the whole body; a file over the cap is refused with a message that says the limit.
"""

from __future__ import annotations

import csv
import email.parser
import email.policy
import hashlib
import io
import json
import urllib.parse
from dataclasses import dataclass
from typing import Any

from venuskit.world.state import EpisodeState

MAX_UPLOAD_BYTES = 1 << 20  # one file a person attaches or uploads
MAX_UPLOADS = 10  # files in one request
MAX_BODY_BYTES = 4 << 20  # the world server's cap on a whole request body (several files and the form)
MAX_NAME = 200  # characters of an uploaded file's name
TEXT_PREVIEW = 4000  # characters of a text upload shown by the viewer


@dataclass(frozen=True)
class Upload:
    field: str  # the form field (e.g. "upload")
    name: str  # the file's name as the browser sent it, without any folder
    mime: str
    data: bytes


def parse_multipart(body: bytes, content_type: str, max_fields: int) -> tuple[dict[str, list[str]], list[Upload], str]:
    """Form fields, files and an error of a multipart/form-data body. A file larger than MAX_UPLOAD_BYTES (or one
    file too many) is left out and named in the error, the fields are kept (the page shows the error and keeps what
    was typed); a malformed body or too many parts gives no fields. Empty file inputs are dropped, as browsers send
    them."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode("latin-1", errors="replace")
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    parts = list(msg.iter_parts()) if msg.is_multipart() else []
    if not parts:
        return {}, [], "The form could not be read (a multipart body without parts)."
    if len(parts) > max_fields:
        return {}, [], f"The form has more than {max_fields} fields."
    fields: dict[str, list[str]] = {}
    files: list[Upload] = []
    error = ""
    for part in parts:
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        data = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        if filename is None:
            fields.setdefault(name, []).append(data.decode("utf-8", errors="replace"))
            continue
        base = _basename(filename)
        if not base and not data:
            continue  # a file input left empty
        if len(data) > MAX_UPLOAD_BYTES:
            error = (f"{base or 'The file'} is {len(data) / (1 << 20):.1f} MB; the largest file you can attach or "
                     f"upload is {MAX_UPLOAD_BYTES // (1 << 20)} MB.")  # fmt: skip
        elif len(files) >= MAX_UPLOADS:
            error = f"At most {MAX_UPLOADS} files can be sent at once; {base} was left out."
        else:
            files.append(Upload(name, base or "file", part.get_content_type(), data))
    return fields, files, error


def _basename(filename: str) -> str:
    """The file's own name: browsers send no folder, but a hand-made request may (either slash)."""
    name = urllib.parse.unquote(filename).replace("\\", "/").rsplit("/", 1)[-1].strip()
    return "".join(ch for ch in name if ch.isprintable())[:MAX_NAME]


def store_upload(state: EpisodeState, up: Upload) -> tuple[int, int]:
    """A document of kind `upload` holding the file's exact bytes; returns (doc id, size)."""
    text = _text(up.data)
    body = {"size": len(up.data), "sha256": hashlib.sha256(up.data).hexdigest(), "mime": up.mime,
            "preview": text[:TEXT_PREVIEW] if text is not None else None}  # fmt: skip
    doc = state.insert("docs", kind="upload", title=up.name, body=json.dumps(body, ensure_ascii=False))
    state.insert("blobs", doc_id=doc, data=up.data, mime=up.mime)
    return doc, len(up.data)


def _text(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def doc_bytes(state: EpisodeState, doc_id: int) -> bytes | None:
    """What downloading the document gives: an upload's bytes, a text document's UTF-8 text, a spreadsheet as CSV;
    None for a document that cannot be downloaded (a PDF viewed in the world's own viewer)."""
    doc = state.one("SELECT kind, body FROM docs WHERE id = ?", (doc_id,))
    if doc is None:
        return None
    if doc["kind"] == "upload":
        blob = state.one("SELECT data FROM blobs WHERE doc_id = ?", (doc_id,))
        return bytes(blob["data"]) if blob is not None else None
    body: dict[str, Any] = json.loads(doc["body"])
    if doc["kind"] == "doc":
        return str(body.get("text", "")).encode("utf-8")
    if doc["kind"] == "sheet":
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(body.get("cells", []))
        return buf.getvalue().encode("utf-8")
    return None


def download_headers(name: str) -> list[tuple[str, str]]:
    """Content-Disposition for a download under the file's own name (RFC 6266, UTF-8 names too)."""
    ascii_name = name.encode("ascii", errors="replace").decode().replace('"', "'").replace("?", "_")
    quoted = urllib.parse.quote(name, safe="")
    return [("Content-Disposition", f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quoted}"),
            ("X-Content-Type-Options", "nosniff")]  # fmt: skip
