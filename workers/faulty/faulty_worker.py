#!/usr/bin/env python3
"""A small but real conformance worker that misbehaves on request (docs/protocol.md, version 1).

It executes HLO text modules whose entry computation is parameters plus ONE element-wise ROOT
instruction on them: negate, abs, add, subtract, multiply, maximum, minimum (or a parameter as
the root), in f32 (IEEE 754 binary32, round to nearest even, subnormals kept) or s32 (two's
complement, wrapping). Inputs and results may have any `minor_to_major`; the result is written in
the ROOT's layout from the HLO text (row-major when it has none). Anything else gets an
"unsupported" (or, for inconsistent modules/inputs, "invalid") error reply.

Misbehaviours, for the harness's tests, apply to the N-th execute request (counted from 1; each
flag may be repeated to name several requests):

  --crash-on N       exit(3) after reading request N, without replying
  --hang-on N        never reply to request N (sleeps until killed)
  --garbage-on N     reply with a frame that is not JSON
  --bad-length-on N  reply with a result whose data frame length does not match its shape
  --wrong-id-on N    reply with id + 1
  --wrong-shape-on N reply with a well-formed result of the wrong dimensions (a leading 1)
  --error-on N       reply with a well-formed "failure" error
  --bad-hello        say hello with protocol 99
  --no-hello         never say hello (sleeps until killed)
  --stderr-noise     write lines to stderr on every request
  --state FILE       keep the request counter in FILE across restarts (so `--crash-on 3`
                     crashes once and the restarted worker continues at request 4)

Standard library only; runs with any python3 (3.6+).
"""

import argparse
import json
import os
import re
import struct
import sys
import time

PROTOCOL = 1
HEADER_LIMIT = 256 << 20  # bytes (docs/protocol.md, Framing)
DATA_LIMIT = 16 << 30  # bytes
UNARY = ("negate", "abs")
BINARY = ("add", "subtract", "multiply", "maximum", "minimum")
OPCODES = UNARY + BINARY + ("parameter",)
ELEMENT_TYPES = ("f32", "s32")

_IN = sys.stdin.buffer
_OUT = sys.stdout.buffer


def noise(*parts):
    print("faulty:", *parts, file=sys.stderr, flush=True)


# --- framing --------------------------------------------------------------------------------------


class StreamEnd(Exception):
    def __init__(self, clean, what):
        super().__init__(what)
        self.clean = clean


class StreamError(Exception):
    """A request the worker cannot read; the stream cannot be trusted."""


def read_exact(n, at_boundary=False):
    chunks, got = [], 0
    while got < n:
        chunk = _IN.read(n - got)
        if not chunk:
            raise StreamEnd(at_boundary and got == 0, "stdin ended after %d of %d bytes" % (got, n))
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame(limit, at_boundary=False):
    (length,) = struct.unpack("<Q", read_exact(8, at_boundary))
    if length > limit:
        raise StreamError("frame of %d bytes exceeds the limit of %d bytes" % (length, limit))
    return read_exact(length)


def frame(payload):
    return struct.pack("<Q", len(payload)) + payload


def write_raw(data):
    _OUT.write(data)
    _OUT.flush()


def write_message(header, data_frames=()):
    out = frame(json.dumps(header, separators=(",", ":")).encode())
    for d in data_frames:
        out += frame(d)
    write_raw(out)


# --- HLO text: just enough to find the entry's parameters and ROOT -------------------------------


