"""Helpers for the verifier tests: PIL-rendered screens, recorded episodes and scripted judges.

Scripted judges are test inputs for the voting logic (like ScriptedPolicy for the runner), not models."""

from __future__ import annotations

import io
import time
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from venuskit.actions.types import Action, Click, Finished, Point, Type
from venuskit.record.episode import Episode, Outcome, Step
from venuskit.record.store import EpisodeWriter
from venuskit.verify.report import Vote


def png(img: Image.Image) -> bytes:
    """A drawn image as PNG bytes, as a recorder writes screenshots."""
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def verify_rules(folder: Path):
    """The episode in `folder` verified by the rule judges alone (ocr, log), default SGV settings."""
    from venuskit.verify import SGVConfig, make_judges, verify_episode

    return verify_episode(folder, make_judges("ocr,log"), SGVConfig())


def verdict_of(root: Path, steps: list[S], goal: str) -> tuple[str, str]:
    """Record `steps` under `root` and verify them by the rule judges: (verdict, `why`)."""
    report = verify_rules(record(root, steps, goal))
    return report.verdict, why(report)


def why(report) -> str:  # noqa: ANN001 - an SGVReport
    """Every non-abstaining vote's reason, joined: what an assertion message should show."""
    return " | ".join(v.reason for k in report.keypoints for v in k.votes if v.status != "abstain")


def screen(lines: list[str], size: tuple[int, int] = (640, 400), bg: str = "white") -> bytes:
    """A screenshot with `lines` of 24 px text (big enough for OCR), PNG bytes."""
    img = Image.new("RGB", size, bg)
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=24)
    for i, line in enumerate(lines):
        draw.text((30, 30 + 50 * i), line, fill="black", font=font)
    return png(img)


def middle(line: int, text: str, size: tuple[int, int] = (640, 400)) -> Point:
    """The centre of `text` drawn by `screen` as line `line` (at x 30, y 30 + 50 line)."""
    width = ImageFont.load_default(size=24).getlength(text)
    return Point((30 + width / 2) / size[0], (30 + 50 * line + 12) / size[1])


def cjk_font_path() -> str:
    """A font with Chinese glyphs (the world's zh pages need one too); fails loudly, never skips."""
    import glob
    import shutil
    import subprocess

    found = sorted(glob.glob("/usr/share/fonts/**/NotoSansCJK-Regular.ttc", recursive=True))
    if not found and shutil.which("fc-match"):
        out = subprocess.run(["fc-match", "-f", "%{file}", "sans:lang=zh"], capture_output=True, text=True)
        found = [out.stdout.strip()] if "CJK" in out.stdout or "wqy" in out.stdout.casefold() else []
    assert found, "No Chinese font is installed; install fonts-noto-cjk (the zh world pages need it as well)."
    return found[0]


def zh_screen(lines: list[str], size: tuple[int, int] = (640, 400)) -> bytes:
    """A screenshot with `lines` of 26 px text in a CJK font (Chinese and Latin), PNG bytes."""
    img = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.truetype(cjk_font_path(), 26)
    for i, line in enumerate(lines):
        draw.text((30, 30 + 50 * i), line, fill="black", font=font)
    return png(img)


def placed(texts: list[tuple[int, int, str]], size: tuple[int, int] = (640, 400), px: int = 22) -> bytes:
    """A screen with each (x, y, text) drawn in `px` type, the CJK collection's simplified-Chinese face (its first,
    Japanese, face draws 门 in a form OCR reads as 內 and spaces Latin words so wide that OCR splits a name)."""
    img = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.truetype(cjk_font_path(), px, index=2)
    for x, y, text in texts:
        draw.text((x, y), text, fill="black", font=font)
    return png(img)


def zh_word_at(line: str, word: str, row: int, size: tuple[int, int] = (640, 400)) -> Point:
    """The centre of `word` in `line` drawn by `zh_screen` as row `row`."""
    font = ImageFont.truetype(cjk_font_path(), 26)
    x = 30 + font.getlength(line[: line.index(word)]) + font.getlength(word) / 2
    return Point(x / size[0], (30 + 50 * row + 15) / size[1])


