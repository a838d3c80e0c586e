#!/usr/bin/env python3
"""The README's worked example, step 1: a JAX program dumped with its inputs.

    .venv/bin/python examples/jax_sinh.py OUT_DIR

writes into OUT_DIR:
    f.mlir    jax.jit(f).lower(x).as_text(): the StableHLO JAX prints (f uses jnp.sinh, which JAX
              lowers to `chlo.sinh`)
    in.npz    arg0: the input x, f32[64] from -88 to 88
    xla.npz   out0: what XLA's CPU backend computes for f(x) (for comparison by eye)
"""

import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402


def f(x):
    # A scaled hyperbolic sine: large |x| is where an implementation that computes
    # exp(x + log(1/2)) rounds the argument and loses accuracy.
    return jnp.sinh(x) * 0.25


def main(argv):
    if len(argv) != 1:
        sys.stderr.write("usage: jax_sinh.py OUT_DIR\n")
        return 2
    out = argv[0]
    os.makedirs(out, exist_ok=True)
    x = np.linspace(-88.0, 88.0, 64, dtype=np.float32)
    lowered = jax.jit(f).lower(x)
    with open(os.path.join(out, "f.mlir"), "w") as fh:
        fh.write(lowered.as_text())
    np.savez(os.path.join(out, "in.npz"), arg0=x)
    np.savez(os.path.join(out, "xla.npz"), out0=np.asarray(jax.jit(f)(x)))
    print(f"{out}/f.mlir, {out}/in.npz, {out}/xla.npz written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
