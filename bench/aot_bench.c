/* adjit-aot-bench: W1's value and gradient, W2's training step and W3's
   value and gradient compiled ahead of time (bench/aot_generator.cpp), run
   from C with the AOT runtime alone: each function on the calling thread
   (NAME_serial) and on a team (NAME_team: ADJIT_NUM_THREADS threads, else
   every core), alternated rep by rep in one process. One JSON object per
   line, as adjit-bench prints them, with the team's speedup over the serial
   code measured in the same run.

     adjit-aot-bench [--reps N] [--smoke]

   --smoke calls each function once and checks the statuses (no timing). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#include "w1_serial.h"
#include "w1_team.h"
#include "w2_serial.h"
#include "w2_team.h"
#include "w3_serial.h"
#include "w3_team.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*entry)(const void* const* inputs, void* const* outputs);

struct workload {
  const char* name;
  const char* variant;
  entry serial, team;
  int inputs, outputs;
  const size_t* input_elements;
  const size_t* output_elements;
  int labels_input; /* the input of integer class labels, or -1 */
  int classes;
  int weights; /* inputs before this one are weights (W2's parameters) */
};

static const size_t w1_in[] = {w1_serial_IN0_ELEMENTS};
static const size_t w1_out[] = {w1_serial_OUT0_ELEMENTS, w1_serial_OUT1_ELEMENTS};
static const size_t w2_in[] = {w2_serial_IN0_ELEMENTS, w2_serial_IN1_ELEMENTS,
                               w2_serial_IN2_ELEMENTS, w2_serial_IN3_ELEMENTS,
                               w2_serial_IN4_ELEMENTS, w2_serial_IN5_ELEMENTS,
                               w2_serial_IN6_ELEMENTS, w2_serial_IN7_ELEMENTS};
static const size_t w2_out[] = {w2_serial_OUT0_ELEMENTS, w2_serial_OUT1_ELEMENTS,
                                w2_serial_OUT2_ELEMENTS, w2_serial_OUT3_ELEMENTS,
                                w2_serial_OUT4_ELEMENTS, w2_serial_OUT5_ELEMENTS,
                                w2_serial_OUT6_ELEMENTS};
static const size_t w3_in[] = {w3_serial_IN0_ELEMENTS, w3_serial_IN1_ELEMENTS,
                               w3_serial_IN2_ELEMENTS, w3_serial_IN3_ELEMENTS};
static const size_t w3_out[] = {w3_serial_OUT0_ELEMENTS, w3_serial_OUT1_ELEMENTS,
                                w3_serial_OUT2_ELEMENTS, w3_serial_OUT3_ELEMENTS};

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int compare(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static int team_size(void) {
  const char* text = getenv("ADJIT_NUM_THREADS");
  if (text && atoi(text) > 0) return atoi(text);
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

/* Floats uniform in [-scale, scale), or labels below `classes`. All
   elements are 4 bytes. */
static void* filled(size_t elements, unsigned seed, float scale, int classes) {
  unsigned* words = aligned_alloc(64, (elements * 4 + 63) / 64 * 64);
  if (!words) exit(2);
  for (size_t i = 0; i < elements; ++i) {
    seed = seed * 1664525u + 1013904223u;
    if (classes > 0) {
      words[i] = (seed >> 8) % (unsigned)classes;
    } else {
      float value = ((seed >> 8) / 16777216.0f - 0.5f) * 2 * scale;
      memcpy(&words[i], &value, 4);
    }
  }
  return words;
}

static int run(const struct workload* w, int reps) {
  void* inputs[8];
  void* outputs[8];
  for (int i = 0; i < w->inputs; ++i)
    inputs[i] = filled(w->input_elements[i], 17u * (unsigned)i + 1u, i < w->weights ? 0.05f : 1.7f,
                       i == w->labels_input ? w->classes : 0);
  for (int o = 0; o < w->outputs; ++o) outputs[o] = filled(w->output_elements[o], 5u, 1, 0);
  double* serial = malloc(sizeof(double) * (size_t)reps);
  double* team = malloc(sizeof(double) * (size_t)reps);
  for (int r = -1; r < reps; ++r) { /* r = -1: the first calls, untimed */
    double start = seconds();
    int status = w->serial((const void* const*)inputs, outputs);
    double middle = seconds();
    status |= w->team((const void* const*)inputs, outputs);
    double end = seconds();
    if (status != 0) {
      fprintf(stderr, "adjit-aot-bench: %s failed with status %d\n", w->name, status);
      return 1;
    }
    if (r >= 0) {
      serial[r] = middle - start;
      team[r] = end - middle;
    }
  }
  if (reps > 0) {
    qsort(serial, (size_t)reps, sizeof(double), compare);
    qsort(team, (size_t)reps, sizeof(double), compare);
    double s = serial[reps / 2] * 1e3, t = team[reps / 2] * 1e3;
    printf("{\"workload\":\"%s\",\"impl\":\"adjit-aot\",\"variant\":\"%s\",\"threads\":%d,"
           "\"median_ms\":%.6g,\"serial_median_ms\":%.6g,\"speedup\":%.4g,\"reps\":%d}\n",
           w->name, w->variant, team_size(), t, s, s / t, reps);
  }
  for (int i = 0; i < w->inputs; ++i) free(inputs[i]);
  for (int o = 0; o < w->outputs; ++o) free(outputs[o]);
  free(serial);
  free(team);
  return 0;
}

int main(int argc, char** argv) {
  int reps = 20;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--smoke")) reps = 0;
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: adjit-aot-bench [--reps N] [--smoke]\n");
      return 2;
    }
  }
  const struct workload workloads[] = {
      {"W1", "value_and_grad", w1_serial_call, w1_team_call, w1_serial_NUM_INPUTS,
       w1_serial_NUM_OUTPUTS, w1_in, w1_out, -1, 0, 0},
      {"W2", "value_and_grad", w2_serial_call, w2_team_call, w2_serial_NUM_INPUTS,
       w2_serial_NUM_OUTPUTS, w2_in, w2_out, 7, 10, 6},
      {"W3", "value_and_grad", w3_serial_call, w3_team_call, w3_serial_NUM_INPUTS,
       w3_serial_NUM_OUTPUTS, w3_in, w3_out, -1, 0, 0},
  };
  for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; ++i)
    if (run(&workloads[i], reps)) return 1;
  return 0;
}
