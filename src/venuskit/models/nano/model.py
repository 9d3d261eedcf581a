"""venus-nano in process: read the screen, build features, run the network, answer in UI-Venus-2 text.

    model = load_default()                       # the checkpoint shipped inside the package
    text = model.act(png, "Star the email 'Budget'", history=[], surface="browser")
    # "<think>Click 'Budget'.</think>\\n<action>Click(point=(611, 163))</action>"

Replies are built with `venuskit.actions.format_response` and points go through `venuskit.actions.coords`, so
they parse like any model's. `complete(messages)` takes OpenAI-style chat messages (the UI-Venus-2 prompt
protocol, or the grounding request) and is what `venus serve nano` serves.

A checkpoint is one file: a format tag, the network config, fp16 weights, a SHA-256 over the weights and the
training metadata. A missing or corrupt file raises `CheckpointError`, which names the file and the command
that rebuilds it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import math
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import torch

from venuskit.actions import ActionParseError, format_response, parse_response
from venuskit.actions.coords import from_pixel, to_grid
from venuskit.actions.types import (
    Action,
    Answer,
    CallUser,
    Click,
    DoubleClick,
    Finished,
    Hotkey,
    LongPress,
    Point,
    PressEnter,
    Scroll,
    SelectOption,
    Swipe,
    Type,
)
from venuskit.models.nano.features import (
    POINTER_TYPES,
    TEXT_TYPES,
    TYPE_INDEX,
    TYPES,
    Features,
    NanoInput,
    build,
    containment,
    norm,
    read_past,
)
from venuskit.models.nano.net import NanoNet, NetConfig, collate
from venuskit.models.nano.reader import Reader, ReaderError, default_reader

FORMAT = "venus-nano/1"
DEFAULT_CHECKPOINT = "weights/venus-nano.pt"
REBUILD = "venus nano train --seed 0 --out runs/nano --install"
CALL_USER_TEXT = "I cannot do this task here: what it asks for is not available on these pages."
MOBILE_ONLY_OFF = frozenset({"SelectAll", "SelectOption"})  # the mobile surface has no Hotkey or SelectOption


class NanoError(RuntimeError):
    """venus-nano cannot answer (bad input, missing reader)."""


class CheckpointError(NanoError):
    """A missing, truncated or altered checkpoint; the message names the file and how to rebuild it."""

    def __init__(self, path: Path | str, why: str) -> None:
        super().__init__(f"venus-nano checkpoint {path}: {why}. Rebuild it with `{REBUILD}`.")
        self.path = Path(path)


# ---- actions <-> the network's choices ----------------------------------------------------------------------


def action_type(a: Action) -> str | None:
    """The network's type for a venuskit action, or None when venus-nano cannot express it."""
    if isinstance(a, (Click, DoubleClick, LongPress)):
        return "Click"
    if isinstance(a, Type):
        return "Type"
    if isinstance(a, PressEnter):
        return "PressEnter"
    if isinstance(a, Hotkey) and {k.lower() for k in a.keys} == {"ctrl", "a"}:
        return "SelectAll"
    if isinstance(a, SelectOption):
        return "SelectOption"
    if isinstance(a, Scroll):
        return "ScrollUp" if a.direction == "up" else ("Scroll" if a.direction == "down" else None)
    if isinstance(a, Swipe):
        return "Scroll" if a.end.y < a.start.y else "ScrollUp"  # finger up = content moves down the page
    if isinstance(a, (Finished, Answer)):
        return "Finished"
    if isinstance(a, CallUser):
        return "CallUser"
    return None


@dataclass
class Choice:
    """One sampled (or greedy) decision: a type, a candidate, a text option, a trailing newline."""

    type: str
    cand: int | None = None
    text: int | None = None
    newline: bool = False


@dataclass
class Target:
    """Supervision for one decision (None fields are not supervised)."""

    type: int
    ptr: np.ndarray | None  # (N,) bool: candidates that are right
    text: np.ndarray | None  # (M,) bool
    newline: float | None


