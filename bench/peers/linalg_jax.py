#!/usr/bin/env python3
"""JAX's side of bench/linear_algebra.cpp (adjit-linalg-bench): the same
batches of small SPD matrices (f32), factored and solved (also by
lu_factor, then lu_solve), their
log-determinants, eigendecompositions, QR factors and SVDs, the gradients
of a Cholesky solve, of the log-determinants, of the eigenvalues, of the
QR factors, of the singular values and of the determinants over the
batch, matrix exponentials and their gradients, and one 256 x 256
system.

  python3 bench/peers/linalg_jax.py [--smoke]

One JSON line per measurement; one CPU thread (the process is pinned to one
core, XLA's pool sized to it), as adjit-linalg-bench with ADJIT_NUM_THREADS=1.
"""
import common

import numpy as np


def spd_batch(batch, n):
    """6 on the diagonal and 0.1 sin(b + (i+1)(j+1)) elsewhere, as the C++ side."""
    b, i, j = np.meshgrid(np.arange(batch), np.arange(n), np.arange(n), indexing="ij")
    return np.where(i == j, 6.0, 0.1 * np.sin(b + (i + 1) * (j + 1))).astype(np.float32)


def main():
    args = common.smoke_on_one_core(__doc__)
    import jax
    import jax.numpy as jnp
    from jax.scipy.linalg import cho_solve

    reps = 1 if args.smoke else 20

    def time_calls(variant, call):
        common.time_calls("linalg", "jax", variant, reps, call, jax.block_until_ready)

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
        slogdet = jax.jit(lambda x: jnp.linalg.slogdet(x)[1])
        logdet_gradient = jax.jit(jax.grad(lambda x: jnp.sum(jnp.linalg.slogdet(x)[1])))
        time_calls("grad cho_solve " + shape, lambda: gradient(a, b))
        time_calls("slogdet " + shape, lambda: slogdet(a))
        time_calls("grad logdet " + shape, lambda: logdet_gradient(a))
        lu_factor = jax.jit(jax.scipy.linalg.lu_factor)
        lu_solve = jax.jit(lambda lu, piv, y: jax.scipy.linalg.lu_solve((lu, piv), y))
        det_gradient = jax.jit(jax.grad(lambda x: jnp.sum(jnp.linalg.det(x))))
        lu, piv = lu_factor(a)
        time_calls("lu_factor " + shape, lambda: lu_factor(a))
        time_calls("lu_solve " + shape, lambda: lu_solve(lu, piv, b))
        time_calls("grad det " + shape, lambda: det_gradient(a))
        expm = jax.jit(jax.scipy.linalg.expm)
        expm_gradient = jax.jit(jax.grad(lambda x: jnp.sum(jax.scipy.linalg.expm(x))))
        time_calls("expm " + shape, lambda: expm(a))
        time_calls("grad expm " + shape, lambda: expm_gradient(a))
        eigh = jax.jit(jnp.linalg.eigh)
        eigvalsh_gradient = jax.jit(jax.grad(lambda x: jnp.sum(jnp.linalg.eigvalsh(x) ** 2)))
        time_calls("eigh " + shape, lambda: eigh(a))
        time_calls("grad eigvalsh " + shape, lambda: eigvalsh_gradient(a))
        qr = jax.jit(jnp.linalg.qr)
        qr_gradient = jax.jit(jax.grad(lambda x: sum(jnp.sum(f) for f in jnp.linalg.qr(x))))
        time_calls("qr " + shape, lambda: qr(a))
        time_calls("grad qr " + shape, lambda: qr_gradient(a))
        svd = jax.jit(lambda x: jnp.linalg.svd(x, full_matrices=False))
        nuclear_norm_gradient = jax.jit(jax.grad(lambda x: jnp.sum(jnp.linalg.svd(x, compute_uv=False))))
        time_calls("svd " + shape, lambda: svd(a))
        time_calls("grad sum svdvals " + shape, lambda: nuclear_norm_gradient(a))

    m = 32 if args.smoke else 256
    k = np.arange(m * m)
    system = jnp.asarray((np.sin(0.37 * k) + np.where(k % (m + 1) == 0, 4.0, 0.0))
                         .reshape(m, m).astype(np.float32))
    rhs = jax.random.normal(jax.random.PRNGKey(2), (m,))
    solve = jax.jit(jnp.linalg.solve)
    time_calls("solve %dx%d" % (m, m), lambda: solve(system, rhs))


if __name__ == "__main__":
    main()
