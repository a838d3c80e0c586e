#!/usr/bin/env python3
"""IREE's llvm-cpu backend as a conformance worker (docs/protocol.md, protocol version 2).

Compiles each request's `module.stablehlo` text with `iree.compiler.compile_str(...,
target_backends=["llvm-cpu"], input_type="stablehlo")` for the host CPU
(`--iree-llvmcpu-target-cpu=host`), loads the VM flatbuffer into the `local-task` driver and
calls `@main` on the request's inputs. Compiled modules are cached by text (least recently used
evicted), so the cases of a sweep that share a module compile once.

Two configurations, two registered names (harness/src/backends/mod.rs):

- `iree`: IREE as it comes. Its input pipeline demotes f64 to f32 by default
  (`--iree-input-demote-f64-to-f32`), which changes `@main`'s signature; the worker measures this
  at start-up and then declares f64 and c128 outside its element types, so those cases are
  recorded as unsupported with the reason in the hello, not compared at f32 precision.
- `iree-f64` (`--f64`): compiles with `--iree-input-demote-f64-to-f32=false`, so f64 runs as
  f64.

Run with the project's virtualenv (iree-base-compiler, iree-base-runtime, numpy, ml_dtypes):

    .venv/bin/python workers/iree/iree_worker.py [--f64] [--cache N]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import worker_protocol as wp  # noqa: E402  (first: it keeps stdout for protocol frames)

import argparse  # noqa: E402
import collections  # noqa: E402
import importlib.metadata  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import iree.compiler as iree_compiler  # noqa: E402
from iree.compiler import ir as iree_ir  # noqa: E402
import iree.runtime as iree_runtime  # noqa: E402


def log(*parts):
    print("iree_worker:", *parts, file=sys.stderr, flush=True)


# Something IREE says it does not implement: an input operation it has no lowering for at all
# (`failed to legalize operation 'stablehlo.cholesky'`: the module's own StableHLO or CHLO
# operation), or a diagnostic saying so. A failed legalization of an operation of IREE's own
# lower dialects (math, arith, linalg: a supported operation in an element type it cannot lower),
# a crash, a link error and a verifier error inside its pipeline are failures.
_UNSUPPORTED = re.compile(
    r"[Uu]nsupported|not (yet )?supported|not implemented|NYI|unimplemented|UNIMPLEMENTED"
    r"|failed to legalize operation '(stablehlo|chlo)\.[a-z_0-9]+'"
)


def compiler_message(e):
    """The diagnostics of a CompilerToolError without the command line that follows them."""
    text = str(e)
    at = text.find("Diagnostics:")
    if at >= 0:
        text = text[at + len("Diagnostics:"):]
    cut = text.find("\nInvoked with:")
    if cut >= 0:
        text = text[:cut]
    # The target's feature list is a few kilobytes that say nothing about the module.
    text = re.sub(r'cpu_features = "[^"]*"', 'cpu_features = "..."', text)
    crash = text.find("Please report issues to")
    if crash >= 0:
        # A crash of iree-compile: where it crashed (the innermost frames of its own code), then
        # the diagnostics it printed before.
        frames = [
            f for f in re.findall(r"^\s*#\d+ 0x[0-9a-f]+ (.+?)(?: \S+:\d+:\d+)?$", text[crash:], re.M)
            if not re.search(r"llvm::sys::|SignalHandler|libc\.so|^\(", f)
        ]
        where = " < ".join(f[:160] for f in frames[:3]) or "an unknown frame"
        text = f"iree-compile crashed in {where}\n{text[:crash].strip()}"
    return text.strip() or type(e).__name__


_CONTEXT = None


def classify_compile_error(text, message):
    """'invalid' | 'unsupported' | 'failure' for IREE's diagnostics `message` on module `text`.
    The module is invalid when IREE's own MLIR context (StableHLO registered, verifier on) cannot
    parse and verify it (checked only for a module that failed); past that point a refusal is
    IREE's: `unsupported` when it says it does not implement something, else a failure."""
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = iree_ir.Context()
    try:
        with _CONTEXT:
            iree_ir.Module.parse(text)
    except Exception:  # noqa: BLE001 - the module does not parse or verify
        return "invalid"
    if message.startswith("iree-compile crashed"):
        return "failure"
    first = next((line for line in message.splitlines() if "error:" in line), message)
    return "unsupported" if _UNSUPPORTED.search(first) else "failure"


