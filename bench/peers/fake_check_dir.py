#!/usr/bin/env python3
"""Writes a --check-dir the way `adjit-bench --check-dir DIR` does (W1, W2,
W3 inputs and outputs as .npy), computed with NumPy in float64, so that the
peers' checks can be tested without adjit. --perturb NAME scales one output
by 1.01 to see a check fail.

    python3 bench/peers/fake_check_dir.py DIR [--smoke] [--perturb W1/grad]
"""

import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def save(base, workload, name, array, perturb):
    d = os.path.join(base, workload)
    os.makedirs(d, exist_ok=True)
    if perturb == "%s/%s" % (workload, name):
        array = np.asarray(array) * 1.01
    np.save(os.path.join(d, name + ".npy"), np.asarray(array))


def gelu_tanh(z):
    k = math.sqrt(2 / math.pi)
    u = k * (z + 0.044715 * z ** 3)
    t = np.tanh(u)
    return 0.5 * z * (1 + t), 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * k * (1 + 3 * 0.044715 * z * z)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--perturb", default=None, help="e.g. W1/grad, W2/w1_new, W3/dx")
    a = p.parse_args()
    f32 = np.float32

    # W1
    x = common.w1_input(np, a.smoke, seed=7)
    xd = x.astype(np.float64)
    t, s = np.tanh(xd), 1 / (1 + np.exp(-xd))
    save(a.dir, "W1", "x", x, a.perturb)
    save(a.dir, "W1", "value", np.array(np.sum(t * s + 0.5 * xd * xd), f32), a.perturb)
    save(a.dir, "W1", "grad", ((1 - t * t) * s + t * s * (1 - s) + xd).astype(f32), a.perturb)

    # W2
    params, x, labels = common.w2_inputs(np, a.smoke, seed=7)
    rng = np.random.default_rng(8)
    params[1] = rng.uniform(-0.1, 0.1, params[1].shape).astype(f32)
    params[3] = rng.uniform(-0.1, 0.1, params[3].shape).astype(f32)
    w1, b1, w2, b2, w3, b3 = [q.astype(np.float64) for q in params]
    xd = x.astype(np.float64)
    z1 = xd @ w1 + b1
    h1 = np.maximum(z1, 0)
    z2 = h1 @ w2 + b2
    h2 = np.maximum(z2, 0)
    logits = h2 @ w3 + b3
    m = logits.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    logp = logits - lse
    n = x.shape[0]
    loss = -np.mean(logp[np.arange(n), labels])
    dlogits = np.exp(logp)
    dlogits[np.arange(n), labels] -= 1
    dlogits /= n
    dw3, db3 = h2.T @ dlogits, dlogits.sum(0)
    dz2 = (dlogits @ w3.T) * (z2 > 0)
    dw2, db2 = h1.T @ dz2, dz2.sum(0)
    dz1 = (dz2 @ w2.T) * (z1 > 0)
    dw1, db1 = xd.T @ dz1, dz1.sum(0)
    for name, q in zip(common.W2_NAMES, params):
        save(a.dir, "W2", name, q, a.perturb)
    save(a.dir, "W2", "x", x, a.perturb)
    save(a.dir, "W2", "labels", labels.astype(np.int32), a.perturb)
    save(a.dir, "W2", "loss", np.array(loss, f32), a.perturb)
    for name, q, g in zip(common.W2_NAMES, (w1, b1, w2, b2, w3, b3), (dw1, db1, dw2, db2, dw3, db3)):
        save(a.dir, "W2", name + "_new", (q - common.LR * g).astype(f32), a.perturb)

    # W3
    x, gamma, beta, c = common.w3_inputs(np, a.smoke, seed=7)
    xd, g, b, cd = (q.astype(np.float64) for q in (x, gamma, beta, c))
    mean = xd.mean(-1, keepdims=True)
    cen = xd - mean
    var = (cen * cen).mean(-1, keepdims=True)
    inv = 1 / np.sqrt(var + common.W3_EPS)
    xn = cen * inv
    z = xn * g + b
    y, dy_dz = gelu_tanh(z)
    loss = np.sum(y * cd)
    dz = cd * dy_dz
    dgamma, dbeta = (dz * xn).sum(0), dz.sum(0)
    dxn = dz * g
    dx = inv * (dxn - dxn.mean(-1, keepdims=True) - xn * (dxn * xn).mean(-1, keepdims=True))
    for name, q in (("x", x), ("gamma", gamma), ("beta", beta), ("c", c)):
        save(a.dir, "W3", name, q, a.perturb)
    save(a.dir, "W3", "loss", np.array(loss, f32), a.perturb)
    save(a.dir, "W3", "dx", dx.astype(f32), a.perturb)
    save(a.dir, "W3", "dgamma", dgamma.astype(f32), a.perturb)
    save(a.dir, "W3", "dbeta", dbeta.astype(f32), a.perturb)


if __name__ == "__main__":
    main()
