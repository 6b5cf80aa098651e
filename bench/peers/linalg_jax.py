#!/usr/bin/env python3
"""JAX's side of bench/linear_algebra.cpp (adjit-linalg-bench): the same
batches of small SPD matrices (f32), factored and solved, the gradient of
a Cholesky solve over the batch, and one 256 x 256 system.

  python3 bench/peers/linalg_jax.py [--smoke]

One JSON line per measurement; one CPU thread (the process is pinned to one
core, XLA's pool sized to it), as adjit-linalg-bench with ADJIT_NUM_THREADS=1.
"""
import argparse
import json
import os
import time

import numpy as np


def spd_batch(batch, n):
    """6 on the diagonal and 0.1 sin(b + (i+1)(j+1)) elsewhere, as the C++ side."""
    b, i, j = np.meshgrid(np.arange(batch), np.arange(n), np.arange(n), indexing="ij")
    return np.where(i == j, 6.0, 0.1 * np.sin(b + (i + 1) * (j + 1))).astype(np.float32)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                       "intra_op_parallelism_threads=1")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:1])
    import jax
    import jax.numpy as jnp
    from jax.scipy.linalg import cho_solve

    reps = 1 if args.smoke else 20

    def time_calls(variant, call):
        start = time.perf_counter()
        jax.block_until_ready(call())
        first = (time.perf_counter() - start) * 1e3
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            jax.block_until_ready(call())
            times.append((time.perf_counter() - start) * 1e3)
        times.sort()
        print(json.dumps({"workload": "linalg", "impl": "jax", "variant": variant,
                          "first_call_ms": round(first, 2),
                          "median_ms": round(times[len(times) // 2], 3)}), flush=True)

    for batch, n in ((64 if args.smoke else 16384, 6), (64 if args.smoke else 4096, 3)):
        shape = "%dx%dx%d" % (batch, n, n)
        a = jnp.asarray(spd_batch(batch, n))
        b = jax.random.normal(jax.random.PRNGKey(1), (batch, n, 1))
        cholesky = jax.jit(jnp.linalg.cholesky)
        solve = jax.jit(jnp.linalg.solve)
        gradient = jax.jit(jax.grad(
            lambda x, y: jnp.sum(cho_solve((jnp.linalg.cholesky(x), True), y) ** 2), (0, 1)))
        time_calls("cholesky " + shape, lambda: cholesky(a))
        time_calls("solve " + shape, lambda: solve(a, b))
        time_calls("grad cho_solve " + shape, lambda: gradient(a, b))

    m = 32 if args.smoke else 256
    k = np.arange(m * m)
    system = jnp.asarray((np.sin(0.37 * k) + np.where(k % (m + 1) == 0, 4.0, 0.0))
                         .reshape(m, m).astype(np.float32))
    rhs = jax.random.normal(jax.random.PRNGKey(2), (m,))
    solve = jax.jit(jnp.linalg.solve)
    time_calls("solve %dx%d" % (m, m), lambda: solve(system, rhs))


if __name__ == "__main__":
    main()
