#!/usr/bin/env python3
"""JAX's side of bench/loops.cpp (adjit-loop-bench): the RNN cell
h = tanh(h W + 0.01) over a batch of 32 x 256 (f32) for 1000 steps. Its
value in a while_loop whose bound is an argument; its gradient in a
fori_loop with a constant bound (jax.grad refuses while_loop).

  python3 bench/peers/loops_jax.py [--smoke]

One JSON line per measurement; one CPU thread (the process is pinned to one
core, XLA's pool sized to it), as adjit-loop-bench with ADJIT_NUM_THREADS=1.
"""
import common

import numpy as np

BATCH, HIDDEN = 32, 256


def main():
    args = common.smoke_on_one_core(__doc__)
    import jax
    import jax.numpy as jnp

    reps = 1 if args.smoke else 20
    trips = 10 if args.smoke else 1000
    i, j = np.meshgrid(np.arange(HIDDEN), np.arange(HIDDEN), indexing="ij")
    w = jnp.asarray((0.05 * np.sin(i + 2 * j)).astype(np.float32))
    h0 = jax.random.normal(jax.random.PRNGKey(1), (BATCH, HIDDEN))
    steps = jnp.float32(trips)

    def cell(h, w):
        return jnp.tanh(h @ w + 0.01)

    def while_loss(h0, w, steps):
        h, _ = jax.lax.while_loop(lambda c: c[1] < steps,
                                  lambda c: (cell(c[0], w), c[1] + 1.0),
                                  (h0, jnp.float32(0)))
        return jnp.sum(h * h)

    def fori_loss(h0, w):
        h = jax.lax.fori_loop(0, trips, lambda _, h: cell(h, w), h0)
        return jnp.sum(h * h)

    value = jax.jit(while_loss)
    fori_gradient = jax.jit(jax.grad(fori_loss, (0, 1)))
    shape = "%d steps %dx%d" % (trips, BATCH, HIDDEN)

    def time_calls(variant, call):
        common.time_calls("loops", "jax", variant + " " + shape, reps, call,
                          jax.block_until_ready)

    time_calls("while_loop value", lambda: value(h0, w, steps))
    time_calls("fori_loop grad", lambda: fori_gradient(h0, w))


if __name__ == "__main__":
    main()
