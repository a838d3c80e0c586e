"""Tests of faulty_worker.py over the protocol (docs/protocol.md). Standard library only (numpy,
when importable, adds a cross-check of f32 arithmetic).

    python3 -m unittest discover -s workers/faulty -v
"""

import json
import os
import random
import select
import struct
import subprocess
import sys
import tempfile
import time
import unittest

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "faulty_worker.py")

try:
    import numpy as np
except ImportError:  # the cross-check is optional
    np = None


class Worker:
    def __init__(self, *flags, hello=True):
        self.proc = subprocess.Popen(
            [sys.executable, WORKER] + list(flags),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )
        self.hello = self.read_message()[0] if hello else None

    def readable(self, timeout):
        return bool(select.select([self.proc.stdout], [], [], timeout)[0])

    def read_exact(self, n):
        chunks, got = [], 0
        while got < n:
            if not self.readable(20):
                raise TimeoutError("no reply within 20 s")
            c = self.proc.stdout.read(n - got)
            if not c:
                raise EOFError("worker stdout ended (%d of %d bytes)" % (got, n))
            chunks.append(c)
            got += len(c)
        return b"".join(chunks)

    def read_frame(self):
        (n,) = struct.unpack("<Q", self.read_exact(8))
        return self.read_exact(n)

    def read_message(self):
        header = json.loads(self.read_frame().decode())
        return header, [self.read_frame() for _ in header.get("outputs", [])]

    def send(self, header, frames=()):
        out = b""
        for payload in [json.dumps(header).encode()] + list(frames):
            out += struct.pack("<Q", len(payload)) + payload
        self.proc.stdin.write(out)
        self.proc.stdin.flush()

    def request(self, req_id, hlo, inputs):
        """inputs: list of (element_type, dims, minor_to_major, data bytes)."""
        descs = [{"element_type": t, "dimensions": d, "minor_to_major": m} for t, d, m, _ in inputs]
        self.send({"type": "execute", "id": req_id, "module": {"hlo": hlo}, "inputs": descs}, [x[3] for x in inputs])

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        err = self.proc.stderr.read()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            f.close()
        return err


def f32(*xs):
    return struct.pack("<%df" % len(xs), *xs)


def bits(*us):
    return struct.pack("<%dI" % len(us), *us)


def s32(*xs):
    return struct.pack("<%di" % len(xs), *xs)


