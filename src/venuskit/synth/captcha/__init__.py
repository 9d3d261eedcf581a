"""The CAPTCHA world: generated puzzles whose answers stay on the server.

    registry   the types by family (`all_types`, `make_instance`)
    families/  the generators (one module per family, A-J of reference/synthesis.md §5)
    checker    pure verdicts: check(answer, state, log) -> CheckResult(passed, partial)
    server     CaptchaServer: pages, assets and the one answer post per instance, on loopback
    oracle     solvers that act through the real browser env from the hidden answer
    harness    layout measurement, submission and grounding labels shared by oracle, eval and synth
"""

from venuskit.synth.captcha.registry import FAMILIES, all_types, by_family, get_type, make_instance, select_types
from venuskit.synth.captcha.spec import CaptchaType, CheckResult, Instance, Puzzle, Target, Widget

__all__ = [
    "FAMILIES",
    "CaptchaType",
    "CheckResult",
    "Instance",
    "Puzzle",
    "Target",
    "Widget",
    "all_types",
    "by_family",
    "get_type",
    "make_instance",
    "select_types",
]