class Iree:
    def __init__(self, cache_size, demote_f64):
        self.config = iree_runtime.Config("local-task")
        self.flags = ["--iree-llvmcpu-target-cpu=host"]
        if not demote_f64:
            self.flags.append("--iree-input-demote-f64-to-f32=false")
        self.cache = collections.OrderedDict()  # text -> (function, params) | ("error", kind, msg)
        self.cache_size = cache_size

    def compile(self, text):
        """-> (callable @main, its parameters as worker_protocol.main_parameters gives them), or
        ("error", kind, message) (errors are cached too)."""
        hit = self.cache.get(text)
        if hit is None:
            try:
                vmfb = iree_compiler.compile_str(
                    text, target_backends=["llvm-cpu"], input_type="stablehlo",
                    extra_args=self.flags,
                )
                ctx = iree_runtime.SystemContext(config=self.config)
                ctx.add_vm_module(iree_runtime.VmModule.copy_buffer(ctx.instance, vmfb))
                hit = (ctx.modules.module["main"], wp.main_parameters(text))
            except Exception as e:  # noqa: BLE001 - every compiler error becomes a reply
                msg = compiler_message(e)
                hit = ("error", classify_compile_error(text, msg), msg)
            self.cache[text] = hit
            while len(self.cache) > self.cache_size:
                self.cache.popitem(last=False)
        else:
            self.cache.move_to_end(text)
        return hit

    @staticmethod
    def run(function, arrays):
        """-> (outputs as numpy arrays, microseconds from the call until the results are on the
        host)."""
        start = time.perf_counter_ns()
        result = function(*arrays)
        if not isinstance(result, (tuple, list)):
            result = (result,)
        outs = [np.asarray(r.to_host() if hasattr(r, "to_host") else r) for r in result]
        return outs, (time.perf_counter_ns() - start) // 1000


def handle_execute(iree, header, datas):
    req_id = header.get("id")
    module = header.get("module")
    text = module.get("stablehlo") if isinstance(module, dict) else None
    if not isinstance(text, str):
        wp.error_reply(req_id, "unsupported", "iree reads StableHLO only; the request has no module.stablehlo")
        return
    try:
        arrays = wp.decode_inputs(header, datas)
    except wp.BadInput as e:
        wp.error_reply(req_id, "invalid", str(e))
        return
    if header.get("devices"):
        wp.error_reply(req_id, "unsupported", "iree's local-task driver runs one device")
        return
    feed = wp.FEEDS.search(text)
    if feed:
        wp.error_reply(req_id, "unsupported", f"{feed.group(0)}: iree's Python runtime binds no device queues")
        return
    compiled = iree.compile(text)
    if compiled[0] == "error":
        wp.error_reply(req_id, compiled[1], compiled[2])
        return
    function, params = compiled
    mismatch = wp.check_inputs(params, arrays)
    if mismatch is not None:
        wp.error_reply(req_id, "invalid", mismatch)
        return
    try:
        outputs, micros = iree.run(function, arrays)
    except Exception as e:  # noqa: BLE001 - execution errors are backend failures
        message = str(e) or type(e).__name__
        # The local-task driver has no collectives: a one-replica module holding one compiles
        # and then refuses to run.
        kind = "unsupported" if "UNIMPLEMENTED" in message else "failure"
        wp.error_reply(req_id, kind, message)
        return
    wp.result_reply(req_id, outputs, micros)


