"""A Drive file attached to a mail is picked in the form's file list: by the box on the file's row (a mobile picker
puts the box far from the name), or by its name when OCR reads the extension on a line of its own; a click that
could be on either of two files of the same name picks neither."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from verify_helpers import S, cjk_font_path, middle, png, screen, verdict_of, zh_screen

from venuskit.actions.types import Click, Finished, Point, Type

BASE = "http://127.0.0.1:8000"
MAIL = "priya.patel@northwind.example"
GOAL = f'Email the Drive file "Warranty card.pdf" to {MAIL} with the subject "Recycling bins moved".'
FILES = ["Warranty card.pdf", "Offsite agenda.pdf"]
SIZE = (640, 400)


def _picker(ticked: str | None) -> bytes:
    """The form's lower half: a box at x 20 on each file's row, its name at x 300 (beyond the reach of the words
    read under a click on the box), and Send."""
    img = Image.new("RGB", SIZE, "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=24)
    draw.text((30, 30), "Attach from Drive", fill="black", font=font)
    for i, name in enumerate(FILES):
        y = 100 + 60 * i
        draw.rectangle((20, y, 44, y + 24), outline="black", width=2, fill="black" if name == ticked else "white")
        draw.text((300, y), name, fill="black", font=font)
    draw.text((30, 300), "Send", fill="black", font=font)
    return png(img)


def _box(name: str) -> Point:
    return Point(32 / SIZE[0], (100 + 60 * FILES.index(name) + 12) / SIZE[1])


def _send(tmp: Path, box: str) -> tuple[str, str]:
    form = screen(["New message", "To:", "Subject:", "Attach from Drive"])
    url = f"{BASE}/mail/compose"
    steps = [S(form, Click(point=middle(1, "To:")), url, "New message"),
             S(form, Type(content=MAIL), url, "New message"),
             S(form, Click(point=middle(2, "Subject:")), url, "New message"),
             S(form, Type(content="Recycling bins moved"), url, "New message"),
             S(_picker(None), Click(point=_box(box)), url, "New message"),
             S(_picker(box), Click(point=Point(60 / SIZE[0], 312 / SIZE[1])), url, "New message"),
             S(screen(["Inbox", "Mail sent"]), Finished(), f"{BASE}/mail/inbox?flash=mail_sent", "Inbox")]  # fmt: skip
    return verdict_of(tmp, steps, GOAL)


def test_a_file_is_attached_by_the_box_on_its_row(tmp_path: Path):
    right = _send(tmp_path / "right", "Warranty card.pdf")
    assert right[0] == "completed", right
    other = _send(tmp_path / "other", "Offsite agenda.pdf")  # another file's box: the asked file never picked
    assert other[0] != "completed", other


ZH_GOAL = f"把云盘文件“Atlas 保密协议（已签署）.pdf”作为附件发给 {MAIL}，邮件主题为“保密协议”。"


def _zh_send(tmp: Path, names: list[str]) -> tuple[str, str]:
    """A picker whose names wrap their extension onto the next line (`names`: one per file, "stem|ext")."""
    lines = ["从云盘添加附件"] + [part for n in names for part in n.split("|")] + ["发送"]
    picker = zh_screen(lines)
    form = zh_screen(["新邮件", "收件人：", "主题："])
    url = f"{BASE}/mail/compose"
    font = ImageFont.truetype(cjk_font_path(), 24)
    stem = names[0].split("|")[0]
    on_name = Point((30 + font.getlength(stem) / 2) / SIZE[0], (30 + 50 + 12) / SIZE[1])
    steps = [S(form, Click(point=middle(1, "收件人：")), url, "新邮件"),
             S(form, Type(content=MAIL), url, "新邮件"),
             S(form, Click(point=middle(2, "主题：")), url, "新邮件"),
             S(form, Type(content="保密协议"), url, "新邮件"),
             S(picker, Click(point=on_name), url, "新邮件"),
             S(picker, Click(point=Point((30 + font.getlength("发送") / 2) / SIZE[0], (30 + 50 * (len(lines) - 1) + 12)
                                         / SIZE[1])), url, "新邮件"),
             S(zh_screen(["收件箱", "邮件已发送"]), Finished(), f"{BASE}/mail/inbox?flash=mail_sent", "收件箱")]  # fmt: skip
    return verdict_of(tmp, steps, ZH_GOAL)


def test_a_file_name_whose_extension_wraps_is_picked_by_its_name_unless_two_files_share_it(tmp_path: Path):
    right = _zh_send(tmp_path / "right", ["Atlas 保密协议（已签署）|.pdf", "团建议程.pdf"])
    assert right[0] == "completed", right
    # the same name as a .docx beside it: the click on the name alone does not say which file went
    twins = _zh_send(tmp_path / "twins", ["Atlas 保密协议（已签署）|.docx", "Atlas 保密协议（已签署）|.pdf"])
    assert twins[0] != "completed", twins
