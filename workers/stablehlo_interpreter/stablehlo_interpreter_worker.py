#!/usr/bin/env python3
"""The StableHLO reference interpreter (bundled in jaxlib) as a conformance worker
(docs/protocol.md, protocol version 2).

Reads execute requests on stdin, parses each request's `module.stablehlo` text in JAX's MLIR
context, runs `@main` with `stablehlo.eval_module` (StableHLO's reference interpreter) on the
request's inputs and writes the outputs on stdout. Framing, literals and the request loop are
workers/common/worker_protocol.py's, imported before jaxlib so that any library print lands on
stderr.

Two things shape this worker:

- **The interpreter kills its process on many errors.** An operation it does not implement
  (`rng_bit_generator`, CHLO) ends in LLVM's `report_fatal_error` (abort), an integer division
  by zero in a SIGFPE, a collective that waits more than 3 s in "rendezvous timed out" (abort).
  So the interpreter runs in a *sandbox*: a child process forked from this one (no re-import, a
  few milliseconds), which parses, caches and evaluates modules and answers over a pipe. When it
  dies, the request gets an error naming the signal and the interpreter's last words (its
  stderr goes to a file this process reads), and the next request forks a new sandbox.
- **Results are read as integers.** jaxlib gives numpy a DenseElementsAttr's buffer only for
  integers, bool, f16, f32 and f64 (for bf16, the f8 types and complex, `np.array(attr)` is an
  object array holding the attribute, or fails, or has been seen to abort in C++). So `@main`
  is wrapped: the original becomes a private function, and a new `@main` calls it (or runs it on
  a grid of devices with `interpreter.run_parallel`) and returns every float result through
  `stablehlo.bitcast_convert` to the unsigned integer of its width, and every complex result as
  `stablehlo.real` and `stablehlo.imag`, each bitcast the same way. These ops are exact, so the
  bits read are the interpreter's bits, NaN payloads included.

Run with the project's virtualenv (jax, jaxlib, ml_dtypes, numpy):

    .venv/bin/python workers/stablehlo_interpreter/stablehlo_interpreter_worker.py

Options: `--cache N` parsed modules kept by the sandbox (least recently used evicted; default
256), `--devices N` the most devices (replicas x partitions) of a module run (default 8, never
more than the CPUs the process may use: the interpreter runs a grid on one thread per CPU, and a
collective over more processes than threads waits until its 3 s rendezvous timeout aborts).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import worker_protocol as wp  # noqa: E402  (first: it keeps stdout for protocol frames)

import argparse  # noqa: E402
import collections  # noqa: E402
import ctypes  # noqa: E402
import fcntl  # noqa: E402
import pickle  # noqa: E402
import re  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import struct  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import jaxlib  # noqa: E402
from jaxlib.mlir import ir  # noqa: E402
from jaxlib.mlir._mlir_libs import _stablehlo as sh  # noqa: E402
from jax._src.interpreters import mlir as jax_mlir  # noqa: E402

NAME = "stablehlo-interpreter"


def log(*parts):
    print("stablehlo_interpreter_worker:", *parts, file=sys.stderr, flush=True)


# --- error classification -----------------------------------------------------------------------

# The interpreter saying it does not implement something: "Operation stablehlo.rng_bit_generator
# is unsupported at the moment", "Unsupported op: chlo.lgamma", "... not implemented".
_UNSUPPORTED = re.compile(
    r"[Uu]nsupported|not (yet )?(implemented|supported)|[Uu]nimplemented|NYI"
)
# Inputs the entry does not take (the worker checks them first; these are the interpreter's own
# words for what slips through).
_INVALID = re.compile(r"incorrect number of arguments|invalid input argument type")


class Refusal(Exception):
    """A module or request the sandbox answers with an error of `kind`."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def classify(message):
    if _UNSUPPORTED.search(message):
        return "unsupported"
    if _INVALID.search(message):
        return "invalid"
    return "failure"


