"""Shared plumbing of the peer benchmarks (jax_bench.py, tf_bench.py,
torch_bench.py, and the single-program comparisons conv_jax.py,
linalg_jax.py, transformer_jax.py): command line, thread settings, timing, peak RSS, .npy
input/output, the comparison against adjit's outputs, JSON lines.

The workloads themselves are DESIGN.md §6 and live in each peer script; this
module never imports a framework, so it must be set up (``setup``) before the
framework is imported: thread counts are read from the environment when a
framework's thread pools start.

Everything printed on stdout is one JSON object per line, the same contract
as adjit-bench. Sizes below must match bench/adjit_bench.cpp (including the
--smoke sizes) so that --check-dir can feed adjit's inputs to the peers.
"""

import argparse
import gc
import json
import math
import os
import platform
import resource
import struct
import sys
import time

# Workload sizes, full and --smoke, as in bench/adjit_bench.cpp.
SIZES = {
    "W1": {"full": {"n": 4194304}, "smoke": {"n": 4096}},
    "W2": {"full": {"batch": 256, "in": 784, "hidden": 1024, "classes": 10},
           "smoke": {"batch": 16, "in": 32, "hidden": 24, "classes": 10}},
    "W3": {"full": {"rows": 8192, "cols": 1024}, "smoke": {"rows": 16, "cols": 32}},
    "W4": {"full": {"steps": 128, "batch": 32, "input": 64, "hidden": 256},
           "smoke": {"steps": 8, "batch": 4, "input": 8, "hidden": 16}},
    "W5": {"full": {"masses": 1024, "steps": 1000}, "smoke": {"masses": 16, "steps": 20}},
    "W6": {"full": {"n": 16}, "smoke": {"n": 16}},
}
W7_USES = "W2"
LR = 0.01
W3_EPS = 1e-5
W5_DT = 0.01
KNOWN_WORKLOADS = ("W1", "W2", "W3", "W4", "W5", "W6", "W7")
# f32 tolerances of the comparison against adjit.
RTOL, ATOL = 1e-3, 1e-4


def sizes(workload, smoke):
    return dict(SIZES[workload]["smoke" if smoke else "full"])


# ------------------------------------------------------------ output ----