def _center(box: tuple[int, int, int, int], size: tuple[int, int]) -> Point:
    x1, y1, x2, y2 = box
    return Point(from_pixel((x1 + x2 - 1) / 2, size[0]), from_pixel((y1 + y2 - 1) / 2, size[1]))


def to_actions(f: Features, c: Choice, surface: str) -> list[Action]:
    """The venuskit action(s) of a choice on `surface` (CAPTCHA answers are a sequence)."""
    t = c.type
    point = _center(f.cands[c.cand].box, f.size) if c.cand is not None else Point(0.5, 0.5)
    text = f.texts[c.text] if c.text is not None else None
    if t == "Click":
        return [Click(point=point)]
    if t == "Type":
        content = (text.text if text else "") + ("\n" if c.newline else "")
        return [Type(content=content)]
    if t == "PressEnter":
        return [PressEnter()]
    if t == "SelectAll":
        return [Hotkey(keys=("ctrl", "a"))]
    if t == "SelectOption":
        return [SelectOption(index=text.index if text and text.index is not None else 0)]
    if t in ("Scroll", "ScrollUp"):
        down = t == "Scroll"
        if surface == "mobile":
            hi, lo = Point(0.5, 0.75), Point(0.5, 0.3)
            return [Swipe(start=hi, end=lo) if down else Swipe(start=lo, end=hi)]
        return [Scroll(point=Point(0.5, 0.5), direction="down" if down else "up")]
    if t == "Finished":
        return [Finished(content=text.text if text and text.source != "done" else "Done.")]
    return [CallUser(content=CALL_USER_TEXT)]


def _thought(f: Features, c: Choice) -> str:
    if c.type == "Click" and c.cand is not None:
        cand = f.cands[c.cand]
        what = repr(cand.text) if cand.text else f"the {cand.kind} at {cand.box[:2]}"
        return f"Click {what}."
    if c.type in TEXT_TYPES and c.text is not None:
        return f"{c.type} {f.texts[c.text].text!r}."
    return f"{c.type}."


def target_for(f: Features, action: Action, box: tuple[float, float, float, float] | None) -> Target | None:
    """What the network should have chosen for `action` (box: the target element, normalised, when known).
    None when venus-nano cannot express the action."""
    t = action_type(action)
    if t is None:
        return None
    ptr = text = nl = None
    if t in POINTER_TYPES:
        ptr = _pointer_positives(f, action, box)
    if t == "Type":
        content = action.content  # type: ignore[attr-defined]
        nl = float(content.endswith("\n"))
        text = _text_positives(f, content.rstrip("\n"), exact=True)
    elif t == "Finished":
        content = (action.content or "").strip()  # type: ignore[attr-defined]
        text = _done_positive(f) if content in ("", "Done.", "Done") else _text_positives(f, content, exact=False)
    elif t == "SelectOption":
        idx = action.index  # type: ignore[attr-defined]
        text = np.array([o.index == idx for o in f.texts], bool)
    if text is not None and not text.any():
        text = None
    return Target(TYPE_INDEX[t], ptr, text, nl)