FEEDS_REASON = (
    "{op}: the interpreter takes an infeed only as functions of the module named in "
    "interpreter.run_parallel's `infeed` (one queue shared by every device) and keeps its "
    "outfeed to itself (stablehlo#1725), so the case's queues cannot reach it"
)

# stablehlo.send / stablehlo.recv between devices (host transfers are outside a case).
SEND_RECV = re.compile(r"stablehlo\.(send|recv)\b")
SEND_RECV_REASON = (
    "{op}: the interpreter's channels know no source-target pairs (XLA's "
    "_xla_send_recv_source_target_pairs frontend attribute does not reach it): a send waits up to "
    "3 s for a recv posted on the same channel_id by any device and hands it the value, so a "
    "program that every device runs cannot say who sends to whom, a self pair or a device no "
    "pair targets (zeros) cannot be expressed, and the case's transfers (docs/host-transfers.md) "
    "end in 'send timed out' or 'recv timed out'"
)

TUPLE_RESULT_HINT = (
    "@main returns a tuple, which the interpreter cannot hand back as an array: docs/protocol.md "
    "asks for a tuple root's leaves as the results of @main"
)


# --- the interpreter side (runs in the sandbox process) ------------------------------------------

DEVICE_MAIN = "__conformance_device_main"
# Operations the interpreter runs only inside a process grid ("all_reduce is only supported when
# run via interpreter.run_parallel"): a one-device module holding one runs on a 1x1 grid.
PROCESS_OPS = re.compile(
    r"stablehlo\.(all_reduce|all_gather|all_to_all|reduce_scatter|collective_permute"
    r"|collective_broadcast|replica_id|partition_id|send|recv|infeed|outfeed)\b"
)
HLO_TO_MLIR = {hlo: mlir for mlir, hlo in wp.MLIR_TO_HLO.items()}


def _unsigned_of_width(bits):
    return np.dtype(f"<u{bits // 8}")


class Prepared:
    """A parsed module whose `@main` is the conversion wrapper, and how to read its results:
    `plan` holds, per output of the request (every device's in turn), (HLO name, kind) with kind
    'int' (read as is), 'float' (one unsigned integer result) or 'complex' (two: re, im)."""

    def __init__(self, module, plan, n_inputs):
        self.module = module
        self.plan = plan
        self.n_inputs = n_inputs


def _find_main(module):
    for op in module.body.operations:
        if op.operation.name == "func.func" and "sym_name" in op.attributes:
            if ir.StringAttr(op.attributes["sym_name"]).value == "main":
                return op
    return None


def _result_kind(t):
    """('token' | 'tuple' | 'int' | 'float' | 'complex' | None, HLO name or None)."""
    s = str(t)
    if s == "!stablehlo.token":
        return "token", None
    if s.startswith("tuple<"):
        return "tuple", None
    if not isinstance(t, ir.RankedTensorType):
        return None, None
    rt = ir.RankedTensorType(t)
    if not rt.has_static_shape:
        return None, None
    et = rt.element_type
    name = wp.MLIR_TO_HLO.get(str(et))
    if name is None or name not in wp.DTYPES:
        return None, None
    if isinstance(et, ir.ComplexType):
        return "complex", name
    if isinstance(et, ir.FloatType):
        return "float", name
    return "int", name


