#!/usr/bin/env python3
"""Dumps the real JAX programs of corpus/programs/ (control flow, sorting, top-k, scans, PRNG,
special functions, FFT, linear algebra, batch norm).

Run from the repository root with the project's virtualenv (jax/jaxlib as pinned in
scripts/python-requirements.txt):

    .venv/bin/python scripts/dump_programs.py [NAME ...]

For every program NAME (all of them when none is given) it writes into corpus/programs/NAME/:

    module.hlo            jax.jit(f).lower(*args).compiler_ir('hlo').as_hlo_text(): the
                          pre-optimization HLO, as XLA dumps it
    module.stablehlo.mlir jax.jit(f).lower(*args).as_text()
    inputs.npz            arg0, arg1, ...: the inputs, flattened in jax's pytree order, argK being
                          the entry computation's parameter(K)
    outputs.npz           out0, out1, ...: XLA CPU's results of jax.jit(f)(*args), in the order
                          of the flattened result (the HLO root tuple's order)

and then corpus/programs/README.md (one line per program: what it computes, the HLO opcodes its
module contains, the versions it was dumped with; the lines of programs not named are kept).

Everything is deterministic: inputs come from numpy generators with fixed seeds, the .npz files
are written with a fixed zip timestamp (same layout as np.savez: one stored `NAME.npy` member per
array), and the HLO text is byte-identical from one run to the next for the same jax version.
Arrays stay small (at most ~2,000 elements, loop trip counts <= 100) because the exact reference
backend computes every element with MPFR. 64-bit types are not enabled (no program needs them).
"""

import os
import re
import shutil
import sys
import zipfile

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# XLA dumps every module it compiles here; each program keeps its own (see `dump`).
import tempfile  # noqa: E402
DUMP_DIR = tempfile.mkdtemp(prefix="xla_dump_")
# Several host devices for the programs of several devices (pmap collectives); the others run on
# device 0 as before.
DEVICES = 4
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                           + f" --xla_dump_to={DUMP_DIR}"
                           + f" --xla_force_host_platform_device_count={DEVICES}").strip()

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jaxlib  # noqa: E402
from jax import lax  # noqa: E402

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_default_prng_impl", "threefry2x32")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "corpus", "programs")
COMMAND = ".venv/bin/python scripts/dump_programs.py"

f32 = np.float32
s32 = np.int32
u32 = np.uint32


def _f32_bits(bits):
    """An f32 scalar with the given bit pattern (to spell -NaN and NaN payloads exactly)."""
    return np.array([bits], dtype=u32).view(f32)[0]


NAN = _f32_bits(0x7FC00000)
NEG_NAN = _f32_bits(0xFFC00000)
INF = f32(np.inf)


PROGRAMS = []


def program(name, description, expect):
    """Registers `builder` (returning (function, args)) as program `name`.

    `expect`: HLO opcodes the module must contain (the construct the program is about).
    """

    def register(builder):
        PROGRAMS.append((name, description, tuple(expect), builder))
        return builder

    return register


# --- loops ----------------------------------------------------------------------------------------


@program("scan_cumulative",
         "lax.scan over the 16 rows of f32[16,8], carry (running sum, running max), "
         "per-step outputs stacked: out0/out1 final carry, out2/out3 f32[16,8] per step",
         ["while"])
def _scan_cumulative():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((16, 8)).astype(f32)

    def f(x):
        def step(carry, row):
            s, m = carry
            s = s + row
            m = jnp.maximum(m, row)
            return (s, m), (s, m)

        init = (jnp.zeros(8, f32), jnp.full(8, -jnp.inf, f32))
        (s, m), (ss, ms) = lax.scan(step, init, x)
        return s, m, ss, ms

    return f, (x,)


@program("rnn_scan",
         "tanh RNN over 12 steps (input 4, hidden 8): h = tanh(x@wx + h@wh + b) with lax.scan; "
         "args are ({b, wh, wx}, h0, xs) flattened as b, wh, wx, h0, xs; out0 final h, "
         "out1 f32[12,8] all h",
         ["while", "dot", "tanh"])
def _rnn_scan():
    rng = np.random.default_rng(2)
    params = {
        "wx": (rng.standard_normal((4, 8)) * 0.5).astype(f32),
        "wh": (rng.standard_normal((8, 8)) * 0.35).astype(f32),
        "b": (rng.standard_normal(8) * 0.1).astype(f32),
    }
    h0 = np.zeros(8, f32)
    xs = rng.standard_normal((12, 4)).astype(f32)

    def f(params, h0, xs):
        def step(h, x):
            h = jnp.tanh(x @ params["wx"] + h @ params["wh"] + params["b"])
            return h, h

        return lax.scan(step, h0, xs)

    return f, (params, h0, xs)


@program("fori_loop",
         "lax.fori_loop, 20 iterations of x = x*0.5 + sin(x) on f32[32]",
         ["while", "sine"])
def _fori_loop():
    x = np.linspace(-6.0, 6.0, 32).astype(f32)

    def f(x):
        return lax.fori_loop(0, 20, lambda i, x: x * f32(0.5) + jnp.sin(x), x)

    return f, (x,)


def _collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@program("while_collatz",
         "lax.while_loop with a data-dependent condition (any element != 1): Collatz steps of "
         "s32[16]; out0 final values (all 1), out1 steps per element, out2 iterations run",
         ["while", "remainder", "divide"])
