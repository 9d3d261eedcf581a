"""venuskit: the open closed loop around UI-Venus-2 style GUI agents (envs, tasks, verifiers, training)."""

__version__ = "0.1.0"
