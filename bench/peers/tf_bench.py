#!/usr/bin/env python3
"""TensorFlow peer of adjit-bench: DESIGN.md §6 workloads as
tf.function(jit_compile=True) around a GradientTape step (XLA on the CPU).
Same command line and JSON lines as adjit-bench; see bench/peers/common.py
and docs/performance.md."""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

IMPL = "tensorflow"


def main():
    args = common.parse_args()
    setting = common.setup(args, {"TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""})
    try:
        import numpy as np
        import tensorflow as tf
    except Exception as exc:  # ImportError, or a broken install
        common.skipped_not_installed(IMPL, args.workload, exc)
    n = max(1, args.threads)
    tf.config.threading.set_intra_op_parallelism_threads(n)
    tf.config.threading.set_inter_op_parallelism_threads(n)
    env = common.base_env(IMPL, setting, {"tensorflow": tf.__version__, "numpy": np.__version__})
    env["env"]["intra_op_threads"] = tf.config.threading.get_intra_op_parallelism_threads()
    env["env"]["inter_op_threads"] = tf.config.threading.get_inter_op_parallelism_threads()
    env["env"]["onednn"] = os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default")
    env["env"]["devices"] = [d.name for d in tf.config.list_logical_devices()]
    common.emit(env)
    runs = {"W1": run_w1, "W2": run_w2, "W3": run_w3, "W4": run_w4, "W5": run_w5,
            "W6": run_w6, "W7": run_w7}
    if args.workload not in runs:
        common.not_implemented(IMPL, args.workload)
        return
    with tf.device("/CPU:0"):
        runs[args.workload](args, tf, np)


# ---------------------------------------------------------------- W1 ----

def run_w1(args, tf, np):
    def f(x):
        return tf.reduce_sum(tf.tanh(x) * tf.sigmoid(x) + 0.5 * x * x)

    value = tf.function(f, jit_compile=True)

    @tf.function(jit_compile=True)
    def value_and_grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return y, tape.gradient(y, x)

    ref = common.load_check(args, "W1", common.W1_CHECK, IMPL)
    if ref is not None:
        v, g = value_and_grad(tf.constant(ref["x"]))
        common.check_w1(np, IMPL, ref, v.numpy(), g.numpy())
        del v, g
    x = tf.constant(ref["x"] if ref is not None else common.w1_input(np, args.smoke))
    del ref
    common.reset_peak_rss()
    # Eager execution on the CPU is synchronous: the call returns computed
    # tensors; .numpy() of the scalar costs nothing.
    t = common.measure(lambda: value_and_grad(x)[0].numpy(), args)
    common.report("W1", IMPL, "value_and_grad", t, args)
    t = common.measure(lambda: value(x).numpy(), args)
    common.report("W1", IMPL, "value", t, args)


# ---------------------------------------------------------------- W2 ----

def w2_model(tf, params):
    def loss_fn(x, labels):
        w1, b1, w2, b2, w3, b3 = params
        h1 = tf.nn.relu(tf.matmul(x, w1) + b1)
        h2 = tf.nn.relu(tf.matmul(h1, w2) + b2)
        logits = tf.matmul(h2, w3) + b3
        return tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))

    @tf.function(jit_compile=True)
    def step(x, labels):
        with tf.GradientTape() as tape:
            loss = loss_fn(x, labels)
        grads = tape.gradient(loss, params)
        for p, g in zip(params, grads):
            p.assign_sub(common.LR * g)
        return loss

    return tf.function(loss_fn, jit_compile=True), step


def run_w2(args, tf, np):
    ref = common.load_check(args, "W2", common.W2_CHECK, IMPL)
    if ref is not None:
        host = [ref[n] for n in common.W2_NAMES], ref["x"], ref["labels"]
    else:
        host = common.w2_inputs(np, args.smoke)
    params = [tf.Variable(p) for p in host[0]]
    x, labels = tf.constant(host[1]), tf.constant(host[2])
    loss_only, step = w2_model(tf, params)
    if ref is not None:
        loss = step(x, labels)
        common.check_w2(np, IMPL, ref, loss.numpy(), [p.numpy() for p in params])
        for p, h in zip(params, host[0]):  # back to the initial weights
            p.assign(h)
    del ref, host
    common.reset_peak_rss()
    t = common.measure(lambda: step(x, labels).numpy(), args)
    common.report("W2", IMPL, "value_and_grad", t, args,
                  extra={"note": "tf.function(jit_compile=True): GradientTape + assign_sub on tf.Variables"})
    t = common.measure(lambda: loss_only(x, labels).numpy(), args)
    common.report("W2", IMPL, "value", t, args)


def run_w7(args, tf, np):
    """First call of W2's step in this fresh process: trace, AD, XLA
    compile (TensorFlow compiles on the first execution), run."""
    host = common.w2_inputs(np, args.smoke)
    params = [tf.Variable(p) for p in host[0]]
    x, labels = tf.constant(host[1]), tf.constant(host[2])
    start = time.perf_counter()
    _, step = w2_model(tf, params)
    step(x, labels).numpy()
    first_ms = (time.perf_counter() - start) * 1e3
    again = time.perf_counter()
    step(x, labels).numpy()
    steady_ms = (time.perf_counter() - again) * 1e3
    common.report_first_call(IMPL, first_ms, steady_ms, args)


