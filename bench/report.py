#!/usr/bin/env python3
"""Turns the JSON file written by bench/run into the tables of
docs/performance.md (Markdown, readable as plain text too).

    bench/report.py bench-results.json [--out table.md]

The input is {"meta": {...}, "records": [JSON lines of adjit-bench and the
peers], "runs": [one per process]}; a bare JSON-lines file works too.

Adding a workload (W4, W5, ...) to the table is one entry in WORKLOADS below
(its limit, if it has one); until some implementation reports it, its row
says "not yet".
"""

import argparse
import json
import math
import sys

MIB = 1024 * 1024

# Sizes of DESIGN.md §6 (full, --smoke), as in bench/adjit_bench.cpp.
W1_N = {False: 4194304, True: 4096}
W2_DIMS = {False: (256, 784, 1024, 10), True: (16, 32, 24, 10)}
W3_DIMS = {False: (8192, 1024), True: (16, 32)}


def w2_flops(batch, n_in, hidden, classes):
    """FLOPs of the matmuls of one W2 step (2 per multiply-add): the forward
    x@w1, h1@w2, h2@w3; the backward's weight gradients (one per layer) and
    input gradients (layers 2 and 3: x needs none)."""
    layers = [(n_in, hidden), (hidden, hidden), (hidden, classes)]
    forward = sum(2 * batch * i * o for i, o in layers)
    weight_grads = forward
    input_grads = sum(2 * batch * i * o for i, o in layers[1:])
    return forward + weight_grads + input_grads


def _triad_gbps(refs):
    """The faster of the triad's plain and nontemporal stores, best run."""
    r = refs.get("triad")
    return r.get("gb_per_s") if r else None


def limit_w1(refs, smoke):
    """Minimal traffic (read x, write dx: 2 x 16 MiB) over triad bandwidth
    (writes count once: nontemporal stores do not read a line first)."""
    bw = _triad_gbps(refs)
    if not bw:
        return None, "needs the triad reference"
    nbytes = 2 * 4 * W1_N[smoke]
    return nbytes / (bw * 1e9) * 1e3, "%.3g MiB / triad %.1f GB/s" % (nbytes / MIB, bw)


def limit_w2(refs, smoke):
    """Matmul FLOPs of a step over the measured f32 FMA peak (same threads):
    no f32 code can do its multiply-adds faster. OpenBLAS sgemm is only a
    reference (the references table), not a bound."""
    r = refs.get("fma_peak")
    if not r or not r.get("gflop_per_s"):
        return None, "needs the fma_peak reference"
    flops = w2_flops(*W2_DIMS[smoke])
    how = "%.3g GFLOP / FMA peak %.0f GFLOP/s (%s" % (flops / 1e9, r["gflop_per_s"],
                                                     r.get("variant", "?"))
    s = refs.get("sgemm")
    if s and s.get("gflop_per_s"):
        how += "; %s at OpenBLAS sgemm's %.0f GFLOP/s" % (
            fmt(flops / (s["gflop_per_s"] * 1e9) * 1e3, "ms"), s["gflop_per_s"])
    return flops / (r["gflop_per_s"] * 1e9) * 1e3, how + ")"


def limit_w3(refs, smoke):
    """Minimal traffic (read x and c, write dx) over triad bandwidth."""
    bw = _triad_gbps(refs)
    if not bw:
        return None, "needs the triad reference"
    rows, cols = W3_DIMS[smoke]
    nbytes = 3 * 4 * rows * cols
    return nbytes / (bw * 1e9) * 1e3, "%.3g MiB / triad %.1f GB/s" % (nbytes / MIB, bw)


def limit_w5(refs, smoke):
    """The hand-written C++ adjoint (bench/w5_adjoint.cpp), timed in the same
    run by adjit-bench's W5: what a careful programmer gets without AD."""
    r = refs.get("w5_adjoint")
    if not r:
        return None, "needs adjit-bench's W5 (it times the hand-written adjoint)"
    return r["median_ms"], "hand-written C++ adjoint (bench/w5_adjoint.cpp), same run"


