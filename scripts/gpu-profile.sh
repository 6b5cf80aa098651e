#!/usr/bin/env bash
# Where W1-W3's time goes on an NVIDIA GPU: Nsight Compute's per-kernel
# summary (duration, DRAM bytes, grid, registers) of each workload's calls,
# beside the wall time of a call. For a machine where `ncu` reads the
# hardware counters (GPU time is scarce: one call does everything).
#   scripts/gpu-profile.sh [--bundle DIR] [WORKLOAD ...]    (default W1 W2 W3)
# Writes $OUT/profile-WORKLOAD.csv and the profiler's messages to
# $OUT/profile.log (or under ./gpu-check-out), and prints a table.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-check-out}
mkdir -p "$out"
bench=build/bench/adjit-bench
if [[ "${1:-}" == "--bundle" ]]; then
  bundle=$(cd "$2" && pwd)
  shift 2
  libs=$(mktemp -d)
  xz -dc "$bundle/libs.tar.xz" | tar -C "$libs" -xf -
  export LD_LIBRARY_PATH="$libs/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  bench="$bundle/bin/adjit-bench"
fi
# Wall times without the profiler first: the copy kernel's bandwidth and the
# cost of a call on 16 elements.
"$bench" --workload gpu_bandwidth --device cuda --reps 20
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[[ -x "$ncu" ]] || { echo "no ncu on this machine"; exit 1; }
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,launch__grid_size,launch__block_size,launch__registers_per_thread
for workload in "${@:-W1 W2 W3}"; do
  for w in $workload; do
    # The first 150 launches cover the checks, value_and_grad's and value's
    # reps; the pipelined calls after them run unprofiled.
    timeout 80 "$ncu" --clock-control none --launch-count 150 --metrics "$metrics" --csv \
      --page raw --print-units base \
      "$bench" --workload "$w" --device cuda --reps 10 > "$out/profile-$w.csv" 2>> "$out/profile.log"
    echo "== $w (exit $?)"
    grep '"median_ms"' "$out/profile-$w.csv"
    # Per kernel: launches, mean microseconds, mean MB read and written.
    python3 - "$out/profile-$w.csv" <<'PY'
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
starts = [i for i, r in enumerate(rows) if r and r[0] == "ID"]
if not starts:
    sys.exit(print("no kernels profiled"))
header = rows[starts[0]]
data = [r for r in rows[starts[0] + 2:] if len(r) == len(header)]
col = {name: header.index(name) for name in header}
def number(row, name):
    try:
        return float(row[col[name]].replace(",", ""))
    except (KeyError, ValueError):
        return 0.0
stats = collections.OrderedDict()
for row in data:
    s = stats.setdefault(row[col["Kernel Name"]][:60], [0, 0.0, 0.0, 0.0, "", ""])
    s[0] += 1
    s[1] += number(row, "gpu__time_duration.sum")
    s[2] += number(row, "dram__bytes_read.sum")
    s[3] += number(row, "dram__bytes_write.sum")
    s[4] = row[col["launch__grid_size"]] + "x" + row[col["launch__block_size"]]
    s[5] = row[col["launch__registers_per_thread"]]
print("microseconds and megabytes per launch")
print(f"{'kernel':60} {'n':>4} {'mean time':>10} {'read':>10} {'written':>10} grid x block, regs")
for name, (n, t, r, w, shape, regs) in stats.items():
    print(f"{name:60} {n:4d} {t/n/1e3:10.2f} {r/n/1e6:10.2f} {w/n/1e6:10.2f} {shape}, {regs}")
PY
  done
done