def _clean(value):
    """Non-finite floats are not JSON: write them as strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def emit(obj):
    sys.stdout.write(json.dumps(_clean(obj), allow_nan=False) + "\n")
    sys.stdout.flush()


# ------------------------------------------------------- command line ----

def parse_args(impl_choices=None, argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--workload", required=True,
                   help="W1 W2 W3 W4 W5 W6 W7")
    p.add_argument("--smoke", action="store_true", help="small sizes, one timed rep")
    p.add_argument("--reps", type=int, default=10, help="timed repetitions (at least 10)")
    p.add_argument("--check-dir", default=None,
                   help="compare with adjit's inputs/outputs there before timing")
    p.add_argument("--threads", type=int, default=1, help="compute threads (default 1)")
    p.add_argument("--no-pin", action="store_true",
                   help="do not restrict the CPU affinity to --threads CPUs")
    if impl_choices:
        p.add_argument("--impl", choices=impl_choices + ["all"], default="all",
                       help="which variant(s) to run (bench/run runs each in its own process)")
    return p.parse_args(argv)


# ------------------------------------------------------------ threads ----

def setup(args, extra_env=None):
    """Sets the thread environment before the framework is imported.

    Returns a dict describing what was set (part of the "env" line)."""
    n = max(1, args.threads)
    setting = {}
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(n)
        setting[var] = str(n)
    for var, value in (extra_env or {}).items():
        os.environ.setdefault(var, value)
        setting[var] = os.environ[var]
    # Restrict the process to `n` CPUs so that frameworks without a thread
    # knob (XLA's CPU client sizes its pool from the affinity mask) use no
    # more cores than adjit is given.
    pinned = None
    if not args.no_pin and hasattr(os, "sched_getaffinity"):
        cpus = sorted(os.sched_getaffinity(0))
        if n < len(cpus):
            try:
                os.sched_setaffinity(0, cpus[:n])
                pinned = cpus[:n]
            except OSError:
                pinned = None
    setting["affinity"] = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    setting["pinned"] = pinned is not None
    setting["threads"] = n
    return setting


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return line.split(":", 1)[1].split()
    except OSError:
        pass
    return []


def base_env(impl, setting, versions):
    flags = cpu_flags()
    return {
        "impl": impl,
        "env": {
            "python": platform.python_version(),
            "versions": versions,
            "cpu": cpu_model(),
            "cpus_online": os.cpu_count(),
            "avx512f": "avx512f" in flags,
            "threads": setting,
            "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY"),
            "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        },
    }


def skipped_not_installed(impl, workload, exc):
    emit({"workload": workload, "impl": impl, "skipped": "not installed",
          "detail": "%s: %s" % (type(exc).__name__, exc)})
    sys.exit(0)


def not_implemented(impl, workload):
    emit({"workload": workload, "impl": impl, "skipped": "not implemented"})


# ------------------------------------------------------------- timing ----

def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def reset_peak_rss():
    """Lowers the peak-RSS mark to the current RSS (Linux: clear_refs 5), so
    that the check against adjit, which holds a second copy of the outputs,
    does not count in the workload's peak. True when it worked."""
    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def measure(body, args, inner=1, finish=lambda: None):
    """Warm-up, then max(10, reps) timed runs (1 with --smoke) of `inner`
    calls of `body` and one of `finish`; `body`, or else `finish`, must block
    until the results exist. Returns a dict of milliseconds per call."""
    smoke = args.smoke
    reps = 1 if smoke else max(10, args.reps)
    for _ in range(1 if smoke else 2):
        body()
    finish()
    ms = []
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(inner):
            body()
        finish()
        ms.append((time.perf_counter() - start) * 1e3 / inner)
    ms.sort()
    return {"median_ms": ms[len(ms) // 2], "min_ms": ms[0], "max_ms": ms[-1], "reps": reps}


def report(workload, impl, variant, timing, args, **extra_fields):
    line = {"workload": workload, "impl": impl, "variant": variant}
    line.update(timing)
    line["peak_rss_mb"] = peak_rss_mb()
    line["threads"] = args.threads
    extra = extra_fields.pop("extra", None)
    line.update(extra_fields)
    if args.smoke:
        line["smoke"] = True
    if extra:
        line["extra"] = extra
    emit(line)


class FirstCall:
    """Times the first call of a step and a few after it (W7)."""

    def __init__(self):
        self.start = time.perf_counter()

    def stop(self):
        return (time.perf_counter() - self.start) * 1e3


def report_first_call(impl, first_ms, steady_ms, args, compile_ms=None, method=None,
                      extra=None):
    """W7: the first call of W2's step in this fresh process. compile_ms is
    the trace+compile part where the framework lets it be measured apart,
    else first call minus a steady-state call."""
    if compile_ms is None:
        compile_ms = max(0.0, first_ms - steady_ms)
        method = method or "first call minus steady-state call"
    line = {"workload": "W7", "impl": impl, "variant": "first_call",
            "median_ms": first_ms, "min_ms": first_ms, "max_ms": first_ms, "reps": 1,
            "compile_ms": compile_ms, "peak_rss_mb": peak_rss_mb(), "threads": args.threads}
    if args.smoke:
        line["smoke"] = True
    ex = {"steady_ms": steady_ms, "compile_ms_method": method or "measured apart"}
    ex.update(extra or {})
    line["extra"] = ex
    emit(line)


def smoke_on_one_core(description):
    """The command line of a single-program peer script (--smoke), with
    XLA pinned to one core (pin_to_one_core_for_xla). Before jax is
    imported."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    pin_to_one_core_for_xla()
    return args


def pin_to_one_core_for_xla():
    """One CPU thread for XLA, pinned to one core, as the C++ side's
    single-program benchmarks with ADJIT_NUM_THREADS=1. Before jax is
    imported."""
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                       "intra_op_parallelism_threads=1")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:1])


def time_calls(workload, impl, variant, reps, call, finish):
    """The first call of `call` (its compilation included) and the median
    of `reps` more, in milliseconds, as one JSON line: the format of the
    C++ side's bench/call_timing.h. `finish` blocks until a call's results
    exist (jax.block_until_ready)."""
    start = time.perf_counter()
    finish(call())
    first = (time.perf_counter() - start) * 1e3
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        finish(call())
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    emit({"workload": workload, "impl": impl, "variant": variant,
          "first_call_ms": round(first, 2),
          "median_ms": round(times[len(times) // 2], 3) if times else 0.0})


# ---------------------------------------------------------------- npy ----

_NPY_TYPES = {"<f4": ("f", 4), "<i4": ("i", 4), "<f8": ("d", 8), "<i8": ("q", 8),
              "|u1": ("B", 1), "|b1": ("?", 1)}


def read_npy(path):
    """NumPy .npy v1/v2/v3 reader that needs no NumPy: returns
    (descr, shape, raw little-endian bytes, C order)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError("%s: not a .npy file" % path)
    major = data[6]
    if major == 1:
        hlen = struct.unpack("<H", data[8:10])[0]
        start = 10
    else:
        hlen = struct.unpack("<I", data[8:12])[0]
        start = 12
    header = data[start:start + hlen].decode("latin1")
    import ast
    meta = ast.literal_eval(header)
    if meta.get("fortran_order"):
        raise ValueError("%s: Fortran order is not supported" % path)
    descr = meta["descr"]
    if descr not in _NPY_TYPES:
        raise ValueError("%s: dtype %s is not supported" % (path, descr))
    return descr, tuple(meta["shape"]), data[start + hlen:]


def load_npy(path):
    """The array in a .npy file, as a NumPy array."""
    import numpy as np
    descr, shape, raw = read_npy(path)
    return np.frombuffer(raw, dtype=np.dtype(descr), count=int(np.prod(shape, dtype=np.int64))
                         ).reshape(shape).copy()


def check_files(args, workload, names):
    """Paths of adjit's check files for `workload`, or None (and a JSON line
    saying why) when --check-dir was not given or they are missing."""
    if not args.check_dir:
        return None
    base = os.path.join(args.check_dir, workload)
    paths = {n: os.path.join(base, n + ".npy") for n in names}
    missing = [n for n, p in paths.items() if not os.path.exists(p)]
    if missing:
        return {"missing": missing, "dir": base}
    return paths


# -------------------------------------------------------------- check ----

class Check:
    """Collects comparisons of a peer's outputs with adjit's and prints one
    JSON line; a failing check makes the process exit with status 1."""

    def __init__(self, workload, impl):
        self.workload, self.impl = workload, impl
        self.items = {}
        self.ok = True

    def _record(self, name, ok, **fields):
        self.ok = self.ok and ok
        fields["ok"] = bool(ok)
        self.items[name] = {k: (v if isinstance(v, (bool, str)) else float(v))
                            for k, v in fields.items()}

    def allclose(self, name, got, want, rtol=RTOL, atol=ATOL):
        """Elementwise |got - want| <= atol + rtol |want|."""
        import numpy as np
        got = np.asarray(got, dtype=np.float64)
        want = np.asarray(want, dtype=np.float64)
        if got.shape != want.shape:
            self._record(name, False, error="shape %s vs adjit %s" % (got.shape, want.shape))
            return
        diff = np.abs(got - want)
        bound = atol + rtol * np.abs(want)
        ok = bool(np.all(diff <= bound)) and bool(np.all(np.isfinite(got)))
        self._record(name, ok, max_abs_err=float(diff.max()) if diff.size else 0.0,
                     worst_ratio=float((diff / bound).max()) if diff.size else 0.0,
                     how="elementwise rtol %g atol %g" % (rtol, atol))

    def norm_relative(self, name, got, want, tol=RTOL, scale=None, how=None):
        """||got - want|| <= tol * scale, scale = ||want|| unless given (for
        large reductions, where elementwise tolerances are meaningless)."""
        import numpy as np
        got = np.asarray(got, dtype=np.float64)
        want = np.asarray(want, dtype=np.float64)
        if got.shape != want.shape:
            self._record(name, False, error="shape %s vs adjit %s" % (got.shape, want.shape))
            return
        diff = got - want
        err = float(np.sqrt(np.sum(diff * diff)))
        if scale is None:
            scale = float(np.sqrt(np.sum(want * want)))
        scale = max(float(scale), 1e-30)
        rel = err / scale
        ok = rel <= tol and bool(np.all(np.isfinite(got)))
        self._record(name, ok, rel_err=rel, max_abs_err=float(np.abs(diff).max()) if diff.size else 0.0,
                     how=how or "norm-relative tol %g" % tol)

    def finish(self):
        worst = 0.0
        for item in self.items.values():
            worst = max(worst, item.get("max_abs_err", 0.0))
        emit({"workload": self.workload, "impl": self.impl, "check": "pass" if self.ok else "fail",
              "max_abs_err": worst, "detail": self.items})
        if not self.ok:
            sys.exit(1)


def report_missing_check(workload, impl, info):
    emit({"workload": workload, "impl": impl, "check": "skipped",
          "detail": "adjit's outputs are missing: %s in %s" % (", ".join(info["missing"]), info["dir"])})


# ------------------------------------------------------------- inputs ----
# Inputs for timing when no --check-dir is given; same distributions as
# adjit-bench (normal x, Glorot-uniform weights, zero biases, uniform labels).
# With --check-dir the peers time adjit's own inputs.

def w1_input(np, smoke, seed=1):
    n = sizes("W1", smoke)["n"]
    return np.random.default_rng(seed).standard_normal(n, dtype=np.float32)


def glorot(np, rng, fan_in, fan_out):
    """Glorot-uniform f32 weights, as adjit-bench makes them."""
    bound = math.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32)


def w2_inputs(np, smoke, seed=1):
    z = sizes("W2", smoke)
    rng = np.random.default_rng(seed)

    def layer(fan_in, fan_out):
        return glorot(np, rng, fan_in, fan_out)

    params = [layer(z["in"], z["hidden"]), np.zeros(z["hidden"], np.float32),
              layer(z["hidden"], z["hidden"]), np.zeros(z["hidden"], np.float32),
              layer(z["hidden"], z["classes"]), np.zeros(z["classes"], np.float32)]
    x = rng.standard_normal((z["batch"], z["in"]), dtype=np.float32)
    labels = rng.integers(0, z["classes"], z["batch"], dtype=np.int32)
    return params, x, labels


def w3_inputs(np, smoke, seed=1):
    z = sizes("W3", smoke)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((z["rows"], z["cols"]), dtype=np.float32)
    gamma = rng.standard_normal(z["cols"], dtype=np.float32)
    beta = rng.standard_normal(z["cols"], dtype=np.float32)
    c = rng.standard_normal((z["rows"], z["cols"]), dtype=np.float32)
    return x, gamma, beta, c


def w4_inputs(np, smoke, seed=1):
    z = sizes("W4", smoke)
    rng = np.random.default_rng(seed)
    wx = glorot(np, rng, z["input"], z["hidden"])
    wh = glorot(np, rng, z["hidden"], z["hidden"])
    b = rng.uniform(-0.1, 0.1, z["hidden"]).astype(np.float32)
    xs = rng.standard_normal((z["steps"], z["batch"], z["input"]), dtype=np.float32)
    return wx, wh, b, xs


def w5_inputs(np, smoke, seed=1):
    z = sizes("W5", smoke)
    rng = np.random.default_rng(seed)
    n = z["masses"]
    p0 = (np.arange(n) + 0.1 * rng.standard_normal(n)).astype(np.float32)
    k = rng.uniform(0.5, 1.5, n - 1).astype(np.float32)
    return p0, k, np.zeros(n, np.float32)


def w6_input(np, seed=1):
    return np.random.default_rng(seed).standard_normal(16, dtype=np.float32)


W2_NAMES = ["w1", "b1", "w2", "b2", "w3", "b3"]
W2_CHECK = W2_NAMES + ["x", "labels", "loss"] + [n + "_new" for n in W2_NAMES]
W1_CHECK = ["x", "value", "grad"]
W3_CHECK = ["x", "gamma", "beta", "c", "loss", "dx", "dgamma", "dbeta"]
W4_CHECK = ["wx", "wh", "b", "xs", "loss", "dwx", "dwh", "db"]
W5_CHECK = ["p0", "k", "v0", "loss", "dp0", "dk"]


def load_check(args, workload, names, impl):
    """adjit's arrays for the check, or None (after saying why)."""
    paths = check_files(args, workload, names)
    if paths is None:
        return None
    if "missing" in paths:
        report_missing_check(workload, impl, paths)
        return None
    return {n: load_npy(p) for n, p in paths.items()}


# ------------------------------------------------- shared comparisons ----

def w1_reference_terms(np, x):
    """Sum of |terms| of W1's value, in f64: the scale of the value check."""
    x = x.astype(np.float64)
    t = np.tanh(x)
    s = 1 / (1 + np.exp(-x))
    return float(np.sum(np.abs(t * s + 0.5 * x * x)))


def check_w1(np, impl, ref, value, grad):
    c = Check("W1", impl)
    scale = w1_reference_terms(np, ref["x"])
    c.norm_relative("value", np.asarray(value).reshape(()), ref["value"].reshape(()), tol=RTOL,
                    scale=scale, how="|err| <= 1e-3 * sum|terms|")
    c.allclose("grad", grad, ref["grad"])
    c.finish()


def check_w2(np, impl, ref, loss, new_params):
    c = Check("W2", impl)
    c.allclose("loss", np.asarray(loss).reshape(()), ref["loss"].reshape(()))
    for name, got in zip(W2_NAMES, new_params):
        want = ref[name + "_new"]
        c.allclose(name + "_new", got, want)
        # The update is lr * grad, small next to the weights: compare the
        # implied gradients too, relative to their norm, with a tolerance
        # that allows for the rounding of the stored f32 weights.
        old = ref[name].astype(np.float64)
        step_want = old - want.astype(np.float64)
        step_got = old - np.asarray(got, dtype=np.float64)
        norm = float(np.sqrt(np.sum(step_want ** 2)))
        rounding = float(np.sqrt(np.sum(np.spacing(np.abs(want).astype(np.float32)).astype(np.float64) ** 2)))
        tol = max(1e-2, 4 * rounding / max(norm, 1e-30))
        c.norm_relative(name + "_grad", step_got, step_want, tol=tol,
                        how="implied gradient (old - new)/lr, norm-relative tol %.3g" % tol)
    c.finish()


def w3_abs_terms(np, x, gamma, beta, c):
    """sum |y * c| in f64 (the scale of W3's loss check), a block of rows
    at a time to bound the memory."""
    total = 0.0
    g = gamma.astype(np.float64)
    b = beta.astype(np.float64)
    for start in range(0, x.shape[0], 1024):
        xs = x[start:start + 1024].astype(np.float64)
        centered = xs - xs.mean(axis=-1, keepdims=True)
        var = (centered * centered).mean(axis=-1, keepdims=True)
        z = centered / np.sqrt(var + W3_EPS) * g + b
        y = 0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z ** 3)))
        total += float(np.sum(np.abs(y * c[start:start + 1024])))
    return total


