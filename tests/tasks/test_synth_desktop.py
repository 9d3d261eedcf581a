"""Desktop task synthesis without an X server: the capability catalogs of the six desktop apps, plans with one window
per app, composed tables that the desktop task loader reads back (files, windows side by side, the focus, fragments
joined by title-bar clicks), data flow from one app into another, and every static rejection reason on the composed
home folder."""

from __future__ import annotations

import random
import shutil

import pytest

from venuskit.tasks.desktop import spec as desktop_spec
from venuskit.tasks.synth import build
from venuskit.tasks.synth.catalog import CatalogError, bundled_catalog, capabilities_dir, load_catalog
from venuskit.tasks.synth.compose import Plan, Step, derive
from venuskit.tasks.synth.reject import Rejected, SeedWorlds
from venuskit.tasks.synth.sample import Domains, Sampler, SamplerConfig
from venuskit.tasks.synth.taskfile import write_task_file

CAT = bundled_catalog("computer")
WORLDS = SeedWorlds()
APPS = {"mousepad", "gnumeric", "pcmanfm", "xterm", "gpicview", "lxappearance"}


def plan_of(*steps: tuple[str, dict], locale: str = "en", seed: int = 1) -> Plan:
    sampler = Sampler(CAT, Domains(CAT, WORLDS), random.Random(seed), SamplerConfig(flow_p=0.0))
    plan = Plan([Step(CAT.caps[cid]) for cid, _ in steps], locale)
    used: dict = {}
    for i, (_, values) in enumerate(steps):
        sampler._bind(plan, i, used)
        plan.steps[i].values.update(values)
        derive(plan.steps[i])
    if plan.steps[-1].cap.kind == "read" and not plan.consumed(len(plan.steps) - 1):
        plan.answer = (len(plan.steps) - 1, 0)
    return plan


def build_of(plan: Plan, seen: set[str] | None = None, catalog=CAT):
    return build.build_candidate(plan, catalog, WORLDS, set() if seen is None else seen, {})


def reason_of(plan: Plan, catalog=CAT) -> str:
    with pytest.raises(Rejected) as err:
        build_of(plan, catalog=catalog)
    return err.value.reason


def test_every_desktop_app_has_capabilities_of_each_kind_with_provenance():
    composable = CAT.composable()
    assert {c.app for c in composable} == APPS and len(composable) >= 30
    assert {c.kind for c in CAT.caps.values()} >= {"act", "read", "view"}
    assert sum(not c.supported for c in CAT.caps.values()) >= 6
    assert sum(c.kind == "read" for c in composable) >= 5  # values that flow from one app into another
    for c in composable:
        assert c.surface == "computer" and c.help and c.window.get("title"), c.id
        assert set(c.goal) == {"en", "zh"}, c.id
    assert set(bundled_catalog().caps).isdisjoint(CAT.caps)  # the world's catalog is its own


def test_a_broken_desktop_catalog_names_file_capability_and_field(tmp_path):
    root = tmp_path / "caps"
    shutil.copytree(capabilities_dir("computer"), root)
    path = root / "terminal.toml"
    text = path.read_text(encoding="utf-8")
    for old, new, why in (('check = "file.exists", args = { path = "{name}", kind = "dir" }',
                           'check = "mail.exists", args = { subject = "{name}" }', "unknown check 'mail.exists'"),
                          ('oracle = [["type", "mkdir', 'oracle = [["goto", "mkdir', "with op one of click"),
                          ('window = { app = "xterm", title = "Terminal" }\npre', 'window = { app = "xterm" }\npre',
                           "window.title"),
                          ('templates = ["terminal.make_folder"]', 'templates = ["terminal.mkdir"]',
                           "no hand-written template 'terminal.mkdir'")):  # fmt: skip
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        with pytest.raises(CatalogError, match=why) as err:
            load_catalog(root, surface="computer")
        assert "terminal.toml" in str(err.value) and "xterm.make_folder" in str(err.value)


