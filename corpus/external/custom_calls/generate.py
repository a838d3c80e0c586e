#!/usr/bin/env python3
"""Writes the LAPACK custom-call examples of corpus/external/custom_calls/ (see README.md there and
docs/custom-calls.md).

Run from the repository root with the project's virtualenv:

    .venv/bin/python corpus/external/custom_calls/generate.py

For every (operation, element type) it lowers, on CPU, a jitted function that calls the one
jax.lax.linalg operation on a 3×3 input (3×2 right-hand side for the triangular solve, vectors of
3 for taus and tridiagonals) and writes `jax.jit(f).lower(*args).as_text()` to `<target>.mlir`,
`<target>` being the one `lapack_*_ffi` custom call the module makes. f32/c64 are lowered with
64-bit mode off (jax's default), f64/c128 with `jax_enable_x64` on. The lowered text depends on the
shapes and element types only, not on the values.
"""

import os
import re
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.lax.linalg as L  # noqa: E402
from jax._src.lax import linalg as LL  # noqa: E402  (geqrf, geqp3 are not exported)

jax.config.update("jax_platforms", "cpu")

OUT = os.path.dirname(os.path.abspath(__file__))
TYPES = {"f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128}


def _m(dt, shape=(3, 3)):
    return np.zeros(shape, dt)


def _v(dt, n=3):
    return np.zeros(n, dt)


# (operation, function name, builder(dtype) -> (f, args)); the function's name names the module.
def potrf(x):
    return L.cholesky(x, symmetrize_input=False)


def trsm(a, b):
    return L.triangular_solve(a, b, left_side=True, lower=True)


def getrf(x):
    return L.lu(x)


def geqrf(x):
    return LL.geqrf(x)


def geqp3(x, jpvt):
    return LL.geqp3(x, jpvt)


def orgqr(a, taus):
    return L.householder_product(a, taus)


def ormqr(a, taus, c):
    return L.ormqr(a, taus, c)


def syevd(x):
    return L.eigh(x, symmetrize_input=False)


def gesdd(x):
    return L.svd(x)


def gesvd(x):
    return L.svd(x, algorithm=L.SvdAlgorithm.QR)


def geev(x):
    return L.eig(x)


def gees(x):
    return L.schur(x)


def gehrd(x):
    return L.hessenberg(x)


def sytrd(x):
    return L.tridiagonal(x)


def gtsv(dl, d, du, b):
    return L.tridiagonal_solve(dl, d, du, b)


CASES = [
    (potrf, lambda dt: (_m(dt),)),
    (trsm, lambda dt: (_m(dt), _m(dt, (3, 2)))),
    (getrf, lambda dt: (_m(dt),)),
    (geqrf, lambda dt: (_m(dt),)),
    (geqp3, lambda dt: (_m(dt), np.zeros(3, np.int32))),
    (orgqr, lambda dt: (_m(dt), _v(dt))),
    (ormqr, lambda dt: (_m(dt), _v(dt), _m(dt))),
    (syevd, lambda dt: (_m(dt),)),
    (gesdd, lambda dt: (_m(dt),)),
    (gesvd, lambda dt: (_m(dt),)),
    (geev, lambda dt: (_m(dt),)),
    (gees, lambda dt: (_m(dt),)),
    (gehrd, lambda dt: (_m(dt),)),
    (sytrd, lambda dt: (_m(dt),)),
    (gtsv, lambda dt: (_v(dt), _v(dt), _v(dt), _m(dt, (3, 2)))),
]


def main():
    written = []
    for tn, dt in TYPES.items():
        jax.config.update("jax_enable_x64", tn in ("f64", "c128"))
        for f, args in CASES:
            text = jax.jit(f).lower(*args(dt)).as_text()
            targets = sorted(set(re.findall(r"stablehlo\.custom_call @(\w+)", text)))
            assert len(targets) == 1, f"{f.__name__} {tn}: {targets}"
            path = os.path.join(OUT, targets[0] + ".mlir")
            assert path not in written, f"{targets[0]} twice"
            with open(path, "w") as fh:
                fh.write(text)
            written.append(path)
            print(f"{f.__name__:6} {tn:5} {targets[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
