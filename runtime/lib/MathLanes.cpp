#include "adjit/runtime/MathLanes.h"

#include <math.h>

extern "C" {

void adjit_sinf_lanes(int64_t values, int64_t count) {
  float* lanes = reinterpret_cast<float*>(values);
  for (int64_t i = 0; i < count; ++i) lanes[i] = sinf(lanes[i]);
}

void adjit_cosf_lanes(int64_t values, int64_t count) {
  float* lanes = reinterpret_cast<float*>(values);
  for (int64_t i = 0; i < count; ++i) lanes[i] = cosf(lanes[i]);
}

}  // extern "C"
