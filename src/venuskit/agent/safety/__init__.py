"""Safety for the agent loop: the consequential-action gate, approvals (CallUser), secrets.

    gate.py     SafetyGate: classify every proposed action, ask the approver before a consequential one
    rules.py    the rules over the inspected page: declared operations, words in en and zh, origins
    ops.py      declared consequential operations (the world's and a user's TOML files)
    approve.py  approvers: ask at the terminal, deny, allow-list
    judge.py    the optional model judge (any OpenAI-compatible VLM)
    secrets.py  {{secret:name}} placeholders, resolved at execution on their origin; scrubbing and masking
"""

from venuskit.agent.safety.approve import (
    AllowListApprover,
    AllowRule,
    Approval,
    ApprovalRequest,
    AskApprover,
    DenyApprover,
    allow_rule,
    load_allow_list,
    make_approver,
)
from venuskit.agent.safety.gate import SafetyGate
from venuskit.agent.safety.judge import GateJudge
from venuskit.agent.safety.ops import Operation, Operations, OperationsFileError, load_operations
from venuskit.agent.safety.rules import Finding
from venuskit.agent.safety.secrets import Secret, SecretRefused, SecretsEnv, Vault, load_secrets

__all__ = [
    "AllowListApprover", "AllowRule", "Approval", "ApprovalRequest", "AskApprover", "DenyApprover", "Finding",
    "GateJudge", "Operation", "Operations", "OperationsFileError", "SafetyGate", "Secret", "SecretRefused",
    "SecretsEnv", "Vault", "allow_rule", "load_allow_list", "load_operations", "load_secrets", "make_approver",
]  # fmt: skip
