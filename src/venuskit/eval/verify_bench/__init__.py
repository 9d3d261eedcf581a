"""The verifier bench: labelled sets of recorded episodes and the scores of verifiers on them.

- `kinds`: how each world episode is made from a task's oracle (transforms, noisy runs, adversaries aimed at
  the evidence) and the labels each kind intends;
- `world_set`: picking tasks of a split and building the world set in real Chromium, labels from contracts;
- `miniwob_set`: the external set no contract wrote, MiniWoB++ episodes labelled by the page's own reward;
- `scoring`: the bench's figures from verdicts (arithmetic in `venuskit.eval.metrics`);
- `protocol`: running verifiers over a set under a stated protocol (goal keypoints, generic evidence by default).

    index = build_set("runs/verify-bench", n_tasks=40, seed=0)               # held-out templates
    result = run_bench("runs/verify-bench", make_judges("ocr,log"))          # honest protocol by default
"""

from venuskit.eval.verify_bench.kinds import (
    CLAIM,
    DECOY,
    DECOY_ADDRESS,
    KIND_BY_NAME,
    KINDS,
    LABELS,
    TYPED_CLAIM,
    Kind,
    Plan,
    Trace,
    expected_answer,
    locale_of,
    near_miss_value,
    plan_for,
    task_type,
    wrong_value,
)
from venuskit.eval.verify_bench.miniwob_set import MINIWOB_KINDS, SOLVERS, build_miniwob_set
from venuskit.eval.verify_bench.protocol import (
    EVIDENCE,
    KEYPOINT_SOURCES,
    METHODS,
    item_keypoints,
    run_bench,
    run_verifier,
    select_items,
)
from venuskit.eval.verify_bench.scoring import adversarial_catch, cost_summary, score
from venuskit.eval.verify_bench.world_set import (
    INDEX,
    SET_FORMAT,
    SURFACES,
    build_set,
    load_index,
    pick_tasks,
    run_order,
)

__all__ = [
    "CLAIM", "DECOY", "DECOY_ADDRESS", "EVIDENCE", "INDEX", "KEYPOINT_SOURCES", "KINDS", "KIND_BY_NAME", "LABELS",
    "METHODS", "MINIWOB_KINDS", "SET_FORMAT", "SOLVERS", "SURFACES", "TYPED_CLAIM", "Kind", "Plan", "Trace",
    "adversarial_catch", "build_miniwob_set", "build_set", "cost_summary", "expected_answer", "item_keypoints",
    "load_index", "locale_of", "near_miss_value", "pick_tasks", "plan_for", "run_bench", "run_order", "run_verifier",
    "score", "select_items", "task_type", "wrong_value",
]  # fmt: skip
