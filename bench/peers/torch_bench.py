#!/usr/bin/env python3
"""PyTorch peer of adjit-bench: DESIGN.md §6 workloads in eager mode
(impl "pytorch") and with torch.compile (impl "pytorch-compile": the loss is
compiled, its backward runs through AOTAutograd's compiled graph, the SGD
update stays torch.optim.SGD). Same command line and JSON lines as
adjit-bench; --impl picks one variant (bench/run runs each in its own
process). `--workload gemm_w2` times PyTorch's matmul on W2's five matmuls,
a reference beside adjit-bench's gemm_w2 (run_gemm_w2). See
bench/peers/common.py and docs/performance.md."""

import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

EAGER, COMPILE = "pytorch", "pytorch-compile"


def main():
    args = common.parse_args(impl_choices=[EAGER, COMPILE])
    impls = [EAGER, COMPILE] if args.impl == "all" else [args.impl]
    # OpenMP workers that spin after a parallel region steal the core from
    # the next op (DESIGN.md §6): PASSIVE makes them sleep.
    extra_env = {"OMP_WAIT_POLICY": "PASSIVE"}
    cache_dir = None
    if COMPILE in impls and "TORCHINDUCTOR_CACHE_DIR" not in os.environ:
        # A fresh Inductor cache: no compiled kernel of an earlier run is
        # reused (W7 would otherwise measure a cache hit).
        cache_dir = tempfile.mkdtemp(prefix="adjit-bench-inductor-")
        extra_env["TORCHINDUCTOR_CACHE_DIR"] = cache_dir
    if args.workload == "gemm_w2":
        return run_gemm_w2(args)
    setting = common.setup(args, extra_env)
    try:
        try:
            import numpy as np
            import torch
        except Exception as exc:  # ImportError, or a broken install
            for impl in impls:
                common.emit({"workload": args.workload, "impl": impl, "skipped": "not installed",
                             "detail": "%s: %s" % (type(exc).__name__, exc)})
            return 0
        torch.set_num_threads(max(1, args.threads))
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:
            pass
        status = 0
        for impl in impls:
            env = common.base_env(impl, setting, {"torch": torch.__version__, "numpy": np.__version__})
            env["env"]["torch_threads"] = torch.get_num_threads()
            env["env"]["cpu_capability"] = torch.backends.cpu.get_cpu_capability()
            env["env"]["mkl"] = torch.backends.mkl.is_available()
            env["env"]["mkldnn"] = torch.backends.mkldnn.is_available()
            env["env"]["parallel_info"] = [l.strip() for l in torch.__config__.parallel_info().splitlines()
                                           if "OpenMP" in l or "MKL" in l or "threads" in l]
            if impl == COMPILE:
                env["env"]["TORCHINDUCTOR_CACHE_DIR"] = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
            common.emit(env)
            runs = {"W1": run_w1, "W2": run_w2, "W3": run_w3, "W4": run_w4, "W5": run_w5,
                    "W6": run_w6, "W7": run_w7}
            if args.workload not in runs:
                common.not_implemented(impl, args.workload)
                continue
            if impl == COMPILE:
                torch._dynamo.reset()
            try:
                runs[args.workload](args, torch, np, impl)
            except SystemExit:
                raise
            except Exception as exc:
                if impl != COMPILE:
                    raise
                # torch.compile needs a working C++ toolchain on the CPU;
                # say so instead of losing the other variant's results.
                common.emit({"workload": args.workload, "impl": impl,
                             "error": "torch.compile failed: %s: %s" % (type(exc).__name__,
                                                                       str(exc).splitlines()[0] if str(exc) else "")})
                status = 3
        return status
    finally:
        if cache_dir:
            shutil.rmtree(cache_dir, ignore_errors=True)


def maybe_compile(torch, impl, fn):
    return torch.compile(fn) if impl == COMPILE else fn


# ---------------------------------------------------------------- W1 ----

