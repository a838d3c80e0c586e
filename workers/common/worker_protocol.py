"""What every Python worker of this project shares: the framing, literals and request loop of
docs/protocol.md (version 2), and the start-up probes a hello reports.

Import this module FIRST, before any library that could print: on import it duplicates the real
standard output for protocol frames and points file descriptor 1 at standard error, so a
compiler's or runtime's prints land on stderr and never corrupt the frame stream.

A worker provides `handle_execute(header, datas)`, which answers the request through `reply`
and `error_reply`, and calls `serve(handle_execute, log)` after its hello.
"""

import os
import sys

# --- stdout hygiene: must happen before any import that could print -----------------------------
_FRAME_FD = os.dup(1)
os.dup2(2, 1)
sys.stdout = sys.stderr
_FRAMES_OUT = os.fdopen(_FRAME_FD, "wb", buffering=0)
_FRAMES_IN = sys.stdin.buffer

import json  # noqa: E402
import re  # noqa: E402
import struct  # noqa: E402

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

PROTOCOL = 2
MESSAGE_LIMIT = 2000  # characters of a backend's message kept in an error reply
HEADER_LIMIT = 256 << 20  # bytes (docs/protocol.md, Framing)
DATA_LIMIT = 16 << 30  # bytes

# HLO element type name -> numpy dtype name (numpy's own or ml_dtypes'); only the names whose
# dtype exists in the installed numpy/ml_dtypes are announced and accepted.
_DTYPE_NAMES = [
    ("pred", "bool"),
    ("s8", "int8"),
    ("s16", "int16"),
    ("s32", "int32"),
    ("s64", "int64"),
    ("u8", "uint8"),
    ("u16", "uint16"),
    ("u32", "uint32"),
    ("u64", "uint64"),
    ("f16", "float16"),
    ("bf16", "bfloat16"),
    ("f32", "float32"),
    ("f64", "float64"),
    ("c64", "complex64"),
    ("c128", "complex128"),
    ("f8e4m3fn", "float8_e4m3fn"),
    ("f8e5m2", "float8_e5m2"),
    ("f8e4m3fnuz", "float8_e4m3fnuz"),
    ("f8e5m2fnuz", "float8_e5m2fnuz"),
    ("f8e4m3b11fnuz", "float8_e4m3b11fnuz"),
    ("f8e4m3", "float8_e4m3"),
    ("f8e3m4", "float8_e3m4"),
]


def _dtype_table():
    """HLO name -> little-endian numpy dtype, for every name the installed libraries provide."""
    table = {}
    for hlo, np_name in _DTYPE_NAMES:
        kind = getattr(ml_dtypes, np_name, None)
        if kind is None and hasattr(np, np_name):
            kind = getattr(np, np_name)
        if kind is None:
            continue
        table[hlo] = np.dtype(kind).newbyteorder("<")
    return table


DTYPES = _dtype_table()
HLO_NAME_OF = {dt: name for name, dt in DTYPES.items()}


def hlo_name(array):
    """The HLO element type name of a numpy array's dtype, or None."""
    return HLO_NAME_OF.get(np.asarray(array).dtype.newbyteorder("<"))


# --- framing --------------------------------------------------------------------------------------


class StreamEnd(Exception):
    """stdin ended; `clean` when at a message boundary."""

    def __init__(self, clean, what=""):
        super().__init__(what)
        self.clean = clean


class FrameTooLong(Exception):
    """A length prefix over the protocol's limit: the stream cannot be trusted."""


def read_exact(n, at_boundary=False):
    """`n` bytes of the request stream, as a bytearray (read in place: no copy of large frames)."""
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = _FRAMES_IN.readinto(view[got:])
        if not k:
            raise StreamEnd(at_boundary and got == 0, f"stdin ended after {got} of {n} bytes")
        got += k
    return buf


