"""Verification: the SGV trajectory verifier, the step verifier, judges (model, OCR, action log) and voting.

    from venuskit.verify import make_judges, verify_episode, write_report
    report = verify_episode("runs/ep-...", make_judges("ocr,log,nano"))   # goal keypoints, generic evidence
    write_report("runs/ep-...", report)          # -> manifest verdicts["sgv"]

    runner = EpisodeRunner(env, policy, writer, step_check=StepVerifier())   # pre-action checks

See docs/verify.md.
"""

from venuskit.verify.evidence import Evidence, LogFacts, Window, describe_action
from venuskit.verify.judges import Judge, LogJudge, OcrJudge, VLMJudge, make_judges, nano_judge
from venuskit.verify.report import DECIDED, STATUSES, UNCERTAIN, VERDICTS, Cost, KeypointResult, Report, Vote
from venuskit.verify.sgv import (
    SGVConfig,
    evidence_view,
    extract_keypoints,
    make_windows,
    verify_episode,
    verify_final_screenshot,
    write_report,
)
from venuskit.verify.step import REFLECTION_MAP, StepVerdict, StepVerifier
from venuskit.verify.webjudge import verify_webjudge, webjudge_cost

__all__ = [
    "DECIDED",
    "REFLECTION_MAP",
    "STATUSES",
    "UNCERTAIN",
    "VERDICTS",
    "Cost",
    "Evidence",
    "Judge",
    "KeypointResult",
    "LogFacts",
    "LogJudge",
    "OcrJudge",
    "Report",
    "SGVConfig",
    "StepVerdict",
    "StepVerifier",
    "VLMJudge",
    "Vote",
    "Window",
    "describe_action",
    "evidence_view",
    "extract_keypoints",
    "make_judges",
    "make_windows",
    "nano_judge",
    "verify_episode",
    "verify_final_screenshot",
    "verify_webjudge",
    "webjudge_cost",
    "write_report",
]