def check_w3(np, impl, ref, loss, dx, dgamma, dbeta):
    c = Check("W3", impl)
    abs_terms = w3_abs_terms(np, ref["x"], ref["gamma"], ref["beta"], ref["c"])
    c.norm_relative("loss", np.asarray(loss).reshape(()), ref["loss"].reshape(()), tol=RTOL,
                    scale=abs_terms, how="|err| <= 1e-3 * sum|y*c|")
    c.norm_relative("dx", dx, ref["dx"])
    c.norm_relative("dgamma", dgamma, ref["dgamma"])
    c.norm_relative("dbeta", dbeta, ref["dbeta"])
    c.finish()


def check_gradients(workload, np, impl, ref, loss, grads):
    """W4, W5: the loss and each named gradient against adjit's, norm-relative."""
    c = Check(workload, impl)
    c.norm_relative("loss", np.asarray(loss).reshape(()), ref["loss"].reshape(()))
    for name, got in grads.items():
        c.norm_relative(name, np.asarray(got), ref[name])
    c.finish()


def time_w6(impl, call, x_host, y_host, args, np, note=None):
    """W6: check y = sin(x)*2+1 on f32[16] (y_host), then time `call`, one
    synchronous call of the compiled function."""
    check_w6(np, impl, x_host, y_host)
    inner = 10 if args.smoke else 10000
    t = measure(call, args, inner=inner)
    extra = {"calls_per_rep": inner}
    if note:
        extra["note"] = note
    report("W6", impl, "call", t, args, median_us=t["median_ms"] * 1e3, extra=extra)


def check_w6(np, impl, x, y):
    c = Check("W6", impl)
    want = np.sin(x.astype(np.float64)) * 2 + 1
    c.allclose("y", y, want, rtol=1e-5, atol=1e-6)
    c.items["y"]["how"] += " (closed form)"
    c.finish()
