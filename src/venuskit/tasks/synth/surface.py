"""What task synthesis needs to know of a surface: one object per surface, the rest of `synth` is shared.

Capability catalogs, plans, data flow, goals, the rejection reasons, duplicates, coverage and the task file are the
same for every surface. A surface brings:

- its task kind (venuskit.tasks.loader.TaskKind): apps, check table, oracle steps, consequential actions;
- where its catalogs live and which fields its capabilities add (the world's setup rows and referents; the
  desktop's files, settings and window);
- how fragments are joined (the world navigates to the next app's home page; the desktop brings the next app's
  window to the front) and which surface fields a composed task table gets;
- the static checks on its state before any proof (the world's seeded SQLite worlds; the desktop's home folder);
- its hand-written templates (provenance links, duplicates).

    surface = get_surface("computer")
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from venuskit.tasks.loader import TaskKind, Where
    from venuskit.tasks.synth.catalog import Capability
    from venuskit.tasks.synth.compose import Plan, Step
    from venuskit.tasks.synth.reject import SeedWorlds

NAMES = ("browser", "computer")


class Surface:
    """The world's web apps (`browser`); `ComputerSurface` (venuskit.tasks.synth.computer) is the desktop's."""

    name = "browser"
    package = "venuskit.tasks"  # whose `capabilities/` folder holds the catalogs
    spec_module = "venuskit.tasks.spec"  # the surface's task specs: KIND, bundled, parse_task, register, load_file
    app_home = {"mail": "/mail/inbox", "calendar": "/calendar/", "drive": "/drive/", "expense": "/expense/",
                "bank": "/bank/", "shop": "/shop/", "forum": "/forum/", "settings": "/settings/"}  # fmt: skip
    check_app = {"mail": "mail", "cal": "calendar", "drive": "drive", "expense": "expense", "bank": "bank",
                 "shop": "shop", "forum": "forum", "settings": "settings"}  # check-name prefix -> app  # fmt: skip
    horizons: dict[str, tuple[int, int]] | None = None  # plan lengths per horizon (None: the sampler's own)
    distinct_apps = False  # whether a plan may use an app once only (the desktop: one window per app)

    @property
    def spec(self) -> Any:
        """The module of the surface's task specs (imported on first use: the desktop's pulls in its checks)."""
        return importlib.import_module(self.spec_module)

    @property
    def kind(self) -> TaskKind:
        return self.spec.KIND

    @property
    def task_surfaces(self) -> tuple[str, ...]:
        """The surfaces a capability may say it works on (the env presets a task runs with)."""
        from venuskit.tasks.spec import SURFACES

        return SURFACES

    @property
    def target_kinds(self) -> tuple[str, ...]:
        from venuskit.tasks.synth.refs import KINDS

        return KINDS

    def capabilities_dir(self) -> Path:
        from importlib import resources

        return Path(str(resources.files(self.package).joinpath("capabilities")))

    def hand(self) -> dict[str, Any]:
        """The surface's hand-written templates, by id."""
        return self.spec.bundled()

    def parse_task(self, raw: dict[str, Any], source: str) -> Any:
        return self.spec.parse_task(raw, source)

    def register(self, specs: list[Any]) -> None:
        self.spec.register(specs)

    def unregister(self, ids: list[str]) -> None:
        self.spec.unregister(ids)

    def load_file(self, path: Path) -> list[Any]:
        return self.spec.load_file(path)

    def check_links(self, cap: Capability, w: Any) -> None:
        """The provenance must be real: hand-written templates that exist, a section of the app's help page."""
        from venuskit.world.apps.helptext import HELP

        self.check_templates(cap, w)
        sections = [title for title, _ in HELP[cap.app]["en"]["sections"]]
        if cap.help not in sections:
            raise w.fail("help", f"must name a section of the {cap.app} help page: {', '.join(sections)}")

    def check_templates(self, cap: Capability, w: Where) -> None:
        known = self.hand()
        for t in cap.templates:
            if t not in known:
                raise w.fail("templates", f"no hand-written template {t!r}")

    def parse_extra(self, raw: dict[str, Any], w: Where) -> dict[str, Any]:
        """The capability's surface fields: the world's setup rows (ops of venuskit.tasks.setup)."""
        return {"setup": tuple(_setup(op, w, f"setup[{i}]") for i, op in enumerate(raw.get("setup", [])))}

    def enter(self, prev: Step | None, step: Step) -> list[list[str]]:
        """Oracle steps from wherever the previous fragment ended to `step`'s app home. FinPortal has its own
        frame (no workspace sidebar): leave it through the launcher."""
        if prev is None:
            return []
        app, before = step.cap.app, prev.cap.app
        if before == "expense":
            if app == "expense":
                return [["click", ".lg-menu a[href='/expense/']"]]
            return [["click", ".lg-top a[href='/']"], ["click", f"a.tile[href='/{app}/']"]]
        return [["click", f".sidebar a.nav-app[href='/{app}/']"]]

    def table(self, plan: Plan) -> dict[str, Any]:
        """The composed task's surface fields. Proofs run on the desktop browser only, so that is the one surface a
        synthesised task declares (its capabilities may also work on mobile; `venus tasks prove` does not check)."""
        from venuskit.tasks.synth.compose import setup_rows

        surfaces = [x for x in self.task_surfaces[:1] if all(x in s.cap.surfaces for s in plan.steps)]
        return {"start": self.app_home[plan.steps[0].cap.app], "surfaces": surfaces,
                "setup": [op for s in plan.steps for op in setup_rows(s)]}  # fmt: skip

    def check_state(self, plan: Plan, spec: Any, worlds: SeedWorlds) -> None:
        from venuskit.tasks.synth.reject import check_world

        check_world(plan, spec, worlds)


def _setup(raw: Any, w: Where, where: str) -> dict[str, Any]:
    from venuskit.tasks.setup import OPS

    if not isinstance(raw, dict) or raw.get("op") not in OPS:
        raise w.fail(f"{where}.op", f"must be one of {', '.join(OPS)}")
    extra = set(raw) - OPS[raw["op"]] - {"op", "unless"}
    if extra:
        raise w.fail(f"{where}.{sorted(extra)[0]}", f"op {raw['op']!r} has no such field")
    return dict(raw)


@cache
def get_surface(name: str) -> Surface:
    """The synthesis surface called `name` (browser: the world's web apps; computer: the desktop's apps)."""
    if name == "browser":
        return Surface()
    if name == "computer":
        from venuskit.tasks.synth.computer import ComputerSurface

        return ComputerSurface()
    raise ValueError(f"Unknown synthesis surface {name!r}; surfaces: {', '.join(NAMES)}.")
