"""jnp.linalg.svd / lax.linalg.svd never return on this f32[8,5] input, which holds one +inf.

Found by `conformance run --ops 'lapack-*' --backends reference,xla` (seed 1, case 76: a
lapack_sgesvd_ffi call, mode S). Both LAPACK paths jaxlib 0.10.2 registers hang: gesdd (the
default) and gesvd (algorithm=SvdAlgorithm.QR). Other placements of an inf return NaN at once.
Run: .venv/bin/python corpus/external/custom_calls/findings/svd_hangs_on_inf.py [qr]
(it prints "still running after 10 s" and exits 1 when the hang reproduces).
"""
import multiprocessing as mp
import pathlib
import sys

import numpy as np


def run(algorithm):
    import jax

    a = np.load(pathlib.Path(__file__).with_suffix(".npy"))
    alg = jax.lax.linalg.SvdAlgorithm.QR if algorithm == "qr" else jax.lax.linalg.SvdAlgorithm.DEFAULT
    print(jax.lax.linalg.svd(a, full_matrices=False, algorithm=alg)[1])


if __name__ == "__main__":
    p = mp.Process(target=run, args=(sys.argv[1] if len(sys.argv) > 1 else "gesdd",))
    p.start()
    p.join(10)
    if p.is_alive():
        p.kill()
        print("still running after 10 s")
        sys.exit(1)
