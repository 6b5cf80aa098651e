#!/usr/bin/env bash
# Installs what adjit needs (Debian bookworm packages) and configures build/.
# Sourced by scripts/test.sh and scripts/demo.sh; safe to run repeatedly.
set -euo pipefail

ADJIT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ADJIT_BUILD="${ADJIT_BUILD:-$ADJIT_ROOT/build}"

packages=(llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools libomp-19-dev
          catch2 libfmt-dev libopenblas-dev ninja-build ccache cmake g++ python3)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "adjit: installing ${missing[*]}" >&2
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q "${missing[@]}"
fi

# ccache keyed on paths relative to the checkout, so fresh clones hit it.
export CCACHE_BASEDIR="$ADJIT_ROOT"
export CCACHE_NOHASHDIR=1
# ADJIT_CMAKE_ARGS adds configuration options (scripts/test.sh --sanitize).
if [ ! -f "$ADJIT_BUILD/build.ninja" ]; then
  cmake -G Ninja -S "$ADJIT_ROOT" -B "$ADJIT_BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$(llvm-config-19 --cmakedir)/../mlir" ${ADJIT_CMAKE_ARGS:-} >/dev/null
fi