def build_wrapper(module, replicas, partitions, grid):
    """Renames `@main` to a private device function and adds the conversion wrapper `@main`:
    its inputs are each device's inputs in turn, its results each device's results in turn
    (tokens left out), floats bitcast to unsigned integers, complex split into re/im bits. The
    wrapper calls the device function, or with `grid` (always for several devices) runs it on a
    replicas x partitions grid with `interpreter.run_parallel`, the only way the interpreter
    gives a program a process (replica and partition ids, collectives). Returns (plan (see
    Prepared), number of inputs). Raises Refusal."""
    main = _find_main(module)
    if main is None:
        raise Refusal("invalid", "the module has no func.func @main")
    ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
    ins, outs = list(ftype.inputs), list(ftype.results)
    for k, t in enumerate(ins):
        if not (isinstance(t, ir.RankedTensorType) and ir.RankedTensorType(t).has_static_shape):
            raise Refusal("unsupported", f"@main's parameter {k} has type {t}, which no input can fill")
    kinds = []
    for k, t in enumerate(outs):
        kind, name = _result_kind(t)
        if kind == "tuple":
            raise Refusal("invalid", f"{TUPLE_RESULT_HINT} (result {k} is {t})")
        if kind is None:
            raise Refusal("unsupported", f"@main's result {k} has type {t}, which has no HLO array here")
        kinds.append((kind, name))
    if _find_symbol(module, DEVICE_MAIN):
        raise Refusal("unsupported", f"the module already defines @{DEVICE_MAIN}")
    ir.SymbolTable.replace_all_symbol_uses("main", DEVICE_MAIN, module.operation)
    ir.SymbolTable.set_symbol_name(main, DEVICE_MAIN)
    ir.SymbolTable.set_visibility(main, "private")

    devices = replicas * partitions
    all_ins = ins * devices
    all_outs = outs * devices
    plan, final_types = [], []
    for kind, name in kinds * devices:
        if kind == "token":
            continue
        plan.append((name, kind))
    wrapper = ir.Operation.create("func.func", regions=1, attributes={
        "sym_name": ir.StringAttr.get("main"),
        "function_type": ir.TypeAttr.get(ir.FunctionType.get(all_ins, [])),  # fixed below
    }, ip=ir.InsertionPoint(module.body))
    block = ir.Block.create_at_start(wrapper.regions[0], all_ins,
                                     [ir.Location.unknown()] * len(all_ins))
    with ir.InsertionPoint(block):
        args = list(block.arguments)
        if not grid:
            call = ir.Operation.create("func.call", results=outs, operands=args, attributes={
                "callee": ir.FlatSymbolRefAttr.get(DEVICE_MAIN)})
        else:
            program = ir.FlatSymbolRefAttr.get(DEVICE_MAIN)
            programs = ir.ArrayAttr.get([ir.ArrayAttr.get([program] * partitions)] * replicas)
            call = ir.Operation.create("interpreter.run_parallel", results=all_outs, operands=args,
                                       attributes={"programs": programs})
        values = []
        for (kind, _), v in zip(kinds * devices, call.results):
            if kind == "token":
                continue
            if kind == "int":
                values.append(v)
                continue
            rt = ir.RankedTensorType(v.type)
            shape = list(rt.shape)
            if kind == "float":
                parts = [v]
                width = ir.FloatType(rt.element_type).width
            else:
                ft = ir.ComplexType(rt.element_type).element_type
                width = ir.FloatType(ft).width
                part_type = ir.RankedTensorType.get(shape, ft)
                parts = [ir.Operation.create(op, results=[part_type], operands=[v]).result
                         for op in ("stablehlo.real", "stablehlo.imag")]
            bits_type = ir.RankedTensorType.get(shape, ir.IntegerType.get_unsigned(width))
            for p in parts:
                values.append(ir.Operation.create("stablehlo.bitcast_convert", results=[bits_type],
                                                  operands=[p]).result)
        ir.Operation.create("func.return", operands=values)
        final_types = [v.type for v in values]
    wrapper.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(all_ins, final_types))
    return plan, len(all_ins)


def _find_symbol(module, name):
    for op in module.body.operations:
        if "sym_name" in op.attributes and ir.StringAttr(op.attributes["sym_name"]).value == name:
            return True
    return False


def _read_ints(attr):
    """An integer/bool DenseElementsAttr -> numpy array of its full shape (splats expanded)."""
    shape = tuple(ir.ShapedType(attr.type).shape)
    a = np.array(attr)
    if a.shape != shape:
        a = np.broadcast_to(a, shape)
    return np.array(a, order="C")  # (np.ascontiguousarray would make a scalar 1-d)


