"""Desktop task specs, checks, verdicts and oracle planning, without an X server: the catalog's shape, task files
that are wrong in every way a person gets them wrong, checks over real files (spreadsheets through ssconvert),
the verdict rules, and how oracle targets turn into points."""

from __future__ import annotations

import pytest

from venuskit.actions.types import Click, Drag, Finished, Hotkey, Scroll, Sequence, Wait
from venuskit.tasks.desktop import DesktopOracle, OracleError, bundled, judge, load_catalog, load_file
from venuskit.tasks.desktop.checks import CheckError, DesktopContext, home_changes, run_check
from venuskit.tasks.desktop.snapshot import snapshot_for
from venuskit.tasks.spec import TaskFileError

TASKS = bundled()


def test_the_catalog_meets_the_issue():
    infeasible = [t for t in TASKS.values() if not t.feasible]
    assert len(TASKS) >= 40 and len(infeasible) >= 8
    assert sum("zh" in t.locales for t in TASKS.values()) >= 10
    assert sum(t.cross_app for t in TASKS.values()) >= 5
    apps = {a for t in TASKS.values() for a in t.apps}
    assert apps == {"mousepad", "pcmanfm", "gnumeric", "xterm", "gpicview", "lxappearance", "chromium"}
    for t in TASKS.values():
        assert not t.feasible or t.oracle, t.id
        assert t.feasible or t.infeasible_reason, t.id
        for seed in range(len(t.params)):
            inst = t.instance(seed)
            assert inst.goal and "{" not in inst.goal, (t.id, inst.goal)
            if inst.locale == "zh":
                assert any("\u4e00" <= ch <= "\u9fff" for ch in inst.goal), t.id


def test_every_keypoint_names_a_known_check_with_known_arguments():
    from venuskit.tasks.desktop.checks import CHECKS

    for t in TASKS.values():
        for kp in t.keypoints + t.forbid:
            assert kp.check in CHECKS and set(kp.args) <= CHECKS[kp.check][1], (t.id, kp)


BASE = """
[[task]]
id = "x.one"
apps = ["mousepad"]
category = "short"
goal = "Do {thing}."
oracle = [["finish"]]
[[task.params]]
thing = "it"
[[task.keypoints]]
desc = "it is done"
check = "file.exists"
args = { path = "a.txt" }
"""


@pytest.mark.parametrize(("edit", "message"), [
    (lambda s: s.replace('apps = ["mousepad"]', 'apps = ["word"]'), "apps"),
    (lambda s: s.replace('category = "short"', 'category = "epic"'), "category"),
    (lambda s: s.replace('check = "file.exists"', 'check = "file.nope"'), "unknown check"),
    (lambda s: s.replace('args = { path = "a.txt" }', 'args = { path = "a.txt", colour = "red" }'), "colour"),
    (lambda s: s.replace('thing = "it"', 'other = "it"'), "placeholder"),
    (lambda s: s.replace('oracle = [["finish"]]', 'oracle = [["teleport"]]'), "oracle"),
    (lambda s: s.replace('oracle = [["finish"]]', ""), "oracle"),
    (lambda s: s + '[[task.files]]\npath = "../escape.txt"\ntext = "x"\n', "inside the home folder"),
    (lambda s: s + '[[task.files]]\npath = "a.txt"\ntext = "x"\ncsv = []\n', "exactly one"),
    (lambda s: s + '[[task.windows]]\napp = "xterm"\ngeometry = "sideways"\n', "geometry"),
    (lambda s: s.replace('category = "short"', 'category = "infeasible"'), "infeasible_reason"),
    (lambda s: s.replace('thing = "it"', 'thing = "it"\nlocale = "zh"'), "goal_zh"),
    (lambda s: s.replace("[[task]]", "[[task]]\nwhen = 3"), "not a task field"),
    (lambda s: s + "= broken", "not valid TOML"),
])  # fmt: skip
def test_bad_task_files_name_the_field(tmp_path, edit, message):
    path = tmp_path / "bad.toml"
    path.write_text(edit(BASE), encoding="utf-8")
    with pytest.raises(TaskFileError, match=message) as err:
        load_file(path)
    assert str(path) in str(err.value)