class Refusal(Exception):
    """An error reply: kind 'unsupported' or 'invalid' and a message."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


_ARRAY_SHAPE = re.compile(r"([a-z][a-z0-9]*)\[([^\]]*)\](?:\{([^}]*)\})?")
_NAME = re.compile(r"%?([A-Za-z0-9_.\-]+)\s*=\s*")
_OPCODE = re.compile(r"\s*([a-z][a-z0-9\-]*)\(")


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _parse_shape(text, line_no):
    """'f32[2,3]{1,0}' -> (element type, dims, minor_to_major or None), rest of the text."""
    if text.startswith("("):
        raise Refusal("unsupported", "line %d: tuple shapes are not supported" % line_no)
    m = _ARRAY_SHAPE.match(text)
    if m is None:
        raise Refusal("invalid", "line %d: expected a shape, found %r" % (line_no, text[:40]))
    et, dims_text, layout_text = m.group(1), m.group(2).strip(), m.group(3)
    dims = []
    for d in dims_text.split(",") if dims_text else []:
        d = d.strip()
        if not d.isdigit():
            raise Refusal("unsupported", "line %d: dimension %r is not static" % (line_no, d))
        dims.append(int(d))
    m2m = None
    if layout_text is not None:
        minor = layout_text.split(":", 1)[0].strip()
        try:
            m2m = [int(x) for x in minor.split(",")] if minor else []
        except ValueError:
            raise Refusal("invalid", "line %d: bad layout {%s}" % (line_no, layout_text))
        if sorted(m2m) != list(range(len(dims))):
            raise Refusal("invalid", "line %d: layout {%s} is not a permutation" % (line_no, layout_text))
    return (et, dims, m2m), text[m.end():]


def _split_operands(text):
    """'f32[2]{0} %a, %b), attr=...' -> (['f32[2]{0} %a', '%b'], rest after ')')."""
    items, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif ch == ")":
            if depth == 0:
                tail = text[start:k].strip()
                if tail or items:
                    items.append(tail)
                return items, text[k + 1:]
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:k].strip())
            start = k + 1
    return None, ""


def parse_entry(text):
    """The entry computation -> (params: {number: (name, shape)}, root: (opcode, shape, operands))
    where operands are instruction names. Raises Refusal."""
    lines = _strip_comments(text).split("\n")
    start = None
    for k, line in enumerate(lines):
        if line.lstrip().startswith("ENTRY"):
            start = k
            break
    if start is None:
        raise Refusal("invalid", "no ENTRY computation")
    instrs = []
    for k in range(start + 1, len(lines)):
        line = lines[k].strip()
        if not line:
            continue
        if line == "}":
            break
        is_root = line.startswith("ROOT ")
        if is_root:
            line = line[5:].lstrip()
        m = _NAME.match(line)
        if m is None:
            raise Refusal("invalid", "line %d: expected `name = shape opcode(...)`" % (k + 1))
        shape, rest = _parse_shape(line[m.end():], k + 1)
        op = _OPCODE.match(rest)
        if op is None:
            raise Refusal("invalid", "line %d: expected an opcode" % (k + 1))
        operands, _attrs = _split_operands(rest[op.end():])
        if operands is None:
            raise Refusal("invalid", "line %d: unbalanced operand list" % (k + 1))
        instrs.append((m.group(1), shape, op.group(1), operands, is_root, k + 1))
    else:
        raise Refusal("invalid", "the ENTRY computation is not closed")
    if not instrs:
        raise Refusal("invalid", "the ENTRY computation is empty")
    roots = [i for i in instrs if i[4]]
    if len(roots) > 1:
        raise Refusal("invalid", "more than one ROOT in the ENTRY computation")
    root = roots[0] if roots else instrs[-1]
    params = {}
    for instr in instrs:
        name, shape, opcode, operands, _, line_no = instr
        if opcode == "parameter":
            if len(operands) != 1 or not operands[0].isdigit():
                raise Refusal("invalid", "line %d: parameter needs a number" % line_no)
            n = int(operands[0])
            if n in params:
                raise Refusal("invalid", "line %d: parameter %d defined twice" % (line_no, n))
            params[n] = (name, shape)
        elif instr is not root:
            raise Refusal(
                "unsupported",
                "line %d: %s: the faulty worker runs one element-wise op on parameters" % (line_no, opcode),
            )
    if sorted(params) != list(range(len(params))):
        raise Refusal("invalid", "parameter numbers %s are not 0..%d" % (sorted(params), len(params) - 1))
    by_name = {name: n for n, (name, _) in params.items()}
    name, shape, opcode, operands, _, line_no = root
    if opcode not in OPCODES:
        raise Refusal("unsupported", "opcode %s is not one of %s" % (opcode, ", ".join(OPCODES)))
    if opcode == "parameter":
        operand_params = [by_name[name]]
    else:
        want = 1 if opcode in UNARY else 2
        if len(operands) != want:
            raise Refusal("invalid", "line %d: %s takes %d operands, got %d" % (line_no, opcode, want, len(operands)))
        operand_params = []
        for o in operands:
            ref = o.split()[-1].lstrip("%") if o.split() else ""
            if ref not in by_name:
                raise Refusal("invalid", "line %d: operand %r is not a parameter" % (line_no, o))
            operand_params.append(by_name[ref])
    et, dims, _ = shape
    if et not in ELEMENT_TYPES:
        raise Refusal("unsupported", "element type %s is not one of %s" % (et, ", ".join(ELEMENT_TYPES)))
    for p in operand_params:
        pet, pdims, _ = params[p][1]
        if (pet, pdims) != (et, dims):
            raise Refusal(
                "invalid", "line %d: operand %s[%s] does not match the result %s[%s]"
                % (line_no, pet, ",".join(map(str, pdims)), et, ",".join(map(str, dims)))
            )
    return params, (opcode, shape, operand_params)


# --- literals -------------------------------------------------------------------------------------


def physical_positions(dims, m2m):
    """positions[i] = physical index of the element at row-major (logical) linear index i."""
    strides = [0] * len(dims)
    stride = 1
    for d in m2m:
        strides[d] = stride
        stride *= dims[d]
    positions = [0]
    for axis in range(len(dims)):  # row-major: the last dimension varies fastest
        s = strides[axis]
        positions = [p + s * i for p in positions for i in range(dims[axis])]
    return positions


def decode_input(i, desc, data, param_shape):
    """-> list of raw element bit patterns (u32) in row-major order. Raises Refusal."""
    if not isinstance(desc, dict):
        raise Refusal("invalid", "input %d: descriptor is not an object" % i)
    et, dims, m2m = desc.get("element_type"), desc.get("dimensions"), desc.get("minor_to_major")
    pet, pdims, _ = param_shape
    if et != pet or dims != pdims:
        raise Refusal("invalid", "input %d is %s%s, parameter %d is %s%s" % (i, et, dims, i, pet, pdims))
    if not isinstance(m2m, list) or sorted(m2m) != list(range(len(dims))):
        raise Refusal("invalid", "input %d: minor_to_major %r is not a permutation" % (i, m2m))
    count = 1
    for d in dims:
        count *= d
    if len(data) != 4 * count:
        raise Refusal("invalid", "input %d: %d bytes, %s%s needs %d" % (i, len(data), et, dims, 4 * count))
    phys = struct.unpack("<%dI" % count, data)
    return [phys[p] for p in physical_positions(dims, m2m)]


def encode_output(values, dims, m2m):
    phys = [0] * len(values)
    for i, p in enumerate(physical_positions(dims, m2m)):
        phys[p] = values[i]
    return struct.pack("<%dI" % len(phys), *phys)


# --- arithmetic -----------------------------------------------------------------------------------

_QNAN = 0x7FC00000
_SIGN = 0x80000000


def _f32_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _f32_bits(x):
    """Rounds the double x to binary32 (to nearest, ties to even) and returns its bits."""
    if x != x:
        return _QNAN
    try:
        return struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:  # |x| rounds past the largest finite binary32
        return 0xFF800000 if x < 0 else 0x7F800000


def _is_nan(bits):
    return (bits & 0x7FFFFFFF) > 0x7F800000


def f32_op(opcode, a, b=None):
    """One binary32 operation on bit patterns. + - * are computed exactly or in double and rounded
    once to binary32 (double rounding is innocuous: 53 >= 2*24 + 2); negate/abs are sign-bit
    operations; maximum/minimum are IEEE 754-2019 maximum/minimum (NaN propagates, -0 < +0)."""
    if opcode == "negate":
        return a ^ _SIGN
    if opcode == "abs":
        return a & ~_SIGN & 0xFFFFFFFF
    if opcode in ("maximum", "minimum"):
        if _is_nan(a) or _is_nan(b):
            return _QNAN
        x, y = _f32_value(a), _f32_value(b)
        if x == y:  # equal values, or +0 and -0: order the zeros by sign
            a_neg, b_neg = bool(a & _SIGN), bool(b & _SIGN)
            if opcode == "maximum":
                return b if a_neg else a
            return a if a_neg else b
        pick_a = (x > y) == (opcode == "maximum")
        return a if pick_a else b
    x, y = _f32_value(a), _f32_value(b)
    if opcode == "add":
        r = x + y
    elif opcode == "subtract":
        r = x - y
    else:
        r = x * y
    return _f32_bits(r)


def _s32(bits):
    return bits - (1 << 32) if bits & _SIGN else bits


def s32_op(opcode, a, b=None):
    """One two's-complement s32 operation on bit patterns (wrapping)."""
    x = _s32(a)
    y = _s32(b) if b is not None else 0
    if opcode == "negate":
        r = -x
    elif opcode == "abs":
        r = abs(x)
    elif opcode == "add":
        r = x + y
    elif opcode == "subtract":
        r = x - y
    elif opcode == "multiply":
        r = x * y
    elif opcode == "maximum":
        r = max(x, y)
    else:
        r = min(x, y)
    return r & 0xFFFFFFFF


