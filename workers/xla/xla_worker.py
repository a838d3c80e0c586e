#!/usr/bin/env python3
"""XLA's CPU backend as a conformance worker (docs/protocol.md, protocol version 2).

Reads execute requests on stdin, compiles each request's `module.stablehlo` text with jaxlib's
PJRT CPU client, runs it on the request's inputs and writes the outputs on stdout. Framing,
literals and the request loop are workers/common/worker_protocol.py's, imported before jax so
that any library print lands on stderr.

Run with the project's virtualenv (jax, jaxlib, ml_dtypes, numpy):

    .venv/bin/python workers/xla/xla_worker.py

Options: `--cache N` executables kept (least recently used evicted; default 256), `--devices N`
host devices (default 8): modules of several replicas run on XLA's CPU collectives across them.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import worker_protocol as wp  # noqa: E402  (first: it keeps stdout for protocol frames)

# Several host devices for modules of several replicas (docs/collectives.md): XLA reads the flag
# when its CPU client starts, so it is set before jax is imported.
_DEVICES = 8
for _k, _a in enumerate(sys.argv):
    if _a == "--devices" and _k + 1 < len(sys.argv) and sys.argv[_k + 1].isdigit():
        _DEVICES = max(1, int(sys.argv[_k + 1]))
os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + f" --xla_force_host_platform_device_count={_DEVICES}"
).strip()

import argparse  # noqa: E402
import collections  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.extend  # noqa: E402
import jaxlib  # noqa: E402

jax.config.update("jax_enable_x64", True)  # keep f64/s64/u64/c128 inputs as they are
from jax._src.lib import xla_client  # noqa: E402
from jaxlib import lapack as _jaxlib_lapack  # noqa: E402

# jaxlib's LAPACK kernels (the `lapack_*_ffi` custom-call targets, docs/custom-calls.md) resolve
# their LAPACK entry points lazily, when JAX first lowers a linear-algebra primitive. A module
# that arrives as text skips that lowering, so the entry points are resolved here; without it,
# running such a call dereferences a null function pointer (a segfault, not an error).
_jaxlib_lapack.prepare_lapack_call("potrf", np.float32)


def log(*parts):
    print("xla_worker:", *parts, file=sys.stderr, flush=True)


def is_token(buffer):
    """True for the buffer of a token result: jaxlib gives it as a bool[0] array that numpy
    cannot read ("Cannot convert a token-shape buffer")."""
    if getattr(buffer, "dtype", None) != np.bool_ or getattr(buffer, "shape", None) != (0,):
        return False
    try:
        np.asarray(buffer)
    except Exception as e:  # noqa: BLE001 - jaxlib raises its own error type
        return "token" in str(e)
    return False


# --- parameter shapes of a compiled program -------------------------------------------------------

_SHAPE = re.compile(r"^([a-z][a-z0-9]*)\[([0-9,]*)\](\{[^}]*\})?$")


def _split_top(text):
    """Splits `text` at commas outside (), [] and {}."""
    items, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:k].strip())
            start = k + 1
    tail = text[start:].strip()
    if tail or items:
        items.append(tail)
    return items


def parameter_shapes(executable):
    """The entry parameters' (element type, dims) from the compiled module's
    `entry_computation_layout`; an entry is None when it is not an array (a tuple, a dynamic
    shape). Returns None when the layout cannot be found (no check is then made)."""
    try:
        text = executable.hlo_modules()[0].to_string()
    except Exception:  # noqa: BLE001 - only a check; XLA still validates sizes
        return None
    head = text.split("\n", 1)[0]
    key = "entry_computation_layout={"
    at = head.find(key)
    if at < 0:
        return None
    k = at + len(key)
    if k >= len(head) or head[k] != "(":
        return None
    depth, end = 0, None
    for j in range(k, len(head)):
        if head[j] in "([{":
            depth += 1
        elif head[j] in ")]}":
            depth -= 1
            if depth == 0:
                end = j
                break
    if end is None:
        return None
    shapes = []
    for item in _split_top(head[k + 1 : end]):
        m = _SHAPE.match(item)
        if m is None:
            shapes.append(None)
            continue
        dims = [int(d) for d in m.group(2).split(",")] if m.group(2) else []
        shapes.append((m.group(1), dims))
    return shapes


# --- compile errors -------------------------------------------------------------------------------

_UNSUPPORTED = re.compile(
    r"UNIMPLEMENTED|[Uu]nsupported (element |primitive |data )?type|not (yet )?implemented"
    r"|No registered implementation for .*custom call"
    # XLA's CHLO expansions exist only for some element types (chlo.erfc and chlo.bessel_i1e
    # have none for the f8 types): the operation is valid, XLA cannot lower it.
    r"|failed to legalize operation 'chlo\.[a-z_0-9]+'"
)
_INVALID = re.compile(
    r"-:\d+:\d+: error:|Failed to parse|failed to verify|op requires|is unknown"
    r"|must be passed array shapes|\(TUPLE\)"
)
# PJRT's complaints about a tuple-typed entry result (jaxlib 0.10.2: a flat tuple, a nested one)
_TUPLE_RESULT = re.compile(r"must be passed array shapes|Invalid XLA PrimitiveType: \d+ \(TUPLE\)")


# Infeed and outfeed move values through the device's queues, which the host fills and drains
# with PjRtDevice::TransferToInfeed / TransferFromOutfeed. jaxlib 0.10.2 binds neither (its
# Device has no transfer_to_infeed; the PJRT C API says "does not support TransferToInfeed"),
# so a module that reads an infeed would block XLA for ever.
FEEDS_REASON = (
    "{op}: jaxlib exposes no transfer_to_infeed / transfer_from_outfeed (PJRT C API: "
    "'does not support TransferToInfeed'), so the case's queues cannot reach XLA"
)


def classify_compile_error(message):
    """'unsupported' | 'invalid' | 'failure' for an XLA compile error message."""
    if _UNSUPPORTED.search(message):
        return "unsupported"
    if _INVALID.search(message):
        return "invalid"
    return "failure"


TUPLE_RESULT_HINT = (
    "the entry function returns a tuple, which PJRT does not accept: docs/protocol.md asks for "
    "a tuple root's leaves as the results of @main. XLA says: "
)


# --- the backend ----------------------------------------------------------------------------------


class XlaCpu:
    def __init__(self, cache_size):
        self.backend = jax.extend.backend.get_backend("cpu")
        self.device = self.backend.local_devices()[0]
        # One-device programs run on the first device; replicated ones on the first N.
        self.devices = xla_client.DeviceList((self.device,))
        self.cache = collections.OrderedDict()  # text -> (executable, params) | ("error", kind, msg)
        self.cache_size = cache_size

    def compile(self, text, replicas=1):
        """-> (executable, parameter shapes as `parameter_shapes` gives them), or
        ("error", kind, message) when XLA rejects the text (errors are cached too). A module of
        several replicas is compiled for that many devices, replica r on device r."""
        key = (text, replicas)
        hit = self.cache.get(key)
        if hit is None:
            try:
                options = xla_client.CompileOptions()
                devices = self.devices
                if replicas > 1:
                    local = self.backend.local_devices()
                    if replicas > len(local):
                        raise ValueError(
                            f"UNIMPLEMENTED: {replicas} replicas, the worker has {len(local)} host devices (--devices)"
                        )
                    options.num_replicas = replicas
                    options.device_assignment = xla_client.DeviceAssignment.create(
                        np.arange(replicas).reshape(replicas, 1)
                    )
                    devices = xla_client.DeviceList(tuple(local[:replicas]))
                ex = self.backend.compile_and_load(text, devices, options)
                hit = (ex, parameter_shapes(ex))
            except Exception as e:  # noqa: BLE001 - every compiler error becomes a reply
                msg = str(e) or type(e).__name__
                if _TUPLE_RESULT.search(msg):
                    msg = TUPLE_RESULT_HINT + msg
                hit = ("error", classify_compile_error(msg), msg)
            self.cache[key] = hit
            while len(self.cache) > self.cache_size:
                self.cache.popitem(last=False)
        else:
            self.cache.move_to_end(key)
        return hit

    def run(self, executable, arrays):
        """-> (outputs as numpy arrays, microseconds spent executing: from the launch until the
        results are ready, without compilation and host<->device transfers)."""
        args = jax.block_until_ready([jax.device_put(a, self.device) for a in arrays])
        start = time.perf_counter_ns()
        outs = jax.block_until_ready(executable.execute(args))
        micros = (time.perf_counter_ns() - start) // 1000
        # A token result has no value (docs/protocol.md): it is left out.
        return [np.asarray(o) for o in outs if not is_token(o)], micros

    def run_replicated(self, executable, per_device):
        """Runs a replicated executable: `per_device[d]` are replica d's inputs. -> (outputs of
        each replica in turn, microseconds executing)."""
        from jax.sharding import Mesh, NamedSharding, PartitionSpec

        devices = executable.local_devices()
        n = len(devices)
        sharding = NamedSharding(Mesh(np.array(devices), ("replica",)), PartitionSpec("replica"))
        args = []
        for k in range(len(per_device[0])):
            # One global array per parameter holding each replica's buffer as its shard: split
            # along dimension 0 (scalars as shards of shape (1,), the same bytes).
            parts = [np.asarray(per_device[d][k]) for d in range(n)]
            parts = [p.reshape((1,)) if p.ndim == 0 else p for p in parts]
            shape = (sum(p.shape[0] for p in parts),) + parts[0].shape[1:]
            bufs = [jax.device_put(p, dev) for p, dev in zip(parts, devices)]
            args.append(jax.make_array_from_single_device_arrays(shape, sharding, bufs))
        args = jax.block_until_ready(args)
        start = time.perf_counter_ns()
        results = executable.execute_sharded(args)
        outs = jax.block_until_ready(results.disassemble_into_single_device_arrays())
        micros = (time.perf_counter_ns() - start) // 1000
        return [np.asarray(outs[k][d]) for d in range(n) for k in range(len(outs))
                if not is_token(outs[k][d])], micros


def handle_execute(xla, header, datas):
    req_id = header.get("id")
    module = header.get("module")
    text = module.get("stablehlo") if isinstance(module, dict) else None
    if not isinstance(text, str):
        wp.error_reply(req_id, "unsupported", "xla-cpu reads StableHLO only; the request has no module.stablehlo")
        return
    try:
        arrays = wp.decode_inputs(header, datas)
    except wp.BadInput as e:
        wp.error_reply(req_id, "invalid", str(e))
        return
    grid = header.get("devices") or {}
    replicas, partitions = grid.get("replicas", 1), grid.get("partitions", 1)
    if not (isinstance(replicas, int) and isinstance(partitions, int) and replicas >= 1 and partitions >= 1):
        wp.error_reply(req_id, "invalid", f"devices {grid!r}: expected positive replicas and partitions")
        return
    if partitions > 1:
        # XLA compiles num_partitions > 1 only through its SPMD partitioner, which needs sharding
        # annotations and refuses partition-id without them (docs/collectives.md).
        wp.error_reply(req_id, "unsupported",
                    f"{partitions} partitions: XLA's CPU client runs several partitions only through its SPMD partitioner")
        return
    if len(arrays) % replicas != 0:
        wp.error_reply(req_id, "invalid", f"{len(arrays)} inputs for {replicas} replicas")
        return
    feed = wp.FEEDS.search(text)
    if feed:
        # An infeed would wait for ever: nothing here can fill XLA's queues (docs/host-transfers.md).
        wp.error_reply(req_id, "unsupported", FEEDS_REASON.format(op=feed.group(0)))
        return
    compiled = xla.compile(text, replicas)
    if compiled[0] == "error":
        wp.error_reply(req_id, compiled[1], compiled[2])
        return
    executable, params = compiled
    per = len(arrays) // replicas
    per_device = [arrays[d * per:(d + 1) * per] for d in range(replicas)]
    for device_inputs in per_device:
        mismatch = wp.check_inputs(params, device_inputs)
        if mismatch is not None:
            wp.error_reply(req_id, "invalid", mismatch)
            return
    try:
        if replicas > 1:
            outputs, micros = xla.run_replicated(executable, per_device)
        else:
            outputs, micros = xla.run(executable, arrays)
    except Exception as e:  # noqa: BLE001 - execution errors are backend failures
        wp.error_reply(req_id, "failure", str(e) or type(e).__name__)
        return
    wp.result_reply(req_id, outputs, micros)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=int, default=256, help="executables kept (LRU)")
    ap.add_argument("--devices", type=int, default=8, help="host devices (read before jax starts)")
    args = ap.parse_args(argv)
    xla = XlaCpu(max(1, args.cache))

    def run_text(text, arrays):
        compiled = xla.compile(text)
        if compiled[0] == "error":
            raise RuntimeError(f"probe did not compile: {compiled[2]}")
        return xla.run(compiled[0], arrays)[0]

    subnormals = wp.detect_subnormals(run_text, log)
    wp.hello(
        "xla-cpu",
        f"jax {jax.__version__} / jaxlib {jaxlib.__version__}",
        {
            "module_formats": ["stablehlo"],
            "opcodes": None,
            "element_types": list(wp.DTYPES),
            "layouts": "row-major",
            **subnormals,
            # XLA's RngBitGeneratorExpander: Threefry/Philox with XLA's counter layout,
            # rng_default = Philox (docs/random.md).
            "rng_bit_layout": "xla",
            # Replicas run on this many host devices (--xla_force_host_platform_device_count).
            "devices": len(xla.backend.local_devices()),
        },
    )
    return wp.serve(lambda header, datas: handle_execute(xla, header, datas), log)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
