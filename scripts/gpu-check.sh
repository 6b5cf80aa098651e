#!/usr/bin/env bash
# Every GPU check in one run, for a machine with an NVIDIA GPU (GPU time is
# scarce: one call does everything): the GPU's measured ceilings (copy
# bandwidth, matrix throughput through PyTorch where it is installed), the
# GPU tests one test case at a time (each op, its gradients in both modes,
# tape, custom gradients, check_grads against the CPU), then the GPU
# benchmarks (W1-W3 on the GPU, JAX on the same GPU as the reference), and
# one JSON summary on the last line.
#   scripts/gpu-check.sh                 build here (needs the dev packages)
#   scripts/gpu-check.sh --bundle DIR    run what scripts/gpu-bundle.sh packed
#   ... --baseline LIBDIR                also time the benchmarks with the
#                                        libadjit.so in LIBDIR (a before/after
#                                        in the same run, alternated); a
#                                        bundle made with --baseline COMMIT
#                                        brings its own
# Results go to $OUT (or ./gpu-check-out): check.log (all of this output),
# gpu-tests.log, bench.jsonl, summary.json and, when a test failed,
# dumps.tar.xz (every stage's IR of every compiled function, PTX included).
# GPU_CHECK_SECONDS (default 420) bounds the whole run: each step gets what
# is left, so a hang still leaves the logs and the summary.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-check-out}
mkdir -p "$out"
exec > >(tee "$out/check.log") 2>&1
deadline=$(( $(date +%s) + ${GPU_CHECK_SECONDS:-420} ))
# A step's timeout: at most $1 seconds, and never past the deadline less
# 15 s for the summary.
budget() {
  local left=$(( deadline - 15 - $(date +%s) ))
  (( left < 1 )) && left=1
  echo $(( $1 < left ? $1 : left ))
}
work=$(mktemp -d)

bundle="" baseline=""
while (( $# )); do
  case "$1" in
    --bundle) bundle=$(cd "$2" && pwd); shift 2 ;;
    --baseline) baseline=$(cd "$2" && pwd); shift 2 ;;
    *) echo "usage: $0 [--bundle DIR] [--baseline LIBDIR]"; exit 2 ;;
  esac
done
if [[ -n "$bundle" ]]; then
  xz -dc "$bundle/libs.tar.xz" | tar -C "$work" -xf -
  export LD_LIBRARY_PATH="$work/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  [[ -d "$work/libs/cuda" && -z "${CUDA_HOME:-}" && ! -x "$(command -v ptxas)" ]] &&
    export CUDA_HOME="$work/libs/cuda"
  tests="$bundle/bin/adjit-gpu-tests"
  bench="$bundle/bin/adjit-bench"
  if [[ -z "$baseline" && -f "$bundle/baseline-libadjit.so.xz" ]]; then
    baseline="$work/baseline"
    mkdir -p "$baseline"
    xz -dc "$bundle/baseline-libadjit.so.xz" > "$baseline/libadjit.so"
    echo "baseline: libadjit.so of $(cat "$bundle/baseline-commit" 2>/dev/null || echo '?')"
  fi
else
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    ninja -C build adjit-gpu-tests adjit-bench || exit 1
  tests=build/tests/adjit-gpu-tests
  bench=build/bench/adjit-bench
fi

gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
        --format=csv,noheader 2>&1 | head -1)
echo "GPU: $gpu"
echo "ptxas: $(command -v ptxas || echo none) CUDA_HOME=${CUDA_HOME:-unset} $(nproc) CPUs"
missing=$(ldd "$tests" "$bench" 2>&1 | grep "not found" | sort -u)
[[ -n "$missing" ]] && echo "missing libraries: $missing"

: > "$out/bench.jsonl"
# The hardware's ceilings, measured by a library (not by adjit's own code).
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  timeout "$(budget 90)" python3 bench/peers/gpu_ceilings.py 2>&1 | tee -a "$out/bench.jsonl"
fi
# One adjit-bench workload on the GPU, its lines labelled IMPL, appended to
# bench.jsonl, with the environment given after it (VAR=value ...).
gpu_bench() {  # IMPL SECONDS WORKLOAD [VAR=value ...]
  local impl=$1 seconds=$2 workload=$3
  shift 3
  env "$@" timeout "$(budget "$seconds")" "$bench" --workload "$workload" --device cuda \
    --reps 20 2>&1 | sed "s/\"impl\":\"adjit\"/\"impl\":\"$impl\"/" | tee -a "$out/bench.jsonl"
}
gpu_bench adjit 60 gpu_bandwidth