def test_a_cross_app_plan_opens_each_window_side_by_side_and_joins_fragments_by_title_bar():
    plan = plan_of(("xterm.count_lines", {}), ("gnumeric.set_cell", {}), ("mousepad.append_line", {}))
    for consumer, param in ((1, "value"), (2, "line")):
        plan.steps[consumer].flows[param] = (0, 0)
        plan.steps[consumer].values[param] = plan.produced((0, 0))[0]
    cand = build_of(plan)
    table, spec = cand.table, cand.spec
    count = plan.steps[0].values["f"]
    assert spec.apps == ("xterm", "gnumeric", "mousepad") and spec.cross_app
    assert [w["app"] for w in table["windows"]] == ["xterm", "gnumeric", "mousepad"] and table["focus"] == 0
    assert [w.get("geometry") for w in table["windows"]] == [[0.0, 0.0, 0.5, 1.0], [0.5, 0.0, 0.5, 0.5],
                                                            [0.5, 0.5, 0.5, 0.5]]  # fmt: skip
    # the value is hidden from the goal (it says where to find it) and pinned in the contract and the oracle
    assert count["lines"] not in table["goal"] and f"the number of lines in {count['file']}" in table["goal"]
    assert any(k["args"].get("number") == count["lines"] for k in table["keypoints"])
    titlebars = [s for s in table["oracle"] if s[0] == "click" and s[1].startswith("titlebar:")]
    book, doc = plan.steps[1].values["book"], plan.steps[2].values["doc"]
    assert titlebars == [["click", f"titlebar:{book['file']}"], ["click", f"titlebar:{doc['file']}"]]
    assert table["oracle"][-1] == ["finish"]
    assert {f["path"] for f in table["files"]} == {count["file"], book["file"], doc["file"]}


def test_the_sampler_uses_each_app_once_and_mixes_apps(tmp_path):
    sampler = Sampler(CAT, Domains(CAT, WORLDS), random.Random(5))
    seen: set[str] = set()
    tables = []
    for _ in range(120):
        try:
            cand = build_of(sampler.plan(random.choice(["en", "zh"])), seen)
        except Rejected:
            continue
        seen.add(cand.spec.id)
        tables.append(cand.table)
        assert len(cand.plan.apps) == len(cand.plan.steps) <= 3  # one window per app, at most three
    assert len(tables) >= 30 and sum(len(t["apps"]) > 1 for t in tables) / len(tables) >= 0.3
    path = write_task_file(tmp_path / "desk.toml", tables, parse=desktop_spec.parse_task)
    back = desktop_spec.load_file(path)
    assert [t.id for t in back] == [t["id"] for t in tables] and all(t.id.startswith("synth.") for t in back)


def test_static_rejections_on_the_composed_home_folder(tmp_path):
    assert reason_of(Plan([Step(CAT.caps["gpicview.crop"])])) == "unsupported_function"
    assert reason_of(plan_of(("gpicview.zoom_in", {}), ("xterm.make_folder", {}))) == "unverifiable_result"
    unused = plan_of(("xterm.count_lines", {}), ("mousepad.prepend_line", {}))
    assert unused.answer is None and reason_of(unused) == "unverifiable_result"  # a count nobody uses
    doc = {"file": "todo.txt", "body": "buy milk\n"}
    # the terminal's file and the editor's file are one path with two contents
    clash = plan_of(("xterm.count_lines", {"f": {"file": "todo.txt", "body": "a\nb\n", "lines": "2"}}),
                    ("mousepad.prepend_line", {"doc": doc}))  # fmt: skip
    clash.steps[1].flows["line"] = (0, 0)
    clash.steps[1].values["line"] = "2"
    with pytest.raises(Rejected, match="need different files at todo.txt") as err:
        build_of(clash)
    assert err.value.reason == "precondition_unmet"
    # the value already there: a precondition of the capability
    # (each paired with a second app: one capability alone may be a hand-written template's duplicate)
    same = plan_of(("gnumeric.set_cell", {"value": "3.2", "book": CAT.pools["price_book"]["en"][0]}),
                   ("xterm.write_file", {}))  # fmt: skip
    assert reason_of(same) == "precondition_unmet"
    # two entries of Documents start with what the type-ahead would type: ambiguous
    twins = plan_of(("pcmanfm.rename", {"doc": {"file": "plan.txt", "stem": "plan", "new": "x.txt"},
                                        "keep": "plan-b.txt"}), ("xterm.write_file", {}))  # fmt: skip
    with pytest.raises(Rejected, match="2 entries of Documents start with 'plan'") as err:
        build_of(twins)
    assert err.value.reason == "ambiguous_goal"
    # a goal that does not say a value its contract pins
    root = tmp_path / "caps"
    shutil.copytree(capabilities_dir("computer"), root)
    path = root / "terminal.toml"
    path.write_text(path.read_text(encoding="utf-8").replace(
        'goal = "using the terminal, write {text} as the only line', 'goal = "using the terminal, write something as the only line', 1),
        encoding="utf-8")  # fmt: skip
    cat = load_catalog(root, surface="computer")
    plan = Plan([Step(cat.caps["xterm.write_file"], {"out": "answer.txt", "text": "all done"})])
    assert reason_of(plan, catalog=cat) == "ambiguous_goal"


