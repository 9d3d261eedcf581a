"""Write the world's alternative icon sets (src/venuskit/world/icon_sets.json) from Debian's bootstrap-icons.

The default set is hand-drawn in src/venuskit/world/templates/_icons.html. Seeded skins (venuskit.world.skins)
may draw the same icons from one of these sets instead: "outline" (Bootstrap's outline glyphs) and "solid"
(Bootstrap's filled glyphs). The set is shipped as data so the world needs nothing installed to render it;
this script regenerates it from the package that scripts/setup.sh installs:

    python scripts/world_icon_sets.py [--icons /usr/share/bootstrap-icons/svg]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src/venuskit/world/icon_sets.json"
LICENSE = (
    "Bootstrap Icons (https://icons.getbootstrap.com), Copyright 2019-2021 The Bootstrap Authors, MIT License: "
    "https://github.com/twbs/icons/blob/main/LICENSE.md. Taken from Debian's bootstrap-icons package."
)

# our icon name -> (outline glyph, solid glyph); every name the default set draws has an entry
NAMES: dict[str, tuple[str, str]] = {
    "menu": ("list", "justify"),
    "search": ("search", "search"),
    "inbox": ("inbox", "inbox-fill"),
    "star": ("star", "star-fill"),
    "send": ("send", "send-fill"),
    "draft": ("pencil", "pencil-fill"),
    "trash": ("trash", "trash3-fill"),
    "clip": ("paperclip", "paperclip"),
    "grid": ("grid", "grid-3x3-gap-fill"),
    "help": ("question-circle", "question-circle-fill"),
    "reply": ("reply", "reply-fill"),
    "forward": ("forward", "forward-fill"),
    "back": ("arrow-left", "arrow-left-circle-fill"),
    "plus": ("plus-lg", "plus-circle-fill"),
    "file": ("file-earmark", "file-earmark-fill"),
    "folder": ("folder", "folder-fill"),
    "calendar": ("calendar3", "calendar-fill"),
    "bank": ("bank", "bank2"),
    "settings": ("gear", "gear-fill"),
    "mail": ("envelope", "envelope-fill"),
    "drive": ("cloud", "cloud-fill"),
    "expense": ("receipt", "receipt-cutoff"),
    "left": ("chevron-left", "caret-left-fill"),
    "right": ("chevron-right", "caret-right-fill"),
    "clock": ("clock", "clock-fill"),
    "pin": ("geo-alt", "geo-alt-fill"),
    "people": ("people", "people-fill"),
    "transfer": ("arrow-left-right", "arrow-down-up"),
    "doc": ("file-earmark-text", "file-earmark-text-fill"),
    "sheet": ("file-earmark-spreadsheet", "file-earmark-spreadsheet-fill"),
    "pdf": ("file-earmark-pdf", "file-earmark-pdf-fill"),
    "download": ("archive", "archive-fill"),
    "shop": ("bag", "bag-fill"),
    "forum": ("chat-left-text", "chat-left-text-fill"),
    "cart": ("cart", "cart-fill"),
    "box": ("box-seam", "box-seam-fill"),
    "return": ("arrow-return-left", "arrow-counterclockwise"),
    "truck": ("truck", "truck-front-fill"),
    "filter": ("funnel", "funnel-fill"),
    "electronics": ("headphones", "headset"),
    "home": ("house", "house-fill"),
    "books": ("book", "book-fill"),
    "sports": ("bicycle", "trophy-fill"),
    "fashion": ("handbag", "handbag-fill"),
    "office": ("briefcase", "briefcase-fill"),
    "like": ("hand-thumbs-up", "hand-thumbs-up-fill"),
    "love": ("heart", "heart-fill"),
    "funny": ("emoji-laughing", "emoji-laughing-fill"),
    "insightful": ("lightbulb", "lightbulb-fill"),
    "celebrate": ("balloon", "balloon-fill"),
    "comment": ("chat", "chat-fill"),
}


def inner(svg: str) -> str:
    """The drawing inside <svg>…</svg>, one line (the wrapper is the skin's: class, size, aria-hidden)."""
    body = re.search(r"<svg[^>]*>(.*)</svg>", svg, re.S)
    if body is None:
        raise ValueError("not an SVG file")
    return re.sub(r">\s+<", "><", body.group(1).strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--icons", type=Path, default=Path("/usr/share/bootstrap-icons/svg"))
    args = ap.parse_args()
    sets: dict[str, dict[str, str]] = {"outline": {}, "solid": {}}
    for name, (outline, solid) in NAMES.items():
        sets["outline"][name] = inner((args.icons / f"{outline}.svg").read_text("utf-8"))
        sets["solid"][name] = inner((args.icons / f"{solid}.svg").read_text("utf-8"))
    data = {"license": LICENSE, "view_box": "0 0 16 16", "sets": sets}
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} KB, {len(NAMES)} icons x {len(sets)} sets)")


if __name__ == "__main__":
    main()