_ADD_F64 = """module {
  func.func public @main(%arg0: tensor<2xf64>) -> tensor<2xf64> {
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
    "func.return"(%0) : (tensor<2xf64>) -> ()
  }
}"""


def runs_f64(iree):
    """True when an f64 module takes and gives f64 (False: IREE demoted it to f32)."""
    compiled = iree.compile(_ADD_F64)
    if compiled[0] == "error":
        raise RuntimeError(f"f64 probe did not compile: {compiled[2]}")
    try:
        out = iree.run(compiled[0], [np.array([1.5, 2.0**-60], np.float64)])[0][0]
    except Exception as e:  # noqa: BLE001 - IREE rejects an f64 input to a demoted function
        log("f64 probe:", str(e).splitlines()[0])
        return False
    return out.dtype == np.float64 and out[1] == 2.0**-59


_NEGATE = """module {{
  func.func public @main(%arg0: tensor<2x{t}>) -> tensor<2x{t}> {{
    %0 = "stablehlo.negate"(%arg0) : (tensor<2x{t}>) -> tensor<2x{t}>
    "func.return"(%0) : (tensor<2x{t}>) -> ()
  }}
}}"""


def runnable_types(iree, candidates):
    """The element types of `candidates` (HLO names) whose values IREE can take and give: a
    negation compiles, runs and returns the negated bits. Others are logged and left out
    (IREE 3.13: "'hal.element_type' op unsupported element type" for f8E4M3, f8E3M4 and
    f8E4M3B11FNUZ, which its runtime cannot map either)."""
    mlir_of = {h: m for m, h in wp.MLIR_TO_HLO.items()}
    kept = []
    for t in candidates:
        if t in ("pred",) or t not in mlir_of:
            kept.append(t)
            continue
        dtype = wp.DTYPES[t]
        compiled = iree.compile(_NEGATE.format(t=mlir_of[t]))
        try:
            if compiled[0] == "error":
                raise RuntimeError(compiled[2].splitlines()[0])
            a = np.array([1, 2], dtype=dtype)
            out = iree.run(compiled[0], [a])[0][0]
            if out.dtype != dtype or not np.array_equal(out, -a):
                raise RuntimeError(f"negate gave {out!r}")
            kept.append(t)
        except Exception as e:  # noqa: BLE001 - the type is left out, with IREE's reason
            log(f"{t}: not declared ({str(e)[:200]})")
    return kept


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=int, default=256, help="compiled modules kept (LRU)")
    ap.add_argument("--f64", action="store_true",
                    help="compile with --iree-input-demote-f64-to-f32=false")
    args = ap.parse_args(argv)
    iree = Iree(max(1, args.cache), demote_f64=not args.f64)

    def run_text(text, arrays):
        compiled = iree.compile(text)
        if compiled[0] == "error":
            raise RuntimeError(f"probe did not compile: {compiled[2]}")
        return iree.run(compiled[0], arrays)[0]

    f64 = runs_f64(iree)
    subnormals = wp.detect_subnormals(
        run_text, log, ("f32", "f64", "f16", "bf16") if f64 else ("f32", "f16", "bf16"))
    types = runnable_types(iree, [t for t in wp.DTYPES if f64 or t not in ("f64", "c128")])
    log("f64", "kept" if f64 else "demoted to f32: f64 and c128 are declared unsupported")
    wp.hello(
        "iree-llvm-cpu" + ("-f64" if args.f64 else ""),
        "iree-base-compiler {} / iree-base-runtime {}".format(
            importlib.metadata.version("iree-base-compiler"),
            importlib.metadata.version("iree-base-runtime"),
        ),
        {
            "module_formats": ["stablehlo"],
            "opcodes": None,
            "element_types": types,
            "layouts": "row-major",
            **subnormals,
            # IREE's own rng_bit_generator counters, not XLA's (docs/random.md).
            "rng_bit_layout": "iree",
            "f64": "preserve" if f64 else "demoted-to-f32",
        },
    )
    return wp.serve(lambda header, datas: handle_execute(iree, header, datas), log)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