def test_a_good_file_loads(tmp_path):
    path = tmp_path / "good.toml"
    path.write_text(BASE, encoding="utf-8")
    (spec,) = load_file(path)
    assert spec.instance(0).goal == "Do it."


def test_a_catalog_refuses_an_id_defined_twice(tmp_path):
    for name in ("a.toml", "b.toml"):
        (tmp_path / name).write_text(BASE, encoding="utf-8")
    with pytest.raises(TaskFileError, match="already defined in .*a.toml") as err:
        load_catalog(tmp_path)
    assert "b.toml" in str(err.value)


# ---- checks over real files --------------------------------------------------------------------------


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    h.mkdir()
    return h


def ctx(home, **kw):
    return DesktopContext(home=home, **kw)


def test_file_checks(home):
    (home / "a.txt").write_text("Hello\nWorld\n")
    c = ctx(home)
    assert run_check("file.text", c, {"path": "a.txt", "equals": "hello\nworld"})  # one trailing newline, any case
    assert not run_check("file.text", c, {"path": "a.txt", "equals": "hello\nworld", "case": True})
    assert run_check("file.text", c, {"path": "a.txt", "lines": ["Hello", "World"], "contains": "wor"})
    assert not run_check("file.text", c, {"path": "missing.txt", "contains": ""})
    assert run_check("file.absent", c, {"path": "missing.txt"}) and run_check("file.exists", c, {"path": "a.txt"})
    with pytest.raises(CheckError, match="outside"):
        run_check("file.text", c, {"path": "../../etc/passwd", "contains": "root"})


def test_changes_are_measured_against_the_start(home, tmp_path):
    start = tmp_path / "start"
    start.mkdir()
    for root in (home, start):
        (root / "keep.txt").write_text("same")
        (root / ".config").mkdir()
    (home / ".config" / "app.ini").write_text("settings apps write on their own")
    c = ctx(home, snapshot=start)
    assert home_changes(home, start) == [] and run_check("file.unchanged", c, {"path": "keep.txt"})
    (home / "keep.txt").write_text("edited")
    (home / "new.txt").write_text("new")
    assert home_changes(home, start) == ["keep.txt", "new.txt"]
    assert run_check("file.changed", c, {"path": "keep.txt"}) and run_check("home.changed", c, {})


def test_spreadsheet_cells_are_read_with_ssconvert(home):
    snap = snapshot_for(({"path": "b.gnumeric", "sheet": {"Costs": [["item", "cost"], ["a", "2"], ["b", "3"],
                                                                     ["sum", "=SUM(B2:B3)"]]}},))  # fmt: skip
    (home / "b.gnumeric").write_bytes((snap / "b.gnumeric").read_bytes())
    c = ctx(home)
    assert run_check("sheet.cell", c, {"path": "b.gnumeric", "cell": "B4", "number": 5, "formula_contains": "sum"})
    assert run_check("sheet.cell", c, {"path": "b.gnumeric", "cell": "a2", "equals": "A"})
    assert not run_check("sheet.cell", c, {"path": "b.gnumeric", "cell": "B2", "formula": True})
    assert run_check("sheet.sheets", c, {"path": "b.gnumeric", "names": ["costs"], "count": 1})
    assert run_check("sheet.column", c, {"path": "b.gnumeric", "column": "A", "values": ["item", "a", "b", "sum"]})
    with pytest.raises(CheckError, match="cell name"):
        run_check("sheet.cell", c, {"path": "b.gnumeric", "cell": "B0", "number": 1})


