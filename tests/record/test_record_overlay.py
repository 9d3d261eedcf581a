"""Action overlays drawn on real PNGs."""

from __future__ import annotations

import io

from PIL import Image
from record_helpers import make_png, png_pixel

from venuskit.actions.types import (
    Click,
    Drag,
    Hotkey,
    Hover,
    Point,
    Scroll,
    Sequence,
    Swipe,
    Type,
)
from venuskit.record.overlay import RED, draw_action, focus_after

W, H = 400, 300
WHITE = (255, 255, 255)


def red(png: bytes, x: int, y: int) -> bool:
    r, g, b = png_pixel(png, x, y)
    return r > 200 and g < 80 and b < 80


def test_click_is_a_red_dot_at_the_point_and_the_input_is_untouched():
    src = make_png(W, H)
    out = draw_action(src, Click(point=Point(0.25, 0.5)))
    assert red(out, 100, 150)
    assert png_pixel(out, 300, 40) == WHITE  # far from the dot nothing changes
    assert png_pixel(src, 100, 150) == WHITE
    with Image.open(io.BytesIO(out)) as im:
        assert im.size == (W, H) and im.format == "PNG"


def test_hover_is_a_ring_without_a_filled_centre():
    out = draw_action(make_png(W, H), Hover(point=Point(0.5, 0.5)))
    assert png_pixel(out, 200, 150) == WHITE
    ring = [red(out, 200 + dx, 150) for dx in range(5, 30)]
    assert any(ring)


def test_drag_and_swipe_are_arrows_from_start_to_end():
    for action in (
        Drag(start=Point(0.1, 0.5), end=Point(0.9, 0.5)),
        Swipe(start=Point(0.1, 0.5), end=Point(0.9, 0.5)),
    ):
        out = draw_action(make_png(W, H), action)
        assert red(out, 200, 150) and red(out, 300, 150)  # along the shaft
        assert png_pixel(out, 200, 250) == WHITE


def test_scroll_arrow_points_in_its_direction():
    out = draw_action(make_png(W, H), Scroll(point=Point(0.5, 0.3), direction="down"))
    assert red(out, 200, 120) and red(out, 200, 140)  # below the point (0.2 of the height = 60 px)
    assert not red(out, 200, 60)
    # without a point (computer: at the cursor) the arrow starts at the cursor it is given
    out = draw_action(make_png(W, H), Scroll(direction="right", amount=3), cursor=Point(0.25, 0.75))
    assert red(out, 130, 225)


def test_type_marks_the_focused_field_or_says_so_in_a_banner():
    at_field = draw_action(make_png(W, H), Type(content="hello"), cursor=Point(0.5, 0.5))
    assert red(at_field, 200, 150)
    no_focus = draw_action(make_png(W, H), Type(content="hello"))
    assert red(no_focus, 2, 2) and png_pixel(no_focus, 200, 150) == WHITE


def test_keys_draw_a_banner_and_sequence_draws_every_child():
    assert red(draw_action(make_png(W, H), Hotkey(keys=("ctrl", "c"))), 2, 2)
    seq = Sequence(actions=(Click(point=Point(0.2, 0.2)), Click(point=Point(0.8, 0.8))))
    out = draw_action(make_png(W, H), seq)
    assert red(out, 80, 60) and red(out, 320, 240)


def test_label_and_colour():
    out = draw_action(make_png(W, H), None, label="step 3")
    assert red(out, 2, 2) and png_pixel(out, 200, 150) == WHITE
    blue = draw_action(make_png(W, H), Click(point=Point(0.5, 0.5)), color=(0, 0, 255))
    assert png_pixel(blue, 200, 150) == (0, 0, 255) and RED != (0, 0, 255)


def test_focus_after_tracks_the_pointer():
    p = Point(0.3, 0.4)
    assert focus_after(Click(point=p), None) == p
    assert focus_after(Type(content="x"), p) == p
    assert focus_after(Drag(start=Point(0, 0), end=p), None) == p
    assert focus_after(Sequence(actions=(Click(point=Point(0.1, 0.1)), Click(point=p))), None) == p
