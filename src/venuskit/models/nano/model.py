"""venus-nano in process: read the screen, build features, run the network, answer in UI-Venus-2 text.

    model = load_default()                       # the checkpoint shipped inside the package
    text = model.act(png, "Star the email 'Budget'", history=[], surface="browser")
    # "<think>Click 'Budget'.</think>\\n<action>Click(point=(611, 163))</action>"

Replies are built with `venuskit.actions.format_response` and points go through `venuskit.actions.coords`, so
they parse like any model's. `complete(messages)` takes OpenAI-style chat messages (the UI-Venus-2 prompt
protocol, or the grounding request) and is what `venus serve nano` serves.

A checkpoint is one file: a format tag, the network config, fp16 weights, a SHA-256 over the weights and the
training metadata (which names other checkpoints, such as MOPD's teachers, by file name and SHA-256, never by
path). An ensemble checkpoint (stage `ensemble`) holds several networks of one config (`members`), which decide as
one (`net.NanoEnsemble`); its metadata names each member's file by name and SHA-256. A missing or corrupt file
raises `CheckpointError`, which names the file and the command that rebuilds it. `describe()` says which file
acted (its name and digests): agents copy it into every episode manifest.
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

import torch

from venuskit.actions import ActionParseError, format_response, parse_response
from venuskit.actions.coords import from_pixel, to_grid
from venuskit.actions.grammar import defang_thought
from venuskit.actions.types import (
    Action,
    CallUser,
    Click,
    Finished,
    Hotkey,
    Point,
    PressEnter,
    Scroll,
    SelectOption,
    Swipe,
    Type,
)
from venuskit.models.nano.action_types import POINTER_TYPES, TEXT_TYPES, TYPE_INDEX, TYPES, allowed_types
from venuskit.models.nano.done import answer_options
from venuskit.models.nano.features import Features, NanoInput, build
from venuskit.models.nano.history import read_past
from venuskit.models.nano.icons import weights_digest as _weights_digest
from venuskit.models.nano.net import NanoEnsemble, NanoNet, NetConfig, collate
from venuskit.models.nano.reader import Reader, ReaderError, default_reader

FORMAT = "venus-nano/1"
DEFAULT_CHECKPOINT = "weights/venus-nano.pt"
REBUILD = "venus nano train --seed 0 --out runs/nano --install"
MAX_MEMBERS = 16  # networks in one ensemble checkpoint (a bound on what a file may ask the loader to build)
CALL_USER_TEXT = "I cannot do this task here: what it asks for is not available on these pages."


class NanoError(RuntimeError):
    """venus-nano cannot answer (bad input, missing reader)."""


class CheckpointError(NanoError):
    """A missing, truncated or altered checkpoint; the message names the file and how to rebuild it."""

    def __init__(self, path: Path | str, why: str) -> None:
        super().__init__(f"venus-nano checkpoint {path}: {why}. Rebuild it with `{REBUILD}`.")
        self.path = Path(path)


# ---- actions <-> the network's choices ----------------------------------------------------------------------


@dataclass
class Choice:
    """One sampled (or greedy) decision: a type, a candidate, a text option, a trailing newline."""

    type: str
    cand: int | None = None
    text: int | None = None
    newline: bool = False


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
    return defang_thought(_said(f, c))  # screen text is quoted into it: a page showing "<action>" stays inert


def _said(f: Features, c: Choice) -> str:
    if c.type == "Click" and c.cand is not None:
        cand = f.cands[c.cand]
        what = repr(cand.text) if cand.text else f"the {cand.kind} at {cand.box[:2]}"
        return f"Click {what}."
    # A Finished says why the done check let it through, so a premature one can be traced to its evidence.
    why = f" ({f.done_evidence})" if c.type == "Finished" and f.done_evidence else ""
    if c.type in TEXT_TYPES and c.text is not None:
        return f"{c.type} {f.texts[c.text].text!r}{why}."
    return f"{c.type}{why}."


# ---- the model ----------------------------------------------------------------------------------------------


class NanoModel:
    """The network plus its reader. `act` for in-process agents, `complete` for the OpenAI-wire server."""

    name = "venus-nano"

    def __init__(self, net: NanoNet, meta: dict[str, Any] | None = None, reader: Reader | None = None,
                 checkpoint: dict[str, str] | None = None, done_check: bool = True,
                 action_check: bool = True) -> None:  # fmt: skip
        self.net = net.eval()
        # The done check at inference (`models.nano.done`): Finished only with evidence on screen that the goal's
        # action happened, and a question answered with a value. The on-policy stages sample the network as it is.
        self.done_check = done_check
        # The action check (`models.nano.guard`): no click on a control that commits what the goal does not ask for.
        self.action_check = action_check
        self.meta = meta or {}
        self.reader = reader or default_reader()
        # Which file the weights came from, by name and digests (never its path: it is recorded in episodes).
        self.checkpoint = checkpoint

    # ---- checkpoints ----

    def save(self, path: str | Path, meta: dict[str, Any] | None = None) -> Path:
        from venuskit.infra.atomic import write_bytes

        state = {k: v.detach().to(torch.float16) for k, v in self.net.state_dict().items()}
        payload = {"format": FORMAT, "config": self.net.cfg.to_dict(), "state_dict": state,
                   "sha256": _weights_digest(state), "meta": {**self.meta, **(meta or {})}}  # fmt: skip
        if isinstance(self.net, NanoEnsemble):
            payload["members"] = len(self.net.members)
        buf = io.BytesIO()
        torch.save(payload, buf)
        return write_bytes(path, buf.getvalue(), durable=True)

    @classmethod
    def load(cls, path: str | Path, reader: Reader | None = None) -> NanoModel:
        p = Path(path)
        if not p.is_file():
            raise CheckpointError(p, "the file does not exist")
        data = p.read_bytes()
        try:
            payload = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
        except Exception as exc:  # noqa: BLE001 - any unpickling failure means the file is damaged
            raise CheckpointError(p, f"the file cannot be read ({type(exc).__name__})") from exc
        if not isinstance(payload, dict) or payload.get("format") != FORMAT:
            raise CheckpointError(p, f"it is not a {FORMAT} checkpoint")
        state = payload.get("state_dict")
        if not isinstance(state, dict) or _weights_digest(state) != payload.get("sha256"):
            raise CheckpointError(p, "its weights do not match the SHA-256 stored with them (altered or damaged)")
        members = payload.get("members", 1)
        if not isinstance(members, int) or isinstance(members, bool) or not 1 <= members <= MAX_MEMBERS:
            raise CheckpointError(p, f"its member count {members!r} is not a whole number from 1 to {MAX_MEMBERS}")
        try:
            cfg = NetConfig(**payload["config"])
        except (TypeError, KeyError) as exc:
            raise CheckpointError(p, f"its network config cannot be read ({exc})") from exc
        net = NanoNet(cfg) if members == 1 else NanoEnsemble([NanoNet(cfg) for _ in range(members)])
        try:
            net.load_state_dict({k: v.float() for k, v in state.items()})
        except RuntimeError as exc:
            raise CheckpointError(p, f"its weights do not fit the network ({exc})") from exc
        ref = {"name": p.name, "sha256": hashlib.sha256(data).hexdigest(), "weights_sha256": payload["sha256"]}
        return cls(net, dict(payload.get("meta") or {}), reader, ref)

    @classmethod
    def load_trainable(cls, path: str | Path, reader: Reader | None = None) -> NanoModel:
        """The checkpoint a training stage starts from, as one network: an ensemble's first member (a copy; the
        stages train one network), its metadata naming the ensemble file it came from (`from_ensemble`)."""
        m = cls.load(path, reader)
        if not isinstance(m.net, NanoEnsemble):
            return m
        import copy

        first = (m.meta.get("members") or [{}])[0]
        meta = {k: v for k, v in m.meta.items() if k != "members"}
        meta.update(stage=first.get("stage"), seed=first.get("seed"),
                    from_ensemble={**(m.checkpoint or {}), "member": 0})
        return cls(copy.deepcopy(m.net.members[0]), meta, reader, m.checkpoint)

    # ---- deciding ----

    def features(self, inp: NanoInput) -> Features:
        try:
            screen = self.reader.read(inp.png)
            past = read_past(inp.history, inp.history_pngs, self.reader.read)
        except ReaderError as exc:
            raise NanoError(str(exc)) from exc
        return build(inp, screen, past)

    @torch.no_grad()
    def decide(self, f: Features, surface: str, *, greedy: bool = True, temperature: float = 1.0,
               generator: torch.Generator | None = None) -> Choice:  # fmt: skip
        e = self.net.encode(collate([f]))
        logits = self.net.type_logits(e)[0]
        allowed = allowed_types(surface)
        answers = answer_options(f.texts, f.answer_kind) if self.done_check and f.asks_answer else None
        if answers and f.bound:  # read in the row that names the question's subject, where the screen has one there
            answers = [i for i in answers if i in f.bound] or answers
        if self.done_check and (f.done_evidence == "" or answers == []):
            allowed[TYPE_INDEX["Finished"]] = False  # nothing on screen says the goal's action happened, or no answer
        logits = logits.masked_fill(~allowed, -1e9)
        t = _pick(logits, greedy, temperature, generator)
        ptr, txt, nl = self.net.heads(e, torch.tensor([t]))
        tname = TYPES[t]
        choice = Choice(tname)
        held = torch.tensor(f.unasked if self.action_check else [], dtype=torch.long)
        if tname in POINTER_TYPES or surface in ("captcha", "grounding"):
            choice.cand = _pick(ptr[0].index_fill(0, held, -1e9) if tname in POINTER_TYPES else ptr[0], greedy,
                                temperature, generator)  # a click never commits an action the goal does not ask for
        if tname in TEXT_TYPES:
            if tname == "Finished" and answers:
                keep = torch.zeros(txt.shape[1], dtype=torch.bool)
                keep[answers] = True
                txt = txt.masked_fill(~keep, -1e9)  # a question is answered with a value read from the screen
            choice.text = _pick(txt[0], greedy, temperature, generator)
            if tname == "SelectOption" and not any(o.index is not None for o in f.texts):
                ptr = self.net.heads(e, torch.tensor([TYPE_INDEX["Click"]]))[0]
                choice = Choice("Click", cand=_pick(ptr[0].index_fill(0, held, -1e9), greedy, temperature, generator))
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
        """What an episode manifest records of the model: its size, training metadata and checkpoint (file name,
        the file's SHA-256, the weights' SHA-256; None for weights never saved)."""
        params = sum(p.numel() for p in self.net.parameters())
        return {"model": self.name, "parameters": params, "config": self.net.cfg.to_dict(), **self.meta,
                "checkpoint": self.checkpoint, "done_check": self.done_check,
                "action_check": self.action_check}  # fmt: skip


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


# ---- ensembles -----------------------------------------------------------------------------------------------


def build_ensemble(paths: list[Path], out: Path) -> Path:
    """One ensemble checkpoint from single-network checkpoints of one config (seeds of one recipe), written to
    `out`. Its metadata names every member (file name, file and weights SHA-256, stage, seed) and keeps the first
    member's training metadata (the run's config: what the model card reports)."""
    if len(paths) < 2:
        raise NanoError(f"An ensemble needs at least 2 checkpoints, got {len(paths)}.")
    if len(paths) > MAX_MEMBERS:
        raise NanoError(f"An ensemble takes at most {MAX_MEMBERS} checkpoints, got {len(paths)}.")
    models = [NanoModel.load(p) for p in paths]
    for p, m in zip(paths, models, strict=True):
        if isinstance(m.net, NanoEnsemble):
            raise NanoError(f"{p} is an ensemble already; build from its members' own checkpoints.")
    try:
        net = NanoEnsemble([m.net for m in models])
    except ValueError as exc:
        raise NanoError(f"{exc} ({', '.join(str(p) for p in paths)})") from exc
    # Members by folder and file name (as MOPD names its teachers) and digests: never a path of this machine.
    members = [{**(m.checkpoint or {}), "name": f"{Path(p).parent.name}/{Path(p).name}", "stage": m.meta.get("stage"),
                "seed": m.meta.get("seed")} for p, m in zip(paths, models, strict=True)]  # fmt: skip
    meta = {**models[0].meta, "stage": "ensemble", "seed": [m.meta.get("seed") for m in models], "members": members}
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    return NanoModel(net, meta).save(out)


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