def test_config_window_and_answer_checks(home):
    (home / "s.ini").write_text("[Settings]\ngtk-theme-name=Adwaita-dark\n[org/x]\nshow='yes'\n")
    facts = {"screen": [1000, 800], "windows": [
        {"title": "notes - Editor", "class": "Mousepad", "focused": True, "hidden": False, "frame": [500, 0, 500, 800]},
        {"title": "Terminal", "class": "XTerm", "focused": False, "hidden": True, "frame": [0, 0, 300, 200]}]}  # fmt: skip
    c = ctx(home, facts=facts, answer="There are 1,234 files", end_reason="finished")
    assert run_check("config.value", c, {"path": "s.ini", "section": "Settings", "key": "gtk-theme-name",
                                         "equals": "adwaita-dark"})  # fmt: skip
    assert run_check("config.value", c, {"path": "s.ini", "section": "org/x", "key": "show", "equals": "yes"})
    assert run_check("config.value", c, {"path": "s.ini", "section": "org/x", "key": "nope", "absent": True})
    assert run_check("window.region", c, {"app": "mousepad", "region": "right"})
    assert not run_check("window.region", c, {"app": "mousepad", "region": "left"})
    assert run_check("window.focused", c, {"title": "notes"}) and run_check("window.hidden", c, {"app": "XTerm"})
    assert run_check("window.size", c, {"app": "Mousepad", "min_width": 500}) and run_check("window.closed", c, {"app": "Gpicview"})
    assert run_check("answer.contains", c, {"number": 1234}) and not run_check("answer.contains", c, {"number": 123})
    assert not run_check("answer.contains", ctx(home, answer="1234", end_reason="call_user"), {"number": 1234})


# ---- verdicts ----------------------------------------------------------------------------------------


def test_verdicts_follow_the_contract(home):
    inst = TASKS["files.organize"].instance(0)  # two progress keypoints (one per file), then "nothing loose"
    docs = home / "Documents"
    for sub in ("Photos", "Texts"):
        (docs / sub).mkdir(parents=True)
    (docs / "beach.png").write_bytes(b"png")
    (docs / "poem.txt").write_text("roses are red\n")
    assert judge(inst, ctx(home)).verdict == "failed"
    (docs / "beach.png").rename(docs / "Photos" / "beach.png")
    v = judge(inst, ctx(home))
    assert v.verdict == "partial" and [k.ok for k in v.keypoints] == [True, False, False]
    (docs / "poem.txt").rename(docs / "Texts" / "poem.txt")
    v = judge(inst, ctx(home))
    assert v.verdict == "completed" and [k.ok for k in v.keypoints] == [True, True, True]


def test_infeasible_verdicts(home, tmp_path):
    start = tmp_path / "start"
    start.mkdir()
    (start / "notes.txt").write_text("meeting notes\n")
    (home / "notes.txt").write_text("meeting notes\n")
    inst = TASKS["infeasible.email_file"].instance(0)
    assert judge(inst, ctx(home, snapshot=start, end_reason="call_user", answer="no mail app")).verdict == "infeasible"
    said = ctx(home, snapshot=start, end_reason="finished", answer="This cannot be done here.")
    assert judge(inst, said).verdict == "infeasible"
    assert judge(inst, ctx(home, snapshot=start, end_reason="finished", answer="Sent!")).verdict == "failed"
    (home / "notes.txt").unlink()  # a destructive "attempt": a forbidden side effect on a task that cannot be done
    v = judge(inst, ctx(home, snapshot=start, end_reason="call_user", answer="cannot"))
    assert v.verdict == "failed" and "notes.txt" in v.reason


def test_an_undeclared_trash_or_delete_fails_the_task_as_in_the_world(home, tmp_path):
    """The world's flag on the desktop: moving a user file to the trash or deleting it is a consequential action;
    a task that does not declare it fails, whatever its keypoints say. A move or a rename is no such action."""
    from venuskit.tasks.desktop.checks import consequential_actions

    start = tmp_path / "start"
    for root in (start, home):
        (root / "Downloads").mkdir(parents=True)
        for name, text in (("setup-old.bin", "binary\n"), ("photo.jpg", "keep me\n"), ("notes.txt", "n\n")):
            (root / "Downloads" / name).write_text(text)
    trash = home / ".local/share/Trash/files"
    trash.mkdir(parents=True)
    (home / "Downloads" / "setup-old.bin").rename(trash / "setup-old.bin")
    (home / "Downloads" / "notes.txt").rename(home / "notes-moved.txt")  # a move keeps the bytes: no action
    assert consequential_actions(home, start) == [{"kind": "file.trash", "detail": "Downloads/setup-old.bin"}]
    trashing = TASKS["files.trash"].instance(0)  # declares file.trash
    assert judge(trashing, ctx(home, snapshot=start)).verdict == "completed"
    (home / "Downloads" / "photo.jpg").unlink()  # deleted for good, and no task asked for it
    assert {"kind": "file.delete", "detail": "Downloads/photo.jpg"} in consequential_actions(home, start)
    v = judge(trashing, ctx(home, snapshot=start))
    assert v.verdict == "failed" and v.reason.startswith("forbidden side effect: photo.jpg was deleted")
    assert "undeclared consequential action: file.delete Downloads/photo.jpg" in v.forbidden
    plain = load_file_text(BASE.replace('path = "a.txt"', 'path = "Downloads/notes.txt"'), tmp_path)[0].instance(0)
    (home / "Downloads" / "notes.txt").write_text("n\n")
    v = judge(plain, ctx(home, snapshot=start))
    assert v.verdict == "failed" and v.forbidden == ["undeclared consequential action: file.delete Downloads/photo.jpg",
                                                     "undeclared consequential action: file.trash Downloads/setup-old.bin"]


