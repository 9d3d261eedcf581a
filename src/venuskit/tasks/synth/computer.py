"""The desktop as a synthesis surface (`venus tasks synth --surface computer`).

Capabilities live in `venuskit/tasks/desktop/capabilities/*.toml`, one file per app (editor, spreadsheet, file
manager, terminal, image viewer, appearance settings). Beside the shared fields a capability has:

    files   = [...]   the home folder's files it needs (as a desktop task's [[task.files]]: text, sheet, image, dir)
    config  = [...]   app settings it starts from ([[task.config]])
    window  = { app, args, title }   the app window it works in; `title` finds that window on screen
    targets = [...]   `path` (a file the goal names: it must exist) and `prefix` (a name typed into the file manager's
                      type-ahead, "FOLDER/STEM": exactly one entry of the folder may start with it)
    help    = "..."   where the function is in the app (a menu path, a shortcut, a command): its provenance

A composed task opens every step's window, side by side (one app per task: two plans of one app would fight over
its single window), focuses the first step's window, and joins the fragments by clicking the next window's title
bar. Before any X server runs, a candidate is rejected when two steps need different files at one path, when a
precondition fails or a type-ahead name is ambiguous on the composed home folder, or when its contract already
holds on that folder; the proof (oracle to `completed`, a do-nothing run to `failed`, both under Xvfb with the real
apps) is the runner's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from venuskit.tasks.synth.surface import Surface

if TYPE_CHECKING:
    from venuskit.tasks.loader import Where
    from venuskit.tasks.synth.catalog import Capability
    from venuskit.tasks.synth.compose import Plan, Step
    from venuskit.tasks.synth.reject import SeedWorlds

# Window places by how many windows a task opens: halves, then a full-height left column and two quarters.
LAYOUTS: dict[int, tuple[Any, ...]] = {
    1: (None,),
    2: ("left", "right"),
    3: ([0.0, 0.0, 0.5, 1.0], [0.5, 0.0, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5]),
}
TALL = ("lxappearance",)  # dialogs laid out for a full-height place: they take the first one
HORIZONS = {"short": (1, 2), "medium": (2, 3), "long": (3, 3)}  # at most three windows side by side


class ComputerSurface(Surface):
    name = "computer"
    package = "venuskit.tasks.desktop"
    spec_module = "venuskit.tasks.desktop.spec"
    app_home: dict[str, str] = {}  # apps are windows, not pages
    check_app: dict[str, str] = {}  # desktop checks name files and cells, not apps
    horizons = HORIZONS
    distinct_apps = True

    @property
    def task_surfaces(self) -> tuple[str, ...]:
        return ("computer",)

    @property
    def target_kinds(self) -> tuple[str, ...]:
        return ("path", "prefix")

    def check_links(self, cap: Capability, w: Any) -> None:
        """Hand-written desktop templates that exist, and where in the app the function is."""
        self.check_templates(cap, w)
        if not cap.help.strip():
            raise w.fail("help", "say where the function is in the app (a menu path, a shortcut or a command)")

    def parse_extra(self, raw: dict[str, Any], w: Where) -> dict[str, Any]:
        from venuskit.tasks.desktop import spec as desktop

        if "setup" in raw:
            raise w.fail("setup", "desktop capabilities bring files, config and a window, not world setup rows")
        files = tuple(desktop.file_entry(f, w, f"files[{i}]") for i, f in enumerate(raw.get("files", [])))
        config = tuple(desktop.config_entry(c, w, f"config[{i}]") for i, c in enumerate(raw.get("config", [])))
        window = raw.get("window", {})
        if not isinstance(window, dict) or not isinstance(window.get("title", ""), str):
            raise w.fail("window", "must be a table with app, args and title")
        if window:
            desktop.window_entry({k: v for k, v in window.items() if k != "title"}, w, "window")
            if not window.get("title"):
                raise w.fail("window.title", "name a part of the window's title, to bring it to the front by")
        return {"files": files, "config": config, "window": dict(window)}

    def enter(self, prev: Step | None, step: Step) -> list[list[str]]:
        """Bring the step's window to the front by its title bar, unless the last fragment worked in it."""
        from venuskit.tasks.synth.compose import fill

        if prev is None or not step.cap.window or _window_key(prev) == _window_key(step):
            return []
        return [["click", f"titlebar:{fill(step.cap.window['title'], step.values)}"]]

    def table(self, plan: Plan) -> dict[str, Any]:
        """Files and settings of every step (the first step's file wins a path; `check_state` rejects a clash),
        every step's window in its place, the first step's in focus."""
        from venuskit.tasks.synth.compose import fill

        files: dict[str, dict[str, Any]] = {}
        for s in plan.steps:
            for f in fill(list(s.cap.files), s.values):
                files.setdefault(f["path"], f)
        config = [c for s in plan.steps for c in fill(list(s.cap.config), s.values)]
        wins: dict[tuple, dict[str, Any]] = {}
        for s in plan.steps:
            if s.cap.window:
                wins.setdefault(_window_key(s), {k: v for k, v in fill(dict(s.cap.window), s.values).items()
                                                 if k != "title"})  # fmt: skip
        order = sorted(wins, key=lambda k: k[0] not in TALL)  # stable: steps' order otherwise
        windows = [wins[k] for k in order]
        for w, place in zip(windows, LAYOUTS.get(len(windows), ()), strict=False):
            if place is not None:
                w["geometry"] = place
        first = next((_window_key(s) for s in plan.steps if s.cap.window), None)
        table: dict[str, Any] = {"files": list(files.values()), "config": config, "windows": windows}
        if first is not None:
            table["focus"] = order.index(first)
        return table

    def check_state(self, plan: Plan, spec: Any, worlds: SeedWorlds) -> None:
        check_home(plan, spec)