def _while_collatz():
    n = np.array([1, 2, 3, 5, 6, 7, 9, 12, 15, 18, 19, 23, 25, 33, 50, 91], dtype=s32)
    assert max(_collatz_steps(int(v)) for v in n) <= 100  # 91: 92 steps

    def f(n):
        def cond(state):
            x, _, _ = state
            return jnp.any(x != 1)

        def body(state):
            x, steps, it = state
            done = x == 1
            nx = jnp.where(x % 2 == 0, x // 2, 3 * x + 1)
            return jnp.where(done, x, nx), steps + (~done).astype(s32), it + 1

        return lax.while_loop(cond, body, (n, jnp.zeros_like(n), jnp.int32(0)))

    return f, (n,)


@program("while_nested",
         "lax.scan over the 6 rows of f32[6,16] with a lax.fori_loop inside whose trip count "
         "(3 + row index) is traced, so it lowers to a while_loop: Newton iterations for sqrt; "
         "out0 carry (sum of the roots), out1 f32[6,16] roots per row",
         ["while"])
def _while_nested():
    rng = np.random.default_rng(3)
    x = rng.uniform(0.25, 9.0, (6, 16)).astype(f32)

    def f(x):
        def row_step(carry, row):
            acc, i = carry

            def newton(_, y):
                return f32(0.5) * (y + row / y)

            root = lax.fori_loop(0, i + 3, newton, row)
            return (acc + root, i + 1), root

        (acc, _), roots = lax.scan(row_step, (jnp.zeros(16, f32), jnp.int32(0)), x)
        return acc, roots

    return f, (x,)


# --- conditionals ---------------------------------------------------------------------------------


@program("cond",
         "lax.cond on p = sum(x) > sum(y) (pred computed from data), twice: with p and with "
         "not p, so both branches run; out0/out1 f32[4,8], out2 the pred",
         ["conditional"])
def _cond():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 8)).astype(f32)
    y = rng.standard_normal((4, 8)).astype(f32)

    def f(x, y):
        p = jnp.sum(x) > jnp.sum(y)

        def yes(a, b):
            return a * b + f32(1)

        def no(a, b):
            return a - jnp.exp(b)

        return lax.cond(p, yes, no, x, y), lax.cond(jnp.logical_not(p), yes, no, x, y), p

    return f, (x, y)


_SWITCH_BRANCHES = [
    lambda v: jnp.sin(v),
    lambda v: jnp.cos(v) * f32(2),
    lambda v: v * v - f32(1),
]


@program("switch",
         "lax.switch over 3 branches with index i = count(x > 0) % 3 and (i+1) % 3, (i+2) % 3, "
         "so every branch runs once; out0..out2 f32[32], out3 the index",
         ["conditional", "clamp"])
def _switch():
    rng = np.random.default_rng(5)
    x = rng.standard_normal(32).astype(f32)

    def f(x):
        i = jnp.sum(x > 0).astype(s32) % 3
        return (lax.switch(i, _SWITCH_BRANCHES, x),
                lax.switch((i + 1) % 3, _SWITCH_BRANCHES, x),
                lax.switch((i + 2) % 3, _SWITCH_BRANCHES, x),
                i)

    return f, (x,)


@program("switch_clamped",
         "lax.switch over 3 branches with out-of-range indices count(x > 0) (too large) and "
         "count(x > 0) - 40 (negative); JAX clamps the index into [0, 2] before the conditional; "
         "out0/out1 f32[32], out2/out3 the unclamped indices",
         ["conditional", "clamp"])
def _switch_clamped():
    rng = np.random.default_rng(6)
    x = rng.standard_normal(32).astype(f32)

    def f(x):
        hi = jnp.sum(x > 0).astype(s32)
        lo = hi - 40
        return lax.switch(hi, _SWITCH_BRANCHES, x), lax.switch(lo, _SWITCH_BRANCHES, x), hi, lo

    return f, (x,)


# --- sorting --------------------------------------------------------------------------------------


def _specials_f32(rng, n, subnormals=False):
    """f32[n]: NaN, -NaN, ±0 (several), ±inf, duplicates, random values (one decimal), and with
    `subnormals` the smallest subnormals ±2^-149 (which XLA CPU's comparator reads as ±0)."""
    special = [NAN, NEG_NAN, f32(-0.0), f32(0.0), f32(-0.0), f32(0.0), INF, -INF,
               f32(1.5), f32(1.5), f32(1.5), f32(-2.0), f32(-2.0), f32(3.0), f32(3.0)]
    if subnormals:
        special += [_f32_bits(0x00000001), _f32_bits(0x80000001)]
    rest = np.round(rng.standard_normal(n - len(special)) * 4, 1).astype(f32)
    x = np.concatenate([np.array(special, dtype=f32), rest])
    return x[rng.permutation(n)]


@program("sort",
         "jnp.sort (stable) of f32[64] with NaN, -NaN, -0.0, +0.0, ±inf, ±2^-149 and "
         "duplicates; XLA CPU reads the subnormals as zero (they stay among the zeros, in input "
         "order), an IEEE backend puts them either side of the zeros",
         ["sort"])
def _sort():
    rng = np.random.default_rng(7)
    x = _specials_f32(rng, 64, subnormals=True)
    return (lambda x: jnp.sort(x)), (x,)


@program("sort_2d",
         "jnp.sort of f32[8,16] along axis 0 (columns sorted), with duplicates, ±0, NaN and inf",
         ["sort"])
def _sort_2d():
    rng = np.random.default_rng(8)
    x = np.round(rng.standard_normal((8, 16)) * 2, 0).astype(f32)  # many duplicates
    x[3, 2] = NAN
    x[6, 5] = NEG_NAN
    x[1, 7], x[4, 7], x[5, 7] = f32(-0.0), f32(0.0), f32(-0.0)
    x[2, 9] = INF
    x[0, 9] = -INF
    return (lambda x: jnp.sort(x, axis=0)), (x,)


@program("argsort",
         "jnp.argsort(stable=True) of f32[64] with duplicates, ±0 and NaN: a 2-operand sort of "
         "(x, iota) with num_keys=1; out0 s32[64]",
         ["sort", "iota"])
def _argsort():
    rng = np.random.default_rng(9)
    x = _specials_f32(rng, 64)
    return (lambda x: jnp.argsort(x, stable=True)), (x,)