class Interpreter:
    """StableHLO's reference interpreter in this process: parses (and caches) modules and
    evaluates them. Only ever used inside the sandbox."""

    def __init__(self, cache_size):
        self.ctx = jax_mlir.make_ir_context()
        # A forked process has none of its parent's threads: keep MLIR off its thread pool.
        self.ctx.enable_multithreading(False)
        sh.register_interpreter_dialect(self.ctx)
        self.diagnostics = []
        self.ctx.attach_diagnostic_handler(self._diagnostic)
        self.cache = collections.OrderedDict()  # (text, R, P) -> Prepared | (kind, message)
        self.cache_size = cache_size

    def _diagnostic(self, d):
        self.diagnostics.append(str(d))
        for n in d.notes:
            self.diagnostics.append("note: " + str(n))
        return True

    def prepare(self, text, replicas, partitions):
        key = (text, replicas, partitions)
        hit = self.cache.get(key)
        if hit is None:
            try:
                hit = self._prepare(text, replicas, partitions)
            except Refusal as e:
                hit = (e.kind, str(e))  # errors are cached too
            self.cache[key] = hit
            while len(self.cache) > self.cache_size:
                self.cache.popitem(last=False)
        else:
            self.cache.move_to_end(key)
        if isinstance(hit, tuple):
            raise Refusal(*hit)
        return hit

    def _prepare(self, text, replicas, partitions):
        with self.ctx, ir.Location.unknown():
            self.diagnostics.clear()
            try:
                module = ir.Module.parse(text)
            except ir.MLIRError as e:
                raise Refusal("invalid", str(e))
            grid = replicas * partitions > 1 or bool(PROCESS_OPS.search(text))
            plan, n_inputs = build_wrapper(module, replicas, partitions, grid)
            self.diagnostics.clear()
            try:
                module.operation.verify()
            except ir.MLIRError as e:
                raise Refusal("failure", f"the conversion wrapper does not verify: {e}")
            return Prepared(module, plan, n_inputs)

    def run(self, prepared, inputs):
        """inputs: (HLO name, dims, row-major bytes) -> ([(HLO name, dims, bytes)], micros)."""
        if len(inputs) != prepared.n_inputs:
            raise Refusal("invalid", f"the module takes {prepared.n_inputs} inputs, the request has {len(inputs)}")
        with self.ctx, ir.Location.unknown():
            attrs = [self._attr(name, dims, data) for name, dims, data in inputs]
            self.diagnostics.clear()
            start = time.perf_counter_ns()
            try:
                results = sh.eval_module(prepared.module, attrs)
            except Exception as e:  # noqa: BLE001 - the interpreter's errors become replies
                message = "; ".join(self.diagnostics) or str(e) or type(e).__name__
                raise Refusal(classify(message), message)
            micros = (time.perf_counter_ns() - start) // 1000
            outputs, k = [], 0
            for name, kind in prepared.plan:
                dt = wp.DTYPES[name]
                if kind == "int":
                    a = _read_ints(results[k]).astype(dt, copy=False)
                    k += 1
                elif kind == "float":
                    a = _read_ints(results[k]).view(dt)
                    k += 1
                else:
                    re_bits, im_bits = _read_ints(results[k]), _read_ints(results[k + 1])
                    k += 2
                    pair = np.empty(re_bits.shape + (2,), re_bits.dtype)
                    pair[..., 0] = re_bits
                    pair[..., 1] = im_bits
                    a = pair.view(dt).reshape(re_bits.shape)
                outputs.append((name, list(a.shape), a.tobytes()))
            return outputs, micros

    @staticmethod
    def _attr(name, dims, data):
        """A DenseElementsAttr of element type `name` and shape `dims` holding `data`'s bytes:
        floats and complex numbers pass as same-width unsigned integers (bf16 and the f8 types
        have no numpy buffer format jaxlib reads), pred as bytes 0/1."""
        dt = wp.DTYPES[name]
        if name == "pred":
            a = np.frombuffer(data, dtype=np.bool_)
        elif dt.kind in "iu":
            a = np.frombuffer(data, dtype=dt)
        elif dt.kind == "c":
            a = np.frombuffer(data, dtype=_unsigned_of_width(dt.itemsize * 4))
        else:
            a = np.frombuffer(data, dtype=_unsigned_of_width(dt.itemsize * 8))
        element = ir.Type.parse(HLO_TO_MLIR[name])
        return ir.DenseElementsAttr.get(memoryview(a), type=ir.RankedTensorType.get(dims, element))