# The rows of the table. unit: "ms" (median_ms) or "us" (median_us).
WORKLOADS = [
    {"name": "W1", "title": "fused elementwise value+grad", "unit": "ms", "limit": limit_w1},
    {"name": "W2", "title": "MLP train step", "unit": "ms", "limit": limit_w2},
    {"name": "W3", "title": "LayerNorm+GELU value+grad", "unit": "ms", "limit": limit_w3},
    {"name": "W4", "title": "RNN BPTT value+grad (scan)", "unit": "ms", "limit": None},
    {"name": "W5", "title": "spring chain value+grad, 1000 steps", "unit": "ms", "limit": limit_w5},
    {"name": "W6", "title": "dispatch, per call", "unit": "us", "limit": None},
    {"name": "W7", "title": "compile latency (first call)", "unit": "ms", "limit": None},
]
KNOWN_PEERS = ["jax", "tensorflow", "pytorch", "pytorch-compile"]
# The hardware references the limits are computed from (gb_per_s or
# gflop_per_s), and sgemm, shown beside them.
REFERENCE_NAMES = ("triad", "read", "fma_peak", "sgemm")
MAIN_VARIANTS = ("value_and_grad", "first_call", "call")


# -------------------------------------------------------------- input ----

def load(path):
    with open(path) as f:
        text = f.read()
    try:
        data = json.loads(text)
        if isinstance(data, dict) and "records" in data:
            return data
    except ValueError:
        pass
    records = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                records.append(json.loads(line))
            except ValueError:
                pass
    return {"meta": {}, "records": records, "runs": []}


class Results:
    def __init__(self, data):
        self.meta = data.get("meta", {})
        self.records = data.get("records", [])
        self.scaling = data.get("scaling", [])
        self.runs = data.get("runs", [])
        self.smoke = bool(self.meta.get("smoke")) or any(r.get("smoke") for r in self.records)
        self.refs = {}
        for r in self.records:
            if r.get("impl") == "reference" and r.get("workload") in REFERENCE_NAMES \
                    and isinstance(r.get("gb_per_s", r.get("gflop_per_s")), (int, float)):
                self.refs[r["workload"]] = r
        self.handfused = next((r for r in self.records if r.get("impl") == "reference"
                               and r.get("workload") == "W1" and "median_ms" in r), None)
        w5 = next((r for r in self.records if r.get("impl") == "reference"
                   and r.get("workload") == "W5" and "median_ms" in r), None)
        if w5:
            self.refs["w5_adjoint"] = w5

    def impls(self):
        seen = [r.get("impl") for r in self.records if r.get("impl")]
        peers = [p for p in KNOWN_PEERS if p in seen or p in self.meta.get("peers", [])]
        peers += sorted({p for p in seen if p not in peers and p not in ("adjit", "reference")})
        return peers

    def find(self, workload, impl, pred):
        hits = [r for r in self.records
                if r.get("workload") == workload and r.get("impl") == impl and pred(r)]
        return hits[-1] if hits else None

    def timing(self, workload, impl, variant=None):
        def main(r):
            if "median_ms" not in r:
                return False
            if variant is not None:
                return r.get("variant") == variant
            return r.get("variant") != "value"
        hits = [r for r in self.records
                if r.get("workload") == workload and r.get("impl") == impl and main(r)]
        if not hits:
            return None
        if variant is None:
            for v in MAIN_VARIANTS:
                for r in reversed(hits):
                    if r.get("variant") == v:
                        return r
        return hits[-1]

    def status(self, workload, impl):
        """(value or None, text): the cell of `impl` in `workload`'s row."""
        fail = self.find(workload, impl, lambda r: r.get("check") == "fail")
        if fail:
            return None, "check FAIL"
        err = self.find(workload, impl, lambda r: "error" in r)
        rec = self.timing(workload, impl)
        if rec:
            return rec, None
        if err:
            return None, "error"
        skip = self.find(workload, impl, lambda r: "skipped" in r)
        if skip:
            return None, "not yet" if skip["skipped"] == "not implemented" else skip["skipped"]
        selected = self.meta.get("workloads")
        if selected and workload not in selected:
            return None, "not run"
        return None, "—"


def value_of(rec, unit):
    if rec is None:
        return None
    if unit == "us":
        return rec.get("median_us", rec["median_ms"] * 1e3)
    return rec["median_ms"]


def fmt(v, unit=""):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "—"
    a = abs(v)
    if a >= 1000:
        s = "%.0f" % v
    elif a >= 100:
        s = "%.0f" % v
    elif a >= 10:
        s = "%.1f" % v
    elif a >= 1:
        s = "%.2f" % v
    else:
        s = "%.3g" % v
    return s + (" " + unit if unit else "")


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "—"
    r = a / b
    if r >= 100:
        return "%.0f" % r
    return "%.2f" % r if r >= 0.1 else "%.2g" % r


