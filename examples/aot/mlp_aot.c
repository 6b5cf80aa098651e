/* A standalone C program that runs an MLP forward pass and SGD training
   steps from kernels compiled ahead of time by adjit (mlp_generator.cpp).
   It links only the kernels, libadjit_aot_runtime.a and libm: no LLVM, MLIR
   or JIT. It prints what the generator's JIT run printed (jit_reference.txt). */
#include "mlp_forward.h"
#include "mlp_model.h"
#include "mlp_train_step.h"

#include <stdio.h>
#include <string.h>

static float w1[mlp_forward_IN0_ELEMENTS], b1[mlp_forward_IN1_ELEMENTS],
    w2[mlp_forward_IN2_ELEMENTS], b2[mlp_forward_IN3_ELEMENTS], x[mlp_forward_IN4_ELEMENTS];
static int32_t labels[mlp_train_step_IN5_ELEMENTS];
static float probabilities[mlp_forward_OUT0_ELEMENTS];
static float loss, next_w1[sizeof w1 / sizeof *w1], next_b1[sizeof b1 / sizeof *b1],
    next_w2[sizeof w2 / sizeof *w2], next_b2[sizeof b2 / sizeof *b2];

static void print(const char* what, const float* values, int count) {
  printf("%s", what);
  for (int i = 0; i < count; ++i) printf(" %.9g", values[i]);
  printf("\n");
}

static int check(int status, const char* what) {
  if (status != ADJIT_AOT_OK) fprintf(stderr, "%s failed with status %d\n", what, status);
  return status;
}

int main(void) {
  mlp_fill(w1, mlp_forward_IN0_ELEMENTS, 1, 0.3f);
  mlp_fill(b1, mlp_forward_IN1_ELEMENTS, 2, 0.1f);
  mlp_fill(w2, mlp_forward_IN2_ELEMENTS, 3, 0.3f);
  mlp_fill(b2, mlp_forward_IN3_ELEMENTS, 4, 0.1f);
  mlp_fill(x, mlp_forward_IN4_ELEMENTS, 5, 2.0f);
  for (int row = 0; row < MLP_BATCH; ++row) labels[row] = mlp_label(row);

  if (check(mlp_forward(w1, b1, w2, b2, x, probabilities), "mlp_forward")) return 1;
  print("probabilities of row 0:", probabilities, MLP_CLASSES);
  for (int s = 0; s < MLP_STEPS; ++s) {
    if (check(mlp_train_step(w1, b1, w2, b2, x, labels, &loss, next_w1, next_b1, next_w2, next_b2),
              "mlp_train_step"))
      return 1;
    printf("step %d loss %.9g\n", s, loss);
    /* Outputs must not overlap inputs: the new weights are copied back. */
    memcpy(w1, next_w1, sizeof w1);
    memcpy(b1, next_b1, sizeof b1);
    memcpy(w2, next_w2, sizeof w2);
    memcpy(b2, next_b2, sizeof b2);
  }
  if (check(mlp_forward(w1, b1, w2, b2, x, probabilities), "mlp_forward")) return 1;
  print("probabilities of row 0 after training:", probabilities, MLP_CLASSES);
  print("b2 after training:", b2, MLP_CLASSES);
  return 0;
}