def evaluate(module_text, descs, datas):
    """-> (output descriptor, data frame). Raises Refusal."""
    params, (opcode, (et, dims, root_m2m), operand_params) = parse_entry(module_text)
    if len(descs) != len(params):
        raise Refusal("invalid", "the entry takes %d parameters, the request has %d inputs" % (len(params), len(descs)))
    inputs = [decode_input(i, d, data, params[i][1]) for i, (d, data) in enumerate(zip(descs, datas))]
    args = [inputs[p] for p in operand_params]
    if opcode == "parameter":
        values = list(args[0])
    else:
        op = f32_op if et == "f32" else s32_op
        if len(args) == 1:
            values = [op(opcode, a) for a in args[0]]
        else:
            values = [op(opcode, a, b) for a, b in zip(args[0], args[1])]
    m2m = root_m2m if root_m2m is not None else list(range(len(dims) - 1, -1, -1))
    desc = {"element_type": et, "dimensions": dims, "minor_to_major": m2m}
    return desc, encode_output(values, dims, m2m)


# --- misbehaviour ---------------------------------------------------------------------------------


def hang():
    """Never returns while the parent lives. Exits when orphaned (re-parented, or adopted by init
    when the parent was gone before this call), so aborted tests leave no strays behind."""
    parent = os.getppid()
    while parent != 1 and os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