def run_w1(args, torch, np, impl):
    def f(x):
        return torch.sum(torch.tanh(x) * torch.sigmoid(x) + 0.5 * x * x)

    fc = maybe_compile(torch, impl, f)

    def value_and_grad(x):
        y = fc(x)
        (g,) = torch.autograd.grad(y, x)
        return y, g

    def value(x):
        with torch.no_grad():
            return fc(x)

    ref = common.load_check(args, "W1", common.W1_CHECK, impl)
    if ref is not None:
        v, g = value_and_grad(torch.from_numpy(ref["x"]).requires_grad_())
        common.check_w1(np, impl, ref, v.detach().numpy(), g.numpy())
        del v, g
    x = torch.from_numpy(ref["x"] if ref is not None else common.w1_input(np, args.smoke))
    x.requires_grad_()
    del ref
    common.reset_peak_rss()
    t = common.measure(lambda: value_and_grad(x), args)
    common.report("W1", impl, "value_and_grad", t, args,
                  extra={"note": "torch.autograd.grad of the %s function" % (
                      "compiled" if impl == COMPILE else "eager")})
    t = common.measure(lambda: value(x), args)
    common.report("W1", impl, "value", t, args)


# ---------------------------------------------------------------- W2 ----

def w2_model(torch, impl, host):
    import torch.nn.functional as F
    params = [torch.from_numpy(p.copy()).requires_grad_() for p in host[0]]
    x = torch.from_numpy(host[1])
    labels = torch.from_numpy(host[2]).long()  # cross_entropy wants int64 classes

    def loss_fn(x, labels):
        w1, b1, w2, b2, w3, b3 = params
        h1 = F.relu(x @ w1 + b1)
        h2 = F.relu(h1 @ w2 + b2)
        logits = h2 @ w3 + b3
        return F.cross_entropy(logits, labels)  # mean over the batch

    loss_c = maybe_compile(torch, impl, loss_fn)
    opt = torch.optim.SGD(params, lr=common.LR)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_c(x, labels)
        loss.backward()
        opt.step()
        return loss

    def loss_only():
        with torch.no_grad():
            return loss_c(x, labels)

    return params, step, loss_only


def run_w2(args, torch, np, impl):
    ref = common.load_check(args, "W2", common.W2_CHECK, impl)
    if ref is not None:
        host = [ref[n] for n in common.W2_NAMES], ref["x"], ref["labels"]
    else:
        host = common.w2_inputs(np, args.smoke)
    params, step, loss_only = w2_model(torch, impl, host)
    if ref is not None:
        loss = step()
        common.check_w2(np, impl, ref, loss.detach().numpy(), [p.detach().numpy() for p in params])
        with torch.no_grad():  # back to the initial weights
            for p, h in zip(params, host[0]):
                p.copy_(torch.from_numpy(h))
    del ref, host
    common.reset_peak_rss()
    t = common.measure(step, args)
    common.report("W2", impl, "value_and_grad", t, args,
                  extra={"note": "zero_grad + %sloss.backward() + torch.optim.SGD.step()" % (
                      "torch.compile'd " if impl == COMPILE else "")})
    t = common.measure(loss_only, args)
    common.report("W2", impl, "value", t, args)


def run_w7(args, torch, np, impl):
    """First call of W2's step in this fresh process (eager: first-use
    overheads only; compile: Dynamo trace + AOTAutograd + Inductor codegen
    and C++ compile of forward and backward, then the run)."""
    host = common.w2_inputs(np, args.smoke)
    # Loading modules is not compiling (JAX and TensorFlow load theirs at
    # import): torch.optim's first step imports Dynamo (about a second),
    # torch.compile's first call Inductor.
    import torch._dynamo  # noqa: F401
    if impl == COMPILE:
        import torch._inductor.compile_fx  # noqa: F401
    start = time.perf_counter()
    _, step, _ = w2_model(torch, impl, host)
    step()
    first_ms = (time.perf_counter() - start) * 1e3
    again = time.perf_counter()
    step()
    steady_ms = (time.perf_counter() - again) * 1e3
    common.report_first_call(impl, first_ms, steady_ms, args,
                             compile_ms=0.0 if impl == EAGER else None,
                             method="eager mode compiles nothing" if impl == EAGER else None,
                             extra={"note": "torch._dynamo%s imported before timing" % (
                                 " and torch._inductor" if impl == COMPILE else "")})