def read_frame(limit, at_boundary=False):
    (length,) = struct.unpack("<Q", read_exact(8, at_boundary))
    if length > limit:
        raise FrameTooLong(f"frame of {length} bytes exceeds the limit of {limit} bytes")
    return read_exact(length)


def _write_all(data):
    """Writes every byte of `data` (any buffer) to the reply stream (a raw file: a write may be
    partial)."""
    view = memoryview(data).cast("B")
    while len(view):
        k = _FRAMES_OUT.write(view)
        view = view[k:]


def write_message(header, data_frames=()):
    """A header frame, then each data frame (bytes-like objects or uint8 numpy arrays), written
    in place: large outputs are not copied into one message buffer."""
    body = json.dumps(header, separators=(",", ":")).encode()
    _write_all(struct.pack("<Q", len(body)) + body)
    for d in data_frames:
        _write_all(struct.pack("<Q", memoryview(d).nbytes))
        _write_all(d)


def error_reply(req_id, kind, message):
    """An `error` reply: kind is 'unsupported' | 'invalid' | 'failure'."""
    write_message({"type": "error", "id": req_id, "kind": kind, "message": message[:MESSAGE_LIMIT]})


def hello(name, version, capabilities):
    write_message(
        {"type": "hello", "protocol": PROTOCOL, "name": name, "version": version,
         "capabilities": capabilities}
    )


# --- literals -------------------------------------------------------------------------------------


class BadInput(Exception):
    """An input descriptor or data frame that does not describe a literal ("invalid")."""


def decode_input(i, desc, data):
    """Input `i` (descriptor + data frame in physical order) -> row-major numpy array."""
    if not isinstance(desc, dict):
        raise BadInput(f"input {i}: descriptor is not an object")
    et = desc.get("element_type")
    dims = desc.get("dimensions")
    m2m = desc.get("minor_to_major")
    if et not in DTYPES:
        raise BadInput(f"input {i}: element type {et!r} is not one of {sorted(DTYPES)}")
    if not isinstance(dims, list) or not all(isinstance(d, int) and d >= 0 for d in dims):
        raise BadInput(f"input {i}: dimensions {dims!r} are not a list of non-negative integers")
    rank = len(dims)
    if not isinstance(m2m, list) or sorted(m2m) != list(range(rank)):
        raise BadInput(f"input {i}: minor_to_major {m2m!r} is not a permutation of 0..{rank - 1}")
    dt = DTYPES[et]
    count = 1
    for d in dims:
        count *= d
    if len(data) != count * dt.itemsize:
        raise BadInput(
            f"input {i}: data frame has {len(data)} bytes, {et}{dims} needs {count * dt.itemsize}"
        )
    if et == "pred" and data.translate(None, b"\x00\x01"):
        raise BadInput(f"input {i}: pred bytes must be 0 or 1")
    major_to_minor = list(reversed(m2m))
    physical = np.frombuffer(data, dtype=dt).reshape([dims[d] for d in major_to_minor])
    # axis j of the logical array is the physical axis holding dimension j
    logical = np.transpose(physical, axes=np.argsort(major_to_minor)) if rank > 1 else physical
    # Row-major data in native byte order is used where it lies (no copy); else one copy.
    # (ascontiguousarray gives a 0-d array one dimension: the reshape restores the shape.)
    return np.ascontiguousarray(logical, dtype=dt.newbyteorder("=")).reshape(logical.shape)


def decode_inputs(header, datas):
    """Every input of an execute request as row-major numpy arrays. Raises BadInput."""
    return [decode_input(i, d, data) for i, (d, data) in enumerate(zip(header["inputs"], datas))]


def encode_output(array):
    """numpy array -> (descriptor, row-major little-endian bytes), or None for an unmapped dtype."""
    a = np.asarray(array)
    name = hlo_name(a)
    if name is None:
        return None
    rank = a.ndim
    desc = {
        "element_type": name,
        "dimensions": list(a.shape),
        "minor_to_major": list(range(rank - 1, -1, -1)),
    }
    # Row-major little-endian bytes, as a uint8 view (no copy when `a` is already so).
    data = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).reshape(-1).view(np.uint8)
    return desc, data