def sandbox_main(requests_fd, replies_fd, capture_fd, cache_size):
    """The sandbox's life: answers ("run", text, replicas, partitions, inputs) requests with
    ("ok", outputs, micros) or ("error", kind, message) until its requests pipe ends."""
    try:
        # Die with the worker (a harness timeout kills the worker, not its children).
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.close(wp._FRAME_FD)  # only the worker writes frames (and the harness waits for EOF)
        os.dup2(capture_fd, 1)
        os.dup2(capture_fd, 2)
        requests = os.fdopen(requests_fd, "rb")
        replies = os.fdopen(replies_fd, "wb")
        interp = Interpreter(cache_size)
        while True:
            head = requests.read(8)
            if len(head) < 8:
                break
            (n,) = struct.unpack("<Q", head)
            request = pickle.loads(requests.read(n))
            try:
                _, text, replicas, partitions, inputs = request
                prepared = interp.prepare(text, replicas, partitions)
                reply = ("ok",) + interp.run(prepared, inputs)
            except Refusal as e:
                reply = ("error", e.kind, str(e))
            except Exception as e:  # noqa: BLE001 - a worker bug must not cost the session
                reply = ("error", "failure", f"worker internal error (sandbox): {e!r}")
            body = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
            replies.write(struct.pack("<Q", len(body)))
            replies.write(body)
            replies.flush()
            sys.stderr.flush()
    except BaseException as e:  # noqa: BLE001
        try:
            print("sandbox:", repr(e), file=sys.stderr, flush=True)
        except Exception:  # noqa: BLE001
            pass
        os._exit(3)
    os._exit(0)


# --- the worker side ----------------------------------------------------------------------------

_LLVM_ERROR = re.compile(r"LLVM ERROR: (.*)")


class Sandbox:
    """The forked interpreter process, restarted after it dies."""

    def __init__(self, cache_size, deadline=5.0):
        self.cache_size = cache_size
        # Seconds a request may take before the sandbox is killed and the case answered as a
        # failure (below the harness's 60 s case limit, so a hang costs one case, not a worker).
        self.deadline = deadline
        self.pid = None
        self.capture = tempfile.TemporaryFile(prefix="stablehlo-interpreter-")
        fd = self.capture.fileno()
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
        self.starts = 0

    def start(self):
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(req_w)
            os.close(rep_r)
            sandbox_main(req_r, rep_w, self.capture.fileno(), self.cache_size)
            os._exit(0)  # not reached
        os.close(req_r)
        os.close(rep_w)
        self.pid = pid
        self.requests = os.fdopen(req_w, "wb")
        self.replies = os.fdopen(rep_r, "rb")
        self.starts += 1
        if self.starts > 1:
            log(f"sandbox restarted (pid {pid}, start {self.starts})")

    def _captured(self):
        """What the sandbox wrote to stdout/stderr since the last call (the file is emptied)."""
        fd = self.capture.fileno()
        size = os.fstat(fd).st_size
        data = os.pread(fd, size, 0) if size else b""
        os.ftruncate(fd, 0)
        return data.decode("utf-8", "replace")

    def _reap(self):
        """Waits for the dead sandbox -> a description of how it ended."""
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        for f in (self.requests, self.replies):
            try:
                f.close()
            except OSError:
                pass
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = f"signal {sig}"
            return f"killed by {name}"
        return f"exited with status {os.WEXITSTATUS(status)}"

    def call(self, text, replicas, partitions, inputs):
        """-> ("ok", outputs, micros) | ("error", kind, message)."""
        if self.pid is None:
            self.start()
        body = pickle.dumps(("run", text, replicas, partitions, inputs), protocol=pickle.HIGHEST_PROTOCOL)
        reply = None
        try:
            self.requests.write(struct.pack("<Q", len(body)))
            self.requests.write(body)
            self.requests.flush()
            ready, _, _ = select.select([self.replies], [], [], self.deadline)
            if not ready:
                os.kill(self.pid, signal.SIGKILL)
                how = self._reap()
                self._captured()
                return ("error", "failure",
                        f"the interpreter did not finish within {self.deadline:g} s ({how} by the worker)")
            head = self.replies.read(8)
            if len(head) == 8:
                (n,) = struct.unpack("<Q", head)
                data = self.replies.read(n)
                if len(data) == n:
                    reply = pickle.loads(data)
        except OSError:  # a broken pipe: the sandbox died
            reply = None
        said = self._captured()
        if said.strip():
            sys.stderr.write("".join(f"  sandbox: {line}\n" for line in said.rstrip("\n").split("\n")))
            sys.stderr.flush()
        if reply is not None:
            return reply
        how = self._reap()
        last = _LLVM_ERROR.findall(said)
        if last:
            message = f"the interpreter aborted ({how}): LLVM ERROR: {last[-1].strip()}"
            return ("error", classify(last[-1]), message)
        tail = " | ".join(line for line in said.strip().split("\n")[-5:] if line.strip())
        hint = ""
        if "SIGFPE" in how:
            hint = " (an arithmetic trap in the interpreter, e.g. an integer division by zero)"
        message = f"the interpreter process died ({how}){hint}"
        if tail:
            message += f": {tail}"
        return ("error", "failure", message)

    def close(self):
        if self.pid is None:
            return
        try:
            self.requests.close()
        except OSError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        self.pid = None