# ---------------------------------------------------------------- W3 ----

def run_w3(args, torch, np, impl):
    import torch.nn.functional as F

    def loss_fn(x, gamma, beta, c):
        # layer_norm's weight and bias are exactly "* gamma + beta".
        y = F.gelu(F.layer_norm(x, (x.shape[-1],), gamma, beta, common.W3_EPS), approximate="tanh")
        return torch.sum(y * c)

    fc = maybe_compile(torch, impl, loss_fn)

    def value_and_grad(x, gamma, beta, c):
        loss = fc(x, gamma, beta, c)
        return loss, torch.autograd.grad(loss, (x, gamma, beta))

    def value(*ins):
        with torch.no_grad():
            return fc(*ins)

    def tensors(arrays):
        ts = [torch.from_numpy(a) for a in arrays]
        for t in ts[:3]:
            t.requires_grad_()
        return ts

    ref = common.load_check(args, "W3", common.W3_CHECK, impl)
    if ref is not None:
        loss, (dx, dgamma, dbeta) = value_and_grad(*tensors([ref[n] for n in ("x", "gamma", "beta", "c")]))
        common.check_w3(np, impl, ref, loss.detach().numpy(), dx.numpy(), dgamma.numpy(), dbeta.numpy())
        del loss, dx, dgamma, dbeta
        host = [ref[n] for n in ("x", "gamma", "beta", "c")]
    else:
        host = list(common.w3_inputs(np, args.smoke))
    del ref
    ins = tensors(host)
    del host
    common.reset_peak_rss()
    t = common.measure(lambda: value_and_grad(*ins), args)
    common.report("W3", impl, "value_and_grad", t, args,
                  extra={"note": "F.layer_norm + F.gelu(approximate='tanh')"})
    t = common.measure(lambda: value(*ins), args)
    common.report("W3", impl, "value", t, args)


# ------------------------------------------------------------ W4, W5 ----
# PyTorch has no compiled loop construct: the loops are Python loops (eager,
# or unrolled by torch.compile), differentiated by autograd.

def run_gradients(args, torch, np, impl, workload, loss_fn, inputs, check_names, grad_names):
    """Check value_and_grad (the first len(grad_names) inputs) against
    adjit's, then time it and the value alone."""
    fc = maybe_compile(torch, impl, loss_fn)
    n = len(grad_names)

    def value_and_grad(*ins):
        loss = fc(*ins)
        return loss, torch.autograd.grad(loss, ins[:n])

    def value(*ins):
        with torch.no_grad():
            return fc(*ins)

    def tensors(arrays):
        ts = [torch.from_numpy(a) for a in arrays]
        for t in ts[:n]:
            t.requires_grad_()
        return ts

    ref = common.load_check(args, workload, check_names, impl)
    host = list(inputs(np, args.smoke))
    if ref is not None:
        host = [ref[name] for name in check_names[:len(host)]]
    ins = tensors(host)
    if ref is not None:
        loss, grads = value_and_grad(*ins)
        common.check_gradients(workload, np, impl, ref, loss.detach().numpy(),
                               {name: g.numpy() for name, g in zip(grad_names, grads)})
    del ref, host
    common.reset_peak_rss()
    t = common.measure(lambda: value_and_grad(*ins), args)
    common.report(workload, impl, "value_and_grad", t, args,
                  extra={"note": "a Python loop over the steps"})
    t = common.measure(lambda: value(*ins), args)
    common.report(workload, impl, "value", t, args)


def run_w4(args, torch, np, impl):
    if impl == COMPILE:  # torch.compile would unroll the 128 steps
        return common.not_implemented(impl, "W4")

    def loss_fn(wx, wh, b, xs):
        h = torch.zeros(xs.shape[1], wh.shape[0], dtype=xs.dtype)
        for x in xs:
            h = torch.tanh(x @ wx + h @ wh + b)
        return torch.sum(h * h)

    run_gradients(args, torch, np, impl, "W4", loss_fn, common.w4_inputs, common.W4_CHECK,
                  ["dwx", "dwh", "db"])