def table(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    for row in rows:
        out.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(out)


# ------------------------------------------------------------- report ----

def render(res):
    peers = res.impls()
    out = []
    title = "adjit benchmarks" + (" (SMOKE sizes: not for comparison)" if res.smoke else "")
    out.append("### " + title)
    out.append("")

    # Main table.
    header = ["workload", "adjit", "limit", "adjit/limit"]
    for p in peers:
        header += [p, "adjit/" + p]
    rows = []
    limit_notes = []
    for w in WORKLOADS:
        unit = "µs" if w["unit"] == "us" else "ms"
        rec, text = res.status(w["name"], "adjit")
        adjit = value_of(rec, w["unit"])
        row = ["%s %s" % (w["name"], w["title"]), fmt(adjit, unit) if rec else text]
        lim = None
        if w["limit"]:
            lim, how = w["limit"](res.refs, res.smoke)
            limit_notes.append("%s: %s" % (w["name"], how))
        row += [fmt(lim, unit) if lim is not None else "—", ratio(adjit, lim)]
        for p in peers:
            prec, ptext = res.status(w["name"], p)
            pv = value_of(prec, w["unit"])
            row += [fmt(pv, unit) if prec else ptext, ratio(adjit, pv)]
        rows.append(row)
    out.append(table(header, rows))
    out.append("")
    rounds = res.meta.get("first_call_rounds") or 1
    fresh = ("the median of %d fresh processes" % rounds) if rounds > 1 else "in a fresh process"
    out.append("Medians of %s timed runs after warm-up. adjit/limit: how far adjit is from the "
               "hardware bound (1.0 = at the bound). adjit/PEER: adjit's time over the peer's "
               "(below 1 = adjit faster). W7 is the first call of W2's step, %s (W6's compile "
               "too)." % (">= 10" if not res.smoke else "1", fresh))
    if limit_notes:
        out.append("Limits: " + "; ".join(limit_notes) + ".")
    out.append("")

    # Forward only.
    rows = []
    for w in WORKLOADS:
        if not any(res.timing(w["name"], i, "value") for i in ["adjit"] + peers):
            continue
        a = res.timing(w["name"], "adjit", "value")
        row = [w["name"], fmt(value_of(a, "ms"), "ms") if a else "—"]
        for p in peers:
            r = res.timing(w["name"], p, "value")
            row += [fmt(value_of(r, "ms"), "ms") if r else "—",
                    ratio(value_of(a, "ms"), value_of(r, "ms"))]
        rows.append(row)
    if rows:
        header = ["forward only (value)", "adjit"]
        for p in peers:
            header += [p, "adjit/" + p]
        out.append(table(header, rows))
        out.append("")

    out.extend(render_scaling(res))

    # W7 detail, peak memory, checks.
    rows = []
    for workload, impl, variant, label in [
            ("W7", "adjit", None, "adjit"),
            ("W7", "adjit", "first_call_warm_cache", "adjit, second process, warm on-disk cache")] + \
            [("W7", p, None, p) for p in peers] + \
            [("W6", "adjit", "compile", "adjit, W6's sin(x)*2+1 on f32[16]")]:
        r = res.timing(workload, impl, variant)
        if r:
            steady = (r.get("extra") or {}).get("steady_ms")
            rounds = r.get("rounds_ms")
            rows.append([label, fmt(r["median_ms"], "ms"), fmt(r.get("compile_ms"), "ms"),
                         fmt(steady, "ms") if steady is not None else "—",
                         ", ".join(("%.0f" if v >= 100 else "%.3g") % v for v in rounds)
                         if rounds else "—"])
    if rows:
        out.append(table(["W7", "first call", "compile part", "next call",
                          "each process (ms)"], rows))
        out.append("")

    # One cell per workload and implementation, rows with any value only.
    def per_workload(title, cell, note):
        rows = []
        for w in WORKLOADS:
            cells = [cell(w["name"], impl) for impl in ["adjit"] + peers]
            if any(c != "—" for c in cells):
                rows.append([w["name"]] + cells)
        if rows:
            out.append(table([title, "adjit"] + peers, rows))
            out.append(note)
            out.append("")

    def peak_rss(name, impl):
        r = res.timing(name, impl)
        return fmt(r.get("peak_rss_mb"), "MB") if r and r.get("peak_rss_mb") else "—"

    def peak_temporaries(name, impl):
        r = res.find(name, impl, lambda r: r.get("variant") == "memory")
        return fmt(r["peak_temp_bytes"] / 2**20, "MiB") if r else "—"

    def check(name, impl):
        r = res.find(name, impl, lambda r: "check" in r)
        return r["check"] if r else "—"

    per_workload("peak RSS", peak_rss,
                 "Peak resident memory of the whole process (framework included); the peers' "
                 "excludes the check against adjit (reset after it).")
    per_workload("peak temporaries", peak_temporaries,
                 "The most bytes of a step's temporary buffers live at once: adjit's "
                 "MemoryPlan::peak_bytes, JAX's compiled memory_analysis().temp_size_in_bytes "
                 "(W2's step with its parameters donated, as timed).")
    per_workload("gradient check", check,
                 "adjit checks its own gradients (closed form, finite differences); each peer "
                 "compares its gradients/updated weights with adjit's on adjit's inputs.")

    # References.
    rows = []
    for name, what in (("triad", "triad bandwidth (a = b + s c, 3 x %g MiB"),
                       ("read", "read bandwidth (sum, %g MiB")):
        r = res.refs.get(name)
        if not r:
            continue
        streams = 3 if name == "triad" else 1
        what = what % round(r.get("bytes", 0) / streams / MIB)
        variants = r.get("variants_gb_per_s") or {}
        stores = "".join("; %s stores %.1f GB/s" % kv for kv in variants.items()
                         if len(variants) > 1)
        threads = r.get("threads", 1)
        rows.append(["%s, %s thread%s%s)" % (what, threads, "" if threads == 1 else "s", stores),
                     "%.1f GB/s" % r["gb_per_s"]])
    f = res.refs.get("fma_peak")
    if f:
        others = "".join("; %s %.0f GFLOP/s" % kv for kv in (f.get("variants_gflop_per_s") or {}).items()
                         if kv[0] != f.get("variant"))
        threads = f.get("threads", "?")
        rows.append(["f32 FMA peak, %s thread%s (%s%s)" % (
            threads, "" if threads == 1 else "s", f.get("variant", "?"), others),
                     "%.0f GFLOP/s" % f["gflop_per_s"]])
    else:
        sk = next((x for x in res.records if x.get("workload") == "fma_peak" and "error" in x), None)
        if sk:
            rows.append(["f32 FMA peak", "error"])
    s = res.refs.get("sgemm")
    if s:
        share = " (%.0f%% of FMA peak)" % (100 * s["gflop_per_s"] / f["gflop_per_s"]) \
            if f and f.get("gflop_per_s") else ""
        rows.append(["OpenBLAS sgemm 1024³" + share, "%.0f GFLOP/s" % s["gflop_per_s"]])
    else:
        sk = next((x for x in res.records if x.get("workload") == "sgemm"
                   and ("skipped" in x or "error" in x)), None)
        if sk:
            rows.append(["OpenBLAS sgemm", sk.get("skipped") or "error"])
    for g in (x for x in res.records if x.get("workload") == "gemm_w2"
              and x.get("variant") == "all" and "gflop_per_s" in x):
        share = " (%.0f%% of FMA peak)" % (100 * g["gflop_per_s"] / f["gflop_per_s"]) \
            if f and f.get("gflop_per_s") and f.get("threads") == 1 else ""
        who = g.get("library", "adjit's GEMM kernels")
        rows.append(["%s on W2's 5 matmuls, 1 thread%s" % (who, share),
                     "%.0f GFLOP/s" % g["gflop_per_s"]])
    if res.handfused:
        a = res.timing("W1", "adjit")
        rows.append(["hand-fused C++ W1 (adjit/hand-fused: %s)" % ratio(value_of(a, "ms"), res.handfused["median_ms"]),
                     fmt(res.handfused["median_ms"], "ms")])
    if rows:
        out.append(table(["reference", "measured"], rows))
        out.append("")

    # Environment.
    out.append(render_env(res, peers))

    # Problems.
    problems = []
    errors = {}  # the same error of one implementation in several workloads: one line
    for r in res.records:
        if "error" in r:
            errors.setdefault((r.get("impl"), r["error"]), []).append(str(r.get("workload")))
    for (impl, error), where in errors.items():
        problems.append("%s %s: %s" % (impl, ", ".join(where), error))
    for r in res.records:
        if r.get("check") == "fail":
            problems.append("%s %s: check failed: %s" % (r.get("impl"), r.get("workload"),
                                                          _short(r.get("detail"))))
    threads = res.meta.get("threads")
    for r in res.records:
        if r.get("impl") == "adjit" and "threads" in r and threads is not None and r["threads"] != threads:
            problems.append("adjit %s ran with %s threads, %s requested" % (r.get("workload"), r["threads"], threads))
            break
    if problems:
        out.append("")
        out.append("Problems:")
        out.extend("- " + p for p in problems)
    return "\n".join(out) + "\n"


def median(values):
    ordered = sorted(values)
    n = len(ordered)
    return None if n == 0 else (ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2)


def render_scaling(res):
    """The --scaling table: adjit on 1 and N threads, timed in alternate
    processes; the speedup is the median of each round's ratio."""
    times = {}  # (workload, variant) -> {threads: {round: median_ms}}
    for r in res.scaling:
        if "median_ms" not in r or r.get("variant") not in ("value_and_grad", "value"):
            continue
        per = times.setdefault((r["workload"], r["variant"]), {})
        per.setdefault(r["scaling_threads"], {})[r["scaling_round"]] = r["median_ms"]
    counts = sorted({t for per in times.values() for t in per})
    if len(counts) != 2:
        return []
    one, many = counts
    rows = []
    for w in WORKLOADS:
        for variant, label in [("value_and_grad", "value+grad"), ("value", "value")]:
            per = times.get((w["name"], variant))
            if not per or one not in per or many not in per:
                continue
            rounds = sorted(set(per[one]) & set(per[many]))
            speedups = [per[one][k] / per[many][k] for k in rounds]
            rows.append(["%s %s" % (w["name"], label), fmt(median(per[one].values()), "ms"),
                         fmt(median(per[many].values()), "ms"),
                         "%.2f" % median(speedups) if speedups else "—",
                         ", ".join("%.2f" % x for x in speedups)])
    if not rows:
        return []
    return [table(["adjit, %d vs %d threads" % (many, one), "%d thread" % one,
                   "%d threads" % many, "speedup", "each round"], rows),
            "%d and %d threads timed in alternate processes (the order swapped every round), "
            "%d rounds: medians of each process's median; the speedup is the median of the "
            "rounds' ratios." % (one, many, len({r["scaling_round"] for r in res.scaling})), ""]


def _short(detail, limit=300):
    if isinstance(detail, dict):
        bad = {k: v for k, v in detail.items() if isinstance(v, dict) and not v.get("ok", True)}
        detail = json.dumps(bad or detail)
    s = str(detail)
    return s if len(s) <= limit else s[:limit] + "..."


def render_env(res, peers):
    m = res.meta
    lines = ["Environment:"]
    cpu = m.get("cpu")
    if cpu:
        lines.append("- CPU: %s, %s logical CPUs%s%s" % (
            cpu, m.get("cpus_online", "?"), ", AVX-512" if m.get("avx512f") else "",
            ", LLVM host CPU %s (what adjit tunes for)" % m["llvm_host_cpu"] if m.get("llvm_host_cpu") else ""))
    if m.get("date"):
        lines.append("- date: %s" % m["date"])
    if m.get("threads") is not None:
        lines.append("- threads: %s per implementation%s" % (
            m["threads"], " (peers pinned to %s CPU(s))" % m["threads"] if m.get("pin", True) else ""))
    if m.get("kernel"):
        lines.append("- kernel: %s, glibc %s" % (m["kernel"], m.get("glibc", "?")))
    child = m.get("child_env") or {}
    if child:
        lines.append("- environment of every run: " + ", ".join("%s=%s" % kv for kv in sorted(child.items())))
    if m.get("adjit_commit"):
        lines.append("- adjit: %s%s" % (m["adjit_commit"], " (with local changes)" if m.get("adjit_dirty") else ""))
    envs = {}
    for r in res.records:
        if "env" in r and r.get("impl"):
            envs.setdefault(r["impl"], r["env"])
    for impl in peers:
        e = envs.get(impl)
        if not e:
            continue
        versions = ", ".join("%s %s" % kv for kv in e.get("versions", {}).items())
        extra = []
        if e.get("OMP_WAIT_POLICY"):
            extra.append("OMP_WAIT_POLICY=%s" % e["OMP_WAIT_POLICY"])
        if "torch_threads" in e:
            extra.append("torch threads %s" % e["torch_threads"])
        if "intra_op_threads" in e:
            extra.append("intra/inter-op threads %s/%s" % (e["intra_op_threads"], e["inter_op_threads"]))
        if e.get("cpu_capability"):
            extra.append("CPU capability %s" % e["cpu_capability"])
        lines.append("- %s: python %s, %s%s" % (impl, e.get("python", "?"), versions,
                                                 ("; " + ", ".join(extra)) if extra else ""))
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description="Print the tables of a bench/run result file.")
    p.add_argument("results", nargs="?", default="bench-results.json")
    p.add_argument("--out", help="also write the Markdown to this file")
    a = p.parse_args(argv)
    text = render(Results(load(a.results)))
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