def handle_execute(sandbox, max_devices, header, datas):
    req_id = header.get("id")
    module = header.get("module")
    text = module.get("stablehlo") if isinstance(module, dict) else None
    if not isinstance(text, str):
        wp.error_reply(req_id, "unsupported", f"{NAME} reads StableHLO only; the request has no module.stablehlo")
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
    devices = replicas * partitions
    if devices > max_devices:
        wp.error_reply(req_id, "unsupported", f"{devices} devices: the worker runs at most {max_devices} (--devices)")
        return
    if len(arrays) % devices != 0:
        wp.error_reply(req_id, "invalid", f"{len(arrays)} inputs for {devices} devices")
        return
    feed = wp.FEEDS.search(text)
    if feed:
        wp.error_reply(req_id, "unsupported", FEEDS_REASON.format(op=feed.group(0)))
        return
    transfer = SEND_RECV.search(text)
    if transfer:
        wp.error_reply(req_id, "unsupported", SEND_RECV_REASON.format(op=transfer.group(0)))
        return
    params = wp.main_parameters(text)
    per = len(arrays) // devices
    for d in range(devices):
        mismatch = wp.check_inputs(params, arrays[d * per:(d + 1) * per])
        if mismatch is not None:
            wp.error_reply(req_id, "invalid", mismatch if devices == 1 else f"device {d}: {mismatch}")
            return
    inputs = [(wp.hlo_name(a), list(a.shape), a.tobytes()) for a in arrays]
    reply = sandbox.call(text, replicas, partitions, inputs)
    if reply[0] != "ok":
        wp.error_reply(req_id, reply[1], reply[2])
        return
    outputs = [np.frombuffer(data, dtype=wp.DTYPES[name]).reshape(dims) for name, dims, data in reply[1]]
    wp.result_reply(req_id, outputs, reply[2])


# --- start-up probes ----------------------------------------------------------------------------

IDENTITY = """module {{
  func.func public @main(%arg0: tensor<{n}x{t}>) -> tensor<{n}x{t}> {{
    "func.return"(%arg0) : (tensor<{n}x{t}>) -> ()
  }}
}}"""

RNG = """module {
  func.func public @main(%arg0: tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>) {
    %0:2 = "stablehlo.rng_bit_generator"(%arg0) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
    "func.return"(%0#0, %0#1) : (tensor<2xui64>, tensor<4xui32>) -> ()
  }
}"""


