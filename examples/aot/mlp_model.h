// The example's model and data, shared by the generator (which compiles it
// ahead of time and runs it with the JIT as the reference) and described to
// the C program by the generated headers.
#pragma once

#define MLP_BATCH 32
#define MLP_IN 64
#define MLP_HIDDEN 128
#define MLP_CLASSES 10
#define MLP_STEPS 3

/* Deterministic inputs from integer arithmetic only, so that C and C++
   compute the same floats: values in [-scale/2, scale/2). */
static inline void mlp_fill(float* values, int count, unsigned seed, float scale) {
  for (int i = 0; i < count; ++i) {
    unsigned h = (unsigned)i * 2654435761u + seed * 40503u;
    values[i] = ((float)(h % 1000u) / 1000.0f - 0.5f) * scale;
  }
}

static inline int mlp_label(int row) { return (row * 7 + 3) % MLP_CLASSES; }
