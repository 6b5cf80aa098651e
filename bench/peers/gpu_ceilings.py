"""The GPU's measured ceilings, through PyTorch where it has CUDA: device
memory bandwidth (a large device-to-device copy, bytes read plus written)
and matrix throughput (f32 on the CUDA cores, tf32 and bf16 on the tensor
cores, at a large square size and at the shapes of W2's products). One JSON
line per figure, for scripts/gpu-check.sh's summary."""
import json
import sys

import torch


def timed_ms(body, reps=20):
    """Median milliseconds of `body` over `reps` runs, timed with CUDA events
    after a warm-up."""
    for _ in range(3):
        body()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        body()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def emit(**fields):
    print(json.dumps({"impl": "torch", **fields}), flush=True)


def main():
    if not torch.cuda.is_available():
        emit(workload="gpu_ceilings", skipped="torch sees no CUDA device")
        return
    name = torch.cuda.get_device_name()
    n = 1 << 28  # 1 GiB of f32, far beyond the L2
    x = torch.rand(n, device="cuda")
    y = torch.empty_like(x)
    ms = timed_ms(lambda: y.copy_(x))
    emit(workload="gpu_bandwidth", variant="copy", median_ms=ms, gb_per_s=2 * 4 * n / ms / 1e6,
         device=name)

    def matmul_rate(m, k, n, dtype, tf32):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        ms = timed_ms(lambda: a @ b)
        return ms, 2.0 * m * k * n / ms / 1e9

    for label, dtype, tf32 in (("f32", torch.float32, False), ("tf32", torch.float32, True),
                               ("bf16", torch.bfloat16, False)):
        ms, tflops = matmul_rate(8192, 8192, 8192, dtype, tf32)
        emit(workload="gpu_matmul", variant=f"{label}_8192", median_ms=ms, tflops=tflops)
        # W2's step: its eight products (forward, weight gradients, input
        # gradients of the hidden layers; 2.448 GFLOP), each at the library's
        # speed: the step's contraction time in that library.
        total_ms = 0.0
        for m, k, n in ((256, 784, 1024), (256, 1024, 1024), (256, 1024, 10),
                        (784, 256, 1024), (1024, 256, 1024), (1024, 256, 10),
                        (256, 10, 1024), (256, 1024, 1024)):
            total_ms += matmul_rate(m, k, n, dtype, tf32)[0]
        emit(workload="gpu_matmul", variant=f"{label}_w2_products", median_ms=total_ms)


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # a missing ceiling must not hide the rest
        print(json.dumps({"impl": "torch", "workload": "gpu_ceilings", "error": str(error)}))
        sys.exit(0)