@program("sort_multi",
         "lax.sort((keys, values), num_keys=1) (stable) of s32[100] keys in [-3, 4] (many "
         "duplicates) and f32[100] values; out0 sorted keys, out1 values carried along",
         ["sort"])
def _sort_multi():
    rng = np.random.default_rng(10)
    keys = rng.integers(-3, 5, 100).astype(s32)
    values = rng.standard_normal(100).astype(f32)
    return (lambda k, v: lax.sort((k, v), num_keys=1)), (keys, values)


@program("sort_descending",
         "descending sorts of f32[64] (NaN, ±0, duplicates): out0 jnp.sort(x, descending=True) "
         "(ascending sort then reverse; lax.sort takes no comparator), out1 "
         "jnp.argsort(x, descending=True, stable=True) (reverse, sort with iota, reverse)",
         ["sort", "reverse"])
def _sort_descending():
    rng = np.random.default_rng(11)
    x = _specials_f32(rng, 64)

    def f(x):
        return jnp.sort(x, descending=True), jnp.argsort(x, descending=True, stable=True)

    return f, (x,)


@program("top_k",
         "lax.top_k(x, 5) of f32[8,100], rows with ties at the top, ±0, ±inf, all-equal and a "
         "NaN in row 2; out0 f32[8,5] values, out1 s32[8,5] indices",
         ["topk"])
def _top_k():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((8, 100)).astype(f32)
    x[1, [3, 17, 50, 51, 90]] = f32(5.0)        # 5 equal maxima
    x[1, [20, 60]] = f32(4.0)
    x[2, 40] = NAN                               # the NaN row
    x[2, 10] = f32(7.0)
    x[3] = np.abs(x[3]) * -1 - 1                 # all negative except zeros
    x[3, [5, 9, 33, 70]] = [f32(-0.0), f32(0.0), f32(-0.0), f32(0.0)]
    x[4, 12] = INF
    x[4, 80] = INF
    x[4, 44] = -INF
    x[5] = f32(2.5)                              # all equal
    x[6] = np.round(x[6], 0)                     # many integer ties
    x[7] = -INF
    x[7, 99] = f32(0.0)
    return (lambda x: lax.top_k(x, 5)), (x,)


@program("argmax",
         "jnp.argmax and jnp.argmin of f32[16,32] along axis 1 (ties, ±0, ±inf, a NaN in row 3): "
         "variadic (value, index) reduces; out0/out1 s32[16]",
         ["reduce", "iota"])
def _argmax():
    rng = np.random.default_rng(13)
    x = np.round(rng.standard_normal((16, 32)) * 3, 0).astype(f32)  # ties
    x[3, 20] = NAN
    x[5] = f32(1.0)                              # all equal: index 0
    x[6, [4, 8]] = [f32(-0.0), f32(0.0)]
    x[6, np.arange(32) != 4] = np.minimum(x[6, np.arange(32) != 4], -1)
    x[6, 8] = f32(0.0)                           # max tie -0 (index 4) vs +0 (index 8)
    x[7, 30] = INF
    x[7, 2] = -INF
    x[8, [10, 11]] = f32(9.0)                    # max tie
    x[8, [1, 31]] = f32(-9.0)                    # min tie

    def f(x):
        return jnp.argmax(x, axis=1), jnp.argmin(x, axis=1)

    return f, (x,)


@program("cumsum",
         "jnp.cumsum of f32[128] and of s32[4,50] along axis 1: reduce-window sums (window = "
         "the whole axis, low padding); out0 f32[128], out1 s32[4,50]",
         ["reduce-window"])
def _cumsum():
    rng = np.random.default_rng(14)
    a = rng.standard_normal(128).astype(f32)
    b = rng.integers(-1000, 1000, (4, 50)).astype(s32)
    b[2, 10] = np.iinfo(s32).max                 # wraps around
    return (lambda a, b: (jnp.cumsum(a), jnp.cumsum(b, axis=1))), (a, b)


@program("optimization_barrier",
         "lax.optimization_barrier over a tuple (x * 2, x + 1) of f32[16], then their difference: "
         "out0 f32[16]",
         ["opt-barrier"])
def _optimization_barrier():
    x = np.linspace(-4.0, 4.0, 16, dtype=np.float32)

    def f(x):
        a, b = lax.optimization_barrier((x * 2.0, x + 1.0))
        return a - b

    return f, (x,)


# --- random numbers -------------------------------------------------------------------------------


def _key_data(seed):
    return np.asarray(jax.random.key_data(jax.random.key(seed, impl="threefry2x32")))


@program("random_bits",
         "jax.random.bits(key, (64,), uint32) with threefry2x32; arg0 is the key data u32[2] "
         "(jax.random.key(0)), wrapped inside with wrap_key_data; out0 u32[64]",
         ["shift-left", "shift-right-logical", "xor", "or"])
def _random_bits():
    key = _key_data(0)

    def f(k):
        key = jax.random.wrap_key_data(k, impl="threefry2x32")
        return jax.random.bits(key, (64,), dtype=jnp.uint32)

    return f, (key,)


@program("random_uniform",
         "jax.random.uniform(key, (64,), float32) with threefry2x32; arg0 the key data u32[2] "
         "(jax.random.key(42)); threefry bits, then bits >> 9 | 1.0's exponent, "
         "bitcast-convert, - 1; out0 f32[64]",
         ["shift-right-logical", "xor", "bitcast-convert"])
def _random_uniform():
    key = _key_data(42)

    def f(k):
        key = jax.random.wrap_key_data(k, impl="threefry2x32")
        return jax.random.uniform(key, (64,), dtype=jnp.float32)

    return f, (key,)


@program("random_rbg",
         "jax.random with the 'rbg' implementation, whose bits come from XLA's RngBitGenerator "
         "(rng_default: Philox on XLA CPU, docs/random.md) while split uses threefry; arg0 the "
         "key data u32[4] (jax.random.key(7, impl='rbg')); out0 bits u32[8,16], out1 uniform "
         "f32[256], out2 randint s32[64] in [-5, 20), out3 u8[3,5] from lax.rng_bit_generator with "
         "THREE_FRY on the key data (8-bit data: the low bits of Threefry's 32-bit words)",
         ["rng-bit-generator"])
