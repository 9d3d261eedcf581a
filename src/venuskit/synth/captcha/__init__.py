"""The CAPTCHA world: generated puzzles whose answers stay on the server (DESIGN.md invariant 5).

spec       Widget (what the page may know), Puzzle/Instance (plus the hidden answer), CheckResult
registry   the 78 types in 10 families (`all_types`, `make_instance`, `select_types`)
families/  the generators, one module per family (A-J of reference/synthesis.md §5); draw/build help them
checker    pure verdicts: check(answer, state, log) -> CheckResult(passed, partial)
widgets    typed validation of the page's answer post
page       host pages (login, sign-up, checkout, ...) with decoys; desktop and mobile layouts
server     CaptchaServer: pages, assets and one answer post per instance, on loopback
harness    layout measurement, submission and grounding labels (oracle, eval and synth share them)
oracle     solvers acting through the real browser env from the hidden answer
audit      the leak scan; audit_run runs oracle + leak scan over many seeds
dataset    images, grounding labels and RL rows (`venus captcha synth`)
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
