#!/usr/bin/env python3
"""Coefficients of the f64 erfc in dialects/lib/GeluFormula.h (kErfcChebyshev).

erfc(z) = t exp(P(t) - z^2) with t = 1 / (1 + z / 2), z >= 0, where
P(t) = log(erfcx(z) / t) is smooth on t in (0, 1]. This prints the
Chebyshev interpolant of P in u = 2 t - 1 at N nodes (default 28: the series
is within 4e-16 of P), computed with mpmath at 50 digits, and checks it in
double precision against mpmath's erfc.

    python3 scripts/fit-erfc.py [N]
"""
import sys

import mpmath as mp

mp.mp.dps = 50
N = int(sys.argv[1]) if len(sys.argv) > 1 else 28


def log_scaled_erfc(t):
    if t == 0:
        return -mp.log(2 * mp.sqrt(mp.pi))
    z = 2 * (1 - t) / t
    return mp.log(mp.erfc(z) * mp.exp(z * z) / t)


nodes = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / N) for k in range(N)]
values = [log_scaled_erfc((u + 1) / 2) for u in nodes]
coefficients = [2 * mp.fsum(values[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / N)
                            for k in range(N)) / N for j in range(N)]
coefficients[0] /= 2
doubles = [float(c) for c in coefficients]


def series(u):  # Clenshaw, in doubles, as the compiled code evaluates it
    b1, b2 = 0.0, 0.0
    for c in reversed(doubles[1:]):
        b1, b2 = c + 2 * u * b1 - b2, b1
    return doubles[0] + u * b1 - b2


worst = max(abs(series(2 * t - 1) - log_scaled_erfc(mp.mpf(t)))
            for t in (i / 4000 for i in range(4001)))
print(f"// {N} coefficients; |series - P| <= {float(worst):.1e} in doubles")
for c in doubles:
    print(f"{c!r},")