def _random_rbg():
    key = np.asarray(jax.random.key_data(jax.random.key(7, impl="rbg")))

    def f(k):
        key = jax.random.wrap_key_data(k, impl="rbg")
        k1, k2, k3, k4 = jax.random.split(key, 4)
        return (jax.random.bits(k1, (8, 16), dtype=jnp.uint32),
                jax.random.uniform(k2, (256,), dtype=jnp.float32),
                jax.random.randint(k3, (64,), -5, 20, dtype=jnp.int32),
                jax.lax.rng_bit_generator(jax.random.key_data(k4), (3, 5), dtype=jnp.uint8,
                                          algorithm=jax.lax.RandomAlgorithm.RNG_THREE_FRY)[1])

    return f, (key,)


@program("random_normal",
         "jax.random.normal(key, (256,), float32) under both PRNG implementations: out0 with "
         "threefry2x32 (arg0 the key data u32[2] of jax.random.key(3)), out1 with rbg (arg1 the "
         "key data u32[4] of jax.random.key(3, impl='rbg'); its bits from XLA's RngBitGenerator); "
         "uniform bits mapped into (-1, 1), then sqrt(2)·erfinv (chlo.erf_inv, decomposed in "
         "module.hlo)",
         ["rng-bit-generator", "bitcast-convert", "multiply"])
def _random_normal():
    k0 = _key_data(3)
    k1 = np.asarray(jax.random.key_data(jax.random.key(3, impl="rbg")))

    def f(a, b):
        ka = jax.random.wrap_key_data(a, impl="threefry2x32")
        kb = jax.random.wrap_key_data(b, impl="rbg")
        return (jax.random.normal(ka, (256,), dtype=jnp.float32),
                jax.random.normal(kb, (256,), dtype=jnp.float32))

    return f, (k0, k1)


# --- tokens ---------------------------------------------------------------------------------------


@program("tokens_after_all",
         "tokens as JAX threads them: lax.create_token (an HLO after-all of no operand) twice, "
         "joined by lax.after_all, returned beside x * 2 + 1; the token output is not a value, so "
         "outputs.npz holds out0 f32[8] only (the module's root is (f32[8], token[]))",
         ["after-all"])
def _tokens_after_all():
    x = np.linspace(-2, 2, 8).astype(np.float32)

    def f(x):
        t = jax.lax.after_all(jax.lax.create_token(), jax.lax.create_token())
        return x * 2 + 1, t

    return f, (x,)


# --- collectives over several devices ------------------------------------------------------------


@program("collectives_pmap",
         "jax.pmap over 4 host devices with every collective JAX has: out0 psum(x), out1 "
         "all_gather(x), out2 all_to_all(y as 4x2, tiled), out3 ppermute(x) around the ring "
         "0→1→2→3→0, out4 psum_scatter(y, tiled), out5 axis_index. JAX lowers pmap through "
         "shard_map (an sdy manual computation in a module of 4 partitions), so module.hlo and "
         "module.stablehlo.mlir are the per-device program (the manual computation's body, "
         "num_partitions=4; all-reduce, all-gather and reduce-scatter with flattened ids) and "
         "the .npz files hold each device's shards in turn (argK: device K // 2, parameter "
         "K % 2; outK: device K // 6, result K % 6); no xla_dump/ (XLA's optimized module is "
         "the SPMD-partitioned one, whose header does not name its partitions)",
         ["all-reduce", "all-gather", "all-to-all", "collective-permute", "reduce-scatter",
          "partition-id"])
def _collectives_pmap():
    rng = np.random.default_rng(18)
    x = rng.uniform(-4, 4, (DEVICES, 3)).astype(f32)
    x[1, 0] = 2.0 ** -140      # a subnormal in the sum
    y = rng.uniform(-2, 2, (DEVICES, 8)).astype(f32)

    def f(x, y):
        return (lax.psum(x, "i"),
                lax.all_gather(x, "i"),
                lax.all_to_all(y.reshape(DEVICES, 2), "i", 0, 0, tiled=True),
                lax.ppermute(x, "i", [(d, (d + 1) % DEVICES) for d in range(DEVICES)]),
                lax.psum_scatter(y, "i", scatter_dimension=0, tiled=True),
                lax.axis_index("i"))

    return f, (x, y), "pmap"


# --- special functions ----------------------------------------------------------------------------


@program("special_functions",
         "jax.scipy.special / lax special functions of f32[32] that JAX lowers to CHLO ops "
         "(chlo.lgamma, digamma, erf_inv, bessel_i1e, asin, acosh, atanh, sinh, erfc, polygamma, "
         "zeta, next_after in module.stablehlo.mlir; their decompositions in module.hlo): "
         "x in (-3.5, 8) with non-integer negatives, u in (-0.99, 0.99); out0 gammaln(x), "
         "out1 digamma(x), out2 erfinv(u), out3 i1e(x), out4 arcsin(u), out5 arccosh(|x| + 1), "
         "out6 arctanh(u), out7 sinh(x), out8 erfc(x), out9 polygamma(1, |x| + 0.5), "
         "out10 zeta(|x| + 1.5, |x| + 0.25), out11 nextafter(x, u)",
         ["log", "multiply"])
def _special_functions():
    rng = np.random.default_rng(16)
    x = rng.uniform(-3.5, 8.0, 32).astype(f32)
    x[:4] = np.array([1.0, 2.0, 0.5, -2.5], dtype=f32)   # lgamma's zeros, a half-integer pole gap
    u = rng.uniform(-0.99, 0.99, 32).astype(f32)
    u[:3] = np.array([0.0, -0.0, 0.5], dtype=f32)

    def f(x, u):
        ax = jnp.abs(x)
        return (jax.scipy.special.gammaln(x), jax.scipy.special.digamma(x),
                jax.scipy.special.erfinv(u), jax.scipy.special.i1e(x), jnp.arcsin(u),
                jnp.arccosh(ax + 1.0), jnp.arctanh(u), jnp.sinh(x), lax.erfc(x),
                jax.scipy.special.polygamma(1, ax + 0.5), lax.zeta(ax + 1.5, ax + 0.25),
                lax.nextafter(x, u))

    return f, (x, u)


