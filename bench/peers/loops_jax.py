#!/usr/bin/env python3
"""JAX's side of bench/loops.cpp (adjit-loop-bench): the RNN cell
h = tanh(h W + 0.01) over a batch of 32 x 256 (f32) for 1000 steps. Its
value in a while_loop whose bound is an argument; its gradient in a
fori_loop with a constant bound (jax.grad refuses while_loop). And Heron's
square roots x = (x + b / x) / 2 of 2^20 values (f32) for 50 iterations in a
while_loop and a fori_loop.

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

    n = 1024 if args.smoke else 1 << 20
    heron_trips = 5 if args.smoke else 50
    x0 = jnp.ones((n,), jnp.float32)
    b = jax.random.uniform(jax.random.PRNGKey(2), (n,), minval=1.0, maxval=4.0)

    def heron(x, b):
        return (x + b / x) * 0.5

    heron_while = jax.jit(lambda x, b, steps: jax.lax.while_loop(
        lambda c: c[1] < steps, lambda c: (heron(c[0], b), c[1] + 1.0), (x, jnp.float32(0)))[0])
    heron_fori = jax.jit(lambda x, b: jax.lax.fori_loop(0, heron_trips, lambda _, x: heron(x, b), x))
    heron_shape = "%d steps %d" % (heron_trips, n)
    common.time_calls("loops", "jax", "heron while_loop " + heron_shape, reps,
                      lambda: heron_while(x0, b, jnp.float32(heron_trips)), jax.block_until_ready)
    common.time_calls("loops", "jax", "heron fori_loop " + heron_shape, reps,
                      lambda: heron_fori(x0, b), jax.block_until_ready)


if __name__ == "__main__":
    main()
