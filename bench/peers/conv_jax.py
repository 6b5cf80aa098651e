#!/usr/bin/env python3
"""JAX's side of bench/convolution.cpp (adjit-conv-bench): the same
convolution layers (NHWC, HWIO) and pools, the same measurements.

  python3 bench/peers/conv_jax.py [--smoke]

One JSON line per measurement; one CPU thread (the process is pinned to one
core, XLA's pool sized to it), as adjit-conv-bench with ADJIT_NUM_THREADS=1.
"""
import common


def main():
    args = common.smoke_on_one_core(__doc__)
    import jax
    import jax.numpy as jnp

    b = 2 if args.smoke else 16
    layers = [
        ("3x3 64->64 32x32", (b, 32, 32, 64), (3, 3, 64, 64), (1, 1), "SAME", 1),
        ("3x3 3->32 64x64", (b, 64, 64, 3), (3, 3, 3, 32), (1, 1), "SAME", 1),
        ("3x3 stride 2 64->128 32x32", (b, 32, 32, 64), (3, 3, 64, 128), (2, 2), "SAME", 1),
        ("1x1 128->256 16x16", (b, 16, 16, 128), (1, 1, 128, 256), (1, 1), "VALID", 1),
        ("depthwise 3x3 128 16x16", (b, 16, 16, 128), (3, 3, 1, 128), (1, 1), "SAME", 128),
    ]
    reps = 1 if args.smoke else 15

    def time_calls(variant, call):
        common.time_calls("conv", "jax", variant, reps, call, jax.block_until_ready)

    for name, xs, ws, strides, padding, groups in layers:
        def conv(x, w, strides=strides, padding=padding, groups=groups):
            return jax.lax.conv_general_dilated(x, w, strides, padding,
                                                dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                                feature_group_count=groups)
        x = jax.random.normal(jax.random.PRNGKey(1), xs)
        w = jax.random.normal(jax.random.PRNGKey(2), ws)
        c = jax.random.normal(jax.random.PRNGKey(3), conv(x, w).shape)
        forward = jax.jit(conv)
        value_and_grad = jax.jit(jax.value_and_grad(lambda x, w, c: jnp.sum(conv(x, w) * c), (0, 1)))
        time_calls(name + " forward", lambda: forward(x, w))
        time_calls(name + " value_and_grad", lambda: value_and_grad(x, w, c))

    x = jax.random.normal(jax.random.PRNGKey(4), (b, 32, 32, 64))
    pools = [  # name, max (else mean), window, strides, padding: adjit-conv-bench's
        ("max_pool 3x3 stride 2 64 32x32", True, (3, 3), (2, 2), "SAME"),
        ("avg_pool 2x2 stride 2 64 32x32", False, (2, 2), (2, 2), "VALID"),
        ("avg_pool 7x7 same 64 32x32", False, (7, 7), (1, 1), "SAME"),
        ("max_pool 32x32 global 64 32x32", True, (32, 32), (1, 1), "VALID"),
    ]
    for name, take_max, window, strides, padding in pools:
        dims, strides = (1,) + window + (1,), (1,) + strides + (1,)
        pads = jax.lax.padtype_to_pads(x.shape, dims, strides, padding)

        def pool(x, take_max=take_max, dims=dims, strides=strides, pads=pads):
            if take_max:
                return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, dims, strides, pads)
            taps = dims[1] * dims[2]  # flax's avg_pool: the padding counts
            return jax.lax.reduce_window(x, 0.0, jax.lax.add, dims, strides, pads) / taps
        c = jax.random.normal(jax.random.PRNGKey(5), pool(x).shape)
        forward = jax.jit(pool)
        value_and_grad = jax.jit(jax.value_and_grad(lambda x, c, pool=pool: jnp.sum(pool(x) * c)))
        time_calls(name + " forward", lambda: forward(x))
        time_calls(name + " value_and_grad", lambda: value_and_grad(x, c))

if __name__ == "__main__":
    main()
