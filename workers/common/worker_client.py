"""A test client for workers (docs/protocol.md): starts a worker process, frames requests and
reads replies. Used by the Python tests of every worker under workers/.
"""

import json
import struct
import subprocess

import ml_dtypes
import numpy as np


class Worker:
    """A running worker process and a framed connection to it."""

    def __init__(self, command):
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.next_id = 1
        self.hello = self.read_message()[0]

    def read_exact(self, n):
        data = self.proc.stdout.read(n)
        if len(data) != n:
            raise EOFError(f"worker stdout ended ({len(data)} of {n} bytes)")
        return data

    def read_frame(self):
        (n,) = struct.unpack("<Q", self.read_exact(8))
        return self.read_exact(n)

    def read_message(self):
        header = json.loads(self.read_frame())
        frames = [self.read_frame() for _ in header.get("outputs", [])]
        return header, frames

    def send(self, header, frames=()):
        out = bytearray()
        body = json.dumps(header).encode()
        out += struct.pack("<Q", len(body)) + body
        for f in frames:
            out += struct.pack("<Q", len(f)) + f
        self.proc.stdin.write(out)
        self.proc.stdin.flush()

    def execute(self, module, inputs, devices=None):
        """inputs: list of (element_type, logical numpy array, minor_to_major or None); devices:
        the request's `devices` (protocol 2), for a module of several devices."""
        descs, frames = [], []
        for et, a, m2m in inputs:
            a = np.asarray(a)
            if m2m is None:
                m2m = list(range(a.ndim - 1, -1, -1))
            descs.append({"element_type": et, "dimensions": list(a.shape), "minor_to_major": m2m})
            frames.append(physical_bytes(a, m2m))
        req_id = self.next_id
        self.next_id += 1
        request = {"type": "execute", "id": req_id, "module": module, "inputs": descs}
        if devices is not None:
            request["devices"] = devices
        self.send(request, frames)
        header, data = self.read_message()
        assert header["id"] == req_id, header
        return header, data

    def close(self):
        if self.proc.poll() is None:
            self.send({"type": "shutdown"})
        rc = self.proc.wait(timeout=30)
        self.proc.stdout.close()
        self.proc.stdin.close()
        self.proc.stderr.close()
        return rc


def physical_bytes(a, m2m):
    """The elements of logical array `a` in the physical order of `m2m`, little-endian."""
    a = np.asarray(a)
    phys = np.transpose(a, axes=list(reversed(m2m))) if a.ndim > 1 else a
    return np.ascontiguousarray(phys).astype(a.dtype.newbyteorder("<")).tobytes()


DTYPE = {
    "pred": np.dtype(bool),
    "s8": np.dtype(np.int8),
    "s16": np.dtype(np.int16),
    "s32": np.dtype(np.int32),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "s64": np.dtype(np.int64),
    "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "c64": np.dtype(np.complex64),
    "c128": np.dtype(np.complex128),
    "f8e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8e5m2": np.dtype(ml_dtypes.float8_e5m2),
}


def decode(desc, data):
    """A result's descriptor + data frame -> logical numpy array (checks the frame length)."""
    dt = DTYPE[desc["element_type"]]
    dims, m2m = desc["dimensions"], desc["minor_to_major"]
    assert len(data) == int(np.prod(dims, dtype=np.int64)) * dt.itemsize, (desc, len(data))
    m2j = list(reversed(m2m))
    phys = np.frombuffer(data, dtype=dt).reshape([dims[d] for d in m2j])
    return np.transpose(phys, axes=np.argsort(m2j)) if len(dims) > 1 else phys


def stablehlo(params, results, body):
    """A module with `@main(params) -> results` whose body is `body` lines."""
    args = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(params))
    res = results[0] if len(results) == 1 else "(" + ", ".join(results) + ")"
    lines = "\n".join("    " + line for line in body)
    return {"stablehlo": f"module {{\n  func.func public @main({args}) -> {res} {{\n{lines}\n  }}\n}}\n"}


def binary(op, t):
    return stablehlo(
        [t, t],
        [t],
        [
            f'%0 = "stablehlo.{op}"(%arg0, %arg1) : ({t}, {t}) -> {t}',
            f'"func.return"(%0) : ({t}) -> ()',
        ],
    )
