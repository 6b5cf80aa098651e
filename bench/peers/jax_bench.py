#!/usr/bin/env python3
"""JAX peer of adjit-bench: DESIGN.md §6 workloads with jax.jit and
jax.value_and_grad on the CPU backend. Same command line and JSON lines as
adjit-bench; see bench/peers/common.py and docs/performance.md."""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

IMPL = "jax"


def main():
    args = common.parse_args()
    setting = common.setup(args, {"JAX_PLATFORMS": "cpu", "TF_CPP_MIN_LOG_LEVEL": "2"})
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
    except Exception as exc:  # ImportError, or a broken install
        common.skipped_not_installed(IMPL, args.workload, exc)
    import jaxlib
    env = common.base_env(IMPL, setting, {"jax": jax.__version__, "jaxlib": jaxlib.__version__,
                                          "numpy": np.__version__})
    env["env"]["backend"] = jax.default_backend()
    env["env"]["devices"] = [str(d) for d in jax.devices()]
    env["env"]["XLA_FLAGS"] = os.environ.get("XLA_FLAGS")
    env["env"]["compilation_cache_dir"] = jax.config.jax_compilation_cache_dir
    common.emit(env)
    runs = {"W1": run_w1, "W2": run_w2, "W3": run_w3, "W4": run_w4, "W5": run_w5,
            "W6": run_w6, "W7": run_w7}
    if args.workload not in runs:
        common.not_implemented(IMPL, args.workload)
        return
    runs[args.workload](args, jax, jnp, np)


# On a GPU, `call` back to back with one wait at the end: the time per call
# when dispatch overlaps the kernels (adjit-bench's value_and_grad_pipelined).
def report_pipelined(workload, call, jax, args):
    if jax.default_backend() != "gpu":
        return
    newest = [None]

    def body():
        newest[0] = call()  # calls run in order: the newest finishes last

    t = common.measure(body, args, inner=2 if args.smoke else 50,
                       finish=lambda: jax.block_until_ready(newest[0]))
    common.report(workload, IMPL, "value_and_grad_pipelined", t, args)


# ---------------------------------------------------------------- W1 ----

def w1_f(jnp, jax):
    def f(x):
        return jnp.sum(jnp.tanh(x) * jax.nn.sigmoid(x) + 0.5 * x * x)
    return f


def run_w1(args, jax, jnp, np):
    f = w1_f(jnp, jax)
    value = jax.jit(f)
    value_and_grad = jax.jit(jax.value_and_grad(f))
    ref = common.load_check(args, "W1", common.W1_CHECK, IMPL)
    if ref is not None:
        v, g = value_and_grad(jnp.asarray(ref["x"]))
        common.check_w1(np, IMPL, ref, np.asarray(v), np.asarray(g))
    x_host = ref["x"] if ref is not None else common.w1_input(np, args.smoke)
    del ref
    x = jnp.asarray(x_host)
    del x_host
    common.reset_peak_rss()
    t = common.measure(lambda: jax.block_until_ready(value_and_grad(x)), args)
    common.report("W1", IMPL, "value_and_grad", t, args)
    t = common.measure(lambda: jax.block_until_ready(value(x)), args)
    common.report("W1", IMPL, "value", t, args)
    report_pipelined("W1", lambda: value_and_grad(x), jax, args)


# ---------------------------------------------------------------- W2 ----

def w2_functions(jax, jnp):
    def loss_fn(params, x, labels):
        w1, b1, w2, b2, w3, b3 = params
        h1 = jax.nn.relu(x @ w1 + b1)
        h2 = jax.nn.relu(h1 @ w2 + b2)
        logits = h2 @ w3 + b3
        log_probs = jax.nn.log_softmax(logits, axis=1)
        return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=1))

    def step(params, x, labels):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
        return loss, [p - common.LR * g for p, g in zip(params, grads)]

    return loss_fn, step


def report_memory(workload, jitted, *example_args):
    """XLA's temporary buffers of the timed function (its buffer assignment's
    temp allocation), beside adjit's MemoryPlan peak."""
    analysis = jitted.lower(*example_args).compile().memory_analysis()
    common.emit({"workload": workload, "impl": IMPL, "variant": "memory",
                 "peak_temp_bytes": analysis.temp_size_in_bytes})