class Counter:
    """Execute requests seen, optionally persisted in a file across restarts."""

    def __init__(self, path):
        self.path = path
        self.count = 0
        if path and os.path.exists(path):
            with open(path) as f:
                text = f.read().strip()
            self.count = int(text) if text else 0

    def next(self):
        self.count += 1
        if self.path:
            tmp = self.path + ".tmp"
            with open(tmp, "w") as f:
                f.write("%d\n" % self.count)
            os.replace(tmp, self.path)
        return self.count


def reply(args, n, req_id, header, datas):
    """Computes the honest reply to request n, then bends it as the flags say."""
    try:
        module = header.get("module")
        text = module.get("hlo") if isinstance(module, dict) else None
        if not isinstance(text, str):
            raise Refusal("unsupported", "the faulty worker reads HLO text only; the request has no module.hlo")
        result = evaluate(text, header["inputs"], datas)
    except Refusal as e:
        result = None
        error = {"type": "error", "id": req_id, "kind": e.kind, "message": str(e)}
    except Exception as e:  # noqa: BLE001 - a bug here must still produce a reply
        result = None
        error = {"type": "error", "id": req_id, "kind": "failure", "message": "faulty worker bug: %r" % (e,)}
    if n in args.garbage_on:
        write_raw(frame(b"\xff\xfe this is not JSON {"))
        return
    if n in args.error_on:
        result = None
        error = {"type": "error", "id": req_id, "kind": "failure", "message": "requested by --error-on %d" % n}
    if n in args.wrong_id_on:
        req_id = req_id + 1 if isinstance(req_id, int) else 0
        if result is None:
            error["id"] = req_id
    if result is None:
        write_message(error)
        return
    desc, data = result
    if n in args.wrong_shape_on:
        desc = {
            "element_type": desc["element_type"],
            "dimensions": [1] + desc["dimensions"],
            "minor_to_major": [d + 1 for d in desc["minor_to_major"]] + [0],
        }
    if n in args.bad_length_on:
        data += b"\0"
    write_message({"type": "result", "id": req_id, "outputs": [desc]}, [data])