def result_reply(req_id, outputs, micros=None):
    """A `result` reply holding `outputs` (numpy arrays), or an `unsupported` error naming an
    output whose dtype has no HLO name."""
    descs, frames = [], []
    for k, o in enumerate(outputs):
        enc = encode_output(o)
        if enc is None:
            error_reply(req_id, "unsupported", f"output {k} has dtype {np.asarray(o).dtype}, which has no HLO name here")
            return
        descs.append(enc[0])
        frames.append(enc[1])
    header = {"type": "result", "id": req_id, "outputs": descs}
    if micros is not None:
        header["execute_micros"] = int(micros)
    write_message(header, frames)


def check_inputs(params, arrays):
    """None, or a message saying how the inputs differ from the entry parameters `params`, a
    list of (HLO element type name, dims) or None (no check) entries; `params` None: no check."""
    if params is None:
        return None
    if len(params) != len(arrays):
        return f"the module's entry takes {len(params)} parameters, the request has {len(arrays)} inputs"
    for i, (p, a) in enumerate(zip(params, arrays)):
        have = (hlo_name(a), list(np.shape(a)))
        if p is not None and tuple(p) != have:
            return f"parameter {i} is {p[0]}{list(p[1])}, input {i} is {have[0]}{have[1]}"
    return None


# --- what the harness's StableHLO printer writes ----------------------------------------------------

# MLIR element type spelling -> HLO element type name.
MLIR_TO_HLO = {
    "i1": "pred", "i8": "s8", "i16": "s16", "i32": "s32", "i64": "s64",
    "ui8": "u8", "ui16": "u16", "ui32": "u32", "ui64": "u64",
    "f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64",
    "complex<f32>": "c64", "complex<f64>": "c128",
    "f8E4M3FN": "f8e4m3fn", "f8E5M2": "f8e5m2", "f8E4M3FNUZ": "f8e4m3fnuz",
    "f8E5M2FNUZ": "f8e5m2fnuz", "f8E4M3B11FNUZ": "f8e4m3b11fnuz", "f8E4M3": "f8e4m3",
    "f8E3M4": "f8e3m4",
}
_MAIN = re.compile(r"func\.func\s+(?:public\s+)?@main\s*\(")
_TENSOR = re.compile(r"tensor<((?:\d+x)*)([A-Za-z0-9]+(?:<[a-z0-9]+>)?)>")


def main_parameters(text):
    """The parameters of `@main` in StableHLO text as (HLO element type name, dims) entries (None
    for one that is not a static tensor of a known element type), or None when `@main` is not
    found."""
    m = _MAIN.search(text)
    if m is None:
        return None
    depth, k = 1, m.end()
    while k < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[k], 0)
        k += 1
    params = []
    for item in re.split(r",\s*(?=%)", text[m.end():k - 1].strip()):
        if not item:
            continue
        t = _TENSOR.search(item)
        name = MLIR_TO_HLO.get(t.group(2)) if t else None
        if name is None:
            params.append(None)
            continue
        params.append((name, [int(d) for d in t.group(1).split("x") if d]))
    return params


# --- start-up probes ----------------------------------------------------------------------------------

MULTIPLY_2 = """module {{
  func.func public @main(%arg0: tensor<2x{t}>, %arg1: tensor<2x{t}>) -> tensor<2x{t}> {{
    %0 = "stablehlo.multiply"(%arg0, %arg1) : (tensor<2x{t}>, tensor<2x{t}>) -> tensor<2x{t}>
    "func.return"(%0) : (tensor<2x{t}>) -> ()
  }}
}}"""


