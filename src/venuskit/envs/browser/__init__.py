"""The real browser environment: Debian Chromium driven through Playwright's sync API.

    config.py   BrowserConfig and the Chromium switches every launch gets
    env.py      BrowserEnv: contexts, the step, recovery after a hang or crash, the observation
    chromium.py the Chromium process: launch, sharing, the watchdog that kills a hung one, teardown, memory
    actions.py  one handler per action name, on the env as an `actions.Tab`
    keys.py     model key names -> Playwright's
    js.py       the JavaScript run in pages (the observation's one page read)
    driver.py   the Playwright driver shared per thread; CDP commands sent together
    scratch.py  the temporary folders of this process's browsers, swept after a SIGKILL
    inspect.py  the page inspector the safety gate reads (the element under a point, what Enter submits)
"""

from venuskit.envs.browser.config import (
    BASE_ARGS,
    DEBIAN_CHROMIUM,
    HEADLESS_SHELL,
    LOW_MEMORY_ARGS,
    LOW_MEMORY_FEATURES,
    PLAYWRIGHT_FEATURES,
    BrowserConfig,
)
from venuskit.envs.browser.env import BrowserEnv, ProbeResult, png_size
from venuskit.envs.browser.keys import playwright_key
from venuskit.infra.proc import process_tree, pss_mb, rss_mb

__all__ = [
    "BASE_ARGS", "DEBIAN_CHROMIUM", "HEADLESS_SHELL", "LOW_MEMORY_ARGS", "LOW_MEMORY_FEATURES", "PLAYWRIGHT_FEATURES",
    "BrowserConfig", "BrowserEnv", "ProbeResult", "playwright_key", "png_size", "process_tree", "pss_mb", "rss_mb",
]  # fmt: skip