def test_a_contract_that_holds_on_the_untouched_home_is_rejected(tmp_path):
    root = tmp_path / "caps"
    shutil.copytree(capabilities_dir("computer"), root)
    path = root / "terminal.toml"
    path.write_text(path.read_text(encoding="utf-8").replace(  # a "copy" that checks the original against itself
        'args = { path = "{src.copy}", other = "{src.file}" }', 'args = { path = "{src.file}", other = "{src.file}" }', 1),
        encoding="utf-8")  # fmt: skip
    cat = load_catalog(root, surface="computer")
    plan = Plan([Step(cat.caps["xterm.copy_file"], {"src": {"file": "a.md", "copy": "b.md"}})])
    with pytest.raises(Rejected, match="doing nothing already gives 'completed'") as err:
        build_of(plan, catalog=cat)
    assert err.value.reason == "unverifiable_result"


def test_a_duplicate_of_a_hand_written_desktop_template_or_of_the_set():
    plan = plan_of(("xterm.make_folder", {}))
    with pytest.raises(Rejected, match="hand-written template terminal.make_folder"):
        build.build_candidate(plan, CAT, WORLDS, set())
    two = plan_of(("xterm.write_file", {}), ("mousepad.prepend_line", {}))
    first = build_of(two)
    with pytest.raises(Rejected, match="already holds") as err:
        build_of(two, {first.spec.id})
    assert err.value.reason == "duplicate"


def test_a_desktop_proof_is_kept_only_when_the_oracle_completes_and_doing_nothing_fails():
    """The run's decisions, in drawing order, from proofs as the desktop prover reports them."""
    from venuskit.flywheel.synth import Outcome, SynthConfig, _Run

    plans = [plan_of(("xterm.write_file", {}), ("mousepad.prepend_line", {}), seed=s) for s in (1, 2, 3, 4)]
    cands = [build_of(p) for p in plans]
    run = _Run(SynthConfig(surface="computer", n=4), CAT)
    proofs = [("completed", "failed", "every keypoint holds"), ("completed", "partial", "doing nothing scores"),
              ("failed", "", "no progress keypoint holds"), ("completed", "error", "the do-nothing run could not")]
    for i, (cand, (verdict, idle, reason)) in enumerate(zip(cands, proofs, strict=True)):
        run.pending[i] = Outcome(i, cand)
        run.order.append(i)
        run.done[i] = Outcome(i, cand, verdict=verdict, reason=reason, idle=idle)
    run.commit()
    assert [c.spec.id for c in run.accepted] == [cands[0].spec.id]
    assert [(r["reason"], r["task"]) for r in run.rejected] == [
        ("unverifiable_result", cands[1].spec.id), ("oracle_failed", cands[2].spec.id),
        ("oracle_failed", cands[3].spec.id)]  # fmt: skip