# One process per test case: a crash or a poisoned CUDA context stays in its
# case. The IR of every stage is kept for the failures' diagnosis.
export ADJIT_DUMP_DIR="$work/dumps"
mkdir -p "$ADJIT_DUMP_DIR" "$work/junit"
: > "$out/gpu-tests.log"
start=$(date +%s)
tests_status=0
case_number=0
while IFS= read -r name; do
  [[ -z "$name" ]] && continue
  case_number=$((case_number + 1))
  echo "=== $name" >> "$out/gpu-tests.log"
  timeout "$(budget 120)" "$tests" "${name//,/\\,}" -r junit \
    -o "$work/junit/case-$case_number.xml" >> "$out/gpu-tests.log" 2>&1
  status=$?
  echo "=== exit status $status after $(( $(date +%s) - start )) s" >> "$out/gpu-tests.log"
  if (( status != 0 )); then
    tests_status=$status
    echo "FAILED ($status): $name"
    # A crash leaves no report: say so in one.
    [[ -s "$work/junit/case-$case_number.xml" ]] ||
      printf '<testsuite tests="1" failures="0" errors="1"><testcase name="%s"><error message="exit status %s (crash or timeout)"/></testcase></testsuite>\n' \
        "$name" "$status" > "$work/junit/case-$case_number.xml"
  fi
done < <("$tests" --list-test-names-only)
unset ADJIT_DUMP_DIR
tests_seconds=$(( $(date +%s) - start ))
grep -E "^(===|All tests|test cases)" "$out/gpu-tests.log" | tail -40
if (( tests_status != 0 )); then
  tar -C "$work" -cf - dumps | xz -T0 -6 > "$work/dumps.tar.xz"
  (( $(stat -c %s "$work/dumps.tar.xz") < 16000000 )) && cp "$work/dumps.tar.xz" "$out/"
fi

for workload in W1 W2 W3; do
  [[ -n "$baseline" ]] &&
    gpu_bench adjit-baseline 90 "$workload" LD_LIBRARY_PATH="$baseline:$LD_LIBRARY_PATH"
  gpu_bench adjit 90 "$workload"
done
[[ -n "$baseline" ]] &&
  gpu_bench adjit-baseline 60 gpu_bandwidth LD_LIBRARY_PATH="$baseline:$LD_LIBRARY_PATH"
# W2 with TF32 tensor cores for its products (JAX's default precision).
gpu_bench adjit-tf32 90 W2 ADJIT_GPU_MATMUL=tf32
# W3's row group with fewer threads per block than its default 256: more
# rows in flight per multiprocessor. (Half and twice its 1024 blocks were
# within 8% of it on the H200, session 35.)
for threads in 64 128; do
  gpu_bench "adjit-threads$threads" 90 W3 ADJIT_GPU_ROW_THREADS=$threads
done
# The same workloads in JAX on the same GPU: the reference measured in the
# same run.
if JAX_PLATFORMS=cuda timeout "$(budget 60)" python3 -c "import jax; jax.devices('gpu')" \
     >/dev/null 2>&1; then
  for workload in W1 W2 W3; do
    JAX_PLATFORMS=cuda timeout "$(budget 90)" python3 bench/peers/jax_bench.py \
      --workload "$workload" --reps 20 --no-pin 2>/dev/null | grep '"median_ms"' |
      tee -a "$out/bench.jsonl"
  done
fi

python3 - "$out" "$work/junit" "$tests_status" "$tests_seconds" "$gpu" <<'PY'
import glob, json, sys, xml.etree.ElementTree as ET
out, junit, status, seconds, gpu = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
summary = {"gpu": gpu, "tests_exit_status": status, "tests_seconds": seconds}
totals = {"tests": 0, "failures": 0, "errors": 0}
failed = []
for path in sorted(glob.glob(f"{junit}/*.xml")):
    try:
        root = ET.parse(path).getroot()
    except Exception as error:
        failed.append(f"{path}: unreadable report ({error})")
        continue
    for suite in root.iter("testsuite"):
        for key in totals:
            totals[key] += int(suite.get(key, 0))
        for case in suite.iter("testcase"):
            for bad in list(case.iter("failure")) + list(case.iter("error")):
                failed.append(case.get("name") + ": " + (bad.get("message") or "") + " " +
                              (bad.text or "").strip()[:400])
summary.update(totals)
summary["failed_tests"] = failed[:25]
for line in failed[:25]:
    print("FAILED:", line, file=sys.stderr)
