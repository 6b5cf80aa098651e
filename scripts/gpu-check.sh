#!/usr/bin/env bash
# Every GPU check in one run, for a machine with an NVIDIA GPU (GPU time is
# scarce: one call does everything): the GPU tests (each op, its gradients in
# both modes, tape, custom gradients, check_grads against the CPU), then the
# GPU benchmarks (W1-W3 on the GPU beside the device bandwidth that an
# adjit-generated kernel reaches), then one JSON summary on the last line.
#   scripts/gpu-check.sh                 build here (needs the dev packages)
#   scripts/gpu-check.sh --bundle DIR    run what scripts/gpu-bundle.sh packed
# Results also go to $OUT (or ./gpu-check-out): test log, junit XML, bench.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-check-out}
mkdir -p "$out"
if [[ "${1:-}" == "--bundle" ]]; then
  bundle=$(cd "$2" && pwd)
  libs=$(mktemp -d)
  xz -dc "$bundle/libs.tar.xz" | tar -C "$libs" -xf -
  export LD_LIBRARY_PATH="$libs/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  [[ -d "$libs/libs/cuda" && -z "${CUDA_HOME:-}" && ! -x "$(command -v ptxas)" ]] &&
    export CUDA_HOME="$libs/libs/cuda"
  tests="$bundle/bin/adjit-gpu-tests"
  bench="$bundle/bin/adjit-bench"
else
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && ninja -C build adjit-gpu-tests adjit-bench || exit 1
  tests=build/tests/adjit-gpu-tests
  bench=build/bench/adjit-bench
fi

gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)
echo "GPU: $gpu"

: > "$out/bench.jsonl"
timeout 120 "$bench" --workload gpu_bandwidth --device cuda --reps 20 2>&1 | tee -a "$out/bench.jsonl"
[[ ${PIPESTATUS[0]} == 127 ]] && ldd "$bench" | grep "not found"

start=$(date +%s)
timeout 900 "$tests" -r junit -o "$out/gpu-tests.xml" > "$out/gpu-tests.log" 2>&1
tests_status=$?
tests_seconds=$(( $(date +%s) - start ))
tail -5 "$out/gpu-tests.log"

for workload in W1 W2 W3; do
  timeout 300 "$bench" --workload "$workload" --device cuda --reps 20 2>&1 | tee -a "$out/bench.jsonl"
done
# W2 with TF32 tensor cores for its products (JAX's default precision).
ADJIT_GPU_MATMUL=tf32 timeout 300 "$bench" --workload W2 --device cuda --reps 20 2>&1 |
  sed 's/"impl":"adjit"/"impl":"adjit-tf32"/' | tee -a "$out/bench.jsonl"
# The same workloads in JAX on the same GPU, where JAX has CUDA: the
# reference measured in the same run.
if JAX_PLATFORMS=cuda python3 -c "import jax; jax.devices('gpu')" >/dev/null 2>&1; then
  for workload in W1 W2 W3; do
    JAX_PLATFORMS=cuda timeout 300 python3 bench/peers/jax_bench.py --workload "$workload" \
      --reps 20 --no-pin 2>/dev/null | grep '"median_ms"' | tee -a "$out/bench.jsonl"
  done
fi

python3 - "$out" "$tests_status" "$tests_seconds" "$gpu" <<'PY'
import json, sys, xml.etree.ElementTree as ET
out, status, seconds, gpu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
summary = {"gpu": gpu, "tests_exit_status": status, "tests_seconds": seconds}
try:
    root = ET.parse(f"{out}/gpu-tests.xml").getroot()
    suites = root.iter("testsuite")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    failed = []
    for suite in suites:
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
except Exception as error:
    summary["tests_report_error"] = str(error)
bench = {}
for line in open(f"{out}/bench.jsonl"):
    line = line.strip()
    if not line.startswith("{"):
        continue
    record = json.loads(line)
    impl = "" if record.get("impl", "adjit") == "adjit" else record["impl"] + ":"
    key = impl + record["workload"] + ":" + record.get("variant", record.get("check", ""))
    bench[key] = record
summary["bench"] = {k: {f: v[f] for f in ("median_ms", "min_ms", "gb_per_s", "check", "detail") if f in v}
                    for k, v in bench.items()}
bandwidth = bench.get("gpu_bandwidth:2x", {}).get("gb_per_s")
if bandwidth:
    # Minimum traffic of each workload's value_and_grad in bytes.
    traffic = {"W1": 2 * 4194304 * 4, "W3": 3 * 8192 * 1024 * 4}
    for workload, nbytes in traffic.items():
        record = bench.get(workload + ":value_and_grad")
        if record:
            limit_ms = nbytes / (bandwidth * 1e9) * 1e3
            summary[workload + "_traffic_limit_ms"] = limit_ms
            summary[workload + "_times_limit"] = record["min_ms"] / limit_ms
    for workload in ("W1", "W2", "W3"):
        ours, jax = bench.get(workload + ":value_and_grad"), bench.get("jax:" + workload + ":value_and_grad")
        if ours and jax:
            summary[workload + "_adjit_over_jax"] = ours["median_ms"] / jax["median_ms"]
    tf32, jax_w2 = bench.get("adjit-tf32:W2:value_and_grad"), bench.get("jax:W2:value_and_grad")
    if tf32 and jax_w2:
        summary["W2_tf32_adjit_over_jax"] = tf32["median_ms"] / jax_w2["median_ms"]
    w2 = bench.get("W2:value_and_grad")
    if w2:
        summary["W2_tflops_f32"] = 2.448e9 / (w2["min_ms"] * 1e-3) / 1e12
print(json.dumps(summary))
json.dump(summary, open(f"{out}/summary.json", "w"), indent=1)
PY
