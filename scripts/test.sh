#!/usr/bin/env bash
# Builds adjit and runs every test suite (Catch2 + lit + install/consumer).
#   scripts/test.sh [--sanitize=address,undefined | --sanitize=thread] [ctest args...]
# --sanitize builds a separate tree (build-sanitize-NAMES) with the
# sanitizers and runs the whole suite under them; reports fail the tests.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
sanitize=""
if [[ "${1:-}" == --sanitize=* ]]; then
  sanitize="${1#--sanitize=}"
  shift
  case "$sanitize" in
    address | undefined | address,undefined | undefined,address | thread) ;;
    *) echo "test.sh: --sanitize takes address,undefined or thread, got '$sanitize'" >&2; exit 2 ;;
  esac
  export ADJIT_BUILD="${ADJIT_BUILD:-$here/../build-sanitize-${sanitize//,/-}}"
  export ADJIT_CMAKE_ARGS="-DADJIT_SANITIZE=$sanitize"
  supp="$here/sanitizers"
  # The 256 GiB temporary of the out-of-memory tests must fail, not abort.
  export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1:abort_on_error=1"
  export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  export TSAN_OPTIONS="suppressions=$supp/tsan.supp:halt_on_error=1:second_deadlock_stack=1:report_signal_unsafe=0:ignore_noninstrumented_modules=1:allocator_may_return_null=1"
  # LLVM's OpenMP runtime is not built with TSan: its barriers are invisible,
  # so a parallel region's workers reading the caller's stack look racy with
  # the caller's next use of it. Archer (LLVM's OMPT tool, shipped beside
  # libomp) tells TSan about those synchronizations.
  archer="$(llvm-config-19 --libdir 2>/dev/null)/libarcher.so"
  if [[ "$sanitize" == thread && -f "$archer" ]]; then
    export OMP_TOOL_LIBRARIES="$archer"
  fi
fi
source "$here/setup.sh"
cmake --build "$ADJIT_BUILD"
cd "$ADJIT_BUILD"
ctest --output-on-failure "$@"
