#!/usr/bin/env bash
# Packs what scripts/gpu-check.sh runs into a folder that can be copied to a
# GPU machine without LLVM, MLIR or a compiler: the GPU test binary and
# adjit-bench, libadjit.so, and the shared libraries they load (libLLVM and
# libMLIR among them, xz-compressed), plus libdevice for the kernels' math.
#   scripts/gpu-bundle.sh [BUILD_DIR] [OUT_DIR]     (default: build .gpu-bundle)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-.gpu-bundle}
ninja -C "$build" adjit-gpu-tests adjit-bench
rm -rf "$out"
mkdir -p "$out/bin" "$out/libs"
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