bench = {}
for line in open(f"{out}/bench.jsonl"):
    line = line.strip()
    if not line.startswith("{"):
        continue
    try:
        record = json.loads(line)
    except ValueError:
        continue
    if "workload" not in record:
        continue
    impl = "" if record.get("impl", "adjit") == "adjit" else record["impl"] + ":"
    key = impl + record["workload"] + ":" + record.get("variant", record.get("check", ""))
    bench[key] = record
fields = ("median_ms", "min_ms", "gb_per_s", "tflops", "check", "detail", "error", "skipped")
summary["bench"] = {k: {f: v[f] for f in fields if f in v} for k, v in bench.items()}
# The traffic limits use the hardware's copy bandwidth where a library
# measured it, else adjit's own copy kernel's (then say so).
copy = bench.get("torch:gpu_bandwidth:copy", {}).get("gb_per_s")
ours = bench.get("gpu_bandwidth:2x", {}).get("gb_per_s")
bandwidth = copy or ours
summary["bandwidth_gb_per_s"] = bandwidth
summary["bandwidth_source"] = "torch copy" if copy else "adjit 2x kernel"
if copy and ours:
    summary["adjit_2x_kernel_share_of_copy_bandwidth"] = ours / copy
if bandwidth:
    # Minimum traffic of each workload's value_and_grad in bytes.
    traffic = {"W1": 2 * 4194304 * 4, "W3": 3 * 8192 * 1024 * 4}
    # A call waited for alone (its latency), and calls back to back (the
    # GPU's throughput, dispatch overlapping the kernels).
    for workload, nbytes in traffic.items():
        limit_ms = nbytes / (bandwidth * 1e9) * 1e3
        summary[workload + "_traffic_limit_ms"] = limit_ms
        for variant, label in (("value_and_grad", ""), ("value_and_grad_pipelined", "_pipelined")):
            record = bench.get(workload + ":" + variant)
            if record and "min_ms" in record:
                summary[workload + label + "_times_limit"] = record["min_ms"] / limit_ms
                summary[workload + label + "_share_of_bandwidth"] = limit_ms / record["min_ms"]
for workload, variant in (("W1", ""), ("W2", ""), ("W3", ""), ("W1", "_pipelined"),
                          ("W3", "_pipelined")):
    key = workload + ":value_and_grad" + variant
    ours_w, jax = bench.get(key), bench.get("jax:" + key)
    if ours_w and jax and "median_ms" in ours_w and "median_ms" in jax:
        summary[workload + variant + "_adjit_over_jax"] = ours_w["median_ms"] / jax["median_ms"]
tf32, jax_w2 = bench.get("adjit-tf32:W2:value_and_grad"), bench.get("jax:W2:value_and_grad")
if tf32 and jax_w2 and "median_ms" in tf32:
    summary["W2_tf32_adjit_over_jax"] = tf32["median_ms"] / jax_w2["median_ms"]
for threads in (64, 128):
    for variant, label in (("value_and_grad", ""), ("value", "_value")):
        record = bench.get(f"adjit-threads{threads}:W3:{variant}")
        default = bench.get(f"W3:{variant}")
        if record and default and "median_ms" in record and "median_ms" in default:
            summary[f"W3{label}_{threads}_row_threads_over_256"] = (
                record["median_ms"] / default["median_ms"])
for key, record in bench.items():
    if key.startswith("adjit-baseline:") and "median_ms" in record:
        now = bench.get(key[len("adjit-baseline:"):])
        if now and "median_ms" in now:
            summary.setdefault("over_baseline", {})[key[len("adjit-baseline:"):]] = (
                now["median_ms"] / record["median_ms"])
w2 = bench.get("W2:value_and_grad")
if w2 and "min_ms" in w2:
    summary["W2_tflops_f32"] = 2.448e9 / (w2["min_ms"] * 1e-3) / 1e12
    # W2's tensor-core limit: its 2.448 GFLOP at the tf32 rate a library
    # reaches on a large product.
    tc = bench.get("torch:gpu_matmul:tf32_8192", {}).get("tflops")
    if tc:
        summary["W2_tensor_core_limit_ms"] = 2.448e9 / (tc * 1e12) * 1e3
        for label, record in (("f32", w2), ("tf32", tf32)):
            if record and "min_ms" in record:
                summary[f"W2_{label}_times_tensor_core_limit"] = (
                    record["min_ms"] / summary["W2_tensor_core_limit_ms"])
print(json.dumps(summary))
json.dump(summary, open(f"{out}/summary.json", "w"), indent=1)
PY