def unpack_bits(data):
    return list(struct.unpack("<%dI" % (len(data) // 4), data))


def module(op, et="f32", dims=(4,), layout=None, xla_style=False):
    shape = "%s[%s]" % (et, ",".join(map(str, dims)))
    lay = "{%s}" % ",".join(map(str, layout if layout is not None else range(len(dims) - 1, -1, -1)))
    unary = op in ("negate", "abs")
    if xla_style:
        head = "ENTRY %%main (p0: %s%s) -> %s {" % (shape, "" if unary else ", p1: " + shape, shape)
        args = "%s%s %%p0" % (shape, lay) if unary else "%s%s %%p0, %s%s %%p1" % (shape, lay, shape, lay)
    else:
        head = "ENTRY %main {"
        args = "%p0" if unary else "%p0, %p1"
    lines = [
        "HloModule m, entry_computation_layout={(%s)->%s}" % (shape, shape),
        "",
        "// a comment",
        head,
        "  %%p0 = %s%s parameter(0)" % (shape, lay),
    ]
    if not unary:
        lines.append("  %%p1 = %s%s parameter(1)" % (shape, lay))
    lines += ["  ROOT %%r = %s%s %s(%s), metadata={op_name=\"x\"}" % (shape, lay, op, args), "}", ""]
    return "\n".join(lines)


INF, NAN = float("inf"), float("nan")


class FaultyWorkerArithmetic(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.w = Worker()
        cls.next_id = 100

    @classmethod
    def tearDownClass(cls):
        cls.w.send({"type": "shutdown"})
        assert cls.w.proc.wait(timeout=20) == 0
        cls.w.stop()

    def run_op(self, op, a, b=None, et="f32", dims=None, **kw):
        n = len(a) // 4
        dims = dims or [n]
        m2m = list(range(len(dims) - 1, -1, -1))
        inputs = [(et, dims, m2m, a)] + ([(et, dims, m2m, b)] if b is not None else [])
        FaultyWorkerArithmetic.next_id += 1
        req_id = FaultyWorkerArithmetic.next_id
        self.w.request(req_id, module(op, et, dims, **kw), inputs)
        header, data = self.w.read_message()
        self.assertEqual(header["id"], req_id)
        self.assertEqual(header["type"], "result", header)
        return header["outputs"][0], data[0]

    def test_hello(self):
        h = self.w.hello
        self.assertEqual((h["type"], h["protocol"], h["name"]), ("hello", 1, "faulty"))
        caps = h["capabilities"]
        self.assertEqual(caps["module_formats"], ["hlo"])
        self.assertEqual(
            sorted(caps["opcodes"]),
            sorted(["negate", "abs", "add", "subtract", "multiply", "maximum", "minimum", "parameter"]),
        )
        self.assertEqual(caps["element_types"], ["f32", "s32"])
        self.assertEqual((caps["layouts"], caps["subnormals"]), ("any", "preserve"))

    def test_f32_add_rounds_to_nearest_even(self):
        e = 2.0**-24
        _, out = self.run_op("add", f32(1.0, 1.0, 3.4e38, -0.0), f32(e, 3 * e, 3.4e38, 0.0))
        # 1 + 2^-24 is a tie -> 1; 1 + 3*2^-24 -> 1 + 2^-22; overflow -> inf; -0 + +0 = +0
        self.assertEqual(out, f32(1.0, 1.0 + 2.0**-22, INF, 0.0))

    def test_f32_subtract_and_multiply_keep_subnormals(self):
        _, out = self.run_op("multiply", f32(2.0**-70, 2.0**-140, -3.0, 1e30), f32(2.0**-70, 2.0**20, 0.0, 1e30))
        self.assertEqual(unpack_bits(out), [0x00000200, 0x03800000, 0x80000000, 0x7F800000])
        _, out = self.run_op("subtract", f32(2.0**-126, INF, 1.0, 0.0), f32(2.0**-127, INF, 1.0, 0.0))
        got = unpack_bits(out)
        self.assertEqual(got[0], 0x00400000)  # 2^-127, subnormal
        self.assertTrue((got[1] & 0x7FFFFFFF) > 0x7F800000)  # inf - inf = NaN
        self.assertEqual(got[2:], [0, 0])  # x - x = +0

    def test_f32_negate_and_abs_are_sign_bit_operations(self):
        payload_nan = 0x7FA00001  # a signalling NaN with a payload: kept bit for bit
        _, out = self.run_op("negate", bits(payload_nan, 0, 0x3F800000, 0xFF800000))
        self.assertEqual(unpack_bits(out), [payload_nan | 0x80000000, 0x80000000, 0xBF800000, 0x7F800000])
        _, out = self.run_op("abs", bits(0xFFA00001, 0x80000000, 0x80000001, 0x3F800000))
        self.assertEqual(unpack_bits(out), [0x7FA00001, 0, 1, 0x3F800000])

    def test_f32_maximum_minimum_propagate_nan_and_order_zeros(self):
        a = f32(NAN, 1.0, -0.0, 0.0, -INF, 2.0)
        b = f32(1.0, NAN, 0.0, -0.0, -1.0, 2.0)
        _, out = self.run_op("maximum", a, b, dims=[6])
        got = unpack_bits(out)
        self.assertTrue(all((g & 0x7FFFFFFF) > 0x7F800000 for g in got[:2]))
        self.assertEqual(got[2:], unpack_bits(f32(0.0, 0.0, -1.0, 2.0)))
        _, out = self.run_op("minimum", a, b, dims=[6])
        got = unpack_bits(out)
        self.assertTrue(all((g & 0x7FFFFFFF) > 0x7F800000 for g in got[:2]))
        self.assertEqual(got[2:], unpack_bits(f32(-0.0, -0.0, -INF, 2.0)))

    def test_s32_wraps(self):
        lo, hi = -(2**31), 2**31 - 1
        _, out = self.run_op("add", s32(hi, lo, 5, -7), s32(1, -1, -9, 7), et="s32")
        self.assertEqual(out, s32(lo, hi, -4, 0))
        _, out = self.run_op("multiply", s32(65536, hi, -3, lo), s32(65536, 2, 4, -1), et="s32")
        self.assertEqual(out, s32(0, -2, -12, lo))
        _, out = self.run_op("negate", s32(lo, 0, 1, -5), et="s32")
        self.assertEqual(out, s32(lo, 0, -1, 5))
        _, out = self.run_op("abs", s32(lo, -1, 1, 0), et="s32")
        self.assertEqual(out, s32(lo, 1, 1, 0))
        _, out = self.run_op("subtract", s32(lo, 0, 3, 3), s32(1, lo, 5, -5), et="s32")
        self.assertEqual(out, s32(hi, lo, -2, 8))
        _, out = self.run_op("maximum", s32(lo, 3, -1, 0), s32(hi, 2, -2, 0), et="s32")
        self.assertEqual(out, s32(hi, 3, -1, 0))
        _, out = self.run_op("minimum", s32(lo, 3, -1, 0), s32(hi, 2, -2, 0), et="s32")
        self.assertEqual(out, s32(lo, 2, -2, 0))

    def test_xla_style_text_with_operand_shapes(self):
        _, out = self.run_op("subtract", f32(1, 2, 3, 4), f32(4, 3, 2, 1), xla_style=True)
        self.assertEqual(out, f32(-3, -1, 1, 3))

    def test_layouts_are_honoured_on_input_and_output(self):
        # logical a = [[0,1,2],[3,4,5]]; input 0 column-major, input 1 row-major, ROOT {0,1}
        a_col = f32(0, 3, 1, 4, 2, 5)
        b_row = f32(10, 20, 30, 40, 50, 60)
        hlo = module("add", "f32", [2, 3], layout=[1, 0]).replace("ROOT %r = f32[2,3]{1,0}", "ROOT %r = f32[2,3]{0,1}")
        self.w.request(7, hlo, [("f32", [2, 3], [0, 1], a_col), ("f32", [2, 3], [1, 0], b_row)])
        header, data = self.w.read_message()
        self.assertEqual(header["outputs"], [{"element_type": "f32", "dimensions": [2, 3], "minor_to_major": [0, 1]}])
        # logical sum [[10,21,32],[43,54,65]] written column-major
        self.assertEqual(data[0], f32(10, 43, 21, 54, 32, 65))

    def test_parameter_root_and_rank3_layout(self):
        hlo = "HloModule m\n\nENTRY e {\n  ROOT p = s32[2,1,2]{0,2,1} parameter(0)\n}\n"
        # logical [[[1,2]],[[3,4]]] arriving with minor_to_major [2,1,0] (row-major)
        self.w.request(8, hlo, [("s32", [2, 1, 2], [2, 1, 0], s32(1, 2, 3, 4))])
        header, data = self.w.read_message()
        self.assertEqual(header["outputs"][0]["minor_to_major"], [0, 2, 1])
        # physical order for {0,2,1}: dim 0 fastest, then dim 2, then dim 1
        self.assertEqual(data[0], s32(1, 3, 2, 4))

    @unittest.skipIf(np is None, "numpy not installed")
    def test_f32_matches_numpy_on_random_bits(self):
        rng = random.Random(7)
        n = 512
        pool = [rng.getrandbits(32) for _ in range(n)] + [rng.choice([0, 1, 0x00800000, 0x7F7FFFFF]) for _ in range(64)]
        a_bits = [rng.choice(pool) for _ in range(n)]
        b_bits = [rng.choice(pool) for _ in range(n)]
        a = np.array(a_bits, np.uint32).view(np.float32)
        b = np.array(b_bits, np.uint32).view(np.float32)
        ops = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum, "minimum": np.minimum}
        with np.errstate(all="ignore"):
            for op, f in ops.items():
                _, out = self.run_op(op, bits(*a_bits), bits(*b_bits), dims=[n])
                got = np.frombuffer(out, np.uint32)
                want = f(a, b)
                nan = np.isnan(want)
                self.assertTrue(np.all(np.isnan(got.view(np.float32)[nan])), op)
                zeros_mixed = (a == 0) & (b == 0) & (op in ("maximum", "minimum"))
                keep = ~nan & ~zeros_mixed
                np.testing.assert_array_equal(got[keep], want.view(np.uint32)[keep], err_msg=op)


class FaultyWorkerRefusals(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.w = Worker()

    @classmethod
    def tearDownClass(cls):
        cls.w.proc.stdin.close()  # EOF: exits 0
        assert cls.w.proc.wait(timeout=20) == 0
        cls.w.stop()

    def refused(self, hlo, inputs, kind, module_key="hlo"):
        descs = [{"element_type": t, "dimensions": d, "minor_to_major": m} for t, d, m, _ in inputs]
        self.w.send({"type": "execute", "id": 3, "module": {module_key: hlo}, "inputs": descs}, [x[3] for x in inputs])
        header, _ = self.w.read_message()
        self.assertEqual((header["type"], header["id"], header["kind"]), ("error", 3, kind), header)
        return header["message"]

    def test_unsupported(self):
        one = [("f64", [1], [0], b"\0" * 8)]
        self.assertIn("f64", self.refused(module("negate", "f64", [1]), one, "unsupported"))
        x = [("f32", [1], [0], f32(1))]
        self.assertIn("exponential", self.refused(module("negate", "f32", [1]).replace("negate(", "exponential("), x, "unsupported"))
        self.refused("module {}", x, "unsupported", module_key="stablehlo")
        two_ops = "HloModule m\nENTRY e {\n  p = f32[1]{0} parameter(0)\n  n = f32[1]{0} negate(p)\n  ROOT a = f32[1]{0} abs(n)\n}\n"
        self.refused(two_ops, x, "unsupported")
        tup = "HloModule m\nENTRY e {\n  p = f32[1]{0} parameter(0)\n  ROOT t = (f32[1]{0}) tuple(p)\n}\n"
        self.refused(tup, x, "unsupported")

    def test_invalid(self):
        hlo = module("add", "f32", [2])
        good = ("f32", [2], [0], f32(1, 2))
        self.assertIn("input 1", self.refused(hlo, [good, ("s32", [2], [0], s32(1, 2))], "invalid"))
        self.refused(hlo, [good, ("f32", [3], [0], f32(1, 2, 3))], "invalid")
        self.refused(hlo, [good, ("f32", [2], [0], f32(1))], "invalid")
        self.refused(hlo, [good], "invalid")
        self.refused(hlo, [good, ("f32", [2], [1], f32(1, 2))], "invalid")
        self.refused("HloModule m\n", [good], "invalid")


def execute_add(w, req_id):
    w.request(req_id, module("add", "f32", [2]), [("f32", [2], [0], f32(1, 2)), ("f32", [2], [0], f32(3, 4))])


class FaultyWorkerMisbehaviour(unittest.TestCase):
    def test_crash_on(self):
        w = Worker("--crash-on", "2")
        execute_add(w, 1)
        self.assertEqual(w.read_message()[1], [f32(4, 6)])
        execute_add(w, 2)
        self.assertEqual(w.proc.wait(timeout=20), 3)
        self.assertEqual(w.proc.stdout.read(), b"")
        w.stop()

    def test_hang_on(self):
        w = Worker("--hang-on", "1")
        execute_add(w, 1)
        self.assertFalse(w.readable(1.5))
        self.assertIsNone(w.proc.poll())
        w.stop()

    def test_garbage_on(self):
        w = Worker("--garbage-on", "1")
        execute_add(w, 1)
        with self.assertRaises(ValueError):
            json.loads(w.read_frame().decode("utf-8", "replace"))
        w.stop()

    def test_bad_length_on(self):
        w = Worker("--bad-length-on", "2")
        execute_add(w, 1)
        self.assertEqual(len(w.read_message()[1][0]), 8)
        execute_add(w, 2)
        header, data = w.read_message()
        self.assertEqual(header["outputs"][0]["dimensions"], [2])
        self.assertNotEqual(len(data[0]), 8)
        w.stop()

    def test_wrong_id_and_wrong_shape_combine(self):
        w = Worker("--wrong-id-on", "1", "--wrong-shape-on", "1")
        execute_add(w, 41)
        header, data = w.read_message()
        self.assertEqual(header["type"], "result")
        self.assertNotEqual(header["id"], 41)
        out = header["outputs"][0]
        self.assertNotEqual(out["dimensions"], [2])
        self.assertEqual(sorted(out["minor_to_major"]), list(range(len(out["dimensions"]))))
        self.assertEqual(len(data[0]), 4 * 2)  # well-formed: the length matches the wrong shape
        w.stop()

    def test_error_on(self):
        w = Worker("--error-on", "1")
        execute_add(w, 5)
        header, _ = w.read_message()
        self.assertEqual((header["type"], header["id"], header["kind"]), ("error", 5, "failure"))
        execute_add(w, 6)
        self.assertEqual(w.read_message()[0]["type"], "result")
        w.stop()

    def test_bad_hello(self):
        w = Worker("--bad-hello")
        self.assertEqual(w.hello["protocol"], 99)
        w.stop()

    def test_no_hello(self):
        w = Worker("--no-hello", hello=False)
        self.assertFalse(w.readable(1.5))
        self.assertIsNone(w.proc.poll())
        w.stop()

    def test_stderr_noise(self):
        w = Worker("--stderr-noise")
        execute_add(w, 1)
        w.read_message()
        w.send({"type": "shutdown"})
        self.assertEqual(w.proc.wait(timeout=20), 0)
        err = w.stop().decode()
        self.assertGreaterEqual(len(err.splitlines()), 4, err)

    def test_state_file_persists_the_counter_across_restarts(self):
        with tempfile.TemporaryDirectory() as d:
            state = os.path.join(d, "count")
            flags = ("--crash-on", "2", "--state", state)
            w = Worker(*flags)
            execute_add(w, 1)
            self.assertEqual(w.read_message()[0]["type"], "result")
            execute_add(w, 2)
            self.assertEqual(w.proc.wait(timeout=20), 3)
            w.stop()
            w = Worker(*flags)  # the restarted worker continues at request 3: no second crash
            execute_add(w, 3)
            self.assertEqual(w.read_message()[0]["type"], "result")
            w.send({"type": "shutdown"})
            self.assertEqual(w.proc.wait(timeout=20), 0)
            w.stop()
            with open(state) as f:
                self.assertEqual(f.read().strip(), "3")

    def test_orphaned_hang_exits(self):
        # a shell parent that exits at once leaves the hanging worker orphaned; it must go away
        code = "%s %s --no-hello </dev/null >/dev/null 2>&1 & echo $!" % (sys.executable, WORKER)
        pid = int(subprocess.check_output(["sh", "-c", code], stdin=subprocess.DEVNULL).decode().strip())
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.2)
        os.kill(pid, 9)
        self.fail("orphaned worker %d still running" % pid)


if __name__ == "__main__":
    unittest.main()