def test_world_and_desktop_files_are_read_by_one_skeleton(tmp_path):
    """The same mistake gets the same message from either surface's loader; each names its own vocabulary."""
    from venuskit.tasks.spec import load_file as load_world

    world = BASE.replace('apps = ["mousepad"]', 'apps = ["mail"]').replace("file.exists", "mail.exists")
    world = world.replace('path = "a.txt"', 'subject = "x"')
    for load, text, cats in ((load_world, world, "short, medium, long, interrupt, infeasible"),
                             (load_file, BASE, "short, medium, long, infeasible")):  # fmt: skip
        path = tmp_path / "t.toml"
        path.write_text(text.replace('category = "short"', 'category = "tiny"'))
        with pytest.raises(TaskFileError, match=f"task 'x.one': field 'category': must be one of {cats}; got 'tiny'"):
            load(path)
        path.write_text(text.replace('category = "short"', 'category = "short"\ncolour = "red"'))
        with pytest.raises(TaskFileError, match="field 'colour': is not a task field; known fields: apps, category"):
            load(path)
    with pytest.raises(TaskFileError, match="'file.shred' is not a consequential action; known: file.trash"):
        load_file_text(BASE.replace('category = "short"', 'category = "short"\nconsequential = ["file.shred"]'),
                       tmp_path)  # fmt: skip


def load_file_text(text, tmp_path):
    path = tmp_path / "tasks.toml"
    path.write_text(text)
    return load_file(path)


def test_a_broken_check_is_an_error_verdict(home):
    inst = TASKS["sheet.average"].instance(0)
    (home / "scores.gnumeric").write_bytes(b"\x1f\x8b\x08\x00garbage")  # a truncated gzip: ssconvert gives up
    v = judge(inst, ctx(home))
    assert v.verdict == "error" and "sheet.cell" in v.reason


# ---- oracle planning ---------------------------------------------------------------------------------

FACTS = {"screen": [1280, 800], "windows": [
    {"title": "notes.txt - Mousepad", "class": "Mousepad", "focused": True, "hidden": False,
     "frame": [100, 50, 600, 400], "client": [101, 70, 598, 379]}]}  # fmt: skip


def test_oracle_targets_become_points_of_the_screen():
    o = DesktopOracle((("click", "window:Mousepad@px=30,37"), ("drag", "titlebar:notes", "screen@0.5,0.5"),
                       ("seq", ("key", "ctrl+s"), ("scroll", "-3", "vertical")), ("wait_window", "Save As"),
                       ("finish", "ok")))  # fmt: skip
    _, a = o.next(FACTS)
    assert isinstance(a, Click) and (round(a.point.x * 1280 - 0.5), round(a.point.y * 800 - 0.5)) == (131, 107)
    _, a = o.next(FACTS)
    assert isinstance(a, Drag) and round(a.start.y * 800 - 0.5) == 60 and (a.end.x, a.end.y) == pytest.approx((0.5, 0.5), abs=1e-3)
    _, a = o.next(FACTS)
    assert isinstance(a, Sequence) and isinstance(a.actions[0], Hotkey)
    assert isinstance(a.actions[1], Scroll) and a.actions[1].direction == "down" and a.actions[1].amount == 3
    _, a = o.next(FACTS)
    assert isinstance(a, Wait)  # the window is not open yet
    with_dialog = {**FACTS, "windows": FACTS["windows"] + [{**FACTS["windows"][0], "title": "Save As"}]}
    _, a = o.next(with_dialog)
    assert isinstance(a, Finished) and a.content == "ok"


