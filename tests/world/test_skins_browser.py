"""Skins in real Chromium: skin 0 is pixel-identical to the world rendered without the skin machinery, and every
other skin changes what the screenshot shows.

"Without the skin machinery" is the world's own renderer with the skin hooks taken out (the plain i18n wording,
no `skin_css`, no `skin_icon`): what the templates and world.css draw by themselves.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image

from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.world import WorldServer, i18n
from venuskit.world.web import Ctx

pytestmark = [pytest.mark.browser]

PAGES = ("/", "/mail/inbox", "/mail/m/1", "/mail/compose", "/calendar/?view=week", "/calendar/e/1", "/drive/",
         "/expense/r/1", "/bank/a/1", "/bank/payees", "/shop/", "/shop/p/5", "/forum/p/1", "/settings/")  # fmt: skip
MOBILE_PAGES = ("/mail/m/1", "/drive/", "/shop/cart", "/forum/")
OTHER_SKINS = (19, 27)


def _pixels(png: bytes) -> bytes:
    return Image.open(io.BytesIO(png)).convert("RGB").tobytes()


def _shots(world: WorldServer, env: BrowserEnv, pages: tuple[str, ...], locale: str, skin: int) -> list[bytes]:
    episode = world.new_episode(seed=3, locale=locale, skin=skin)
    try:
        return [_pixels(env.reset({"start_url": world.bind_url(episode, p)}).png) for p in pages]
    finally:
        world.close_episode(episode)


def _without_skins(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = Ctx.globals

    def globals_(self: Ctx) -> dict:
        found = plain(self)
        del found["skin_css"], found["skin_icon"]
        return {**found, "t": lambda key, **kw: i18n.t(self.locale, key, **kw)}

    monkeypatch.setattr(Ctx, "globals", globals_)
    monkeypatch.setattr(Ctx, "t", lambda self, key, **kw: i18n.t(self.locale, key, **kw))


@pytest.mark.parametrize(("preset", "locale", "pages"), [("desktop", "en", PAGES), ("mobile", "zh", MOBILE_PAGES)])
def test_skin_zero_is_pixel_identical_and_other_skins_are_not(monkeypatch, preset, locale, pages):
    with WorldServer() as world:
        env = BrowserEnv(BrowserConfig(preset=preset, reuse_context=True, settle_s=0.05))
        try:
            default = _shots(world, env, pages, locale, 0)
            others = [_shots(world, env, pages, locale, k) for k in OTHER_SKINS]
            _without_skins(monkeypatch)
            reference = _shots(world, env, pages, locale, 0)
        finally:
            env.close()
    for page, a, b in zip(pages, default, reference, strict=True):
        assert a == b, f"skin 0 draws {page} differently from the world without skins"
    for k, shots in zip(OTHER_SKINS, others, strict=True):
        for page, a, b in zip(pages, default, shots, strict=True):
            assert a != b, f"skin {k} draws {page} exactly as the default look"
