"""A window onto a running desktop for a person: a loopback HTTP page that shows the live screen, refreshed a few
times a second. It reads only Xvfb's memory-mapped screen (never the env's X connection, which belongs to the
thread driving the env), so it can run beside an agent or an oracle without disturbing either.
"""

from __future__ import annotations

from venuskit.envs.desktop.xserver import Framebuffer, encode_png
from venuskit.infra.http import HTTPError, LoopbackServer, Request, Response

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>venuskit desktop {display}</title>
<style>body{{margin:0;background:#222;color:#ddd;font:13px sans-serif}}img{{display:block;max-width:100%}}
p{{margin:6px 10px}}</style></head><body><p>venuskit desktop on X display {display} &middot; {width}x{height}
&middot; refreshes every {interval_ms} ms</p><img id="s" src="/screen.png" alt="the desktop">
<script>setInterval(()=>{{document.getElementById('s').src='/screen.png?'+Date.now()}},{interval_ms});</script>
</body></html>"""


class ScreenServer:
    """Serve `framebuffer` on 127.0.0.1: `/` is the page, `/screen.png` the screen now."""

    def __init__(self, framebuffer: Framebuffer, display: str, port: int = 0, interval_ms: int = 500) -> None:
        if interval_ms < 50:
            raise ValueError(f"The refresh interval must be at least 50 ms, got {interval_ms}.")
        self.framebuffer, self.display, self.interval_ms = framebuffer, display, interval_ms
        self.server = LoopbackServer(self._app, port=port, name="venuskit-desktop-view")

    def start(self) -> ScreenServer:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    @property
    def url(self) -> str:
        return self.server.url("/")

    def _app(self, req: Request) -> Response:
        if req.method not in ("GET", "HEAD"):
            raise HTTPError(405, "This page is read-only.")
        if req.path == "/":
            fb = self.framebuffer
            html = PAGE.format(display=self.display, width=fb.width, height=fb.height, interval_ms=self.interval_ms)
            return Response(html.encode())
        if req.path == "/screen.png":
            return Response(encode_png(self.framebuffer.grab()), content_type="image/png",
                            headers=[("Cache-Control", "no-store")])  # fmt: skip
        raise HTTPError(404, "Only / and /screen.png exist here.")