def test_oracle_errors_name_the_step():
    with pytest.raises(OracleError, match="No window titled like 'Gnumeric'"):
        DesktopOracle((("click", "window:Gnumeric"),)).next(FACTS)


def test_key_until_presses_again_when_the_title_does_not_change():
    saved = {**FACTS["windows"][0], "title": "notes.txt - Mousepad"}
    dirty = {**FACTS, "windows": [{**saved, "title": "*notes.txt - Mousepad"}]}
    o = DesktopOracle((("key_until", "ctrl+s", "=notes.txt - Mousepad"), ("finish",)))
    _, a = o.next(dirty)
    assert isinstance(a, Hotkey) and a.keys == ("ctrl", "s")
    waits = [o.next(dirty)[1] for _ in range(4)]  # the title keeps its '*': wait, then press again
    assert all(isinstance(w, Wait) for w in waits) and isinstance(o.next(dirty)[1], Hotkey)
    _, a = o.next({**FACTS, "windows": [saved]})  # "=" matches the whole title: now it is saved
    assert isinstance(a, Finished)
    stuck = DesktopOracle((("key_until", "ctrl+s", "=notes.txt - Mousepad"),))
    with pytest.raises(OracleError, match="after pressing ctrl\\+s 3 times"):
        for _ in range(20):
            stuck.next(dirty)


def test_wait_file_waits_for_a_whole_download_and_window_waits_for_a_painted_page(tmp_path):
    o = DesktopOracle((("wait_file", "Downloads/a.csv"), ("wait_window", "a.csv ·"), ("finish",)))
    facts = {**FACTS, "home": str(tmp_path)}
    first, second = o.next(facts)[1], o.next(facts)[1]
    assert isinstance(first, Wait) and isinstance(second, Wait) and second.seconds > first.seconds  # waits grow
    (tmp_path / "Downloads").mkdir()
    (tmp_path / "Downloads" / "a.csv").write_text("x\n")
    (tmp_path / "Downloads" / "a.csv.crdownload").write_text("")
    assert isinstance(o.next(facts)[1], Wait)  # Chromium is still writing it
    (tmp_path / "Downloads" / "a.csv.crdownload").unlink()
    page = {**FACTS["windows"][0], "title": "a.csv · Drive - Chromium", "focused": False}
    blank = {**facts, "windows": FACTS["windows"] + [{**page, "painted": False}]}
    assert isinstance(o.next(blank)[1], Wait)  # the download is whole; the page has its title but no paint yet
    assert isinstance(o.next({**facts, "windows": FACTS["windows"] + [page]})[1], Finished)
    with pytest.raises(OracleError, match="needs the home folder"):
        DesktopOracle((("wait_file", "x"),)).next(FACTS)


def test_a_download_that_never_starts_clicks_its_link_again(tmp_path):
    """The click on a Download link can be lost on a page not yet taking input: with no partial file after a few
    waits, the oracle clicks the link again (twice at most), but never while Chromium is writing the file."""
    o = DesktopOracle((("click", "window:Mousepad@px=30,37"), ("wait_file", "Downloads/a.csv"), ("finish",)))
    facts = {**FACTS, "home": str(tmp_path)}
    first = o.next(facts)[1]
    assert isinstance(first, Click)
    actions = [o.next(facts)[1] for _ in range(7)]
    assert all(isinstance(a, Wait) for a in actions[:6]) and actions[6] == first  # six waits, then the same click
    (tmp_path / "Downloads").mkdir()
    (tmp_path / "Downloads" / "Unconfirmed 4242.crdownload").write_text("")  # now it is coming: only wait
    assert all(isinstance(o.next(facts)[1], Wait) for _ in range(10))
    (tmp_path / "Downloads" / "Unconfirmed 4242.crdownload").unlink()
    again = [o.next(facts)[1] for _ in range(7)]
    assert again[6] == first  # the second and last click again
    rest = [o.next(facts)[1] for _ in range(12)]
    assert not any(isinstance(a, Click) for a in rest)
    (tmp_path / "Downloads" / "a.csv").write_text("x\n")
    assert isinstance(o.next(facts)[1], Finished)
