#!/usr/bin/env bash
# Fuzzes adjit with libFuzzer (tests/fuzz/):
#   scripts/fuzz.sh [N] [pipeline|programs]...
# builds the fuzz targets with clang-19, AddressSanitizer and coverage
# instrumentation in build-fuzz/, and runs each target for N executions
# (default 100000): `pipeline` feeds arbitrary bytes to the parser and the
# whole pipeline down to LLVM IR (seeded with every lit test and example),
# `programs` builds random valid programs and runs each twice. Corpora and
# crash reproducers go to fuzz-out/; add a crasher, once fixed, to
# tests/fuzz/regressions/ so that ctest replays it. ADJIT_FUZZ_SECONDS=S
# also stops each target after S seconds; ADJIT_FUZZ_JOBS=J runs J fuzzing
# processes at once (libFuzzer's -fork=J; N counts all of their executions).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs="${1:-100000}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(pipeline programs)

for p in clang-19 libclang-rt-19-dev; do
  if ! dpkg -s "$p" >/dev/null 2>&1; then
    sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q clang-19 libclang-rt-19-dev
    break
  fi
done
export ADJIT_BUILD="${ADJIT_FUZZ_BUILD:-$root/build-fuzz}"
export ADJIT_CMAKE_ARGS="-DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 -DADJIT_FUZZ=ON -DADJIT_SANITIZE=fuzzer-no-link,address"
source "$here/setup.sh"
cmake --build "$ADJIT_BUILD" --target $(printf 'adjit-fuzz-%s ' "${targets[@]}")

out="$root/fuzz-out"
mkdir -p "$out"
# Leaks of one input are found by the sanitizer's exit check in ctest's
# replay; inside a fuzzing run LLVM's process-wide caches would look leaked.
export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1"
for target in "${targets[@]}"; do
  corpus="$out/corpus-$target"
  mkdir -p "$corpus"
  seeds=()
  if [ "$target" = pipeline ]; then
    seeds=("$root/tests/fuzz/regressions" "$root/tests/ir" "$root/examples")
  fi
  echo "== $target: $runs executions, corpus $corpus" >&2
  start=$(date +%s)
  parallel=()
  [ "${ADJIT_FUZZ_JOBS:-1}" -gt 1 ] && parallel=(-fork="$ADJIT_FUZZ_JOBS")
  "$ADJIT_BUILD/tests/fuzz/adjit-fuzz-$target" -runs="$runs" -max_len=8192 -timeout=60 \
    -rss_limit_mb=8192 -print_final_stats=1 -artifact_prefix="$out/$target-" \
    -max_total_time="${ADJIT_FUZZ_SECONDS:-0}" "${parallel[@]}" \
    "$corpus" "${seeds[@]}" 2>&1 | tee "$out/$target.log" | grep -E "^#|stat::|ERROR|Done|INFO: fuzzed" | tail -20
  echo "== $target: $(( $(date +%s) - start )) s, corpus $(ls "$corpus" | wc -l) files" >&2
done