# --- FFT, linear algebra, batch norm -------------------------------------------------------------
# On CPU, JAX lowers the linear-algebra primitives to LAPACK custom calls
# (`stablehlo.custom_call @lapack_*_ffi`, see docs/custom-calls.md), not to HLO `cholesky` /
# `triangular-solve`; FFTs lower to the HLO `fft`.


def _c64(rng, shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


@program("fft_spectra",
         "jnp.fft.fft of c64[2,16], jnp.fft.ifft of c64[2,12], jnp.fft.rfft of f32[2,15] (odd "
         "length), jnp.fft.irfft(n=16) of c64[2,9] (random z0 and Nyquist terms, whose "
         "imaginary parts the transform ignores) and jnp.fft.fft2 of c64[6,8], in one jit; "
         "inputs standard normal (real and imaginary parts) from default_rng(17); "
         "out0 c64[2,16], out1 c64[2,12], out2 c64[2,8], out3 f32[2,16], out4 c64[6,8]",
         ["fft"])
def _fft_spectra():
    rng = np.random.default_rng(17)
    a = _c64(rng, (2, 16))
    b = _c64(rng, (2, 12))
    c = rng.standard_normal((2, 15)).astype(f32)
    d = _c64(rng, (2, 9))
    e = _c64(rng, (6, 8))

    def f(a, b, c, d, e):
        return (jnp.fft.fft(a), jnp.fft.ifft(b), jnp.fft.rfft(c), jnp.fft.irfft(d, n=16),
                jnp.fft.fft2(e))

    return f, (a, b, c, d, e)


def _spd(rng, batch, n):
    """f32[batch, n, n] symmetric positive definite and well conditioned: M·Mᵀ/n + I."""
    m = rng.standard_normal((batch, n, n))
    return (m @ np.swapaxes(m, -1, -2) / n + np.eye(n)).astype(f32)


@program("cholesky_solve",
         "a batch of 2 SPD f32[5,5] (M·Mᵀ/5 + I, default_rng(18)) and right-hand sides "
         "f32[2,5,3]: out0 L = jnp.linalg.cholesky(a) (JAX symmetrizes (a + aᵀ)/2, calls "
         "custom_call lapack_spotrf_ffi, selects NaN where info != 0, zeroes the upper "
         "triangle); out1 jax.scipy.linalg.solve_triangular(L, b, lower=True), out2 the same "
         "with trans=1 (Lᵀx = b), out3 jax.scipy.linalg.cho_solve((L, True), b) (two "
         "triangular solves): custom_call lapack_strsm_ffi",
         ["custom-call"])
def _cholesky_solve():
    rng = np.random.default_rng(18)
    a = _spd(rng, 2, 5)
    b = rng.standard_normal((2, 5, 3)).astype(f32)

    def f(a, b):
        low = jnp.linalg.cholesky(a)
        return (low,
                jax.scipy.linalg.solve_triangular(low, b, lower=True),
                jax.scipy.linalg.solve_triangular(low, b, lower=True, trans=1),
                jax.scipy.linalg.cho_solve((low, True), b))

    return f, (a, b)


@program("linalg_decompositions",
         "default_rng(19) inputs, well conditioned: out0 jnp.linalg.solve(a, b) with a f32[5,5] "
         "= N + 5·I, b f32[5,2] (custom_call lapack_sgetrf_ffi, pivots to a permutation in a "
         "while loop, b's rows gathered, then lapack_strsm_ffi unit lower and upper); "
         "out1/out2 Q f32[6,4], R f32[4,4] of jnp.linalg.qr(m) with m f32[6,4] (mode reduced: "
         "lapack_sgeqrf_ffi then lapack_sorgqr_ffi); out3/out4 eigenvalues f32[5] (ascending) "
         "and eigenvectors f32[5,5] of jnp.linalg.eigh(s), s the symmetric (N + Nᵀ)/2 + "
         "diag(0..4)·2 (symmetrized again by JAX, lapack_ssyevd_ffi); out5..out7 U f32[6,4], "
         "S f32[4], Vh f32[4,4] of jnp.linalg.svd(m, full_matrices=False) "
         "(lapack_sgesdd_ffi); Q/R columns, eigenvectors and singular vectors are unique only "
         "up to sign",
         ["custom-call"])
def _linalg_decompositions():
    rng = np.random.default_rng(19)
    a = (rng.standard_normal((5, 5)) + 5 * np.eye(5)).astype(f32)
    b = rng.standard_normal((5, 2)).astype(f32)
    m = rng.standard_normal((6, 4)).astype(f32)
    n = rng.standard_normal((5, 5))
    s = ((n + n.T) / 2 + np.diag(np.arange(5) * 2.0)).astype(f32)

    def f(a, b, m, s):
        q, r = jnp.linalg.qr(m)
        w, v = jnp.linalg.eigh(s)
        u, sv, vh = jnp.linalg.svd(m, full_matrices=False)
        return jnp.linalg.solve(a, b), q, r, w, v, u, sv, vh

    return f, (a, b, m, s)


@program("batch_norm_layer",
         "a training-mode batch-norm layer written with jnp/lax ops (JAX has no batch_norm "
         "primitive) on NCHW x f32[4,8,6,6] (default_rng(20), N(0.5, 2)), scale/offset f32[8]: "
         "mean and var = mean((x - mean)²) over axes (0,2,3), y = (x - mean)·(lax.rsqrt(var + "
         "1e-5)·scale) + offset; loss = sum(y·t) for a fixed f32[4,8,6,6] t, "
         "jax.value_and_grad w.r.t. (x, scale, offset), so dx is batch-norm-grad with "
         "grad_output t; out0 y, out1 mean f32[8], out2 var f32[8], out3 loss f32[], out4 dx "
         "f32[4,8,6,6], out5 dscale f32[8], out6 doffset f32[8]",
         ["reduce", "rsqrt"])
def _batch_norm_layer():
    rng = np.random.default_rng(20)
    x = (rng.standard_normal((4, 8, 6, 6)) * 2 + 0.5).astype(f32)
    scale = rng.uniform(0.5, 1.5, 8).astype(f32)
    offset = (rng.standard_normal(8) * 0.1).astype(f32)
    t = rng.standard_normal((4, 8, 6, 6)).astype(f32)

    def bn(x, scale, offset):
        mean = jnp.mean(x, axis=(0, 2, 3))
        centered = x - mean[None, :, None, None]
        var = jnp.mean(lax.square(centered), axis=(0, 2, 3))
        inv = lax.rsqrt(var + f32(1e-5))
        y = centered * (inv * scale)[None, :, None, None] + offset[None, :, None, None]
        return y, mean, var

    def f(x, scale, offset, t):
        y, mean, var = bn(x, scale, offset)

        def loss(x, scale, offset):
            return jnp.sum(bn(x, scale, offset)[0] * t)

        value, (dx, dscale, doffset) = jax.value_and_grad(loss, argnums=(0, 1, 2))(
            x, scale, offset)
        return y, mean, var, value, dx, dscale, doffset

    return f, (x, scale, offset, t)


@program("cumprod_narrow",
         "jnp.cumprod of bf16[64] and f16[4,40] along axis 1 (values near 1, some exact "
         "zeros and a negative run): reduce-window products (window = the whole axis, low "
         "padding), each step rounded in the narrow type; out0 bf16[64], out1 f16[4,40]",
         ["reduce-window", "multiply"])
def _cumprod_narrow():
    rng = np.random.default_rng(31)
    a = rng.uniform(0.9, 1.12, 64).astype(jnp.bfloat16)
    b = rng.uniform(0.8, 1.25, (4, 40)).astype(np.float16)
    b[1, 17] = 0.0
    b[3, 5:9] = -b[3, 5:9]
    return (lambda a, b: (jnp.cumprod(a), jnp.cumprod(b, axis=1))), (a, b)


@program("maxpool_grad",
         "a 2x2 max-pool (stride 2, NHWC f32[2,8,8,3]) and its gradient for the loss "
         "sum(pool(x) * t), with ties inside windows: the gradient lowers to select-and-scatter "
         "(select GE, scatter add); out0 the pooled f32[2,4,4,3], out1 the gradient f32[2,8,8,3]",
         ["select-and-scatter", "reduce-window"])
def _maxpool_grad():
    rng = np.random.default_rng(32)
    x = np.round(rng.standard_normal((2, 8, 8, 3)) * 4).astype(f32) / f32(4)   # ties
    t = rng.standard_normal((2, 4, 4, 3)).astype(f32)

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def f(x, t):
        return pool(x), jax.grad(lambda x: jnp.sum(pool(x) * t))(x)

    return f, (x, t)


# --- dumping --------------------------------------------------------------------------------------

_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?[\w.\-]+\s*=\s*(.*)$")
_OPCODE = re.compile(r"(?:^|[\s)}\]])([a-z][a-z0-9\-]*)\(")


def hlo_opcodes(text):
    """The set of opcodes of the instructions in HLO text."""
    ops = set()
    for line in text.splitlines():
        m = _INSTRUCTION.match(line)
        if not m:
            continue
        rest = m.group(1)
        op = _OPCODE.search(rest)
        if op:
            ops.add(op.group(1))
    return ops


def savez(path, arrays):
    """np.savez(path, **arrays), but with a fixed timestamp, so reruns give identical bytes."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, array in arrays.items():
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o600 << 16
            with zf.open(info, "w", force_zip64=True) as f:
                np.lib.format.write_array(f, np.asarray(array), allow_pickle=False)


def _entry_parameter_count(hlo):
    layout = re.search(r"entry_computation_layout=\{\((.*?)\)->", hlo)
    assert layout, "no entry_computation_layout"
    params = layout.group(1)
    return 0 if not params else len(re.findall(r"[a-z0-9]+\[[0-9,]*\]", params))


def _blocks(hlo):
    """The computations of HLO text: (name, is_entry, text), in order."""
    out, current = [], None
    for line in hlo.splitlines():
        m = re.match(r"^(ENTRY )?%?([\w.\-]+) (\(.*\) -> .* )?\{$", line)
        if current is None and m:
            current = [m.group(2), bool(m.group(1)), [line]]
        elif current is not None:
            current[2].append(line)
            if line == "}":
                out.append((current[0], current[1], "\n".join(current[2])))
                current = None
    return out


def _manual_body_hlo(hlo, name, partitions):
    """The per-device program of a pmap (JAX lowers pmap through shard_map: an sdy manual
    computation inside a module of `partitions` partitions): the manual computation's body as
    the entry computation, with the other computations it calls, under `num_partitions`."""
    blocks = _blocks(hlo)
    body = [b for b in blocks if b[0].startswith("xla.sdy.manual_computation_body")]
    assert len(body) == 1, f"{name}: expected one manual computation, found {[b[0] for b in blocks]}"
    lines = [f"HloModule {name}, num_partitions={partitions}", ""]
    for bname, entry, text in blocks:
        if entry or bname.startswith("xla.sdy.manual_computation_body"):
            continue
        lines += [text, ""]
    lines.append("ENTRY " + body[0][2])
    return "\n".join(lines) + "\n"


def _manual_body_stablehlo(text, name, partitions):
    """JAX's StableHLO of the same per-device program: the region of `sdy.manual_computation`
    (its block arguments, operations and `sdy.return`) as `@main`, JAX's text otherwise
    unchanged."""
    lines = text.splitlines()
    start = next(k for k, l in enumerate(lines) if "sdy.manual_computation(" in l)
    args = re.search(r" (\(%[^)]*\)) \{$", lines[start])
    assert args, f"{name}: no block arguments on the manual computation"
    end = next(k for k in range(start + 1, len(lines)) if lines[k].strip().startswith("sdy.return"))
    ret = lines[end].strip()[len("sdy.return "):]
    values, types = ret.split(" : ", 1)
    body = [l[2:] if l.startswith("  ") else l for l in lines[start + 1:end]]
    return "\n".join(
        [f"module @{name} attributes {{mhlo.num_partitions = {partitions} : i32, mhlo.num_replicas = 1 : i32}} {{",
         f"  func.func public @main{args.group(1)} -> ({types}) {{"]
        + body
        + [f"    return {values} : {types}", "  }", "}", ""])


def dump_pmap(name, description, expect, f, args):
    """A program of several devices: `jax.pmap(f)` over DEVICES host devices. Written as the
    per-device program (docs/collectives.md): module.hlo and module.stablehlo.mlir hold what
    each device runs (the manual computation JAX's pmap lowering builds), inputs.npz each
    device's shards in turn (argK is device K // P's parameter K % P), outputs.npz each device's
    results in turn (outK is device K // Q's result K % Q), as XLA computed them."""
    pm = jax.pmap(f, axis_name="i")
    lowered = pm.lower(*args)
    hlo = _manual_body_hlo(lowered.compiler_ir("hlo").as_hlo_text(), name, DEVICES)
    stablehlo = _manual_body_stablehlo(lowered.as_text(), name, DEVICES)
    results = [np.asarray(r) for r in jax.tree_util.tree_leaves(pm(*args))]
    ops = hlo_opcodes(hlo)
    missing = [op for op in expect if op not in ops]
    assert not missing, f"{name}: the HLO has no {missing} (opcodes: {sorted(ops)})"
    folder = os.path.join(OUT_DIR, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "module.hlo"), "w") as fh:
        fh.write(hlo)
    with open(os.path.join(folder, "module.stablehlo.mlir"), "w") as fh:
        fh.write(stablehlo)
    leaves = [np.asarray(a) for a in jax.tree_util.tree_leaves(args)]
    ins = [a[d:d + 1] for d in range(DEVICES) for a in leaves]
    outs = [r[d:d + 1] for d in range(DEVICES) for r in results]
    savez(os.path.join(folder, "inputs.npz"), {f"arg{i}": a for i, a in enumerate(ins)})
    savez(os.path.join(folder, "outputs.npz"), {f"out{i}": a for i, a in enumerate(outs)})
    return ops


def dump(name, description, expect, builder):
    built = builder()
    if len(built) == 3 and built[2] == "pmap":
        return dump_pmap(name, description, expect, built[0], built[1])
    f, args = built
    jitted = jax.jit(f)
    lowered = jitted.lower(*args)
    hlo = lowered.compiler_ir("hlo").as_hlo_text()
    stablehlo = lowered.as_text()
    leaves_in = jax.tree_util.tree_leaves(args)
    assert _entry_parameter_count(hlo) == len(leaves_in), \
        f"{name}: {len(leaves_in)} inputs but the entry computation has other parameters"
    before = set(os.listdir(DUMP_DIR))
    # Tokens (a program's ordered effects) are not values: outputs.npz holds the arrays only.
    results = [r for r in jax.tree_util.tree_leaves(jitted(*args))
               if not isinstance(r, jax._src.core.Token)]
    # The modules XLA compiled for this call: the program's own is the last one (helpers that
    # prepare the arguments compile before it).
    fresh = sorted(set(os.listdir(DUMP_DIR)) - before)
    last = max((n.split(".")[0] for n in fresh if n.startswith("module_")), default="")
    dumped = [n for n in fresh if n.startswith(last + ".jit_") and (
        n.endswith(".before_optimizations.txt") or n.endswith("after_optimizations.txt")
        or n.endswith("after_optimizations-memory-usage-report.txt"))]
    assert any(n.endswith("after_optimizations.txt") for n in dumped), f"{name}: no dump in {fresh}"
    for a in leaves_in + results:
        assert np.asarray(a).size <= 2000, f"{name}: array of {np.asarray(a).size} elements"

    ops = hlo_opcodes(hlo)
    missing = [op for op in expect if op not in ops]
    assert not missing, f"{name}: the HLO has no {missing} (opcodes: {sorted(ops)})"

    folder = os.path.join(OUT_DIR, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "module.hlo"), "w") as fh:
        fh.write(hlo)
    with open(os.path.join(folder, "module.stablehlo.mlir"), "w") as fh:
        fh.write(stablehlo)
    # The XLA dump folder: the module before and after XLA's optimizations (fusions, layouts,
    # copies) and, as a real dump has beside them, the memory-usage report (not a module).
    dump_folder = os.path.join(folder, "xla_dump")
    if os.path.isdir(dump_folder):
        shutil.rmtree(dump_folder)
    os.makedirs(dump_folder)
    for n in dumped:
        shutil.copyfile(os.path.join(DUMP_DIR, n), os.path.join(dump_folder, n))
    savez(os.path.join(folder, "inputs.npz"),
          {f"arg{i}": np.asarray(a) for i, a in enumerate(leaves_in)})
    savez(os.path.join(folder, "outputs.npz"),
          {f"out{i}": np.asarray(a) for i, a in enumerate(results)})
    return ops


