"""Other models' action languages, converted to venuskit actions at the model boundary.

Each module has `parse(...) -> Response` and `format_action(...)` / `format_response(...)`:
- `uitars`: UI-TARS `Thought: …\\nAction: click(start_box='(x,y)')` (0-1000 or smart-resized pixels);
- `guir1`: GUI-R1 `[{'action': 'click', 'point': [x, y], 'input_text': …}]` (screenshot pixels);
- `pyautogui`: OSWorld pyautogui code plus WAIT / DONE / FAIL (screen pixels);
- `venus15`: UI-Venus-1.5 `<think>…</think><action>…</action><conclusion>…</conclusion>` (0-1000).
"""

from venuskit.actions.dialects import guir1, pyautogui, uitars, venus15

__all__ = ["guir1", "pyautogui", "uitars", "venus15"]
