"""Verdicts from state, without a browser: completed / partial / failed / infeasible / error, interrupts."""

from __future__ import annotations

import pytest

from venuskit.tasks import WorldTask, get_task
from venuskit.tasks.contract import judge
from venuskit.tasks.spec import Keypoint
from venuskit.world import WorldServer


@pytest.fixture(scope="module")
def world():
    with WorldServer() as w:
        yield w


def _sent(wt: WorldTask, **fields) -> None:
    s = wt.state
    orig = s.one("SELECT id FROM mails WHERE subject = ?", (wt.inst.params["subject"],))
    s.write("UPDATE mails SET unread = 0 WHERE id = ?", (orig["id"],))
    s.insert("mails", folder="sent", sender_name="me", sender="me@x", sent_at=s.now(), reply_to=orig["id"], **fields)
    s.log("mail", "mail.send")


def test_verdicts_follow_the_keypoints(world):
    wt = WorldTask.start(world, "mail.reply_lunch", seed=0)
    p = wt.inst.params
    assert wt.verdict("finished", "Done.").verdict == "failed"
    wt.state.write("UPDATE mails SET unread = 0 WHERE subject = ?", (p["subject"],))
    assert wt.verdict("finished", "Done.").verdict == "partial"
    _sent(wt, recipients=p["sender"], subject="Re: x", body=p["reply"])
    v = wt.verdict("finished", "Done.")
    assert v.verdict == "completed" and all(k.ok for k in v.keypoints)
    wt.close()


def test_undeclared_consequential_action_fails_the_task(world):
    wt = WorldTask.start(world, "mail.star_message", seed=0)
    wt.state.write("UPDATE mails SET unread = 0, starred = 1 WHERE subject = ?", (wt.inst.params["subject"],))
    assert wt.verdict("finished", None).verdict == "completed"
    wt.state.log("bank", "bank.transfer", amount=100)
    v = wt.verdict("finished", None)
    assert v.verdict == "failed" and "undeclared consequential action: bank.transfer" in v.reason
    wt.close()


def test_forbidden_side_effect_fails_even_when_keypoints_hold(world):
    wt = WorldTask.start(world, "mail.save_draft", seed=0)
    p = wt.inst.params
    s = wt.state
    s.insert(
        "mails",
        folder="drafts",
        sender_name="me",
        sender="me@x",
        recipients=p["to"],
        subject=p["subject"],
        body=p["text"],
        sent_at=s.now(),
    )
    assert wt.verdict("finished", None).verdict == "completed"
    s.insert(
        "mails",
        folder="sent",
        sender_name="me",
        sender="me@x",
        recipients=p["to"],
        subject=p["subject"],
        body=p["text"],
        sent_at=s.now(),
    )
    v = wt.verdict("finished", None)
    assert v.verdict == "failed" and v.forbidden == ["forbidden side effect: the mail was sent"]
    wt.close()


def test_infeasible_needs_a_report_and_no_action(world):
    wt = WorldTask.start(world, "infeasible.buy_bitcoin", seed=0)
    assert wt.verdict("call_user", "I can't.").verdict == "infeasible"
    assert wt.verdict("finished", "It is not possible to buy Bitcoin here.").verdict == "infeasible"
    assert wt.verdict("finished", "Done.").verdict == "failed"
    assert wt.verdict("step_limit", None).verdict == "failed"
    wt.state.log("bank", "bank.transfer", amount=1)
    assert wt.verdict("call_user", "I can't.").verdict == "failed"
    wt.close()


def test_a_check_that_raises_gives_error_with_the_reason(world):
    wt = WorldTask.start(world, "drive.edit_cell", seed=0)
    broken = Keypoint("cell ZZ", "drive.cell", {"name": wt.inst.params["file"], "cell": "Z?", "value": "1"})
    inst = wt.inst.__class__(**{**wt.inst.__dict__, "keypoints": (broken,)})
    v = judge(inst, wt.state, "finished", None)
    assert v.verdict == "error" and "drive.cell raised: ValueError" in v.reason
    wt.close()


def test_interrupt_fires_once_when_its_condition_holds(world):
    wt = WorldTask.start(world, "interrupt.rent_correction", seed=0)
    fix = wt.inst.params["fix_subject"]
    wt.on_step(0)
    assert wt.fired == [] and not wt.state.rows("SELECT id FROM mails WHERE subject = ?", (fix,))
    wt.state.write("UPDATE mails SET unread = 0 WHERE subject = ?", (wt.inst.params["subject"],))
    wt.on_step(1)
    wt.on_step(2)
    assert len(wt.fired) == 1 and wt.fired[0]["after_step"] == 1
    mail = wt.state.one("SELECT * FROM mails WHERE subject = ?", (fix,))
    assert mail is not None and mail["sent_at"] > wt.state.meta["now"]  # it arrives after the task began
    wt.close()


def test_interrupt_at_step(world):
    wt = WorldTask.start(world, "interrupt.invoice_address", seed=0)
    wt.on_step(0)
    assert len(wt.fired) == 1
    wt.close()


def test_setup_failure_leaves_no_episode_behind(world, monkeypatch):
    from venuskit.tasks import setup

    before = world.episode_count()

    def boom(state, op, live=False):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(setup, "apply", boom)
    with pytest.raises(RuntimeError):
        WorldTask.start(world, "mail.reply_lunch", seed=0)
    assert world.episode_count() == before


def test_env_task_holds_no_expectation(world):
    wt = WorldTask.start(world, "long.reimbursement", seed=0)
    task = wt.env_task()
    text = repr(task)
    assert "ER-2024" not in text and wt.inst.params["bankref"] not in text
    assert task["start_url"].startswith(world.base_url + "/_bind/")
    wt.close()


def test_unknown_task_is_a_clear_error():
    with pytest.raises(KeyError, match="No world task"):
        get_task("mail.nope")


def test_no_feasible_task_is_done_before_the_agent_acts(world):
    """A contract that the untouched world already satisfies would reward doing nothing."""
    from venuskit.tasks import bundled

    for spec in bundled().values():
        for seed in range(len(spec.params)):
            wt = WorldTask.start(world, spec.id, seed)
            verdict = wt.verdict("finished", "Done.").verdict
            wt.close()
            assert verdict == "failed", f"{spec.id} seed {seed}: doing nothing gives {verdict}"
