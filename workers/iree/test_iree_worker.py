"""End-to-end tests of iree_worker.py over the protocol (docs/protocol.md).

Run from the repository root with the project's virtualenv (iree-base-compiler/-runtime):

    .venv/bin/python -m unittest discover -s workers/iree -v
"""

import os
import sys
import unittest

import ml_dtypes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
from worker_client import Worker, binary, decode, stablehlo  # noqa: E402

WORKER = os.path.join(HERE, "iree_worker.py")


def start(*flags):
    return Worker([sys.executable, WORKER, *flags])


class IreeWorkerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.w = start()

    @classmethod
    def tearDownClass(cls):
        cls.w.close()

    def ok(self, module, inputs):
        header, data = self.w.execute(module, inputs)
        self.assertEqual(header["type"], "result", header)
        return [decode(d, f) for d, f in zip(header["outputs"], data)], header

    def test_hello_declares_demoted_f64_and_measured_subnormals(self):
        caps = self.w.hello["capabilities"]
        self.assertEqual(self.w.hello["protocol"], 2)
        self.assertTrue(self.w.hello["version"].startswith("iree-base-compiler 3."))
        self.assertEqual(caps["module_formats"], ["stablehlo"])
        self.assertEqual(caps["f64"], "demoted-to-f32")
        self.assertNotIn("f64", caps["element_types"])
        self.assertNotIn("c128", caps["element_types"])
        self.assertIn(caps["subnormals"], ("flush", "preserve"))
        # Measured at start-up: IREE 3.13's HAL has no element type for these three.
        for t in ("f8e4m3", "f8e3m4", "f8e4m3b11fnuz"):
            self.assertNotIn(t, caps["element_types"])
        for t in ("pred", "s8", "u64", "f16", "bf16", "f32", "c64", "f8e4m3fn", "f8e5m2"):
            self.assertIn(t, caps["element_types"])

    def test_declared_subnormal_mode_matches_behaviour(self):
        a = np.array([2.0**-70], np.float32)
        (out,), _ = self.ok(binary("multiply", "tensor<1xf32>"), [("f32", a, None), ("f32", a, None)])
        flushed = out[0] == 0
        caps = self.w.hello["capabilities"]
        self.assertEqual(caps["subnormals"], "flush" if flushed else "preserve")
        # f16 is computed in f32: 2^-10 * 2^-10 = 2^-20, an f16 subnormal, is kept, and the
        # declared list says which types flush.
        h = np.array([2.0**-10], np.float16)
        (out16,), _ = self.ok(binary("multiply", "tensor<1xf16>"), [("f16", h, None), ("f16", h, None)])
        f16_flushed = out16[0] == 0
        self.assertEqual("f16" in caps.get("subnormals_flushed_in", []), bool(f16_flushed))
        if flushed:
            self.assertIn("f32", caps["subnormals_flushed_in"])

    def test_add_f32_with_a_permuted_input_layout(self):
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        b = np.full((2, 3), 0.5, np.float32)
        (out,), header = self.ok(binary("add", "tensor<2x3xf32>"), [("f32", a, [0, 1]), ("f32", b, None)])
        np.testing.assert_array_equal(out, a + b)
        self.assertIn("execute_micros", header)

    def test_bf16_and_f8_and_pred(self):
        a = np.array([1.5, -2.0, 3.0], ml_dtypes.bfloat16)
        (out,), _ = self.ok(binary("add", "tensor<3xbf16>"), [("bf16", a, None)] * 2)
        np.testing.assert_array_equal(out.astype(np.float32), (a + a).astype(np.float32))
        f8 = np.array([1.0, 0.5], ml_dtypes.float8_e4m3fn)
        (out,), _ = self.ok(binary("multiply", "tensor<2xf8E4M3FN>"), [("f8e4m3fn", f8, None)] * 2)
        self.assertEqual(out.astype(np.float32).tolist(), [1.0, 0.25])
        p = np.array([True, False, True])
        q = np.array([True, True, False])
        (out,), _ = self.ok(binary("and", "tensor<3xi1>"), [("pred", p, None), ("pred", q, None)])
        self.assertEqual(out.tolist(), [True, False, False])

    def test_multiple_results_in_order_and_scalars(self):
        t = "tensor<f32>"
        module = stablehlo([t, t], [t, t], [
            f'%0 = "stablehlo.add"(%arg0, %arg1) : ({t}, {t}) -> {t}',
            f'%1 = "stablehlo.subtract"(%arg0, %arg1) : ({t}, {t}) -> {t}',
            f'"func.return"(%1, %0) : ({t}, {t}) -> ()',
        ])
        (d, s), _ = self.ok(module, [("f32", np.float32(5), None), ("f32", np.float32(2), None)])
        self.assertEqual((float(d), float(s)), (3.0, 7.0))

    def test_f64_module_is_refused_by_the_demoting_configuration(self):
        header, _ = self.w.execute(binary("add", "tensor<2xf64>"), [("f64", np.ones(2), None)] * 2)
        self.assertEqual(header["type"], "error")
        self.assertIn("element type mismatch", header["message"])

    def test_parse_and_verifier_errors_are_invalid(self):
        header, _ = self.w.execute({"stablehlo": "module { this is not mlir }"}, [])
        self.assertEqual((header["type"], header["kind"]), ("error", "invalid"), header)
        t, u = "tensor<2xf32>", "tensor<3xf32>"
        wrong = stablehlo([t, t], [u], [
            f'%0 = "stablehlo.add"(%arg0, %arg1) : ({t}, {t}) -> {u}',
            f'"func.return"(%0) : ({u}) -> ()',
        ])
        header, _ = self.w.execute(wrong, [("f32", np.ones(2, np.float32), None)] * 2)
        self.assertEqual((header["type"], header["kind"]), ("error", "invalid"), header)

    def test_a_valid_module_iree_cannot_lower_is_its_failure_not_invalid(self):
        # IREE 3.13 has no lowering of math.absf for f8 vectors ("failed to legalize").
        header, _ = self.w.execute(stablehlo(["tensor<2xf8E4M3FN>"], ["tensor<2xf8E4M3FN>"], [
            '%0 = "stablehlo.abs"(%arg0) : (tensor<2xf8E4M3FN>) -> tensor<2xf8E4M3FN>',
            '"func.return"(%0) : (tensor<2xf8E4M3FN>) -> ()',
        ]), [("f8e4m3fn", np.ones(2, ml_dtypes.float8_e4m3fn), None)])
        self.assertEqual((header["type"], header["kind"]), ("error", "failure"), header)
        self.assertIn("failed to legalize operation 'math.absf'", header["message"])
        self.assertNotIn("+avx", header["message"])

    def test_an_operation_iree_does_not_lower_at_all_is_unsupported(self):
        t = "tensor<2x2xf32>"
        header, _ = self.w.execute(stablehlo([t], [t], [
            f'%0 = "stablehlo.cholesky"(%arg0) {{lower = true}} : ({t}) -> {t}',
            f'"func.return"(%0) : ({t}) -> ()',
        ]), [("f32", np.eye(2, dtype=np.float32), None)])
        self.assertEqual((header["type"], header["kind"]), ("error", "unsupported"), header)
        self.assertIn("'stablehlo.cholesky'", header["message"])

    def test_a_compiler_crash_is_a_failure_naming_where_it_crashed(self):
        # IREE 3.13 crashes lowering a bitcast_convert of a complex scalar.
        t = "tensor<complex<f32>>"
        header, _ = self.w.execute(stablehlo([t], [t], [
            f'%0 = "stablehlo.bitcast_convert"(%arg0) : ({t}) -> {t}',
            f'"func.return"(%0) : ({t}) -> ()',
        ]), [("c64", np.complex64(1 + 2j), None)])
        self.assertEqual((header["type"], header["kind"]), ("error", "failure"), header)
        self.assertTrue(header["message"].startswith("iree-compile crashed in mlir::FloatType::getWidth()"),
                        header["message"][:300])

    def test_input_mismatch_is_invalid(self):
        header, _ = self.w.execute(binary("add", "tensor<2xf32>"), [("f32", np.ones(3, np.float32), None)] * 2)
        self.assertEqual((header["type"], header["kind"]), ("error", "invalid"), header)
        self.assertIn("parameter 0 is f32[2]", header["message"])
        header, _ = self.w.execute(binary("add", "tensor<2xf32>"), [("f32", np.ones(2, np.float32), None)])
        self.assertEqual(header["kind"], "invalid")

    def test_infeed_and_replicas_are_unsupported(self):
        module = {"stablehlo": 'module { func.func public @main() { %0 = "stablehlo.infeed"() : () -> () } }'}
        header, _ = self.w.execute(module, [])
        self.assertEqual((header["type"], header["kind"]), ("error", "unsupported"), header)
        header, _ = self.w.execute(binary("add", "tensor<1xf32>"), [("f32", np.ones(1, np.float32), None)] * 4,
                                   devices={"replicas": 2, "partitions": 1})
        self.assertEqual(header["kind"], "unsupported")

    def test_the_same_module_twice_is_compiled_once_and_stays_correct(self):
        module = binary("maximum", "tensor<2xi32>")
        for k in range(3):
            a = np.array([k, -k], np.int32)
            (out,), _ = self.ok(module, [("s32", a, None), ("s32", -a, None)])
            np.testing.assert_array_equal(out, np.maximum(a, -a))


class F64Test(unittest.TestCase):
    def test_iree_f64_keeps_f64(self):
        w = start("--f64")
        try:
            caps = w.hello["capabilities"]
            self.assertEqual(caps["f64"], "preserve")
            self.assertIn("f64", caps["element_types"])
            a = np.array([1.0 + 2.0**-40, 3.0])
            header, data = w.execute(binary("add", "tensor<2xf64>"), [("f64", a, None)] * 2)
            self.assertEqual(header["type"], "result", header)
            np.testing.assert_array_equal(decode(header["outputs"][0], data[0]), a + a)
        finally:
            self.assertEqual(w.close(), 0)


class LifecycleTest(unittest.TestCase):
    def test_eof_exits_0_and_stdout_has_only_frames(self):
        w = start()
        w.proc.stdin.close()
        self.assertEqual(w.proc.stdout.read(), b"")
        self.assertEqual(w.proc.wait(timeout=60), 0)
        w.proc.stdout.close()
        w.proc.stderr.close()


if __name__ == "__main__":
    unittest.main()
