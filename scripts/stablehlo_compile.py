#!/usr/bin/env python3
"""Compiles StableHLO texts with XLA's CPU backend through jaxlib, in one process.

Used by harness/tests/stablehlo_jax.rs to check what spec/src/hlo/stablehlo prints.

Input (stdin): frames `length:u64 little-endian, payload[length]`, until end of file. A payload is
either a StableHLO module text (compiled only) or a UTF-8 JSON object

    {"module": "<StableHLO text>",
     "inputs": [{"element_type": "f32", "dimensions": [2, 3], "data": "<hex>"}, ...]}

whose module is compiled and then executed on the inputs (`data`: the elements' little-endian
bytes in row-major order, pred one byte 0/1, complex the real then the imaginary part).

Output (stdout): one JSON object per frame, one line each, in order:
    {"ok": true}                                   compiled
    {"ok": true, "outputs": [{"element_type": ..., "dimensions": [...], "data": "<hex>"}]}
                                                   compiled and executed (one per result)
    {"ok": false, "error": "<the compiler's or runtime's message>"}

Exit status: 0 after end of input; 3 when jax cannot be imported (the message says to run
scripts/setup-python.sh).
"""

import json
import struct
import sys



def is_token(buffer):
    """True for the buffer of a token result: jaxlib gives it as a bool[0] array that numpy
    cannot read ("Cannot convert a token-shape buffer")."""
    import numpy as np

    if getattr(buffer, "dtype", None) != np.bool_ or getattr(buffer, "shape", None) != (0,):
        return False
    try:
        np.asarray(buffer)
    except Exception as e:  # noqa: BLE001 - jaxlib raises its own error type
        return "token" in str(e)
    return False

def main():
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax._src.lib import xla_client
        from jax.extend.backend import get_backend
        from jaxlib import lapack
    except Exception as e:  # noqa: BLE001 - any import failure means the same thing
        sys.stderr.write(
            f"stablehlo_compile: cannot import jax ({e}); run scripts/setup-python.sh\n")
        return 3

    # 64-bit inputs stay 64-bit (jax narrows them to 32 bits otherwise).
    jax.config.update("jax_enable_x64", True)
    # jaxlib's LAPACK kernels (the lapack_*_ffi custom calls, docs/custom-calls.md) resolve their
    # entry points when JAX lowers a linear-algebra primitive; a module given as text skips that,
    # and running it would dereference a null function pointer.
    lapack.prepare_lapack_call("potrf", np.float32)
    backend = get_backend("cpu")
    devices = xla_client.DeviceList(tuple(backend.local_devices()))
    dtypes = {
        "pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
        "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
        "f16": np.float16, "bf16": jnp.bfloat16, "f32": np.float32, "f64": np.float64,
        "c64": np.complex64, "c128": np.complex128,
    }
    # The 8-bit float types (ml_dtypes, as jax.numpy names them).
    for name, attr in (("f8e4m3fn", "float8_e4m3fn"), ("f8e5m2", "float8_e5m2"),
                       ("f8e4m3fnuz", "float8_e4m3fnuz"), ("f8e5m2fnuz", "float8_e5m2fnuz"),
                       ("f8e4m3b11fnuz", "float8_e4m3b11fnuz"), ("f8e4m3", "float8_e4m3"),
                       ("f8e3m4", "float8_e3m4")):
        if hasattr(jnp, attr):
            dtypes[name] = getattr(jnp, attr)
    names = {np.dtype(t): n for n, t in dtypes.items()}

    def run(payload):
        text = payload.decode("utf-8")
        inputs = None
        if text.lstrip().startswith("{"):
            request = json.loads(text)
            text, inputs = request["module"], request.get("inputs")
        executable = backend.compile_and_load(text, devices, xla_client.CompileOptions())
        if inputs is None:
            return {"ok": True}
        args = []
        for i in inputs:
            array = np.frombuffer(bytes.fromhex(i["data"]), dtype=dtypes[i["element_type"]])
            args.append(jax.device_put(array.reshape(i["dimensions"]), backend.local_devices()[0]))
        outputs = []
        for o in executable.execute(args):
            if is_token(o):
                continue  # a token result has no value (docs/protocol.md)
            a = np.asarray(o)
            outputs.append({"element_type": names[a.dtype], "dimensions": list(a.shape),
                            "data": a.tobytes(order="C").hex()})
        return {"ok": True, "outputs": outputs}

    stdin, stdout = sys.stdin.buffer, sys.stdout
    while True:
        header = stdin.read(8)
        if not header:
            return 0
        if len(header) != 8:
            sys.stderr.write("stablehlo_compile: truncated frame length\n")
            return 2
        (length,) = struct.unpack("<Q", header)
        payload = stdin.read(length)
        if len(payload) != length:
            sys.stderr.write("stablehlo_compile: truncated frame\n")
            return 2
        try:
            reply = run(payload)
        except Exception as e:  # noqa: BLE001 - the compiler's message is the answer
            reply = {"ok": False, "error": str(e)}
        stdout.write(json.dumps(reply) + "\n")
        stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
