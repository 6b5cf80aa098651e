#!/usr/bin/env bash
# Builds adjit and runs the quickstart: a jitted C++ lambda and its IR.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cmake --build "$ADJIT_BUILD" --target example-quickstart
"$ADJIT_BUILD/examples/example-quickstart"