def run_w2(args, jax, jnp, np):
    loss_fn, step_fn = w2_functions(jax, jnp)
    # The parameters are donated: a training loop feeds each step's output
    # to the next, and XLA updates them in place.
    step = jax.jit(step_fn, donate_argnums=(0,))
    loss_only = jax.jit(loss_fn)
    ref = common.load_check(args, "W2", common.W2_CHECK, IMPL)
    if ref is not None:
        params = [jnp.asarray(ref[n]) for n in common.W2_NAMES]
        loss, new = step(params, jnp.asarray(ref["x"]), jnp.asarray(ref["labels"]))
        common.check_w2(np, IMPL, ref, np.asarray(loss), [np.asarray(p) for p in new])
        host = [ref[n] for n in common.W2_NAMES], ref["x"], ref["labels"]
    else:
        host = common.w2_inputs(np, args.smoke)
    del ref
    params = [jnp.asarray(p) for p in host[0]]
    x, labels = jnp.asarray(host[1]), jnp.asarray(host[2])
    del host
    common.reset_peak_rss()
    state = {"params": params}

    def train_step():
        loss, state["params"] = step(state["params"], x, labels)
        jax.block_until_ready((loss, state["params"]))

    t = common.measure(train_step, args)
    common.report("W2", IMPL, "value_and_grad", t, args,
                  extra={"note": "jit(value_and_grad) + SGD, parameters donated"})
    report_memory("W2", step, state["params"], x, labels)
    t = common.measure(lambda: jax.block_until_ready(loss_only(state["params"], x, labels)), args)
    common.report("W2", IMPL, "value", t, args)


def run_w7(args, jax, jnp, np):
    """First call of W2's step in this fresh process: trace + AD + lower +
    compile (jit's AOT path, so that compile time can be told apart) + run."""
    _, step_fn = w2_functions(jax, jnp)
    host = common.w2_inputs(np, args.smoke)
    params = [jnp.asarray(p) for p in host[0]]
    x, labels = jnp.asarray(host[1]), jnp.asarray(host[2])
    jax.block_until_ready((params, x, labels))
    start = time.perf_counter()
    jitted = jax.jit(step_fn)
    lowered = jitted.lower(params, x, labels)
    traced = time.perf_counter()
    compiled = lowered.compile()
    compiled_at = time.perf_counter()
    out = compiled(params, x, labels)
    jax.block_until_ready(out)
    first_ms = (time.perf_counter() - start) * 1e3
    extra = {"trace_lower_ms": (traced - start) * 1e3,
             "xla_compile_ms": (compiled_at - traced) * 1e3}
    compile_ms = (compiled_at - start) * 1e3
    again = time.perf_counter()
    jax.block_until_ready(compiled(params, x, labels))
    steady_ms = (time.perf_counter() - again) * 1e3
    common.report_first_call(IMPL, first_ms, steady_ms, args, compile_ms=compile_ms,
                             method="jit(...).lower() + .compile(), measured apart",
                             extra=extra)


# ---------------------------------------------------------------- W3 ----

def w3_loss(jax, jnp):
    def loss(x, gamma, beta, c):
        mean = jnp.mean(x, axis=-1, keepdims=True)
        centered = x - mean
        variance = jnp.mean(centered * centered, axis=-1, keepdims=True)
        normalized = centered * jax.lax.rsqrt(variance + common.W3_EPS)
        y = jax.nn.gelu(normalized * gamma + beta, approximate=True)
        return jnp.sum(y * c)
    return loss