def serve(args):
    counter = Counter(args.state)
    while True:
        try:
            header_bytes = read_frame(HEADER_LIMIT, at_boundary=True)
        except StreamEnd as e:
            if e.clean:
                return 0
            noise("truncated request:", e)
            return 2
        try:
            header = json.loads(header_bytes.decode())
        except ValueError as e:
            noise("request header is not JSON:", e)
            return 2
        kind = header.get("type") if isinstance(header, dict) else None
        if args.stderr_noise:
            for k in range(3):
                noise("noise line %d about a %s request" % (k + 1, kind))
        if kind == "shutdown":
            return 0
        if kind != "execute" or not isinstance(header.get("inputs"), list):
            noise("cannot read a request of type %r; exiting" % (kind,))
            return 2
        datas = [read_frame(DATA_LIMIT) for _ in header["inputs"]]
        n = counter.next()
        if args.stderr_noise:
            noise("execute request %d (id %r)" % (n, header.get("id")))
        if n in args.crash_on:
            noise("crashing on request %d as asked" % n)
            sys.stderr.flush()
            os._exit(3)
        if n in args.hang_on:
            noise("hanging on request %d as asked" % n)
            hang()
        reply(args, n, header.get("id"), header, datas)


def parse_args(argv):
    ap = argparse.ArgumentParser(description="A conformance worker that misbehaves on request.")
    for flag in ("crash", "hang", "garbage", "bad-length", "wrong-id", "wrong-shape", "error"):
        ap.add_argument("--%s-on" % flag, type=int, action="append", default=[], metavar="N")
    ap.add_argument("--bad-hello", action="store_true")
    ap.add_argument("--no-hello", action="store_true")
    ap.add_argument("--stderr-noise", action="store_true")
    ap.add_argument("--state", metavar="FILE", help="persist the request counter in FILE")
    return ap.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    if args.stderr_noise:
        noise("starting with", " ".join(argv))
    if args.no_hello:
        hang()
    write_message(
        {
            "type": "hello",
            "protocol": 99 if args.bad_hello else PROTOCOL,
            "name": "faulty",
            "version": "1",
            "capabilities": {
                "module_formats": ["hlo"],
                "opcodes": list(OPCODES),
                "element_types": list(ELEMENT_TYPES),
                "layouts": "any",
                "subnormals": "preserve",
            },
        }
    )
    try:
        return serve(args)
    except StreamError as e:
        noise(str(e))
        return 2
    except StreamEnd as e:
        noise("truncated request:", e)
        return 2
    except BrokenPipeError:
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