_HLO_TYPE = {"bool": "pred", "int32": "s32", "uint32": "u32", "float32": "f32",
             "float16": "f16", "bfloat16": "bf16", "complex64": "c64"}


def _signature(arrays):
    def one(a):
        a = np.asarray(a)
        return f"{_HLO_TYPE.get(a.dtype.name, a.dtype.name)}[{','.join(map(str, a.shape))}]"

    return ", ".join(one(a) for a in arrays)


def _cell(text):
    return text.replace("|", "\\|")


def _readme_rows(path):
    """The rows of the program table of an existing README, by program name."""
    rows = {}
    if os.path.exists(path):
        with open(path) as fh:
            table = fh.read().split("## Exact results against XLA's", 1)[0]
        for line in table.splitlines():
            m = re.match(r"^\| `([\w\-]+)` \|", line)
            if m:
                rows[m.group(1)] = line
    return rows


def write_readme(rows):
    """Writes README.md with the table rows of `rows`; the rows of programs not dumped in this run
    (`dump_programs.py NAME ...`) are kept from the existing README, in the order of PROGRAMS."""
    path = os.path.join(OUT_DIR, "README.md")
    table = _readme_rows(path)
    for name, description, ins, outs, ops in rows:
        table[name] = (f"| `{name}` | {_cell(description)} | {ins} → {outs} | "
                       f"{', '.join(f'`{o}`' for o in sorted(ops))} |")
    lines = [
        "# Real JAX programs: control flow, sorting, top-k, scans, PRNG, special functions, FFT, "
        "linear algebra, batch norm",
        "",
        f"Dumped by `scripts/dump_programs.py` with jax {jax.__version__} / jaxlib "
        f"{jaxlib.__version__} on XLA CPU (default 32-bit mode; "
        f"`jax_default_prng_impl={jax.config.jax_default_prng_impl}`, "
        f"`jax_threefry_partitionable={jax.config.jax_threefry_partitionable}`, the default). "
        "Regenerate everything from the repository root with:",
        "",
        "```sh",
        COMMAND,
        "```",
        "",
        "Each folder holds `module.hlo` (`jax.jit(f).lower(*args).compiler_ir('hlo')"
        ".as_hlo_text()`, pre-optimization HLO as XLA dumps it), `module.stablehlo.mlir` "
        "(`lowered.as_text()`), `inputs.npz` (`arg0`, `arg1`, ...: parameter K is `argK`, "
        "pytrees flattened in jax's order) and `outputs.npz` (`out0`, `out1`, ...: XLA CPU's "
        "results, in the order of the flattened result tuple). The .npz files are np.savez "
        "archives with a fixed timestamp; the HLO is byte-identical on reruns with the same jax.",
        "",
        "`xla_dump/` is what `XLA_FLAGS=--xla_dump_to=DIR` writes for the program's module: "
        "`*.before_optimizations.txt`, `*.cpu_after_optimizations.txt` (fusions, bitcasts, "
        "assigned layouts and copies: what XLA compiled) and a memory-usage report (not a "
        "module). `conformance replay corpus/programs/NAME/xla_dump --inputs "
        "corpus/programs/NAME/inputs.npz` checks both modules; `top_k`'s optimized module calls "
        "a custom call of XLA's runtime, which exits 2 naming it. Module numbers depend on the "
        "order programs are dumped in.",
        "",
        "Behaviours of XLA CPU that the outputs record: its sort comparator reads subnormals as "
        "zero (`sort`: ±2^-149 stay among the zeros, in input order; ±0 tie, NaN and -NaN both go "
        "last in input order); `topk` orders by IEEE totalOrder (`top_k`: NaN first, +0 before "
        "-0), ties by lowest index; argmax/argmin of a row with a NaN return the NaN's index. "
        "HLO tuple shapes carry XLA's `/*index=N*/` comments (as in its dumps).",
        "",
        "No program emits an HLO `map`: no JAX primitive lowers to it in this version "
        "(`lax.map` is a scan, i.e. a `while`), so there is no `map_like` program.",
        "",
        "Linear algebra on CPU lowers to LAPACK custom calls, not to HLO `cholesky` / "
        "`triangular-solve`: `cholesky_solve` and `linalg_decompositions` hold "
        "`custom-call`s to `lapack_*_ffi` targets (in `module.hlo`, `module.stablehlo.mlir` and "
        "both dumped modules; their operands, attributes and column-major layouts are in "
        "`docs/custom-calls.md`). `fft_spectra` uses the HLO `fft` (FFT, IFFT, RFFT, IRFFT). "
        "`batch_norm_layer` is the batch norm real models emit: reductions and elementwise ops "
        "(JAX has no batch_norm primitive, so no `batch-norm-*` instruction appears).",
        "",
        "| program | computes | inputs → outputs | HLO opcodes |",
        "|---|---|---|---|",
    ]
    lines += [table[name] for name, _, _, _ in PROGRAMS if name in table]
    lines.append("")
    # The section of program-level figures is measured by harness/tests/programs.rs and kept.
    kept = ""
    if os.path.exists(path):
        with open(path) as fh:
            old = fh.read()
        marker = "## Exact results against XLA's"
        if marker in old:
            kept = marker + old.split(marker, 1)[1]
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + ("\n" + kept if kept else ""))


def main(argv):
    wanted = set(argv)
    known = {p[0] for p in PROGRAMS}
    unknown = wanted - known
    if unknown:
        sys.stderr.write(f"unknown programs: {sorted(unknown)}; known: {sorted(known)}\n")
        return 2
    rows = []
    for name, description, expect, builder in PROGRAMS:
        if wanted and name not in wanted:
            continue
        ops = dump(name, description, expect, builder)
        folder = os.path.join(OUT_DIR, name)
        with np.load(os.path.join(folder, "inputs.npz")) as z:
            ins = _signature([z[k] for k in sorted(z.files, key=lambda s: int(s[3:]))])
        with np.load(os.path.join(folder, "outputs.npz")) as z:
            outs = _signature([z[k] for k in sorted(z.files, key=lambda s: int(s[3:]))])
        rows.append((name, description, ins, outs, ops))
        print(f"{name:16} {' '.join(sorted(ops))}")
    write_readme(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
