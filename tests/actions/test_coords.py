"""coords.py: every conversion round-trips within its quantum."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venuskit.actions import coords

PROPS = settings(max_examples=300, deadline=None, derandomize=True)
unit = st.floats(0.0, 1.0, allow_nan=False)
scales = st.sampled_from([999, 1000])
sizes = st.integers(1, 8000)


@PROPS
@given(v=unit, scale=scales)
def test_grid_round_trip_within_one_grid_unit(v, scale):
    g = coords.to_grid(v, scale)
    assert isinstance(g, int) and 0 <= g <= 999
    assert abs(coords.from_grid(g, scale) - v) <= 1 / scale + 1e-12


@PROPS
@given(g=st.integers(0, 999), scale=scales)
def test_grid_integers_are_fixed_points(g, scale):
    assert coords.to_grid(coords.from_grid(g, scale), scale) == g


def test_grid_ends_and_the_999_vs_1000_divisor():
    assert coords.from_grid(999, 999) == 1.0
    assert coords.from_grid(999, 1000) == 0.999
    assert coords.to_grid(1.0, 1000) == 999  # the model never sees 1000
    assert coords.to_grid(0.0, 999) == 0
    assert coords.from_grid(5000, 999) == 1.0 and coords.from_grid(-3, 1000) == 0.0


@PROPS
@given(data=st.data(), size=sizes)
def test_pixel_round_trip_is_exact(data, size):
    p = data.draw(st.integers(0, size - 1))
    v = coords.from_pixel(p, size)
    assert 0.0 <= v <= 1.0
    assert coords.to_pixel(v, size) == p


@PROPS
@given(v=unit, size=sizes)
def test_point_to_pixel_lands_in_the_image_and_back_within_half_a_pixel(v, size):
    p = coords.to_pixel(v, size)
    assert 0 <= p <= size - 1
    assert abs(coords.from_pixel(p, size) - v) <= 1 / size


@PROPS
@given(x=unit, y=unit, w=sizes, h=sizes)
def test_point_pixels_helpers_agree(x, y, w, h):
    px, py = coords.point_to_pixels((x, y), w, h)
    assert coords.point_to_pixels(coords.point_from_pixels(px, py, w, h), w, h) == (px, py)


@st.composite
def resize_frames(draw):
    factor = draw(st.sampled_from([28, 32]))
    h, w = draw(st.integers(50, 6000)), draw(st.integers(50, 6000))
    min_pixels = draw(st.integers(factor * factor, 2_000_000))
    max_pixels = draw(st.integers(max(min_pixels, 4 * factor * factor), 20_000_000))
    return factor, h, w, min_pixels, max_pixels


@PROPS
@given(frame=resize_frames(), x=unit, y=unit)
def test_resized_pixels_round_trip_within_one_pixel(frame, x, y):
    factor, h, w, lo, hi = frame
    rh, rw = coords.smart_resize(h, w, factor, min_pixels=lo, max_pixels=hi)
    assert rh % factor == 0 and rw % factor == 0 and rh >= factor and rw >= factor
    px, py = coords.point_to_resized((x, y), h, w, factor, min_pixels=lo, max_pixels=hi)
    assert 0 <= px < rw and 0 <= py < rh
    bx, by = coords.point_from_resized(px, py, h, w, factor, min_pixels=lo, max_pixels=hi)
    assert abs(bx - x) <= 1 / rw and abs(by - y) <= 1 / rh
    # and a resized pixel is a fixed point
    assert coords.point_to_resized((bx, by), h, w, factor, min_pixels=lo, max_pixels=hi) == (px, py)


@PROPS
@given(frame=resize_frames())
def test_smart_resize_respects_the_pixel_budget_when_it_can(frame):
    factor, h, w, lo, hi = frame
    rh, rw = coords.smart_resize(h, w, factor, min_pixels=lo, max_pixels=hi)
    short_side_at_budget = min(h, w) * (hi / (h * w)) ** 0.5
    if short_side_at_budget >= factor and h * w >= lo:  # else Qwen's rule floors a side or scales up
        assert rh * rw <= hi
    if h * w * 1.5 < lo:  # small images are scaled up to the minimum
        assert rh * rw >= lo


def test_smart_resize_known_values_and_refusals():
    assert coords.smart_resize(1080, 1920, 28, min_pixels=3136, max_pixels=12845056) == (1092, 1932)
    assert coords.smart_resize(2400, 1080, 32) == (2400, 1088)
    with pytest.raises(ValueError, match="positive size"):
        coords.smart_resize(0, 10)
    with pytest.raises(ValueError, match="exceeds 200"):
        coords.smart_resize(10, 3000)


# ---- crop frames (test-time zoom-in) -----------------------------------------------------------------------

zooms = st.floats(1.0, 16.0, allow_nan=False)
screen_sides = st.integers(16, 7680)


@PROPS
@given(p=st.tuples(unit, unit), w=screen_sides, h=screen_sides, zoom=zooms)
def test_a_crop_lies_inside_the_image_and_holds_its_centre_point(p, w, h, zoom):
    frame = coords.crop_around(p, (w, h), zoom)
    assert 0 <= frame.left < frame.right <= w and 0 <= frame.top < frame.bottom <= h
    assert abs((frame.right - frame.left) - w / zoom) <= 1 and abs((frame.bottom - frame.top) - h / zoom) <= 1
    px, py = coords.point_to_pixels(p, w, h)
    assert frame.left <= px <= frame.right and frame.top <= py <= frame.bottom  # the first answer stays in view


@PROPS
@given(p=st.tuples(unit, unit), c=st.tuples(unit, unit), w=screen_sides, h=screen_sides, zoom=zooms)
def test_crop_and_full_frames_round_trip(p, c, w, h, zoom):
    frame = coords.crop_around(c, (w, h), zoom)
    back = frame.from_full(frame.to_full(p))
    assert back == pytest.approx(p, abs=1e-9)
    inside = frame.to_full(p)  # a point on the crop is on the image, inside the crop's box
    assert frame.left / w - 1e-12 <= inside[0] <= frame.right / w + 1e-12


@PROPS
@given(c=st.tuples(unit, unit), w=screen_sides, h=screen_sides, zoom=zooms, data=st.data())
def test_pixel_i_of_the_crop_is_pixel_left_plus_i_of_the_image(c, w, h, zoom, data):
    frame = coords.crop_around(c, (w, h), zoom)
    cw, ch = frame.right - frame.left, frame.bottom - frame.top
    i, j = data.draw(st.integers(0, cw - 1)), data.draw(st.integers(0, ch - 1))
    on_crop = coords.point_from_pixels(i, j, cw, ch)
    assert coords.point_to_pixels(frame.to_full(on_crop), w, h) == (frame.left + i, frame.top + j)


def test_zoom_one_is_the_whole_image_and_edges_shift_inside():
    assert coords.crop_around((0.3, 0.7), (3840, 2160), 1).box == (0, 0, 3840, 2160)
    assert coords.crop_around((0.0, 1.0), (3840, 2160), 2).box == (0, 1080, 1920, 2160)  # a corner answer
    assert coords.crop_around((0.5, 0.5), (3840, 2160), 4).box == (1440, 810, 2400, 1350)
    with pytest.raises(ValueError, match="zoom must be at least 1"):
        coords.crop_around((0.5, 0.5), (100, 100), 0.5)
    with pytest.raises(ValueError, match="does not lie inside"):
        coords.CropFrame(0, 0, 101, 50, (100, 100))
