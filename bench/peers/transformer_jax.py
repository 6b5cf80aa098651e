#!/usr/bin/env python3
"""JAX's side of bench/transformer.cpp (adjit-transformer-bench): the same
transformer block and stack of blocks, the same measurements.

  python3 bench/peers/transformer_jax.py --block
  python3 bench/peers/transformer_jax.py --layers L

One JSON line per measurement; one CPU thread (the process is pinned to one
core, XLA's pool sized to it), as adjit-transformer-bench with
ADJIT_NUM_THREADS=1.
"""
import argparse

import common


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--block", action="store_true")
    parser.add_argument("--layers", type=int, default=0)
    args = parser.parse_args()
    if not args.block and args.layers <= 0:
        parser.error("give --block or --layers L")
    common.pin_to_one_core_for_xla()
    import jax
    import jax.numpy as jnp
    import numpy as np

    def layernorm(x, gain, bias):
        centered = x - x.mean(-1, keepdims=True)
        variance = (centered * centered).mean(-1, keepdims=True)
        return centered * jax.lax.rsqrt(variance + 1e-5) * gain + bias

    def block(d, p, x):
        batch, time_, width, heads, _ = d
        depth = width // heads

        def split(w):
            return (x @ w).reshape(batch, time_, heads, depth).transpose(0, 2, 1, 3)

        q, k, v = split(p[0]), split(p[1]), split(p[2])
        weights = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(depth), -1)
        attended = (weights @ v).transpose(0, 2, 1, 3).reshape(batch * time_, width)
        h = x + attended @ p[3]
        mlp = jax.nn.gelu(layernorm(h, p[4], p[5]) @ p[6] + p[7], approximate=True) @ p[8] + p[9]
        return layernorm(h + mlp, p[10], p[11])

    rng = np.random.default_rng(0)

    def parameters(d):
        _, _, width, _, hidden = d
        u = lambda shape, scale: jnp.asarray(rng.uniform(-scale, scale, shape).astype(np.float32))
        w, h = 1 / np.sqrt(width), 1 / np.sqrt(hidden)
        ones, zeros = jnp.ones(width, jnp.float32), jnp.zeros(width, jnp.float32)
        return [u((width, width), w), u((width, width), w), u((width, width), w),
                u((width, width), w), ones, zeros, u((width, hidden), w),
                jnp.zeros(hidden, jnp.float32), u((hidden, width), h), zeros, ones, zeros]

    def time_calls(variant, reps, f, *arguments):
        common.time_calls("transformer", "jax", variant, reps, lambda: f(*arguments),
                          jax.block_until_ready)

    if args.block:
        d = (8, 256, 512, 8, 2048)
        p = parameters(d)
        x = jnp.asarray(rng.standard_normal((d[0] * d[1], d[2])).astype(np.float32))
        c = jnp.asarray(rng.standard_normal((d[0] * d[1], d[2])).astype(np.float32))
        time_calls("block forward", 7, jax.jit(lambda p, x: block(d, p, x)), p, x)
        time_calls("block value_and_grad", 7,
                   jax.jit(jax.value_and_grad(lambda p, x, c: (block(d, p, x) * c).sum())), p, x, c)
    if args.layers > 0:
        d, layers = (2, 64, 128, 4, 512), args.layers
        p = [a for _ in range(layers) for a in parameters(d)]
        x = jnp.asarray(rng.standard_normal((d[0] * d[1], d[2])).astype(np.float32))

        def loss(p, x):
            h = x
            for l in range(layers):
                h = block(d, p[12 * l:12 * l + 12], h)
            return (h * h).sum()

        @jax.jit
        def step(p, x):
            value, grads = jax.value_and_grad(loss)(p, x)
            return value, [a - 0.01 * g for a, g in zip(p, grads)]

        time_calls(f"{layers} layers step", 3, step, p, x)


if __name__ == "__main__":
    main()