# ---------------------------------------------------------------- W3 ----

def run_w3(args, tf, np):
    def loss_fn(x, gamma, beta, c):
        mean = tf.reduce_mean(x, axis=-1, keepdims=True)
        centered = x - mean
        variance = tf.reduce_mean(centered * centered, axis=-1, keepdims=True)
        normalized = centered * tf.math.rsqrt(variance + common.W3_EPS)
        y = tf.nn.gelu(normalized * gamma + beta, approximate=True)
        return tf.reduce_sum(y * c)

    value = tf.function(loss_fn, jit_compile=True)

    @tf.function(jit_compile=True)
    def value_and_grad(x, gamma, beta, c):
        with tf.GradientTape() as tape:
            tape.watch([x, gamma, beta])
            loss = loss_fn(x, gamma, beta, c)
        return loss, tape.gradient(loss, [x, gamma, beta])

    ref = common.load_check(args, "W3", common.W3_CHECK, IMPL)
    if ref is not None:
        loss, (dx, dgamma, dbeta) = value_and_grad(*[tf.constant(ref[n]) for n in ("x", "gamma", "beta", "c")])
        common.check_w3(np, IMPL, ref, loss.numpy(), dx.numpy(), dgamma.numpy(), dbeta.numpy())
        del loss, dx, dgamma, dbeta
        host = [ref[n] for n in ("x", "gamma", "beta", "c")]
    else:
        host = list(common.w3_inputs(np, args.smoke))
    del ref
    ins = [tf.constant(a) for a in host]
    del host
    common.reset_peak_rss()
    t = common.measure(lambda: value_and_grad(*ins)[0].numpy(), args)
    common.report("W3", IMPL, "value_and_grad", t, args)
    t = common.measure(lambda: value(*ins).numpy(), args)
    common.report("W3", IMPL, "value", t, args)


# ------------------------------------------------------------ W4, W5 ----

def run_gradients(args, tf, np, workload, loss_fn, inputs, check_names, grad_names):
    """Check value_and_grad (the first len(grad_names) inputs) against
    adjit's, then time it and the value alone."""
    value = tf.function(loss_fn, jit_compile=True)
    n = len(grad_names)

    @tf.function(jit_compile=True)
    def value_and_grad(*ins):
        with tf.GradientTape() as tape:
            tape.watch(list(ins[:n]))
            loss = loss_fn(*ins)
        return loss, tape.gradient(loss, list(ins[:n]))

    ref = common.load_check(args, workload, check_names, IMPL)
    host = list(inputs(np, args.smoke))
    if ref is not None:
        host = [ref[name] for name in check_names[:len(host)]]
    ins = [tf.constant(a) for a in host]
    if ref is not None:
        loss, grads = value_and_grad(*ins)
        common.check_gradients(workload, np, IMPL, ref, loss.numpy(),
                               {name: g.numpy() for name, g in zip(grad_names, grads)})
    del ref, host
    common.reset_peak_rss()
    t = common.measure(lambda: value_and_grad(*ins)[0].numpy(), args)
    common.report(workload, IMPL, "value_and_grad", t, args)
    t = common.measure(lambda: value(*ins).numpy(), args)
    common.report(workload, IMPL, "value", t, args)


def run_w4(args, tf, np):
    def loss_fn(wx, wh, b, xs):
        h0 = tf.zeros([xs.shape[1], wh.shape[0]], xs.dtype)
        h = tf.scan(lambda h, x: tf.tanh(tf.matmul(x, wx) + tf.matmul(h, wh) + b), xs,
                    initializer=h0)[-1]
        return tf.reduce_sum(h * h)

    run_gradients(args, tf, np, "W4", loss_fn, common.w4_inputs, common.W4_CHECK,
                  ["dwx", "dwh", "db"])


def run_w5(args, tf, np):
    steps = common.sizes("W5", args.smoke)["steps"]

    def loss_fn(p0, k, v0):
        def body(i, p, v):
            t = k * (p[1:] - p[:-1] - 1.0)
            zero = tf.zeros([1], p.dtype)
            force = tf.concat([t, zero], 0) - tf.concat([zero, t], 0)
            v = v + common.W5_DT * force
            return i + 1, p + common.W5_DT * v, v
        _, _, v = tf.while_loop(lambda i, p, v: i < steps, body, (tf.constant(0), p0, v0),
                                maximum_iterations=steps)
        return 0.5 * tf.reduce_sum(v * v)

    run_gradients(args, tf, np, "W5", loss_fn, common.w5_inputs, common.W5_CHECK, ["dp0", "dk"])


# ---------------------------------------------------------------- W6 ----

def run_w6(args, tf, np):
    f = tf.function(lambda x: tf.sin(x) * 2 + 1, jit_compile=True)
    x_host = common.w6_input(np)
    x = tf.constant(x_host)
    common.time_w6(IMPL, lambda: f(x), x_host, f(x).numpy(), args, np,
                   note="tf.function(jit_compile=True) call; eager CPU execution is synchronous")


if __name__ == "__main__":
    main()
