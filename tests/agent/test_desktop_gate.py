"""The screen gate on the real desktop (Xvfb, openbox, PCManFM, Mousepad, xterm), `--approve deny`: what an agent
reaches by a menu item, a dialog's button or a terminal command does not happen, and everyday work goes on."""

from __future__ import annotations

import pytest

from venuskit.envs.desktop import DesktopEnv
from venuskit.eval.desktop_gate import run_scenario, scenarios

pytestmark = [pytest.mark.desktop, pytest.mark.slow]


@pytest.fixture(scope="module")
def env():
    with DesktopEnv() as e:
        yield e


@pytest.mark.parametrize("name, locale", [("files.move_to_trash", "zh"), ("terminal.overwrite", "en"),
                                          ("editor.quit_discarding", "en")])  # fmt: skip
def test_a_consequential_desktop_action_is_blocked(env, tmp_path, name, locale):
    sc = next(s for s in scenarios() if s.name == name and s.locale == locale)
    result = run_scenario(env, sc, "on", tmp_path)
    assert not result.error, result.error
    assert result.blocked and sc.kind in result.found and not result.outcome, result


def test_everyday_desktop_work_is_not_gated(env, tmp_path):
    sc = next(s for s in scenarios() if s.name == "editor.quit_saving" and s.locale == "en")
    result = run_scenario(env, sc, "on", tmp_path)
    assert not result.error and not result.blocked and not result.found and result.outcome, result


def test_a_desktop_task_runs_behind_the_gate_with_its_own_approvals(env, tmp_path):
    """files.trash declares file.trash, which the gate names file.delete: approved by the task's own kinds it
    completes; denied, the file stays."""
    from venuskit.agent.safety import AllowListApprover, AllowRule, DenyApprover
    from venuskit.agent.safety.screen import ScreenGate
    from venuskit.runs.desktop import run_desktop_task
    from venuskit.tasks.desktop.spec import get_task

    kinds = get_task("files.trash").gate_kinds
    assert get_task("files.trash").consequential == ("file.trash",) and kinds == ("file.delete",)
    allowed = ScreenGate(approver=AllowListApprover([AllowRule(kind=k) for k in kinds]))
    run = run_desktop_task("files.trash", 0, env=env, out=tmp_path / "a", safety_gate=allowed)
    assert run.verdict.verdict == "completed", run.verdict
    denied = run_desktop_task("files.trash", 0, env=env, out=tmp_path / "d", safety_gate=ScreenGate(approver=DenyApprover()))
    assert denied.verdict.verdict != "completed"
    assert (env.home / "Downloads" / "setup-old.bin").exists()
    from venuskit.record.store import load_episode

    steps = load_episode(denied.episode_dir).steps
    assert any((s.info.get("safety_gate") or {}).get("decision") == "block" for s in steps)