def _window_key(step: Step) -> tuple:
    from venuskit.tasks.synth.compose import fill

    w = step.cap.window
    return (w.get("app"), tuple(fill(list(w.get("args", [])), step.values))) if w else ()


# ---- static checks on the composed home folder ------------------------------------------------------


def check_home(plan: Plan, spec: Any) -> None:
    """Before any X server: files that clash, preconditions and type-ahead names on the composed home folder, and a
    contract that already holds there (a do-nothing run would pass it). Raises Rejected."""
    from venuskit.tasks.desktop.checks import DesktopContext, run_check
    from venuskit.tasks.desktop.contract import judge
    from venuskit.tasks.desktop.snapshot import SnapshotError, snapshot_for
    from venuskit.tasks.synth.compose import fill, fmt
    from venuskit.tasks.synth.reject import Rejected

    _clashes(plan)
    inst = spec.instance(0)
    try:
        home = snapshot_for(inst.files)
    except SnapshotError as e:
        raise Rejected("precondition_unmet", f"the task's files cannot be written: {e}") from e
    ctx = DesktopContext(home=home, snapshot=home, facts={"windows": [], "screen": [1280, 800]})
    for s in plan.steps:
        for t in s.cap.targets:
            if t.unless not in s.flows:
                _target(s.cap.id, t.kind, fmt(t.text, s.values), home)
        for c in s.cap.pre:
            if c.unless in s.flows:
                continue
            args = fill(c.args, s.values)
            if run_check(c.check, ctx, args) == c.negate:
                want = "not " if c.negate else ""
                raise Rejected("precondition_unmet", f"{s.cap.id}: {want}{c.check}({args}) fails on the task's files")
    v = judge(inst, DesktopContext(home=home, snapshot=home, facts=ctx.facts, answer="Done.", end_reason="finished"))
    if v.verdict != "failed":
        raise Rejected("unverifiable_result", f"doing nothing already gives {v.verdict!r} ({v.reason})")


def _clashes(plan: Plan) -> None:
    from venuskit.tasks.synth.compose import fill
    from venuskit.tasks.synth.reject import Rejected

    seen: dict[str, tuple[str, dict[str, Any]]] = {}
    for s in plan.steps:
        for f in fill(list(s.cap.files), s.values):
            if f["path"] in seen and seen[f["path"]][1] != f:
                raise Rejected("precondition_unmet", f"{seen[f['path']][0]} and {s.cap.id} need different files at "
                                                     f"{f['path']}")  # fmt: skip
            seen.setdefault(f["path"], (s.cap.id, f))


def _target(cap: str, kind: str, text: str, home: Any) -> None:
    """`path`: the file exists. `prefix` ("FOLDER/STEM"): exactly one entry of FOLDER starts with STEM, as the file
    manager's type-ahead would pick it (case-insensitively)."""
    from pathlib import PurePosixPath

    from venuskit.tasks.synth.reject import Rejected

    if kind == "path":
        if not (home / text).exists():
            raise Rejected("precondition_unmet", f"{cap}: no file {text!r} in the task's home folder")
        return
    folder, stem = PurePosixPath(text).parent, PurePosixPath(text).name.casefold()
    names = [p.name for p in (home / folder).iterdir()] if (home / folder).is_dir() else []
    hits = [n for n in names if n.casefold().startswith(stem)]
    if not hits:
        raise Rejected("precondition_unmet", f"{cap}: nothing in {folder} starts with {stem!r}")
    if len(hits) > 1:
        raise Rejected("ambiguous_goal", f"{cap}: {len(hits)} entries of {folder} start with {stem!r}: "
                                         f"{', '.join(sorted(hits))}")  # fmt: skip