def probe_element_types(sandbox):
    """The HLO element types whose every bit pattern (all of them for 8 and 16 bits, a random
    sample with NaN payloads otherwise) comes back unchanged through an identity @main."""
    rng = np.random.default_rng(2024)
    working = []
    for name, dt in wp.DTYPES.items():
        if name == "pred":
            raw = bytes([0, 1, 1, 0])
        elif dt.itemsize <= 2 and dt.kind != "c":
            raw = np.arange(1 << (8 * dt.itemsize), dtype=_unsigned_of_width(8 * dt.itemsize)).tobytes()
        else:
            raw = rng.integers(0, 256, 64 * dt.itemsize, dtype=np.uint8).tobytes()
            if dt.kind in "fc":
                # quiet and signalling NaNs with payloads, both signs
                width = 8 * (dt.itemsize // 2 if dt.kind == "c" else dt.itemsize)
                special = {32: [0x7FC00001, 0xFFA00005, 0x7F800001], 64: [0x7FF8000000000001, 0xFFF4000000000003]}
                bits = np.frombuffer(raw, _unsigned_of_width(width)).copy()
                bits[:len(special[width])] = special[width]
                raw = bits.tobytes()
        n = len(raw) // dt.itemsize
        reply = sandbox.call(IDENTITY.format(n=n, t=HLO_TO_MLIR[name]), 1, 1, [(name, [n], raw)])
        if reply[0] == "ok" and reply[1][0][2] == raw:
            working.append(name)
        else:
            log(f"{name}: does not round-trip: {reply[:2] if reply[0] == 'ok' else reply}")
    return working


def probe_rng(sandbox):
    reply = sandbox.call(RNG, 1, 1, [("u64", [2], np.array([1, 2], np.uint64).tobytes())])
    if reply[0] == "ok":
        log("rng_bit_generator runs (its bit layout is not declared: it was not compared with XLA's)")
    else:
        log("rng_bit_generator:", reply[2])
    return reply[0] == "ok"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=int, default=256, help="parsed modules kept (LRU)")
    ap.add_argument("--deadline", type=float, default=5.0,
                    help="seconds a request may run before the interpreter is killed (a failure)")
    ap.add_argument("--devices", type=int, default=8,
                    help="most devices of a module run (at most the CPUs this process may use)")
    args = ap.parse_args(argv)
    sandbox = Sandbox(max(1, args.cache), args.deadline)
    # interpreter.run_parallel runs the grid's processes on an llvm::DefaultThreadPool, which
    # has one thread per CPU this process may use: with more processes than threads, those
    # waiting in a collective hold every thread, the others never start and the rendezvous
    # aborts after 3 s ("rendezvous timed out"). So no grid is larger than the CPU count.
    cpus = len(os.sched_getaffinity(0))
    max_devices = max(1, min(args.devices, cpus))
    if max_devices < args.devices:
        log(f"devices: at most {max_devices} (the interpreter's thread pool has {cpus} threads)")

    def run_text(text, arrays):
        reply = sandbox.call(text, 1, 1, [(wp.hlo_name(a), list(a.shape), a.tobytes()) for a in arrays])
        if reply[0] != "ok":
            raise RuntimeError(f"probe did not run: {reply[2]}")
        return [np.frombuffer(d, dtype=wp.DTYPES[n]).reshape(dims) for n, dims, d in reply[1]]

    try:
        subnormals = wp.detect_subnormals(run_text, log)
        element_types = probe_element_types(sandbox)
        probe_rng(sandbox)
    except Exception:
        sandbox.close()
        raise
    capabilities = {
        "module_formats": ["stablehlo"],
        "opcodes": None,
        "element_types": element_types,
        "layouts": "row-major",
        **subnormals,
        # Replicas and partitions run as threads of interpreter.run_parallel (see above).
        "devices": max_devices,
    }
    wp.hello(NAME, f"jaxlib {jaxlib.__version__} / StableHLO {sh.get_current_version()}", capabilities)
    try:
        return wp.serve(lambda header, datas: handle_execute(sandbox, max_devices, header, datas), log)
    finally:
        sandbox.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
