#!/usr/bin/env bash
# Packs what scripts/gpu-check.sh runs into a folder that can be copied to a
# GPU machine without LLVM, MLIR or a compiler: the GPU test binary and
# adjit-bench, libadjit.so, and the shared libraries they load (libLLVM and
# libMLIR among them, xz-compressed), plus libdevice for the kernels' math.
#   scripts/gpu-bundle.sh [--baseline COMMIT] [BUILD_DIR] [OUT_DIR]
#                                                  (default: build .gpu-bundle)
# --baseline also packs the libadjit.so of COMMIT (built in a worktree under
# BUILD_DIR, ccache sharing its objects), which scripts/gpu-check.sh then
# times beside this one: a before/after in the same GPU run. COMMIT's
# library must export what this build's binaries call (no API removed since).
set -euo pipefail
cd "$(dirname "$0")/.."
baseline_commit=""
if [[ "${1:-}" == --baseline ]]; then
  baseline_commit=$(git rev-parse --verify "${2:?--baseline needs a commit}^{commit}")
  shift 2
fi
build=${1:-build}
out=${2:-.gpu-bundle}
ninja -C "$build" adjit-gpu-tests adjit-bench
rm -rf "$out"
mkdir -p "$out/bin" "$out/libs"
if [[ -n "$baseline_commit" ]]; then
  tree="$build/baseline-source"
  git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
  git worktree prune
  git worktree add --detach "$tree" "$baseline_commit" >/dev/null
  # Built in the worktree's own build/, with ccache keyed on paths relative
  # to each checkout (scripts/setup.sh): where the sources agree, the
  # compile commands do too, and the objects come from the cache.
  export CCACHE_BASEDIR="$(cd "$tree" && pwd)" CCACHE_NOHASHDIR=1
  cmake -G Ninja -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$(llvm-config-19 --cmakedir)/../mlir" >/dev/null
  ninja -C "$tree/build" adjit
  xz -T0 -9 -c "$tree/build/compiler/libadjit.so" > "$out/baseline-libadjit.so.xz"
  echo "$baseline_commit" > "$out/baseline-commit"
  git worktree remove --force "$tree"
fi
cp "$build/tests/adjit-gpu-tests" "$build/bench/adjit-bench" "$out/bin/"
cp "$build/compiler/libadjit.so" "$out/libs/"
# Every library the binaries load, except the C and C++ runtimes that any
# Linux machine has in a version at least as new (libmvec is glibc's own:
# it needs the private symbols of the loader it was built with).
for lib in $(ldd "$out/bin/adjit-gpu-tests" "$out/bin/adjit-bench" "$out/libs/libadjit.so" |
             awk '/=>/ {print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libmvec.so*|libgcc_s.so*|libstdc++.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libadjit.so) ;;
    *) cp -L "$lib" "$out/libs/" ;;
  esac
done
toolkit=${CUDA_HOME:-$(dirname "$(dirname "$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)")")}
if [[ -f "$toolkit/nvvm/libdevice/libdevice.10.bc" ]]; then
  mkdir -p "$out/libs/cuda/nvvm/libdevice"
  cp "$toolkit/nvvm/libdevice/libdevice.10.bc" "$out/libs/cuda/nvvm/libdevice/"
fi
tar -C "$out" -cf - libs | xz -T0 -9 > "$out/libs.tar.xz"
rm -rf "$out/libs"
du -sh "$out"