def pixel(png: bytes, x: int, y: int) -> tuple[int, int, int]:
    with Image.open(io.BytesIO(png)) as im:
        return im.convert("RGB").getpixel((x, y))


@dataclass
class S:
    """One step to record."""

    png: bytes | None
    action: Action | None
    url: str | None = None
    title: str | None = None
    thought: str | None = None
    error: dict | None = None


def record(root: Path, steps: list[S], goal: str, *, surface: str = "browser", finish: Outcome | None = None,
           episode_id: str = "ep") -> Path:  # fmt: skip
    size = (640, 400)
    ep = Episode(episode_id=episode_id, task={"goal": goal}, surface=surface, screen=size)
    with EpisodeWriter.create(root, ep) as w:
        for i, s in enumerate(steps):
            raw = f"<think>{s.thought}</think>" if s.thought else None
            step = Step(index=i, screenshot=None, url=s.url, title=s.title, raw_output=raw, thought=s.thought,
                        action=s.action, error=s.error)  # fmt: skip
            w.add_step(step, s.png)
        w.finish(finish or Outcome(terminated=True, reason="finished"))
    return root / episode_id


@dataclass
class ScriptedJudge:
    """Votes a fixed status per keypoint index (missing: abstain) on every window and in the final call."""

    name: str
    statuses: dict[int, str] = field(default_factory=dict)
    is_rule: bool = False
    delay_s: float = 0.0
    fail: Exception | None = None
    garbage: bool = False
    finals: int = 0
    asked: set[int] = field(default_factory=set)  # keypoints shown to it in window checks

    def _votes(self, keypoints, step):
        time.sleep(self.delay_s)
        if self.fail is not None:
            raise self.fail
        if self.garbage:
            return "not a list of votes"
        return [Vote(self.name, k, self.statuses.get(k, "abstain"), step, "scripted") for k, _ in keypoints]

    def check_window(self, window, keypoints):
        self.asked.update(k for k, _ in keypoints)
        return self._votes(keypoints, window.steps[-1].index)

    def final(self, goal, evidence, keypoints):
        self.finals += 1
        return self._votes(keypoints, evidence[-1].index if evidence else None)


GOAL = 'Transfer 1150.00 EUR to Green Leaf Landlord with the reference "Rent April".'
FORM = "http://127.0.0.1/bank/new"


def transfer(tmp_path, *, submitted: bool = True, thought: str = "I am sure it worked"):
    """Fill a transfer form, submit it (or not), finish. Screens are rendered text."""
    form = screen(["New transfer", "Payee: Green Leaf Landlord", "Amount:", "Reference:"])
    filled = screen(["New transfer", "Payee: Green Leaf Landlord", "Amount: 1150.00", "Reference: Rent April"])
    amount = screen(["New transfer", "Payee: Green Leaf Landlord", "Amount: 1150.00", "Reference:"])
    done = screen(["Transfers", "Green Leaf Landlord  -1150.00 EUR", "Rent April"])
    steps = [
        S(form, Click(point=Point(0.4, 0.4)), FORM, "New transfer", thought),
        S(form, Type(content="1150.00"), FORM, "New transfer", thought),
        S(amount, Click(point=Point(0.4, 0.5)), FORM, "New transfer", thought),
        S(amount, Type(content="Rent April"), FORM, "New transfer", thought),
        S(filled, Click(point=Point(0.2, 0.9)), FORM, "New transfer", thought),
    ]
    last = done if submitted else filled
    url = "http://127.0.0.1/bank/transfers?sent=1" if submitted else FORM
    title = "Transfers" if submitted else "New transfer"
    steps.append(S(last, Finished(content="All done, transfer sent!"), url, title, thought))
    return record(tmp_path, steps, GOAL)