def detect_subnormals(run_text, log, types=("f32", "f64", "f16", "bf16")):
    """The hello's subnormal capabilities, measured: {"subnormals": "flush" | "preserve",
    "subnormals_flushed_in": [...]}. A type flushes when the backend flushes a subnormal result
    or reads a subnormal input as zero in it (checked by running x*y with x*y subnormal, and
    s*2^k with s subnormal and s*2^k normal, through `run_text(stablehlo_text, [a, b]) ->
    outputs`); "flush" when one of `types` does, and the list names those (XLA and IREE compute
    f16 in f32 and keep f16's subnormals). Raises RuntimeError when a probe does not run or
    gives another wrong product."""
    cases = {
        # a*b: exact products 2^-140 (f32 subnormal result) and 2^-120 from the subnormal 2^-140
        "f32": (np.float32, [2.0**-70, 2.0**-140], [2.0**-70, 2.0**20]),
        # exact products 2^-1060 (f64 subnormal result) and 2^-1040 from the subnormal 2^-1060
        "f64": (np.float64, [2.0**-530, 2.0**-1060], [2.0**-530, 2.0**20]),
        # 2^-20 (f16 subnormal result; the smallest normal is 2^-14) and 2^-10 from 2^-20
        "f16": (np.float16, [2.0**-10, 2.0**-20], [2.0**-10, 2.0**10]),
        # 2^-130 (bf16 subnormal result) and 2^-110 from 2^-130
        "bf16": (ml_dtypes.bfloat16, [2.0**-65, 2.0**-130], [2.0**-65, 2.0**20]),
    }
    flushed = []
    for t in types:
        kind, a, b = cases[t]
        a, b = np.array(a, kind), np.array(b, kind)
        got = np.asarray(run_text(MULTIPLY_2.format(t=t), [a, b])[0])
        want = a * b
        flushed_out = got[0] == 0 and want[0] != 0
        flushed_in = got[1] == 0 and want[1] != 0
        if flushed_out or flushed_in:
            flushed.append(t)
        elif not np.array_equal(got, want):
            raise RuntimeError(f"subnormal probe for {t}: got {got!r}, expected {want!r}")
        log(f"{t}: subnormal results {'flushed' if flushed_out else 'kept'},",
            f"subnormal inputs {'read as zero' if flushed_in else 'kept'}")
    if not flushed:
        return {"subnormals": "preserve"}
    return {"subnormals": "flush", "subnormals_flushed_in": flushed}


# Infeed and outfeed move values through a device's queues, which none of the Python runtimes
# here lets the host fill or drain.
FEEDS = re.compile(r"stablehlo\.(infeed|outfeed)")


# --- main loop ------------------------------------------------------------------------------------


def serve(handle_execute, log):
    """Answers requests until shutdown or end of input: 0 on a clean end, 2 on a stream that
    cannot be trusted. `handle_execute(header, datas)` must send exactly one reply; an exception
    it raises becomes a `failure` reply naming the worker's internal error."""
    try:
        while True:
            try:
                header_bytes = read_frame(HEADER_LIMIT, at_boundary=True)
            except StreamEnd as e:
                if e.clean:
                    return 0
                log("truncated request:", e)
                return 2
            try:
                header = json.loads(header_bytes)
            except ValueError as e:
                log("request header is not JSON:", e)
                return 2
            kind = header.get("type") if isinstance(header, dict) else None
            if kind == "shutdown":
                return 0
            if kind != "execute" or not isinstance(header.get("inputs"), list):
                log(f"cannot read a request of type {kind!r}; the stream cannot be trusted, exiting")
                return 2
            try:
                datas = [read_frame(DATA_LIMIT) for _ in header["inputs"]]
            except StreamEnd as e:
                log("truncated request:", e)
                return 2
            try:
                handle_execute(header, datas)
            except Exception as e:  # noqa: BLE001 - a worker bug must not cost the session
                log("internal error:", repr(e))
                error_reply(header.get("id"), "failure", f"worker internal error: {e!r}")
    except (BrokenPipeError, FrameTooLong) as e:
        log("stream error:", e)
        return 2
