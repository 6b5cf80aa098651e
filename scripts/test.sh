#!/usr/bin/env bash
# Builds adjit and runs every test suite (Catch2 + lit + install/consumer).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cmake --build "$ADJIT_BUILD"
cd "$ADJIT_BUILD"
ctest --output-on-failure "$@"
