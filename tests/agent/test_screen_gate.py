"""The gate on the computer surface, over screens described by hand (the reader's text lines and the X server's
read-back); the real desktop runs in test_desktop_gate.py."""

from __future__ import annotations

import pytest

from venuskit.actions.types import Click, Drag, Hotkey, MouseUp, Point, Type
from venuskit.agent.hooks import StepContext
from venuskit.agent.safety import AllowListApprover, AllowRule, DenyApprover
from venuskit.agent.safety.ops import OperationsFileError
from venuskit.agent.safety.screen import ScreenGate, label_at, load_screen_operations
from venuskit.envs.base import Observation

W, H = 1280, 800
FILES = [((182, 138, 267, 153), "setup-old.bin"), ((162, 115, 243, 130), "photo.jpg")]
MENU = [*FILES, ((254, 251, 343, 263), "Move to Trash"), ((254, 309, 319, 319), "Rename...")]
CONFIRM = [*FILES, ((485, 377, 858, 392), "Do you want to move the file 'setup-old.bin' to trash can?"),
           ((705, 456, 744, 475), "No"), ((795, 456, 837, 475), "Yes")]  # fmt: skip
SAVE = [((420, 381, 863, 397), "Do you want to save the changes before closing?"),
        ((448, 461, 492, 473), "Cancel"), ((607, 463, 678, 473), "Don't Save"), ((797, 463, 829, 473), "Save")]
TERM = [((0, 24, 137, 39), "user@desktop:~$ rm notes.txt")]


def ctx(action, lines, window="Downloads", app="Pcmanfm", pointer=(640, 400)) -> StepContext:
    obs = Observation(png=repr(lines).encode(), width=W, height=H, title=window,
                      info={"focus": window, "focus_app": app, "pointer": list(pointer)})  # fmt: skip
    return StepContext(goal="g", surface="computer", step_index=0, observation=obs, action=action, thought=None,
                       raw_output="")  # fmt: skip


def gate(approver=None, lines_for=None) -> ScreenGate:
    import ast

    return ScreenGate(approver=approver or DenyApprover(), reader=lines_for or (lambda png: ast.literal_eval(
        png.decode())))  # fmt: skip


def at(x: int, y: int) -> Point:
    return Point(x / W, y / H)


def test_the_label_under_the_pointer():
    assert label_at(MENU, 300, 257) == "Move to Trash" and label_at(MENU, 250, 257) == "Move to Trash"  # padding
    assert label_at(SAVE, 640, 468) == "Don't Save" and label_at(MENU, 700, 600) == ""


@pytest.mark.parametrize("action, lines, window, app, kind", [
    (Click(point=at(300, 257)), MENU, "Downloads", "Pcmanfm", "file.delete"),            # the context menu item
    (Hotkey(keys=("Delete",)), FILES, "Downloads", "Pcmanfm", "file.delete"),            # the key
    (Hotkey(keys=("shift", "Delete")), FILES, "Downloads", "Pcmanfm", "file.delete"),
    (Hotkey(keys=("Return",)), CONFIRM, "Confirm", "Pcmanfm", "file.delete"),            # the dialog's default
    (Click(point=at(815, 465)), CONFIRM, "Confirm", "Pcmanfm", "file.delete"),           # its Yes
    (Hotkey(keys=("alt", "y")), CONFIRM, "Confirm", "Gpicview", "file.delete"),          # Yes by its access key
    (Hotkey(keys=("Delete",)), FILES, "photo.jpg", "Gpicview", "file.delete"),           # the image viewer's
    (Drag(start=at(300, 100), end=at(815, 465)), CONFIRM, "Confirm", "Pcmanfm", "file.delete"),  # released on Yes
    (Click(point=at(640, 468)), SAVE, "Save Changes", "Mousepad", "quit.discard"),
    (Type(content="rm notes.txt\n"), [((0, 24, 137, 39), "user@desktop:~$")], "Terminal", "XTerm", "file.delete"),
    (Hotkey(keys=("enter",)), TERM, "Terminal", "XTerm", "file.delete"),                # typed earlier, run now
    (Type(content="echo hi > notes.txt\n"), [((0, 24, 137, 39), "user@desktop:~$")], "Terminal", "XTerm",
     "file.overwrite"),
])  # fmt: skip
def test_consequential_desktop_actions_are_gated(action, lines, window, app, kind):
    decision = gate()(ctx(action, lines, window, app))
    assert decision.decision == "block" and decision.details["kind"] == kind, decision.details


@pytest.mark.parametrize("action, lines, window, app", [
    (Click(point=at(200, 122)), FILES, "Downloads", "Pcmanfm"),                          # select a file
    (Click(point=at(300, 314)), MENU, "Downloads", "Pcmanfm"),                           # Rename...
    (Hotkey(keys=("Delete",)), SAVE, "todo.txt - Mousepad", "Mousepad"),                 # delete a character
    (Click(point=at(812, 468)), SAVE, "Save Changes", "Mousepad"),                       # Save
    (Click(point=at(725, 465)), CONFIRM, "Confirm", "Pcmanfm"),                          # No
    (Type(content="ls -l\n"), [((0, 24, 137, 39), "user@desktop:~$")], "Terminal", "XTerm"),
    (Type(content="rm it, then\n"), SAVE, "todo.txt - Mousepad", "Mousepad"),            # words typed in an editor
    (Type(content="rm notes.txt"), [((0, 24, 137, 39), "user@desktop:~$")], "Terminal", "XTerm"),  # not run yet
])  # fmt: skip
def test_everyday_desktop_actions_pass(action, lines, window, app):
    decision = gate()(ctx(action, lines, window, app))
    assert decision.decision == "allow" and not decision.details["consequential"], decision.details


def test_the_same_approvals_and_failing_closed():
    allow = AllowListApprover([AllowRule("file.delete")])
    approved = gate(allow)(ctx(Hotkey(keys=("Delete",)), FILES))
    assert approved.decision == "allow" and approved.details["approval"]["by"] == "allow-list"
    at_cursor = gate()(ctx(MouseUp(point=None), CONFIRM, "Confirm", pointer=(815, 465)))  # released where it is
    assert at_cursor.decision == "block" and at_cursor.details["target"]["label"] == "Yes"

    def broken(png):
        raise RuntimeError("no OCR")

    failed = gate(lines_for=broken)(ctx(Click(point=at(300, 257)), MENU))
    assert failed.decision == "block" and failed.details["source"] == "fail-closed"
    assert gate()(ctx(Hotkey(keys=("tab", "enter")), FILES)).details["source"] == "fail-closed"


def test_a_declarations_file_is_checked(tmp_path):
    bad = tmp_path / "ops.toml"
    bad.write_text('[[op]]\nkind = "x"\nwindow = "a"\n')
    with pytest.raises(OperationsFileError, match="label, keys or a command"):
        load_screen_operations(bad)
    bad.write_text('[[op]]\nkind = "x"\nlabel = "("\n')
    with pytest.raises(OperationsFileError, match="op\\[0\\].label"):
        load_screen_operations(bad)