def run_w5(args, torch, np, impl):
    if impl == COMPILE:  # torch.compile would unroll the 1000 steps
        return common.not_implemented(impl, "W5")
    steps = common.sizes("W5", args.smoke)["steps"]

    def loss_fn(p0, k, v0):
        p, v = p0, v0
        zero = torch.zeros(1, dtype=p0.dtype)
        for _ in range(steps):
            t = k * (p[1:] - p[:-1] - 1.0)
            v = v + common.W5_DT * (torch.cat([t, zero]) - torch.cat([zero, t]))
            p = p + common.W5_DT * v
        return 0.5 * torch.sum(v * v)

    run_gradients(args, torch, np, impl, "W5", loss_fn, common.w5_inputs, common.W5_CHECK,
                  ["dp0", "dk"])


# ---------------------------------------------------------------- W6 ----

def run_w6(args, torch, np, impl):
    f = maybe_compile(torch, impl, lambda x: torch.sin(x) * 2 + 1)
    x_host = common.w6_input(np)
    x = torch.from_numpy(x_host)
    common.time_w6(impl, lambda: f(x), x_host, f(x).numpy(), args, np)


def run_gemm_w2(args):
    """A reference, not a peer: PyTorch's matmul (MKL's sgemm in PyTorch's
    wheels) on the five matmuls of W2's step, in the layouts adjit's
    compiled step gives its own GEMM kernels (adjit-bench --workload
    gemm_w2), on one thread as those are: a vendor GEMM that knows this CPU,
    beside adjit's, on the same shapes."""
    args.threads = 1
    common.setup(args)
    try:
        import torch
    except Exception as exc:  # ImportError, or a broken install
        common.emit({"workload": "gemm_w2", "impl": "reference", "library": "PyTorch's matmul",
                     "skipped": "not installed", "detail": "%s: %s" % (type(exc).__name__, exc)})
        return 0
    torch.set_num_threads(1)
    library = "PyTorch's matmul (MKL)" if torch.backends.mkl.is_available() else "PyTorch's matmul"
    s = common.sizes("W2", args.smoke)
    batch, inputs, hidden = s["batch"], s["in"], s["hidden"]
    # name, m, n, k, A read transposed, B read transposed, C accumulated
    # (the weight gradients are added onto the weights by the SGD update)
    contractions = [("x@w1", batch, hidden, inputs, False, False, False),
                    ("h1@w2", batch, hidden, hidden, False, False, False),
                    ("dy2@w2^T", batch, hidden, hidden, False, True, False),
                    ("h1^T@dy2", hidden, hidden, batch, True, False, True),
                    ("x^T@dh1", inputs, hidden, batch, True, False, True)]
    generator = torch.Generator().manual_seed(1)
    total_flops = total_ms = 0.0
    for name, m, n, k, a_transposed, b_transposed, accumulate in contractions:
        a = torch.randn(k, m, generator=generator).t() if a_transposed else torch.randn(m, k, generator=generator)
        b = torch.randn(n, k, generator=generator).t() if b_transposed else torch.randn(k, n, generator=generator)
        c = torch.zeros(m, n)
        expected = (a.double() @ b.double()).float()
        torch.matmul(a, b, out=c)
        if not torch.allclose(c, expected, rtol=1e-4, atol=1e-4 * k ** 0.5):
            common.emit({"workload": "gemm_w2", "impl": "reference", "library": library,
                         "variant": name, "error": "wrong product"})
            return 1
        step = (lambda: c.addmm_(a, b)) if accumulate else (lambda: torch.matmul(a, b, out=c))
        timing = common.measure(step, args)
        flops = 2.0 * m * n * k
        total_flops += flops
        total_ms += timing["median_ms"]
        common.report("gemm_w2", "reference", name, timing, args, library=library,
                      gflop_per_s=flops / (timing["median_ms"] * 1e-3) / 1e9)
    common.emit({"workload": "gemm_w2", "impl": "reference", "library": library, "variant": "all",
                 "median_ms": total_ms, "gflop_per_s": total_flops / (total_ms * 1e-3) / 1e9,
                 "threads": 1})
    return 0


if __name__ == "__main__":
    sys.exit(main())