def run_w3(args, jax, jnp, np):
    f = w3_loss(jax, jnp)
    value = jax.jit(f)
    value_and_grad = jax.jit(jax.value_and_grad(f, argnums=(0, 1, 2)))
    ref = common.load_check(args, "W3", common.W3_CHECK, IMPL)
    if ref is not None:
        ins = [jnp.asarray(ref[n]) for n in ("x", "gamma", "beta", "c")]
        loss, (dx, dgamma, dbeta) = value_and_grad(*ins)
        common.check_w3(np, IMPL, ref, np.asarray(loss), np.asarray(dx), np.asarray(dgamma),
                        np.asarray(dbeta))
        del loss, dx, dgamma, dbeta, ins
        host = [ref[n] for n in ("x", "gamma", "beta", "c")]
    else:
        host = list(common.w3_inputs(np, args.smoke))
    del ref
    ins = [jnp.asarray(a) for a in host]
    del host
    common.reset_peak_rss()
    t = common.measure(lambda: jax.block_until_ready(value_and_grad(*ins)), args)
    common.report("W3", IMPL, "value_and_grad", t, args)
    report_memory("W3", value_and_grad, *ins)
    t = common.measure(lambda: jax.block_until_ready(value(*ins)), args)
    common.report("W3", IMPL, "value", t, args)
    report_pipelined("W3", lambda: value_and_grad(*ins), jax, args)


# ---------------------------------------------------------------- W4 ----

def w4_loss(jax, jnp):
    def loss(wx, wh, b, xs):
        def step(h, x):
            return jnp.tanh(x @ wx + h @ wh + b), None
        h0 = jnp.zeros((xs.shape[1], wh.shape[0]), xs.dtype)
        h, _ = jax.lax.scan(step, h0, xs)
        return jnp.sum(h * h)
    return loss


def run_gradients(args, jax, jnp, np, workload, loss_fn, inputs, argnums, check_names,
                  grad_names, static=()):
    """W4, W5: check value_and_grad against adjit's, then time it and the value."""
    value = jax.jit(loss_fn, static_argnums=static)
    value_and_grad = jax.jit(jax.value_and_grad(loss_fn, argnums=argnums), static_argnums=static)
    ref = common.load_check(args, workload, check_names, IMPL)
    host = list(inputs(np, args.smoke))
    if ref is not None:
        host = [ref[n] for n in check_names[:len(host)]]
    extra = [common.sizes(workload, args.smoke)["steps"]] if static else []
    ins = [jnp.asarray(a) for a in host] + extra
    if ref is not None:
        loss, grads = value_and_grad(*ins)
        common.check_gradients(workload, np, IMPL, ref, loss, dict(zip(grad_names, grads)))
    del ref, host
    common.reset_peak_rss()
    t = common.measure(lambda: jax.block_until_ready(value_and_grad(*ins)), args)
    common.report(workload, IMPL, "value_and_grad", t, args)
    t = common.measure(lambda: jax.block_until_ready(value(*ins)), args)
    common.report(workload, IMPL, "value", t, args)


def run_w4(args, jax, jnp, np):
    run_gradients(args, jax, jnp, np, "W4", w4_loss(jax, jnp), common.w4_inputs, (0, 1, 2),
                  common.W4_CHECK, ["dwx", "dwh", "db"])


# ---------------------------------------------------------------- W5 ----

def w5_loss(jax, jnp):
    def loss(p0, k, v0, steps):
        def step(_, carry):
            p, v = carry
            t = k * (p[1:] - p[:-1] - 1.0)
            zero = jnp.zeros((1,), p.dtype)
            force = jnp.concatenate([t, zero]) - jnp.concatenate([zero, t])
            v = v + common.W5_DT * force
            return p + common.W5_DT * v, v
        _, v = jax.lax.fori_loop(0, steps, step, (p0, v0))
        return 0.5 * jnp.sum(v * v)
    return loss


def run_w5(args, jax, jnp, np):
    run_gradients(args, jax, jnp, np, "W5", w5_loss(jax, jnp), common.w5_inputs, (0, 1),
                  common.W5_CHECK, ["dp0", "dk"], static=(3,))


# ---------------------------------------------------------------- W6 ----

def run_w6(args, jax, jnp, np):
    f = jax.jit(lambda x: jnp.sin(x) * 2 + 1)
    x_host = common.w6_input(np)
    x = jnp.asarray(x_host)
    common.time_w6(IMPL, lambda: f(x).block_until_ready(), x_host, np.asarray(f(x)), args, np,
                   note="jitted call + block_until_ready")


if __name__ == "__main__":
    main()
