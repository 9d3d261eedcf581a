#!/usr/bin/env bash
# Idempotent setup for a fresh Debian 12 + Python 3.11 machine: system packages, a venv, venuskit.
# Usage: scripts/setup.sh [EXTRAS]   (EXTRAS default "browser,dev"; e.g. "browser,dev,train")
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-browser,dev}"
VENV="${VENV:-.venv}"
PY="${PYTHON:-python3.11}"

# Debian's Chromium (Playwright drives it through executable_path; `playwright install` is never used),
# its driver (only the miniwob selenium anchor in benchmarks needs it), Xvfb/xdotool for desktop runs,
# bootstrap-icons (a real icon set for grounding synthesis; with adwaita-icon-theme, the pictures venus-nano's icon
# namer learns from),
# fonts incl. CJK so zh pages render real glyphs, and the shared libraries OpenCV needs (the verifier's OCR).
# The desktop env (venuskit.envs.desktop): openbox, the apps it opens, a session bus and GTK themes.
# The Android env (venuskit.envs.android): Debian's adb, the real adb server it drives devices (and the stand-in) through.
# Python 3.11 and its venv module (a bare Debian 12 has neither; Debian ships ensurepip separately).
APT_PKGS=(python3.11 python3.11-venv
          chromium chromium-headless-shell chromium-driver xvfb xdotool fonts-noto-cjk fonts-dejavu-core fonts-liberation bootstrap-icons adwaita-icon-theme libgl1 libglib2.0-0
          openbox mousepad pcmanfm gnumeric xterm x11-utils gpicview lxappearance dbus-daemon gnome-themes-extra
          gtk2-engines-pixbuf adb)
missing=()
for p in "${APT_PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

command -v "$PY" >/dev/null 2>&1 || PY=python3  # after apt, which may have just installed python3.11
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
# The project never lets a dependency pull a torch other than the CPU 2.13.0 kept on disk (train extra pins it).
"$VENV/bin/python" -m pip install -q -e ".[${EXTRAS}]"
# DeepSpeed (configs/accelerate/zero2.yaml, zero3.yaml) with the train extra. It ships as source whose setup.py
# imports torch: built against the torch installed above (--no-build-isolation), its small requirements named by
# the `deepspeed` extra in pyproject.toml and installed with --no-deps, so pip never resolves a torch of its own.
# Without CUDA it runs on its CPU accelerator over gloo (tests/train/test_distributed.py). Building without isolation
# needs a setuptools with bdist_wheel (>= 70.1): torch 2.13.0 requires setuptools>=77, so the train extra brought it.
if [[ ",${EXTRAS}," == *",train,"* ]] && ! "$VENV/bin/python" -m pip show -q deepspeed >/dev/null 2>&1; then
  DS_BUILD_OPS=0 "$VENV/bin/python" -m pip install -q --no-build-isolation --no-deps \
    "deepspeed>=0.18,<0.20" "hjson>=3.1" "py-cpuinfo>=9" "einops>=0.8" "ninja>=1.11" "msgpack>=1.0"
fi
echo "venuskit is set up in $VENV (extras: ${EXTRAS}); activate with: source $VENV/bin/activate"
