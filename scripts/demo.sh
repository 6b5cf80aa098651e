#!/usr/bin/env bash
# Builds the adjit driver and runs the example MLP on seeded random inputs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cmake --build "$ADJIT_BUILD" --target adjit-cli
"$ADJIT_BUILD/tools/adjit/adjit" run "$ADJIT_ROOT/examples/mlp.mlir" \
  --arg 'f32[4,8]=randn:1' --arg 'f32[8,16]=randn:2' --arg 'f32[16]=randn:3' \
  --arg 'f32[16,3]=randn:4' --arg 'f32[3]=randn:5'
