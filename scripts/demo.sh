#!/usr/bin/env bash
# Builds adjit and runs the quickstart (a jitted C++ lambda and its IR) and
# the training example (an MLP trained with jit(value_and_grad) and SGD).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cmake --build "$ADJIT_BUILD" --target adjit-example-quickstart adjit-example-train_mlp
"$ADJIT_BUILD/examples/adjit-example-quickstart"
echo
"$ADJIT_BUILD/examples/adjit-example-train_mlp"