def _pointer_positives(f: Features, action: Action, box: tuple[float, float, float, float] | None) -> np.ndarray:
    w, h = f.size
    p = action.point  # type: ignore[attr-defined]
    px, py = p.x * w, p.y * h
    if box is not None:
        bx1, by1, bx2, by2 = box[0] * w, box[1] * h, box[2] * w, box[3] * h
    else:
        bx1, by1, bx2, by2 = px - 3, py - 3, px + 3, py + 3
    pos = []
    for c in f.cands:
        cx, cy = (c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2
        inside_target = bx1 <= cx <= bx2 and by1 <= cy <= by2
        holds_point = c.box[0] - 2 <= px <= c.box[2] + 2 and c.box[1] - 2 <= py <= c.box[3] + 2
        pos.append(c.kind != "cell" and (inside_target or (holds_point and box is None)))
    out = np.array(pos, bool)
    if out.sum() > 1:
        # A row holds several lines (sender, subject, time): any click in it works, but the policy should learn to
        # point at the line that matches the task, not at the row's first line (which only works when the row
        # happens to be first).
        strong = (f.cand_x[:, 0:5].max(1) >= 0.8) | (f.cand_x[:, 5] >= 1.0)
        if (out & strong).any():
            out = out & strong
    if not out.any():  # nothing read there (an empty field, a picture): the coarse cell holding the point
        out = np.array([c.kind == "cell" and c.box[0] <= px < c.box[2] and c.box[1] <= py < c.box[3]
                        for c in f.cands], bool)  # fmt: skip
    return out


def _text_positives(f: Features, content: str, exact: bool) -> np.ndarray:
    want = norm(content)
    if not want:
        return np.zeros(len(f.texts), bool)
    same = np.array([norm(o.text) == want for o in f.texts], bool)
    if same.any() or exact:
        return same
    return np.array([o.source != "done" and containment(content, o.text) >= 0.9 and
                     len(norm(o.text)) <= 2 * len(want) for o in f.texts], bool)  # fmt: skip


def _done_positive(f: Features) -> np.ndarray:
    return np.array([o.source == "done" for o in f.texts], bool)


# ---- the model ----------------------------------------------------------------------------------------------


def _weights_digest(state: dict[str, torch.Tensor]) -> str:
    h = hashlib.sha256()
    for k in sorted(state):
        h.update(k.encode())
        h.update(state[k].detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()


class NanoModel:
    """The network plus its reader. `act` for in-process agents, `complete` for the OpenAI-wire server."""

    name = "venus-nano"

    def __init__(self, net: NanoNet, meta: dict[str, Any] | None = None, reader: Reader | None = None) -> None:
        self.net = net.eval()
        self.meta = meta or {}
        self.reader = reader or default_reader()

    # ---- checkpoints ----

    def save(self, path: str | Path, meta: dict[str, Any] | None = None) -> Path:
        from venuskit.infra.atomic import write_bytes

        state = {k: v.detach().to(torch.float16) for k, v in self.net.state_dict().items()}
        payload = {"format": FORMAT, "config": self.net.cfg.to_dict(), "state_dict": state,
                   "sha256": _weights_digest(state), "meta": {**self.meta, **(meta or {})}}  # fmt: skip
        buf = io.BytesIO()
        torch.save(payload, buf)
        return write_bytes(path, buf.getvalue(), durable=True)

    @classmethod
    def load(cls, path: str | Path, reader: Reader | None = None) -> NanoModel:
        p = Path(path)
        if not p.is_file():
            raise CheckpointError(p, "the file does not exist")
        try:
            payload = torch.load(io.BytesIO(p.read_bytes()), map_location="cpu", weights_only=True)
        except Exception as exc:  # noqa: BLE001 - any unpickling failure means the file is damaged
            raise CheckpointError(p, f"the file cannot be read ({type(exc).__name__})") from exc
        if not isinstance(payload, dict) or payload.get("format") != FORMAT:
            raise CheckpointError(p, f"it is not a {FORMAT} checkpoint")
        state = payload.get("state_dict")
        if not isinstance(state, dict) or _weights_digest(state) != payload.get("sha256"):
            raise CheckpointError(p, "its weights do not match the SHA-256 stored with them (altered or damaged)")
        net = NanoNet(NetConfig(**payload["config"]))
        try:
            net.load_state_dict({k: v.float() for k, v in state.items()})
        except RuntimeError as exc:
            raise CheckpointError(p, f"its weights do not fit the network ({exc})") from exc
        return cls(net, dict(payload.get("meta") or {}), reader)

    # ---- deciding ----

    def features(self, inp: NanoInput) -> Features:
        try:
            screen = self.reader.read(inp.png)
            past = read_past(inp, self.reader.read)
        except ReaderError as exc:
            raise NanoError(str(exc)) from exc
        return build(inp, screen, past)

    @torch.no_grad()
    def decide(self, f: Features, surface: str, *, greedy: bool = True, temperature: float = 1.0,
               generator: torch.Generator | None = None) -> Choice:  # fmt: skip
        e = self.net.encode(collate([f]))
        logits = self.net.type_logits(e)[0]
        allowed = _allowed_types(surface)
        logits = logits.masked_fill(~allowed, -1e9)
        t = _pick(logits, greedy, temperature, generator)
        ptr, txt, nl = self.net.heads(e, torch.tensor([t]))
        tname = TYPES[t]
        choice = Choice(tname)
        if tname in POINTER_TYPES or surface in ("captcha", "grounding"):
            choice.cand = _pick(ptr[0], greedy, temperature, generator)
        if tname in TEXT_TYPES:
            choice.text = _pick(txt[0], greedy, temperature, generator)
            if tname == "SelectOption" and not any(o.index is not None for o in f.texts):
                choice = Choice("Click", cand=_pick(self.net.heads(e, torch.tensor([TYPE_INDEX["Click"]]))[0][0],
                                                    greedy, temperature, generator))  # fmt: skip
        if tname == "Type":
            choice.newline = bool(torch.sigmoid(nl[0]) > 0.5) if greedy else bool(
                torch.rand((), generator=generator) < torch.sigmoid(nl[0]))  # fmt: skip
        return choice

    def reply(self, f: Features, c: Choice, surface: str) -> str:
        """The UI-Venus-2 text of a choice (grounding: the `[x,y]` point on the 0-1000 grid)."""
        if surface == "grounding":
            p = _center(f.cands[c.cand].box, f.size) if c.cand is not None else Point(0.5, 0.5)
            return f"[{to_grid(p.x, 1000)},{to_grid(p.y, 1000)}]"
        actions = to_actions(f, c, surface)
        if surface == "captcha" and c.type == "Type" and c.cand is not None:
            actions = [Click(point=_center(f.cands[c.cand].box, f.size)), *actions]
        return format_response(_thought(f, c), actions, surface)

    def act_input(self, inp: NanoInput) -> str:
        f = self.features(inp)
        return self.reply(f, self.decide(f, inp.surface), inp.surface)

    def act(self, png: bytes, goal: str, history: list[Action] | None = None, surface: str = "browser",
            feedback: str | None = None, history_pngs: list[bytes | None] | None = None) -> str:  # fmt: skip
        """One decision: the screenshot, the task, its own earlier actions (and the screenshots they were taken
        on) -> UI-Venus-2 reply text."""
        return self.act_input(NanoInput(png, goal, surface, list(history or []), feedback, list(history_pngs or [])))

    # ---- the chat protocol (for the OpenAI-wire server) ----

    def complete(self, messages: list[dict[str, Any]], **sampling: Any) -> tuple[str, dict[str, int]]:
        """Answer OpenAI-style chat messages. Returns (reply text, usage). Sampling: temperature (0 = greedy)."""
        t0 = time.perf_counter()
        inp = input_from_messages(messages)
        f = self.features(inp)
        temperature = _temperature(sampling.get("temperature"))
        choice = self.decide(f, inp.surface, greedy=temperature <= 0, temperature=max(temperature, 1e-3))
        text = self.reply(f, choice, inp.surface)
        usage = {"prompt_tokens": len(f.cands) + len(f.texts) + len(inp.goal.split()), "completion_tokens": 3,
                 "latency_ms": round((time.perf_counter() - t0) * 1000)}  # fmt: skip
        return text, usage

    def describe(self) -> dict[str, Any]:
        params = sum(p.numel() for p in self.net.parameters())
        return {"model": self.name, "parameters": params, "config": self.net.cfg.to_dict(), **self.meta}


def _allowed_types(surface: str) -> torch.Tensor:
    allowed = torch.ones(len(TYPES), dtype=torch.bool)
    if surface in ("mobile", "captcha"):
        for t in MOBILE_ONLY_OFF:
            allowed[TYPE_INDEX[t]] = False
    if surface in ("captcha", "grounding"):
        allowed[:] = False
        allowed[TYPE_INDEX["Click"]] = True
        if surface == "captcha":
            allowed[TYPE_INDEX["Type"]] = True
    return allowed


def _temperature(value: Any) -> float:
    """A request's temperature: a finite number >= 0 (0 or absent: greedy)."""
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise NanoError(f"temperature must be a finite number >= 0 (0: greedy), got {value!r}.")
    return float(value)


def _pick(logits: torch.Tensor, greedy: bool, temperature: float, generator: torch.Generator | None) -> int:
    if greedy:
        return int(torch.argmax(logits))
    probs = torch.softmax(logits / temperature, -1)
    return int(torch.multinomial(probs, 1, generator=generator))


# ---- chat messages -> NanoInput ---------------------------------------------------------------------------


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [p for p in content or [] if isinstance(p, dict)]


def _image(part: dict[str, Any]) -> bytes:
    url = (part.get("image_url") or {}).get("url", "") if isinstance(part.get("image_url"), dict) else ""
    if not url.startswith("data:image/") or ";base64," not in url:
        raise NanoError("venus-nano takes images as base64 data URLs (data:image/png;base64,...).")
    try:
        return base64.b64decode(url.split(",", 1)[1], validate=True)
    except (binascii.Error, ValueError) as exc:
        raise NanoError("An image data URL is not valid base64.") from exc


def input_from_messages(messages: list[dict[str, Any]]) -> NanoInput:
    """Read the UI-Venus-2 prompt protocol: the goal from the system prompt's `### User Task`, the surface from its
    header, earlier actions from the assistant turns, feedback and the screenshot from the last user turn. A
    request with no system prompt and the grounding instruction is a grounding request."""
    if not isinstance(messages, list) or not messages:
        raise NanoError("messages must be a non-empty list of chat messages.")
    system = next((m for m in messages if isinstance(m, dict) and m.get("role") == "system"), None)
    last_user = next((m for m in reversed(messages) if isinstance(m, dict) and m.get("role") == "user"), None)
    if last_user is None:
        raise NanoError("The request has no user message with a screenshot.")
    images = [p for p in _parts(last_user.get("content")) if p.get("type") == "image_url"]
    if not images:
        raise NanoError("The last user message holds no image_url part (the screenshot).")
    png = _image(images[-1])
    texts = [p.get("text", "") for p in _parts(last_user.get("content")) if p.get("type") == "text"]
    if system is None:
        body = " ".join(texts)
        goal = body.split("instruction: \n", 1)[-1].split(". \n\nThe output", 1)[0].strip()
        return NanoInput(png, goal, "grounding")
    sys_text = " ".join(p.get("text", "") for p in _parts(system.get("content")))
    goal = sys_text.rsplit("### User Task", 1)[-1].strip()
    surface = "captcha" if "CAPTCHA" in sys_text else ("browser" if "Browser Agent" in sys_text else "mobile")
    history: list[Action] = []
    shots: list[bytes | None] = []
    shown: bytes | None = None  # the screenshot of the user turn before each assistant turn
    for m in messages:
        if not isinstance(m, dict):
            continue
        if m.get("role") == "user" and m is not last_user:
            pics = [p for p in _parts(m.get("content")) if p.get("type") == "image_url"]
            shown = _image(pics[-1]) if pics else None
        elif m.get("role") == "assistant":
            reply = " ".join(p.get("text", "") for p in _parts(m.get("content")))
            try:
                acts = list(parse_response(reply, "mobile" if surface == "captcha" else surface).actions)
            except ActionParseError:
                continue
            history += acts
            shots += [shown] * len(acts)
    labels = ("History Screenshot:", "Current Screenshot:")
    feedback = "\n".join(t for t in texts if t.strip() and not t.strip().startswith(labels)) or None
    return NanoInput(png, goal, surface, history, feedback, shots)


# ---- the shipped checkpoint ---------------------------------------------------------------------------------


def default_checkpoint() -> Path:
    return Path(str(resources.files("venuskit.models.nano").joinpath(DEFAULT_CHECKPOINT)))


_LOADED: dict[str, NanoModel] = {}


def load_default() -> NanoModel:
    """The checkpoint shipped inside the package (loaded once per process)."""
    path = default_checkpoint()
    key = str(path)
    if key not in _LOADED:
        _LOADED[key] = NanoModel.load(path)
    return _LOADED[key]
